//! `eval-bench --base-url URL [--n N] [--concurrency C]`: the evaluation harness's own
//! cost. Builds N scripted cases in memory (`What is A + B?…`, expected `The answer is
//! A+B.`, every tenth expecting a wrong sum so that some fail), judges each with
//! `EqualsExpected`, `Contains: The answer is` and `IsInstance: str`, runs them through
//! `lucid_eval::Runner` with an `AgentSubject` (the `lucid-bench` agent: an OpenAI-compatible
//! model at URL and the `add` tool) against `lucid-mock-server --eval`, and prints one JSON
//! line: cases, concurrency, wall and CPU seconds of the run, peak RSS, pass rate.
//!
//! `--no-agent` answers each case in-process from its prompt (no model, no tool): what is
//! left is the harness alone (the runner, the judges, the report).
//!
//! `eval-bench --print-cases [--n N]` prints the cases instead (`name<TAB>prompt<TAB>expected`),
//! so that `benches/eval_compare.sh` checks that `benches/eval_pydantic.py` runs the same.

use std::sync::Arc;
use std::time::Instant;

use anyhow::{Context, bail};
use futures::FutureExt;
use futures::future::BoxFuture;
use lucid::Agent;
use lucid::model::OpenAiCompatible;
use lucid_bench::{SYSTEM, add};
use lucid_eval::run::{AgentSubject, Outcome, Subject, Trial};
use lucid_eval::{Dataset, Runner};
use serde_json::{Value, json};

/// The prompts' endings, in turn.
const ENDINGS: [&str; 4] = ["", " Use the add tool.", " Answer in one sentence.", " Please show the sum."];

/// Case `i` of the benchmark: its name, prompt and expected answer (the same formula as
/// `benches/eval_pydantic.py`'s).
fn case(i: usize) -> (String, String, String) {
    let a = (i * 37 % 1000) as i64 - 100;
    let b = (i * 91 % 997) as i64;
    let prompt = format!("What is {a} + {b}?{}", ENDINGS[i % ENDINGS.len()]);
    // Every tenth case expects a wrong sum: a harness must fail exactly those.
    let sum = if i % 10 == 9 { a + b + 1 } else { a + b };
    (format!("case-{i:04}"), prompt, format!("The answer is {sum}."))
}

/// `A + B` of a case's prompt `What is A + B?…`.
fn sum_of(prompt: &str) -> Option<i64> {
    let sum = prompt.strip_prefix("What is ")?.split_once('?')?.0;
    let (a, b) = sum.split_once(" + ")?;
    Some(a.parse::<i64>().ok()? + b.parse::<i64>().ok()?)
}

/// `--no-agent`'s subject: the right answer, worked out from the prompt at once.
struct Arithmetic;

impl Subject for Arithmetic {
    fn run<'a>(&'a self, trial: &'a Trial<'a>) -> BoxFuture<'a, Result<Outcome, String>> {
        let answer = trial.case.prompt().and_then(sum_of).ok_or_else(|| "not a sum".to_string());
        futures::future::ready(answer.map(|s| Outcome::answer(format!("The answer is {s}.")))).boxed()
    }
}

/// The N cases with the dataset's three judges.
fn dataset(n: usize) -> anyhow::Result<Dataset> {
    let cases: Vec<Value> = (0..n)
        .map(|i| {
            let (name, inputs, expected) = case(i);
            json!({"name": name, "inputs": inputs, "expected_output": expected})
        })
        .collect();
    let spec = json!({
        "name": "eval-bench",
        "cases": cases,
        "evaluators": ["EqualsExpected", {"Contains": "The answer is"}, {"IsInstance": "str"}],
    });
    Ok(Dataset::from_json(&spec.to_string(), "eval-bench.json")?)
}

/// The command line.
struct Args {
    base_url: Option<String>,
    n: usize,
    concurrency: usize,
    print_cases: bool,
    no_agent: bool,
}

