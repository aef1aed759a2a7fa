//! Agents that work target by target (the shipped `unit-tests`): `lucid run --agent
//! unit-tests [PATH] --coverage 80`.
//!
//! A driver rather than a workflow's `foreach`: between targets it measures the coverage
//! gained, stops as soon as the goal is reached or the token budget is spent, and carries
//! a one-line summary of each finished target into the next one's prompt; a `foreach`
//! goes over a list fixed before it starts, with no state from one item to the next.
//!
//! Each target runs in a new conversation of the same agent ([`lucid::Agent::run`] starts
//! one), so the context is cleared between targets and only the summary goes on. The
//! agent's `run_tests` is bounded per target: after the first run and `max_repairs` more,
//! it refuses, and the model is told to report.
//!
//! The goal is judged on the coverage of the source files under the given path, every one
//! of them (the `coverage` tool lists files no test imports at 0%), and the next target is
//! always the least covered file below the goal not yet worked on. Exit codes:
//! [`EXIT_REACHED`] (0) the goal reached with no test left failing, [`EXIT_STOPPED`] (3)
//! stopped by `--max-targets` or `--budget-tokens` first, [`EXIT_FAILED`] (1) tests still
//! failing, the goal missed with no target left, or coverage not measured.

use std::collections::HashSet;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use lucid::tool::{Tool, ToolContext, ToolError, ToolSpec};
use serde::Deserialize;
use serde_json::{Value, json};

pub use crate::agent_args::TargetArgs;
use crate::config::{AgentSettings, ConfigError, ModelConfig};

/// The exit code of a run that reached its coverage goal with no test failing.
pub const EXIT_REACHED: i32 = 0;
/// The exit code of a run that tests still fail in, or that missed its goal with no
/// target left (or could not measure coverage).
pub const EXIT_FAILED: i32 = 1;
/// The exit code of a run stopped by `--max-targets` or `--budget-tokens` before its goal.
pub const EXIT_STOPPED: i32 = 3;

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outcome {
    Reached,
    Stopped,
    Failed,
}

impl Outcome {
    fn code(self) -> i32 {
        match self {
            Outcome::Reached => EXIT_REACHED,
            Outcome::Stopped => EXIT_STOPPED,
            Outcome::Failed => EXIT_FAILED,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Outcome::Reached => "reached",
            Outcome::Stopped => "stopped",
            Outcome::Failed => "failed",
        }
    }
}

/// `[targets]` of an agent file: the agent works target by target.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TargetsSection {
    /// The coverage goal in percent (default 80).
    pub goal: Option<f64>,
    /// The most targets (default 20).
    pub max_targets: Option<usize>,
    /// The most repairs per target (default 3).
    pub max_repairs: Option<usize>,
}

/// What became of one target.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct TargetReport {
    pub target: String,
    /// Test files written or edited.
    pub test_files: Vec<String>,
    /// Tests the last run counted as passed, and failed.
    pub passing: u64,
    pub failing: u64,
    /// Test runs after the first.
    pub repairs: usize,
    /// The target file's line coverage before and after, in percent, where measured.
    pub coverage_before: Option<f64>,
    pub coverage_after: Option<f64>,
    /// The target file's branch coverage before and after, in percent, where the tool
    /// counts branches.
    pub branch_coverage_before: Option<f64>,
    pub branch_coverage_after: Option<f64>,
    /// The model's own closing words.
    pub answer: String,
}

/// `run_tests` with a per-target limit on its runs.
struct Bounded {
    inner: Arc<dyn Tool>,
    runs: Arc<AtomicUsize>,
    most: usize,
}

impl Tool for Bounded {
    fn spec(&self) -> &ToolSpec {
        self.inner.spec()
    }

    fn invoke<'a>(
        &'a self,
        args: Value,
        ctx: ToolContext,
    ) -> futures::future::BoxFuture<'a, Result<String, ToolError>> {
        let n = self.runs.fetch_add(1, Ordering::SeqCst);
        if n >= self.most {
            return Box::pin(async move {
                Err(ToolError::new(format!(
                    "the repairs of this target are spent ({} test runs); stop, leave failing tests out, and report",
                    self.most
                )))
            });
        }
        self.inner.invoke(args, ctx)
    }
}

