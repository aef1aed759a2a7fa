//! A workflow's own cost per step, with closure steps only (no model, no I/O): a
//! sequence of 20 steps, a fan-out of 20 joined, and a loop of 20 iterations.
//! Divide a result by 20 for the per-step overhead.
//!
//! `cargo bench -p lucid-agent --bench workflow`

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use lucid_orchestrate::workflow::{Condition, Step, Workflow};
use serde_json::json;

const N: usize = 20;

fn increment(name: String, from: Option<String>) -> Step {
    Step::func(name, move |input| {
        let prev = from.as_deref().and_then(|f| input.get(f)).and_then(|v| v.as_i64()).unwrap_or(0);
        async move { Ok(json!(prev + 1)) }
    })
}

fn bench(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    let mut sequential = Workflow::new("seq");
    for i in 0..N {
        sequential = sequential.step(increment(format!("s{i}"), i.checked_sub(1).map(|p| format!("s{p}"))));
    }
    let fan_out =
        Workflow::new("fan").step(Step::parallel("all", (0..N).map(|i| increment(format!("p{i}"), None)).collect()));
    let looped = Workflow::new("loop").step(Step::repeat(
        "again",
        vec![increment("n".into(), None)],
        Condition::equals("again.iteration", N as i64),
        N,
    ));
    assert_eq!(rt.block_on(sequential.run(json!({}))).expect("runs").output, json!(N));

    let mut g = c.benchmark_group("workflow");
    g.bench_function("sequence of 20 closure steps", |b| {
        b.iter(|| rt.block_on(sequential.run(black_box(json!({})))).expect("runs"))
    });
    g.bench_function("fan-out of 20 closure steps, joined", |b| {
        b.iter(|| rt.block_on(fan_out.run(black_box(json!({})))).expect("runs"))
    });
    g.bench_function("loop of 20 iterations", |b| {
        b.iter(|| rt.block_on(looped.run(black_box(json!({})))).expect("runs"))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
