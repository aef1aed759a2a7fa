//! `lucid-mock-server [--port P] [--eval]`: serves the `lucid-bench` task on 127.0.0.1 (or,
//! with `--eval`, the `eval-bench` task: [`lucid_mock::eval::EvalModel`]) and prints its
//! base URL (`http://127.0.0.1:P/v1`) on the first line of stdout.

use std::sync::Arc;

fn main() -> std::io::Result<()> {
    let mut port = 0u16;
    let mut eval = false;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--port" => port = args.next().and_then(|p| p.parse().ok()).unwrap_or(0),
            "--eval" => eval = true,
            "--help" | "-h" => {
                println!("usage: lucid-mock-server [--port P] [--eval]");
                return Ok(());
            }
            other => return Err(std::io::Error::other(format!("unknown argument {other}"))),
        }
    }
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    rt.block_on(async {
        let handler: Arc<dyn Fn(&lucid_mock::RecordedRequest) -> lucid_mock::Reply + Send + Sync> = if eval {
            let model = lucid_mock::eval::EvalModel::default();
            Arc::new(move |req: &lucid_mock::RecordedRequest| model.reply(req))
        } else {
            Arc::new(lucid_mock::bench_handler())
        };
        let server = lucid_mock::MockServer::start_on(port, handler, false).await?;
        println!("{}", server.url());
        use std::io::Write;
        std::io::stdout().flush()?;
        futures::future::pending::<()>().await;
        Ok(())
    })
}