/// The coverage answer of the project (`file`: with that file's figures), or why it could
/// not be measured.
async fn coverage(tool: Option<&Arc<dyn Tool>>, run: bool, file: Option<&str>) -> Result<Value, String> {
    let tool = tool.ok_or("the agent has no `coverage` tool")?;
    let mut args = json!({"run": run});
    if let Some(f) = file {
        args["file"] = f.into();
    }
    match tool.invoke(args, ToolContext::default()).await {
        Ok(text) => serde_json::from_str(&text).map_err(|e| format!("the coverage answer: {e}")),
        Err(e) => {
            // Said once by the driver (standard error and the report), not per measurement.
            tracing::debug!("coverage not measured: {}", e.message());
            Err(e.message().to_string())
        }
    }
}

/// Whether the project file `file` is under the run's `path` (`.`: all of them).
fn is_under(path: &str, file: &str) -> bool {
    let path = path.trim_start_matches("./").trim_end_matches('/');
    path.is_empty() || path == "." || Path::new(file.trim_start_matches("./")).starts_with(path)
}

/// The line coverage of the source files under `path`, in percent: the project's total for
/// `.`, else summed over the files listed under it; `None` when nothing there is measured.
fn total(answer: &Value, path: &str) -> Option<f64> {
    if is_under(path, "") {
        return percent(&answer["total"]);
    }
    let (lines, covered) = answer["files"]
        .as_array()?
        .iter()
        .filter(|f| f["path"].as_str().is_some_and(|p| is_under(path, p)))
        .fold((0, 0), |(l, c), f| (l + f["lines"].as_u64().unwrap_or(0), c + f["covered"].as_u64().unwrap_or(0)));
    (lines > 0).then(|| (covered as f64 * 1000.0 / lines as f64).round() / 10.0)
}

fn percent(v: &Value) -> Option<f64> {
    v["percent"].as_f64()
}

/// The file's percent in a project answer's list.
fn file_percent(answer: &Value, file: &str) -> Option<f64> {
    file_entry(answer, file).and_then(percent)
}

/// The file's branch percent in a project answer's list, where branches are counted.
fn file_branch_percent(answer: &Value, file: &str) -> Option<f64> {
    file_entry(answer, file).and_then(|f| percent(&f["branches"]))
}

/// The branch coverage of the source files under `path`, in percent (as [`total`]);
/// `None` where the tool counts no branches.
fn branch_total(answer: &Value, path: &str) -> Option<f64> {
    if is_under(path, "") {
        return percent(&answer["total"]["branches"]);
    }
    let (n, covered) = answer["files"]
        .as_array()?
        .iter()
        .filter(|f| f["path"].as_str().is_some_and(|p| is_under(path, p)))
        .filter_map(|f| Some((f["branches"]["total"].as_u64()?, f["branches"]["covered"].as_u64()?)))
        .fold((0, 0), |(n, c), (bn, bc)| (n + bn, c + bc));
    (n > 0).then(|| (covered as f64 * 1000.0 / n as f64).round() / 10.0)
}

fn file_entry<'a>(answer: &'a Value, file: &str) -> Option<&'a Value> {
    answer["files"].as_array()?.iter().find(|f| f["path"] == file)
}

/// The targets under `path`: the least covered files first where a coverage answer lists
/// them (those below `goal`), else the source files found there.
fn targets(path: &str, answer: Option<&Value>, goal: f64) -> Vec<String> {
    let root = Path::new(path);
    if root.is_file() {
        return vec![path.trim_start_matches("./").to_string()];
    }
    let under = |p: &str| is_under(path, p);
    if let Some(files) = answer.and_then(|a| a["files"].as_array()) {
        return files
            .iter()
            .filter(|f| percent(f).is_some_and(|p| p < goal) && f["lines"].as_u64().unwrap_or(0) > 0)
            .filter_map(|f| f["path"].as_str().map(str::to_string))
            .filter(|p| under(p))
            .collect();
    }
    let mut found = Vec::new();
    walk(root, &mut found);
    found.sort();
    found
}

/// Source files under `dir`, leaving out tests, build output and hidden folders.
fn walk(dir: &Path, out: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let p = e.path();
        let name = e.file_name().to_string_lossy().into_owned();
        if name.starts_with('.')
            || ["target", "node_modules", "build", "dist", "tests", "test", "__pycache__"].contains(&name.as_str())
        {
            continue;
        }
        if p.is_dir() {
            walk(&p, out);
        } else if ["rs", "py", "js", "ts", "java", "go"].iter().any(|x| p.extension().is_some_and(|e| e == *x))
            && !(name.starts_with("test_")
                || name.contains("_test.")
                || name.contains(".test.")
                || name.contains(".spec."))
        {
            out.push(p.strip_prefix("./").unwrap_or(&p).display().to_string());
        }
    }
}

