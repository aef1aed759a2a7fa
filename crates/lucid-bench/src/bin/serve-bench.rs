//! `serve-bench`: the load benchmark of `lucid serve`. S sessions at once, each the
//! lucid-bench task (a tool call, then the answer, from the mock model) as one run through
//! the HTTP API: create the session, run it, check the answer. The server runs in a child
//! process of its own (so its peak RSS is its own) on a fresh SQLite file; the mock model
//! and the clients run here.
//!
//! ```text
//! serve-bench [--sessions 1000] [--warmup 50]
//! ```
//!
//! Prints one JSON line: sessions, errors (any status but 200/201, or a wrong answer),
//! wall seconds, sessions per second, p50/p99 of a session (create + run) in ms, and the
//! server's peak RSS in MiB.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use lucid::model::OpenAiCompatible;
use lucid::prelude::*;
use lucid_bench::{ANSWER, PROMPT, SYSTEM, add};
use lucid_server::{Server, ServerConfig};
use serde_json::{Value, json};

fn main() -> anyhow::Result<()> {
    lucid_bench::init_logging();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    if args.first().map(String::as_str) == Some("--child") {
        let (db, mock) = match (args.get(1), args.get(2)) {
            (Some(db), Some(mock)) => (db.clone(), mock.clone()),
            _ => anyhow::bail!("usage: serve-bench --child DB MOCK_URL"),
        };
        return runtime.block_on(child(db, mock));
    }
    let flag = |name: &str, default: usize| -> anyhow::Result<usize> {
        match args.iter().position(|a| a == name) {
            Some(i) => Ok(args.get(i + 1).ok_or_else(|| anyhow::anyhow!("{name} needs a number"))?.parse()?),
            None => Ok(default),
        }
    };
    let (sessions, warmup) = (flag("--sessions", 1000)?, flag("--warmup", 50)?);
    runtime.block_on(parent(sessions, warmup))
}

/// The server: the task's agent on the mock, every session's run allowed at once; serves
/// until its standard input closes.
async fn child(db: String, mock: String) -> anyhow::Result<()> {
    let model = OpenAiCompatible::new(&format!("{mock}/v1"), Some("sk-mock".into()), "gpt-4o-mini")?;
    let agent = Agent::builder(model).system(SYSTEM).tool(add).max_iterations(4).build();
    let config = ServerConfig::new(db).agent("default", agent).max_runs_per_tenant(100_000);
    let server = Server::open(config).await?;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    println!("http://{}", listener.local_addr()?);
    std::io::stdout().flush()?;
    let stdin_closed = async {
        let _ = tokio::task::spawn_blocking(|| std::io::copy(&mut std::io::stdin(), &mut std::io::sink())).await;
    };
    server.serve(listener, stdin_closed).await?;
    Ok(())
}

/// One session: create it, run the task, check the answer; its time in ms.
async fn session(http: &reqwest::Client, url: &str) -> Result<f64, String> {
    let started = Instant::now();
    let created = http.post(format!("{url}/v1/sessions")).json(&json!({"agent": "default"})).send().await;
    let created = created.map_err(|e| e.to_string())?;
    if created.status() != 201 {
        return Err(format!("create: {}", created.status()));
    }
    let session: Value = created.json().await.map_err(|e| e.to_string())?;
    let id = session["id"].as_str().ok_or("no session id")?;
    let run = http.post(format!("{url}/v1/sessions/{id}/runs")).json(&json!({"input": PROMPT})).send().await;
    let run = run.map_err(|e| e.to_string())?;
    if run.status() != 200 {
        return Err(format!("run: {} {}", run.status(), run.text().await.unwrap_or_default()));
    }
    let run: Value = run.json().await.map_err(|e| e.to_string())?;
    if run["status"] != "completed" || run["result"]["content"] != ANSWER {
        return Err(format!("run: {run}"));
    }
    Ok(started.elapsed().as_secs_f64() * 1000.0)
}

async fn parent(sessions: usize, warmup: usize) -> anyhow::Result<()> {
    let mock = lucid_mock::MockServer::start_on(0, Arc::new(lucid_mock::bench_handler()), false).await?;
    let dir = std::env::temp_dir().join(format!("serve-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let mut child = Command::new(std::env::current_exe()?)
        .args(["--child", &dir.join("serve.db").display().to_string(), &mock.url()])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()?;
    let mut line = String::new();
    BufReader::new(child.stdout.take().ok_or_else(|| anyhow::anyhow!("no stdout"))?).read_line(&mut line)?;
    let url = line.trim().to_string();
    let http = lucid::model::http::client_builder()
        .pool_max_idle_per_host(usize::MAX)
        .timeout(Duration::from_secs(120))
        .build()?;
    for _ in 0..warmup {
        session(&http, &url).await.map_err(|e| anyhow::anyhow!("warm-up: {e}"))?;
    }
    let started = Instant::now();
    let tasks: Vec<_> = (0..sessions)
        .map(|_| {
            let (http, url) = (http.clone(), url.clone());
            tokio::spawn(async move { session(&http, &url).await })
        })
        .collect();
    let mut times = Vec::with_capacity(sessions);
    let mut errors = 0;
    let mut first_error = None;
    for t in tasks {
        match t.await? {
            Ok(ms) => times.push(ms),
            Err(e) => {
                errors += 1;
                first_error.get_or_insert(e);
            }
        }
    }
    let wall = started.elapsed().as_secs_f64();
    let peak_rss = peak_rss_mib(child.id());
    drop(child.stdin.take());
    let _ = child.wait();
    let _ = std::fs::remove_dir_all(&dir);
    times.sort_by(f64::total_cmp);
    let pct = |p: f64| times.get(((p / 100.0 * times.len() as f64).ceil() as usize).saturating_sub(1)).copied();
    let out = json!({
        "store": "sqlite", "instances": 1, "sessions": sessions, "errors": errors, "first_error": first_error,
        "wall_s": wall, "sessions_per_s": times.len() as f64 / wall,
        "p50_ms": pct(50.0), "p99_ms": pct(99.0), "server_peak_rss_mib": peak_rss,
    });
    println!("{out}");
    Ok(())
}

/// The peak resident set (VmHWM) of process `pid`, in MiB.
fn peak_rss_mib(pid: u32) -> Option<f64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let kb: f64 = status.lines().find_map(|l| l.strip_prefix("VmHWM:"))?.split_whitespace().next()?.parse().ok()?;
    Some(kb / 1024.0)
}
