//! `lucid-bench`: the standard agent task through Lucid's public `Agent` API, N times,
//! printing one JSON line (see `shared/BENCH.md`).

use std::time::Instant;

use futures::StreamExt;
use lucid::model::OpenAiCompatible;
use lucid::prelude::*;
use lucid_bench::{BenchArgs, Mode, PROMPT, SYSTEM, TaskOutcome, add, bench};

/// A hook at every point that changes nothing.
struct NoOp;

impl Hook for NoOp {}

fn main() -> anyhow::Result<()> {
    let process_start = Instant::now();
    lucid_bench::init_logging();
    let args = BenchArgs::parse(std::env::args())?;
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    runtime.block_on(async move {
        let model = OpenAiCompatible::new(&args.base_url, Some("sk-mock".into()), "gpt-4o-mini")?;
        let mut builder = Agent::builder(model).system(SYSTEM).tool(add).max_iterations(4);
        // What hooks cost: LUCID_BENCH_HOOKS=N attaches N hooks that do nothing (the
        // contract's figures are taken with none).
        let hooks: usize = std::env::var("LUCID_BENCH_HOOKS").ok().and_then(|n| n.parse().ok()).unwrap_or(0);
        for _ in 0..hooks {
            builder = builder.hook(NoOp);
        }
        let agent = builder.build();
        let mode = args.mode;
        let version = concat!("lucid ", env!("CARGO_PKG_VERSION"));
        bench("lucid", version, &args, process_start, move || {
            let agent = agent.clone();
            async move {
                let mut session = agent.session();
                match mode {
                    Mode::NonStream => {
                        let r = session.run(PROMPT).await?;
                        Ok(TaskOutcome { answer: r.content, ttft: None })
                    }
                    Mode::Stream => {
                        let started = Instant::now();
                        let mut ttft = None;
                        let mut events = session.run_stream(PROMPT);
                        while let Some(ev) = events.next().await {
                            match ev {
                                AgentEvent::Iteration(_) => ttft = None,
                                AgentEvent::TextDelta(t) if ttft.is_none() && !t.is_empty() => {
                                    ttft = Some(started.elapsed())
                                }
                                AgentEvent::Completed(r) => {
                                    return Ok(TaskOutcome { answer: r.content, ttft });
                                }
                                AgentEvent::Error(e) => return Err(e.into()),
                                _ => {}
                            }
                        }
                        anyhow::bail!("the event stream ended without a result")
                    }
                }
            }
        })
        .await
    })
}