/// Reads what one target's run did from its tool calls.
fn report(target: &str, result: &lucid::AgentResult) -> TargetReport {
    let mut test_files: Vec<String> = Vec::new();
    let mut runs: Vec<Value> = Vec::new();
    for call in &result.tool_calls {
        match call.name.as_str() {
            "write_file" | "edit_file" if !call.is_error => {
                if let Some(p) = call.arguments["path"].as_str()
                    && !test_files.iter().any(|f| f == p)
                {
                    test_files.push(p.to_string());
                }
            }
            "run_tests" if !call.is_error => {
                runs.push(call.output.as_deref().and_then(|o| serde_json::from_str(o).ok()).unwrap_or(Value::Null));
            }
            _ => {}
        }
    }
    let last = runs.last().cloned().unwrap_or(Value::Null);
    TargetReport {
        target: target.to_string(),
        test_files,
        passing: last["passed"].as_u64().unwrap_or(0),
        failing: last["failed"].as_u64().unwrap_or(0),
        repairs: runs.len().saturating_sub(1),
        coverage_before: None,
        coverage_after: None,
        branch_coverage_before: None,
        branch_coverage_after: None,
        answer: result.content.trim().to_string(),
    }
}

/// `coverage goal reached (X% ≥ Y%)` when the coverage under `path` is at the goal.
fn reached(project: Option<&Value>, path: &str, goal: f64) -> Option<String> {
    let total = project.and_then(|a| total(a, path)).filter(|t| *t >= goal)?;
    Some(format!("coverage goal reached ({total:.1}% ≥ {goal}%)"))
}

fn shown(p: Option<f64>) -> String {
    p.map_or_else(|| "?".into(), |p| format!("{p:.1}%"))
}

