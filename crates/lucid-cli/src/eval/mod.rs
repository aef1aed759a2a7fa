//! `lucid eval`: runs a dataset against the configured agent (live, recording cassettes,
//! or replaying them offline), prints the report's table, writes it as JSON, JUnit XML or
//! HTML, and holds it against a baseline (the regression gate).

mod agents;
mod judges;
mod progress;

use std::io::IsTerminal;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context as _;
use futures::FutureExt;
use futures::future::BoxFuture;
use lucid::agent::budget::Limits;
use lucid_eval::cassette::{CassetteServer, Mode};
use lucid_eval::report::compare;
use lucid_eval::run::{Outcome, Runner, Subject, Trial, run_agent};
use lucid_eval::{Dataset, Report};
use tokio_util::sync::CancellationToken;

use crate::args::{EvalAction, EvalRunArgs, ToolDefaults};
use crate::config::file::FileConfig;
use crate::config::{self, AgentSettings, ConfigError, ModelConfig};

/// Runs `lucid eval …` and returns the exit code.
pub async fn run(action: EvalAction, file: FileConfig) -> anyhow::Result<i32> {
    match action {
        EvalAction::Run(args) => run_dataset(args, file).await,
        EvalAction::Report { report, junit, html } => {
            let report = Report::from_file(&report)?;
            write_renders(&report, None, junit.as_deref(), html.as_deref())?;
            if junit.is_none() && html.is_none() {
                print!("{}", report.to_table(std::io::stdout().is_terminal()));
            }
            Ok(0)
        }
        EvalAction::Compare { report, baseline, threshold, json } => {
            let now = Report::from_file(&report)?;
            let then = Report::from_file(&baseline)?;
            let c = compare(&now, &then, threshold);
            if json {
                println!("{}", serde_json::to_string_pretty(&c)?);
            } else {
                print!("{}", c.to_table());
            }
            Ok(i32::from(c.regressed()))
        }
    }
}

/// The configured agent, built afresh for each attempt: the case's own agent when it names
/// one, working in the attempt's folder on its copy of the database when the case has
/// them; its provider points at the attempt's tape when a cassette is in use.
struct ConfiguredAgent {
    cfg: ModelConfig,
    settings: AgentSettings,
    /// The cases' agents, by [`agents::key`].
    by_case: std::collections::BTreeMap<String, AgentSettings>,
}

impl ConfiguredAgent {
    /// The settings of `trial`'s agent, in its folder.
    fn settings(&self, trial: &Trial<'_>) -> AgentSettings {
        let mut settings =
            trial.agent.and_then(|a| self.by_case.get(&agents::key(a))).unwrap_or(&self.settings).clone();
        if let Some(dir) = trial.workdir {
            settings.root = Some(dir.to_path_buf());
            // Versions of the attempt's database stay with the attempt, beside its project
            // (out of the agent's reach), not in the user's store.
            if let Some(outside) = dir.parent() {
                settings.store = Some(outside.join("history.db").to_string_lossy().into_owned());
                settings.db_project = None;
            }
        }
        if let Some(db) = trial.database {
            settings.db = Some(db.to_string_lossy().into_owned());
        }
        settings
    }
}

impl Subject for ConfiguredAgent {
    fn run<'a>(&'a self, trial: &'a Trial<'a>) -> BoxFuture<'a, Result<Outcome, String>> {
        async move {
            let mut cfg = self.cfg.clone();
            if let Some(url) = &trial.base_url {
                cfg.base_url.clone_from(url);
            }
            let settings = self.settings(trial);
            let builder = crate::agent::builder(&cfg, &settings, crate::agent::People::default(), &[])
                .await
                .map_err(|e| format!("{e:#}"))?;
            run_agent(builder, trial).await
        }
        .boxed()
    }
}