fn parse_args() -> anyhow::Result<Args> {
    let mut args = Args { base_url: None, n: 1000, concurrency: 1, print_cases: false, no_agent: false };
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        let mut value = |name: &str| it.next().with_context(|| format!("{name} needs a value"));
        match a.as_str() {
            "--base-url" => args.base_url = Some(value("--base-url")?),
            "--n" => args.n = value("--n")?.parse().context("--n takes a whole number")?,
            "--concurrency" => {
                args.concurrency = value("--concurrency")?.parse().context("--concurrency takes a whole number")?
            }
            "--print-cases" => args.print_cases = true,
            "--no-agent" => args.no_agent = true,
            other => bail!(
                "unknown argument {other}; usage: eval-bench (--base-url URL | --no-agent) [--n N] [--concurrency C] | --print-cases [--n N]"
            ),
        }
    }
    Ok(args)
}

fn main() -> anyhow::Result<()> {
    let process_start = Instant::now();
    lucid_bench::init_logging();
    let args = parse_args()?;
    if args.print_cases {
        for i in 0..args.n {
            let (name, prompt, expected) = case(i);
            println!("{name}\t{prompt}\t{expected}");
        }
        return Ok(());
    }
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    runtime.block_on(async move {
        let dataset = dataset(args.n)?;
        let subject: Box<dyn Subject> = if args.no_agent {
            Box::new(Arithmetic)
        } else {
            let base_url = args.base_url.context("--base-url is required (lucid-mock-server --eval prints one)")?;
            // One model (one HTTP client) shared by every case's agent, as a user would.
            let model = Arc::new(OpenAiCompatible::new(&base_url, Some("sk-mock".into()), "gpt-4o-mini")?);
            Box::new(AgentSubject::new(move |_trial| {
                Ok(Agent::builder(model.clone()).system(SYSTEM).tool(add).max_iterations(4))
            }))
        };
        let (cpu_before, _) = lucid_bench::rusage();
        let started = Instant::now();
        let report = Runner::new().concurrency(args.concurrency).run(&dataset, &*subject).await;
        let wall_s = started.elapsed().as_secs_f64();
        let (cpu_after, peak_rss_mib) = lucid_bench::rusage();
        let judges: serde_json::Map<String, Value> =
            report.summary.judges.iter().map(|(name, j)| (name.clone(), json!(j.passed))).collect();
        let first_error = report.cases.iter().flat_map(|c| &c.attempts).find_map(|a| a.error.clone());
        let line = json!({
            "harness": "lucid-eval",
            "version": concat!("lucid ", env!("CARGO_PKG_VERSION")),
            "cases": report.summary.cases,
            "concurrency": args.concurrency,
            "agent": !args.no_agent,
            "finished": report.summary.finished,
            "passed": report.summary.passed,
            "pass_rate": report.summary.pass_rate,
            "judges_passed": judges,
            "first_error": first_error,
            "wall_s": wall_s,
            "cpu_s": cpu_after - cpu_before,
            "cpu_total_s": cpu_after,
            "peak_rss_mib": peak_rss_mib,
            "init_s": (started - process_start).as_secs_f64(),
        });
        println!("{line}");
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cases_vary_and_every_tenth_expects_a_wrong_sum() {
        assert_eq!(
            case(0),
            ("case-0000".to_string(), "What is -100 + 0?".to_string(), "The answer is -100.".to_string())
        );
        assert_eq!(case(9).2, "The answer is 1053.", "233 + 819, plus one");
        let d = dataset(1000).unwrap();
        assert_eq!((d.cases.len(), d.evaluators.len()), (1000, 3));
        let prompts: std::collections::HashSet<_> = d.cases.iter().filter_map(|c| c.prompt()).collect();
        assert!(prompts.len() > 900, "{}", prompts.len());
        assert_eq!(sum_of(&case(1).1), Some(28));
        assert!(d.cases.iter().all(|c| c.prompt().and_then(sum_of).is_some()));
    }
}
