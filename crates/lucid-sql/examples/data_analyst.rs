//! A data analyst: the read-only `sql_query` / `sql_schema` tools on a SQLite file and the
//! `python` interpreter (persistent, limited, no network) to compute with what it read.
//!
//! Run with a provider key and a Python 3 on `PATH`, e.g.
//! `OPENAI_API_KEY=... cargo run -p lucid-agent --example data_analyst --features python`
//! (or `LUCID_MODEL=deepseek:deepseek-chat`, `LUCID_MODEL=ollama:llama3.2`, …).

use std::sync::Arc;
use std::time::Duration;

use lucid::prelude::*;
use lucid::tool::ToolSet;
use lucid_sandbox::Python;
use lucid_sql::Database;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::temp_dir().join("lucid-example-shop.db");
    let _ = std::fs::remove_file(&path);
    rusqlite::Connection::open(&path)?.execute_batch(
        "CREATE TABLE sale (day TEXT, item TEXT, amount REAL);
         INSERT INTO sale VALUES ('2025-11-01', 'tea', 3.5), ('2025-11-01', 'cake', 4.0),
                                 ('2025-11-02', 'tea', 7.0), ('2025-11-03', 'cake', 12.0);",
    )?;
    let database = Arc::new(Database::open(path.to_str().unwrap_or_default())?.max_rows(50));
    let python = Python::new()?.timeout(Duration::from_secs(20));

    let spec = std::env::var("LUCID_MODEL").unwrap_or_else(|_| "openai:gpt-4o-mini".into());
    let mut builder = Agent::builder(lucid::model::from_env(&spec)?)
        .system("You answer questions about the shop's database. Read it with the SQL tools; compute with python.")
        .tool(python);
    for tool in database.tools() {
        builder = builder.tool_arc(tool);
    }
    let mut session = builder.build().session();
    let result = session.run("What is the standard deviation of the daily sales totals?").await?;
    for call in &result.tool_calls {
        println!("tool {}({}) -> {:?}", call.name, call.arguments, call.output);
    }
    println!("{}", result.content);
    Ok(())
}
