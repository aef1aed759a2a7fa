//! The `lucid-bench` contract (`shared/BENCH.md`): arguments, the closed-loop driver,
//! CPU and memory measurement, and the one JSON line of results. Shared by `lucid-bench`
//! (the task through Lucid's `Agent`) and `raw-bench` (the same two HTTP calls by hand).

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use serde_json::json;
use tokio::sync::Mutex;

/// The system prompt of the task.
pub const SYSTEM: &str = "You are a calculator assistant. Use the provided tools.";
/// The user prompt of the task.
pub const PROMPT: &str = "What is 2 + 3? Use the add tool.";
/// The only answer that counts as success.
pub const ANSWER: &str = "The answer is 5.";

// The contract's one tool, `add(a: int, b: int) -> int`, declared with `#[tool]` as a user
// would; `lucid-bench` and `serve-bench` give it to their agents. Its doc comment is the
// description the model sees.
/// Adds two integers.
#[lucid::tool]
pub fn add(
    /// first operand
    a: i64,
    /// second operand
    b: i64,
) -> i64 {
    a + b
}

/// `nonstream` or `stream`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Whole JSON answers.
    NonStream,
    /// SSE answers, with time to first token measured.
    Stream,
}

/// Parsed command line.
#[derive(Debug, Clone)]
pub struct BenchArgs {
    /// OpenAI-style base URL ending in `/v1`.
    pub base_url: String,
    /// Timed tasks.
    pub n: usize,
    /// Tasks in flight.
    pub concurrency: usize,
    /// Streaming or not.
    pub mode: Mode,
    /// Untimed tasks first.
    pub warmup: usize,
}

impl BenchArgs {
    /// Parses `--base-url URL --n N --concurrency C --mode nonstream|stream [--warmup W]`.
    pub fn parse(args: impl Iterator<Item = String>) -> anyhow::Result<Self> {
        let mut base_url = None;
        let mut n = None;
        let mut concurrency = 1usize;
        let mut mode = Mode::NonStream;
        let mut warmup = None;
        let mut it = args.skip(1);
        while let Some(a) = it.next() {
            let mut value = |name: &str| it.next().with_context(|| format!("{name} needs a value"));
            match a.as_str() {
                "--base-url" => base_url = Some(value("--base-url")?),
                "--n" => n = Some(value("--n")?.parse().context("--n takes a whole number")?),
                "--concurrency" => {
                    concurrency = value("--concurrency")?.parse().context("--concurrency takes a whole number")?
                }
                "--warmup" => warmup = Some(value("--warmup")?.parse().context("--warmup takes a whole number")?),
                "--mode" => {
                    mode = match value("--mode")?.as_str() {
                        "nonstream" => Mode::NonStream,
                        "stream" => Mode::Stream,
                        other => bail!("--mode is nonstream or stream, not {other}"),
                    }
                }
                "--help" | "-h" => {
                    bail!("usage: --base-url URL --n N --concurrency C --mode nonstream|stream [--warmup W]")
                }
                other => bail!("unknown argument {other}"),
            }
        }
        let n: usize = n.context("--n is required")?;
        let concurrency = concurrency.max(1);
        let warmup = warmup.unwrap_or_else(|| (n / 20).clamp(10, 200).max(concurrency));
        Ok(BenchArgs { base_url: base_url.context("--base-url is required")?, n, concurrency, mode, warmup })
    }
}

/// What one task produced.
#[derive(Debug)]
pub struct TaskOutcome {
    /// The final answer text.
    pub answer: String,
    /// Time to the first text of the final answer (stream mode).
    pub ttft: Option<Duration>,
}

#[derive(Default)]
struct Tally {
    ok: usize,
    errors: usize,
    first_error: Option<String>,
    latencies: Vec<f64>,
    ttfts: Vec<f64>,
}

/// CPU seconds (user + system) used by this process so far, and its peak RSS in MiB.
pub fn rusage() -> (f64, f64) {
    // SAFETY: getrusage writes into the zeroed struct we own; RUSAGE_SELF is always valid.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) };
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    (secs(ru.ru_utime) + secs(ru.ru_stime), ru.ru_maxrss as f64 / 1024.0)
}