async fn run_dataset(args: EvalRunArgs, file: FileConfig) -> anyhow::Result<i32> {
    let mut dataset = match Dataset::from_file(&args.dataset) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("lucid: {e}");
            return Ok(2);
        }
    };
    if !args.tag.is_empty() {
        dataset.cases.retain(|c| c.tags.iter().any(|t| args.tag.contains(t)));
        if dataset.cases.is_empty() {
            return Err(
                ConfigError(format!("no case of {} has the tags {:?}", args.dataset.display(), args.tag)).into()
            );
        }
    }
    if dataset.name.is_none() {
        dataset.name = args.dataset.file_stem().map(|s| s.to_string_lossy().into_owned());
    }
    let (run_file, _) = crate::agents::apply(args.agent.named.as_deref(), file.clone())?;
    let mut cfg = config::resolve(&args.model, &run_file.settings).await?;
    let settings = config::agent_settings(&args.agent, &run_file.settings, ToolDefaults::Run)?;
    let by_case = agents::resolve(&dataset, &args.agent, &file, &run_file)?;
    trusted(&dataset, &settings, &by_case, args.agent.trust)?;
    let file = run_file;
    let mode = match (&args.record, &args.replay) {
        (Some(dir), _) => Some(Mode::Record { dir: dir.clone(), upstream: cfg.base_url.clone() }),
        (None, Some(dir)) => Some(Mode::Replay { dir: dir.clone() }),
        (None, None) => None,
    };
    if mode.is_some() {
        if cfg.record.is_none() {
            return Err(ConfigError(
                "the in-process model (provider `local`) makes no HTTP exchanges: --record and --replay need a provider reached over HTTP".into(),
            )
            .into());
        }
        // Every exchange goes through the attempt's tape: a backup on another base URL
        // would go around it.
        if !cfg.fallback.is_empty() {
            tracing::warn!("the fallback models are not used with --record or --replay");
            cfg.fallback.clear();
        }
    }
    let cancel = CancellationToken::new();
    let interrupted = cancel.clone();
    let on_ctrl_c = cancel.clone();
    tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            eprintln!("\nlucid: interrupted: stopping the run and reporting what finished");
            on_ctrl_c.cancel();
        }
    });
    let mut run_limits = Limits::default();
    run_limits.max_cost = args.run_max_cost;
    run_limits.max_total_tokens = args.run_max_tokens;
    let mut runner =
        Runner::new().repeats(args.repeats).concurrency(args.concurrency).run_limits(run_limits).cancel_on(cancel);
    if let Some(secs) = args.case_timeout {
        runner = runner.case_time(
            Duration::try_from_secs_f64(secs)
                .map_err(|_| ConfigError(format!("--case-timeout {secs}: give a positive number of seconds")))?,
        );
    }
    if let Some(mode) = mode {
        runner = runner.cassette(Arc::new(CassetteServer::start(mode).await?));
    }
    runner = runner.judge_models(Arc::new(judges::resolve(&dataset, &cfg, &file).await?));
    let mut prices = lucid::model::prices::Prices::default();
    for (model, price) in &settings.prices {
        prices = prices.set(model.clone(), *price);
    }
    runner = runner.prices(prices);
    let total = dataset.cases.len() * args.repeats.max(1) as usize;
    let bar = progress::Bar::new(total, std::io::stderr().is_terminal());
    runner = runner.on_progress(move |p| bar.show(p));
    let model = format!("{}:{}", cfg.provider, cfg.model);
    tracing::info!(dataset = %args.dataset.display(), model, cases = dataset.cases.len(), "evaluating");
    let subject = ConfiguredAgent { cfg, settings, by_case };
    let mut report = runner.run(&dataset, &subject).await;
    report.agent = args.agent.named.clone();
    report.model = Some(model);
    print!("{}", report.to_table(std::io::stdout().is_terminal()));
    write_renders(&report, args.json.as_deref(), args.junit.as_deref(), args.html.as_deref())?;
    let mut code = 0;
    if let Some(path) = &args.baseline {
        let baseline = Report::from_file(path)?;
        let c = compare(&report, &baseline, args.threshold);
        print!("{}", c.to_table());
        if c.regressed() {
            eprintln!("lucid: a score fell more than {} against {}", args.threshold, path.display());
            code = 1;
        }
    }
    if let Some(min) = args.fail_under
        && report.summary.pass_rate < min
    {
        eprintln!("lucid: the pass rate {:.3} is under {min}", report.summary.pass_rate);
        code = 1;
    }
    if report.interrupted && !interrupted.is_cancelled() {
        eprintln!("lucid: the run's budget was spent: the cases not run are reported so");
    }
    Ok(if interrupted.is_cancelled() { 130 } else { code })
}

/// Makes sure the project code the cases' agents may run is trusted (`--trust`, or asked):
/// the dataset's folder, where the cases' projects are copied from, and the current
/// directory, where an agent of a case without a project works.
fn trusted(
    dataset: &Dataset,
    settings: &AgentSettings,
    by_case: &std::collections::BTreeMap<String, AgentSettings>,
    trust: bool,
) -> anyhow::Result<()> {
    let runs_code = |case: &lucid_eval::Case| {
        let spec = case.agent.as_ref().or(dataset.agent.as_ref());
        crate::trust::runs_project_code(spec.and_then(|s| by_case.get(&agents::key(s))).unwrap_or(settings))
    };
    if dataset.cases.iter().any(|c| c.project.is_some() && runs_code(c)) {
        let folder = dataset.folder.clone().filter(|f| !f.as_os_str().is_empty());
        crate::trust::ensure(&folder.map_or_else(std::env::current_dir, Ok)?, trust)?;
    }
    if dataset.cases.iter().any(|c| c.project.is_none() && runs_code(c)) {
        crate::trust::ensure(&std::env::current_dir()?, trust)?;
    }
    Ok(())
}

/// Writes the report in the forms asked for.
fn write_renders(
    report: &Report,
    json: Option<&Path>,
    junit: Option<&Path>,
    html: Option<&Path>,
) -> anyhow::Result<()> {
    if let Some(path) = json {
        report.write(path)?;
    }
    if let Some(path) = junit {
        std::fs::write(path, report.to_junit()).with_context(|| format!("writing {}", path.display()))?;
    }
    if let Some(path) = html {
        std::fs::write(path, report.to_html()).with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(())
}