/// Works target by target and prints the report; returns the exit code.
pub async fn run(
    path: &str,
    json_out: bool,
    flags: &TargetArgs,
    file: &TargetsSection,
    cfg: &ModelConfig,
    mut settings: AgentSettings,
) -> anyhow::Result<i32> {
    let goal = flags.coverage.or(file.goal).unwrap_or(80.0);
    if !(0.0..=100.0).contains(&goal) {
        return Err(ConfigError(format!("--coverage {goal} is not a percentage")).into());
    }
    let max_targets = flags.max_targets.or(file.max_targets).unwrap_or(20);
    let max_repairs = flags.max_repairs.or(file.max_repairs).unwrap_or(3);
    // The driver measures coverage itself; `run_tests` is handed in bounded.
    let built = crate::tools::build(&settings, None)?;
    let find = |name: &str| built.iter().find(|t| t.spec().name() == name).cloned();
    let coverage_tool = find("coverage");
    let runs = Arc::new(AtomicUsize::new(0));
    let mut extra: Vec<Arc<dyn Tool>> = Vec::new();
    if let Some(inner) = find("run_tests") {
        settings.tools.retain(|t| t != "run_tests");
        extra.push(Arc::new(Bounded { inner, runs: Arc::clone(&runs), most: max_repairs + 1 }));
    }
    let agent = crate::agent::builder(cfg, &settings, crate::agent::People::default(), &extra).await?.build();

    let measured = coverage(coverage_tool.as_ref(), true, None).await;
    // A tool that is missing is said once, by the framework, before any model call.
    let mut coverage_error = measured.as_ref().err().cloned();
    if let Some(e) = &coverage_error {
        eprintln!("lucid: coverage not measured: {e}");
    }
    let mut project = measured.ok();
    let start_total = project.as_ref().and_then(|a| total(a, path));
    let start_branches = project.as_ref().and_then(|a| branch_total(a, path));
    let mut done: Vec<TargetReport> = Vec::new();
    let mut tried: HashSet<String> = HashSet::new();
    let mut tokens = 0u64;
    let mut stop = None;
    loop {
        if reached(project.as_ref(), path, goal).is_some() {
            break;
        }
        // The least covered file below the goal not worked on yet, from the latest figures.
        let Some(target) = targets(path, project.as_ref(), goal).into_iter().find(|t| !tried.contains(t)) else {
            break;
        };
        if done.len() >= max_targets {
            stop = Some("--max-targets reached");
            break;
        }
        if flags.budget_tokens.is_some_and(|b| tokens >= b) {
            stop = Some("token budget spent");
            break;
        }
        tried.insert(target.clone());
        let before = project.as_ref().and_then(|a| file_percent(a, &target));
        let branches_before = project.as_ref().and_then(|a| file_branch_percent(a, &target));
        let uncovered = if before.is_some() {
            coverage(coverage_tool.as_ref(), false, Some(&target)).await.ok().map(|a| a["file"]["uncovered"].clone())
        } else {
            None
        };
        let summary: String = done
            .iter()
            .map(|r| {
                format!(
                    "- {}: tests in {}, {} passing, {} repairs, coverage {} -> {}\n",
                    r.target,
                    r.test_files.join(", "),
                    r.passing,
                    r.repairs,
                    shown(r.coverage_before),
                    shown(r.coverage_after)
                )
            })
            .collect();
        let prompt = format!(
            "Target: {target}\nIts line coverage now: {}{}\nAt most {max_repairs} repairs (test runs after the first).\n\
             Targets done before (their conversations are closed):\n{}\nWrite, run and repair the tests of this target, then report.",
            shown(before),
            uncovered.map(|u| format!("; lines no test runs: {u}")).unwrap_or_default(),
            if summary.is_empty() { "- none\n".to_string() } else { summary },
        );
        runs.store(0, Ordering::SeqCst);
        eprintln!("lucid: target {target} (coverage {})", shown(before));
        let result = agent.run(prompt).await?;
        tokens += result.usage.input_tokens + result.usage.output_tokens;
        let mut r = report(&target, &result);
        match coverage(coverage_tool.as_ref(), true, None).await {
            Ok(answer) => (project, coverage_error) = (Some(answer), None),
            Err(e) => {
                if coverage_error.as_ref() != Some(&e) {
                    eprintln!("lucid: coverage not measured: {e}");
                }
                coverage_error = Some(e);
            }
        }
        r.coverage_before = before;
        r.coverage_after = project.as_ref().and_then(|a| file_percent(a, &target));
        r.branch_coverage_before = branches_before;
        r.branch_coverage_after = project.as_ref().and_then(|a| file_branch_percent(a, &target));
        done.push(r);
    }
    let end_total = project.as_ref().and_then(|a| total(a, path));
    let end_branches = project.as_ref().and_then(|a| branch_total(a, path));
    let goal_reached = reached(project.as_ref(), path, goal);
    let failing: u64 = done.iter().map(|r| r.failing).sum();
    let outcome = match (&stop, &goal_reached) {
        _ if failing > 0 => Outcome::Failed,
        (Some(_), _) => Outcome::Stopped,
        (None, Some(_)) => Outcome::Reached,
        (None, None) => Outcome::Failed,
    };
    // The goal, once reached, is why the run stopped, even after the last target.
    let stop = match (stop, goal_reached) {
        (Some(why), _) => why.to_string(),
        (None, Some(why)) => why,
        (None, None) => "no target left".to_string(),
    };
    if json_out {
        let v = json!({
            "targets": done,
            "coverage_before": start_total,
            "coverage_after": end_total,
            "branch_coverage_before": start_branches,
            "branch_coverage_after": end_branches,
            "goal": goal,
            "stopped": stop,
            "outcome": outcome.name(),
            "failing": failing,
            "coverage_error": coverage_error,
            "tokens": tokens,
        });
        println!("{v}");
    } else {
        println!("{:<32} {:>6} {:>8} {:>8} {:>9} {:>9}", "target", "files", "passing", "repairs", "before", "after");
        for r in &done {
            println!(
                "{:<32} {:>6} {:>8} {:>8} {:>9} {:>9}",
                r.target,
                r.test_files.len(),
                r.passing,
                r.repairs,
                shown(r.coverage_before),
                shown(r.coverage_after)
            );
        }
        let branches = if start_branches.is_some() || end_branches.is_some() {
            format!("; branches {} -> {}", shown(start_branches), shown(end_branches))
        } else {
            String::new()
        };
        println!("coverage {} -> {} (goal {goal}%){branches}; stopped: {stop}", shown(start_total), shown(end_total));
        match outcome {
            Outcome::Reached => {}
            Outcome::Stopped => println!("goal not reached: stopped by a limit (exit {EXIT_STOPPED})"),
            Outcome::Failed if failing > 0 => println!("{failing} test(s) still failing (exit {EXIT_FAILED})"),
            Outcome::Failed => println!("goal not reached (exit {EXIT_FAILED})"),
        }
    }
    Ok(outcome.code())
}