fn percentile(sorted: &[f64], p: f64) -> Option<f64> {
    if sorted.is_empty() {
        return None;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil().max(1.0) as usize;
    Some(sorted[rank.min(sorted.len()) - 1])
}

fn mean(v: &[f64]) -> Option<f64> {
    (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
}

/// Runs `count` tasks, `concurrency` at a time in a closed loop, recording outcomes.
async fn drive<F, Fut>(count: usize, concurrency: usize, task: Arc<F>, tally: Arc<Mutex<Tally>>)
where
    F: Fn() -> Fut + Send + Sync + 'static,
    Fut: Future<Output = anyhow::Result<TaskOutcome>> + Send,
{
    let next = Arc::new(AtomicUsize::new(0));
    let workers: Vec<_> = (0..concurrency.min(count.max(1)))
        .map(|_| {
            let (next, task, tally) = (next.clone(), task.clone(), tally.clone());
            tokio::spawn(async move {
                while next.fetch_add(1, Ordering::Relaxed) < count {
                    let started = Instant::now();
                    let outcome = task().await;
                    let elapsed = started.elapsed().as_secs_f64() * 1000.0;
                    let mut t = tally.lock().await;
                    match outcome {
                        Ok(o) if o.answer == ANSWER => {
                            t.ok += 1;
                            t.latencies.push(elapsed);
                            if let Some(d) = o.ttft {
                                t.ttfts.push(d.as_secs_f64() * 1000.0);
                            }
                        }
                        Ok(o) => {
                            t.errors += 1;
                            t.first_error.get_or_insert_with(|| format!("unexpected answer: {:?}", o.answer));
                        }
                        Err(e) => {
                            t.errors += 1;
                            t.first_error.get_or_insert_with(|| format!("{e:#}"));
                        }
                    }
                }
            })
        })
        .collect();
    for w in workers {
        let _ = w.await;
    }
}

/// Runs the warm-up and the timed phase, and prints the result line.
pub async fn bench<F, Fut>(
    client: &str,
    version: &str,
    args: &BenchArgs,
    process_start: Instant,
    task: F,
) -> anyhow::Result<()>
where
    F: Fn() -> Fut + Send + Sync + 'static,
    Fut: Future<Output = anyhow::Result<TaskOutcome>> + Send,
{
    let task = Arc::new(task);
    let init_s = process_start.elapsed().as_secs_f64();
    let warm = Arc::new(Mutex::new(Tally::default()));
    drive(args.warmup, args.concurrency, task.clone(), warm.clone()).await;
    if let Some(e) = &warm.lock().await.first_error {
        tracing::warn!(error = %e, "a warm-up task failed");
    }
    let tally = Arc::new(Mutex::new(Tally::default()));
    let (cpu0, _) = rusage();
    let started = Instant::now();
    drive(args.n, args.concurrency, task, tally.clone()).await;
    let wall_s = started.elapsed().as_secs_f64();
    let (cpu1, peak_rss_mib) = rusage();
    let mut t = tally.lock().await;
    t.latencies.sort_by(f64::total_cmp);
    t.ttfts.sort_by(f64::total_cmp);
    let stream = args.mode == Mode::Stream;
    let line = json!({
        "client": client,
        "framework_version": version,
        "mode": if stream { "stream" } else { "nonstream" },
        "n": args.n,
        "concurrency": args.concurrency,
        "warmup": args.warmup,
        "ok": t.ok,
        "errors": t.errors,
        "first_error": t.first_error,
        "wall_s": wall_s,
        "tasks_per_s": if wall_s > 0.0 { t.ok as f64 / wall_s } else { 0.0 },
        "lat_mean_ms": mean(&t.latencies),
        "lat_p50_ms": percentile(&t.latencies, 50.0),
        "lat_p99_ms": percentile(&t.latencies, 99.0),
        "ttft_mean_ms": if stream { mean(&t.ttfts) } else { None },
        "ttft_p50_ms": if stream { percentile(&t.ttfts, 50.0) } else { None },
        "ttft_p99_ms": if stream { percentile(&t.ttfts, 99.0) } else { None },
        "cpu_s": cpu1 - cpu0,
        "peak_rss_mib": peak_rss_mib,
        "init_s": init_s,
    });
    println!("{line}");
    Ok(())
}

/// Logging on stderr only, as the contract requires; a warning there when the benchmark
/// was built at an opt-level other than 3 (the size-first `release` profile).
pub fn init_logging() {
    use tracing_subscriber::layer::SubscriberExt;
    use tracing_subscriber::util::SubscriberInitExt;
    let filter: tracing_subscriber::filter::Targets = std::env::var("LUCID_LOG")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| "warn".parse().unwrap_or_default());
    tracing_subscriber::registry()
        .with(tracing_subscriber::fmt::layer().with_writer(std::io::stderr))
        .with(filter)
        .init();
    let level = env!("LUCID_BENCH_OPT_LEVEL");
    if level != "3" {
        tracing::warn!(
            "built at opt-level {level}: the figures are not those of an application built for \
             speed; build with `cargo build --profile speed -p lucid-bench`"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_percentiles() {
        let v: Vec<f64> = (1..=100).map(f64::from).collect();
        assert_eq!(percentile(&v, 50.0), Some(50.0));
        assert_eq!(percentile(&v, 99.0), Some(99.0));
        assert_eq!(percentile(&[7.0], 99.0), Some(7.0));
        assert_eq!(percentile(&[], 50.0), None);
    }

    #[test]
    fn default_warmup_follows_the_contract() {
        let parse = |s: &str| BenchArgs::parse(s.split(' ').map(String::from)).unwrap();
        assert_eq!(parse("b --base-url u --n 100 --concurrency 1").warmup, 10);
        assert_eq!(parse("b --base-url u --n 10000 --concurrency 1").warmup, 200);
        assert_eq!(parse("b --base-url u --n 1000 --concurrency 100").warmup, 100);
        assert_eq!(parse("b --base-url u --n 1000 --concurrency 100 --mode stream --warmup 3").warmup, 3);
    }
}
