//! Any OpenAI-compatible server by URL, with its quirks chosen explicitly, a transcript of
//! every HTTP exchange, and a cancellable run.
//!
//! `cargo run -p lucid-agent --example local_server -- http://127.0.0.1:8080/v1 my-model`

use std::time::Duration;

use lucid::model::OpenAiCompatible;
use lucid::model::presets::{ContentPolicy, Quirks};
use lucid::model::retry::RetryPolicy;
use lucid::prelude::*;

#[tokio::main]
async fn main() -> lucid::Result<()> {
    let mut args = std::env::args().skip(1);
    let base_url = args.next().unwrap_or_else(|| "http://127.0.0.1:8080/v1".into());
    let model_name = args.next().unwrap_or_else(|| "local".into());
    let model = OpenAiCompatible::new(&base_url, None, &model_name)?
        .with_quirks(Quirks { content_policy: ContentPolicy::Empty, ..Quirks::COMPATIBLE })
        .with_http(RetryPolicy::default(), Duration::from_secs(120), Some("transcript.jsonl".into()))?;
    let agent = Agent::builder(model).tool(lucid_tools::calculator).max_iterations(5).build();
    let mut session = agent.session();
    let cancel = session.canceller();
    tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            cancel.cancel_now();
        }
    });
    let r = session.run("What is 12 * (7 + 5)?").await?;
    println!("{} ({:?})", r.content, r.stop_reason);
    Ok(())
}
