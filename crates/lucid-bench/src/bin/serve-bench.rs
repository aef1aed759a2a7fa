//! `serve-bench`: the load benchmark of `lucid serve`. S sessions at once, each the
//! lucid-bench task (a tool call, then the answer, from the mock model) as one run through
//! the HTTP API: create the session, run it, check the answer. Each server instance runs in
//! a child process of its own (so its peak RSS is its own) on a fresh SQLite file, or on a
//! fresh database of the PostgreSQL server given with `--store postgres://…` (built with
//! the `postgres` feature; the database is created for the run and dropped after). With
//! several instances, requests go round-robin as behind a load balancer: a session is
//! created on one instance and run on the next. The mock model and the clients run here.
//!
//! ```text
//! serve-bench [--sessions 1000] [--warmup 50] [--store postgres://…] [--instances 1]
//! ```
//!
//! Prints one JSON line: store, instances, sessions, errors (any status but 200/201, or a
//! wrong answer), wall seconds, sessions per second, p50/p99 of a session (create + run)
//! in ms, and each instance's peak RSS in MiB.

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
    let (sessions, warmup, instances) = (flag("--sessions", 1000)?, flag("--warmup", 50)?, flag("--instances", 1)?);
    let store = args.iter().position(|a| a == "--store").and_then(|i| args.get(i + 1)).cloned();
    runtime.block_on(parent(sessions, warmup, instances.max(1), store))
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

/// One session: create it on `create`, run the task on `run`, check the answer; its time
/// in ms.
async fn session(http: &reqwest::Client, create: &str, run: &str) -> Result<f64, String> {
    let (url, started) = (create, Instant::now());
    let created = http.post(format!("{url}/v1/sessions")).json(&json!({"agent": "default"})).send().await;
    let created = created.map_err(|e| e.to_string())?;
    if created.status() != 201 {
        return Err(format!("create: {}", created.status()));
    }
    let session: Value = created.json().await.map_err(|e| e.to_string())?;
    let id = session["id"].as_str().ok_or("no session id")?;
    let url = run;
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

async fn parent(sessions: usize, warmup: usize, instances: usize, store: Option<String>) -> anyhow::Result<()> {
    let mock = lucid_mock::MockServer::start_on(0, Arc::new(lucid_mock::bench_handler()), false).await?;
    let dir = std::env::temp_dir().join(format!("serve-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let (database, kind, fresh) = match store {
        Some(url) => {
            let fresh = FreshDatabase::create(&url).await?;
            (fresh.url.clone(), "postgres", Some(fresh))
        }
        None if instances > 1 => {
            anyhow::bail!("several instances share a PostgreSQL database: pass --store postgres://…")
        }
        None => (dir.join("serve.db").display().to_string(), "sqlite", None),
    };
    let mut children = Vec::new();
    let mut urls = Vec::new();
    for _ in 0..instances {
        let mut child = Command::new(std::env::current_exe()?)
            .args(["--child", &database, &mock.url()])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()?;
        let mut line = String::new();
        BufReader::new(child.stdout.take().ok_or_else(|| anyhow::anyhow!("no stdout"))?).read_line(&mut line)?;
        anyhow::ensure!(line.starts_with("http://"), "an instance did not start");
        urls.push(line.trim().to_string());
        children.push(child);
    }
    let http = lucid::model::http::reqwest_client_builder()
        .pool_max_idle_per_host(usize::MAX)
        .timeout(Duration::from_secs(120))
        .build()?;
    let pick = |i: usize| (urls[(2 * i) % urls.len()].clone(), urls[(2 * i + 1) % urls.len()].clone());
    for i in 0..warmup {
        let (create, run) = pick(i);
        session(&http, &create, &run).await.map_err(|e| anyhow::anyhow!("warm-up: {e}"))?;
    }
    let started = Instant::now();
    let tasks: Vec<_> = (0..sessions)
        .map(|i| {
            let (http, (create, run)) = (http.clone(), pick(i));
            tokio::spawn(async move { session(&http, &create, &run).await })
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
    let peak_rss: Vec<Option<f64>> = children.iter().map(|c| peak_rss_mib(c.id())).collect();
    for mut child in children {
        drop(child.stdin.take());
        let _ = child.wait();
    }
    if let Some(fresh) = fresh {
        fresh.drop_now().await?;
    }
    let _ = std::fs::remove_dir_all(&dir);
    times.sort_by(f64::total_cmp);
    let pct = |p: f64| times.get(((p / 100.0 * times.len() as f64).ceil() as usize).saturating_sub(1)).copied();
    let out = json!({
        "store": kind, "instances": instances, "sessions": sessions, "errors": errors, "first_error": first_error,
        "wall_s": wall, "sessions_per_s": times.len() as f64 / wall,
        "p50_ms": pct(50.0), "p99_ms": pct(99.0), "server_peak_rss_mib": peak_rss,
    });
    println!("{out}");
    Ok(())
}

/// A database of its own on the PostgreSQL server of `url`, for one benchmark run.
struct FreshDatabase {
    #[cfg_attr(not(feature = "postgres"), allow(dead_code))]
    admin: String,
    #[cfg_attr(not(feature = "postgres"), allow(dead_code))]
    name: String,
    url: String,
}

impl FreshDatabase {
    #[cfg(feature = "postgres")]
    async fn create(admin: &str) -> anyhow::Result<FreshDatabase> {
        let name = format!("serve_bench_{}", std::process::id());
        let (client, conn) = tokio_postgres::connect(admin, tokio_postgres::NoTls).await?;
        tokio::spawn(conn);
        client.batch_execute(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)")).await?;
        client.batch_execute(&format!("CREATE DATABASE {name}")).await?;
        let (base, query) = admin.split_once('?').map_or((admin, None), |(b, q)| (b, Some(q)));
        let base = base.rsplit_once('/').map_or(base, |(b, _)| b);
        let url = match query {
            Some(q) => format!("{base}/{name}?{q}"),
            None => format!("{base}/{name}"),
        };
        Ok(FreshDatabase { admin: admin.to_string(), name, url })
    }

    #[cfg(not(feature = "postgres"))]
    async fn create(_admin: &str) -> anyhow::Result<FreshDatabase> {
        anyhow::bail!("serve-bench was built without PostgreSQL: build it with `--features postgres`")
    }

    #[cfg(feature = "postgres")]
    async fn drop_now(self) -> anyhow::Result<()> {
        let (client, conn) = tokio_postgres::connect(&self.admin, tokio_postgres::NoTls).await?;
        tokio::spawn(conn);
        client.batch_execute(&format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", self.name)).await?;
        Ok(())
    }

    #[cfg(not(feature = "postgres"))]
    async fn drop_now(self) -> anyhow::Result<()> {
        Ok(())
    }
}

/// The peak resident set (VmHWM) of process `pid`, in MiB.
fn peak_rss_mib(pid: u32) -> Option<f64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let kb: f64 = status.lines().find_map(|l| l.strip_prefix("VmHWM:"))?.split_whitespace().next()?.parse().ok()?;
    Some(kb / 1024.0)
}
