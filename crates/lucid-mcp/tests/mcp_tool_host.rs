//! A served tool's [`ToolContext`] over a real Streamable HTTP connection, read with
//! Lucid's own client: the progress it reports reaches the calling tool's context, the
//! parts it attaches come back as MCP content (an image as a part again), its question
//! is answered by the client's elicitor, and sampling, which Lucid's client does not
//! offer, fails with a reason.

use std::sync::{Arc, Mutex};

use futures::FutureExt;
use futures::future::BoxFuture;
use lucid::tool::{Elicitation, Elicited, Elicitor, Host, Sampling, ToolContext, ToolHost, ToolRegistry};
use lucid::{Part, ToolCall, ToolError, tool};
use lucid_mcp::{HttpOptions, McpServer, ToolServer, serve_http};
use serde_json::{Value, json};

const PNG: &[u8] = b"\x89PNG\r\n\x1a\n-tiny";

/// How many progress reports the client's side has seen, and the signal of a new one.
static SEEN: (Mutex<usize>, tokio::sync::Notify) = (Mutex::new(0), tokio::sync::Notify::const_new());

/// Waits until the client's side has seen `n` progress reports (rmcp hands each
/// notification to a task of its own: without this, the next could overtake it).
async fn seen(n: usize) {
    tokio::time::timeout(std::time::Duration::from_secs(60), async {
        loop {
            let notified = SEEN.1.notified();
            if *SEEN.0.lock().unwrap() >= n {
                return;
            }
            notified.await;
        }
    })
    .await
    .expect("the progress reached the client within a minute");
}

/// Takes a snapshot in two steps.
#[tool]
async fn snapshot(ctx: ToolContext) -> String {
    ctx.progress(1.0, Some(2.0), Some("half")).await;
    seen(1).await;
    ctx.log(tracing::Level::INFO, "snapping").await;
    ctx.attachments.attach(Part::image_bytes("image/png", PNG.to_vec()));
    ctx.attachments.attach(Part::text_document("the notes", Some("notes.txt".into())));
    ctx.progress(2.0, Some(2.0), None).await;
    seen(2).await;
    "a snapshot".into()
}

/// Asks before going on.
#[tool]
async fn confirm(ctx: ToolContext) -> Result<String, ToolError> {
    let schema = json!({"type": "object", "properties": {
        "answer": {"type": "string"}, "count": {"type": "integer", "default": 3}}});
    match ctx.elicit("Proceed?", schema).await? {
        Elicited::Accept(content) => Ok(Value::Object(content).to_string()),
        other => Ok(format!("{other:?}")),
    }
}

/// Has the client's model summarise.
#[tool]
async fn summarise(ctx: ToolContext) -> Result<String, ToolError> {
    ctx.sample(Sampling::new("Summarise.", 50)).await
}

/// Says yes to every question.
struct Yes;

impl Elicitor for Yes {
    fn elicit(&self, question: Elicitation) -> lucid::tool::ElicitFuture<'_> {
        assert_eq!(question.message, "Proceed?");
        Box::pin(async { Elicited::Accept(serde_json::Map::from_iter([("answer".into(), json!("yes"))])) })
    }
}

/// One progress report: done, total, message.
type Report = (f64, Option<f64>, Option<String>);

/// Keeps the progress relayed to the calling tool's context.
#[derive(Default)]
struct Recorder(Mutex<Vec<Report>>);

impl ToolHost for Recorder {
    fn progress<'a>(&'a self, done: f64, total: Option<f64>, message: Option<&'a str>) -> BoxFuture<'a, ()> {
        self.0.lock().unwrap().push((done, total, message.map(str::to_string)));
        *SEEN.0.lock().unwrap() += 1;
        SEEN.1.notify_waiters();
        async {}.boxed()
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_served_tools_progress_parts_and_questions_reach_lucids_client() {
    let mut tools = ToolRegistry::new();
    tools.add(snapshot);
    tools.add(confirm);
    tools.add(summarise);
    let stop = tokio_util::sync::CancellationToken::new();
    let (tx, rx) = tokio::sync::oneshot::channel();
    let server = ToolServer::new(tools, None);
    tokio::spawn(serve_http(server, "127.0.0.1:0".parse().unwrap(), HttpOptions::without_token(), stop.clone(), |a| {
        let _ = tx.send(a);
    }));
    let url = format!("http://{}/mcp", rx.await.unwrap());
    let client = McpServer::http(url).name("host").prefix(false).elicitation(Yes).connect().await.expect("connects");
    let mut remote = ToolRegistry::new();
    for t in client.tools() {
        remote.add_arc(t);
    }

    let recorder = Arc::new(Recorder::default());
    let ctx = ToolContext { host: Host::from(recorder.clone() as Arc<dyn ToolHost>), ..Default::default() };
    let shot = remote.execute(&ToolCall::new("c1", "snapshot", json!({})), ctx.clone(), None).await;
    assert!(!shot.is_error, "{shot:?}");
    assert!(shot.content.starts_with("a snapshot\n[image: image/png, 13 bytes]"), "{shot:?}");
    assert!(shot.content.contains("[resource attachment:///notes.txt (text/plain)]\nthe notes"), "{shot:?}");
    assert_eq!(ctx.attachments.take(), [Part::image_bytes("image/png", PNG.to_vec())]);
    assert_eq!(*recorder.0.lock().unwrap(), [(1.0, Some(2.0), Some("half".to_string())), (2.0, Some(2.0), None)]);

    let asked = remote.execute(&ToolCall::new("c2", "confirm", json!({})), ToolContext::default(), None).await;
    let answer: Value = serde_json::from_str(&asked.content).unwrap_or_else(|_| panic!("{asked:?}"));
    assert_eq!(answer, json!({"answer": "yes", "count": 3}));

    let sampled = remote.execute(&ToolCall::new("c3", "summarise", json!({})), ToolContext::default(), None).await;
    assert!(sampled.is_error && sampled.content.contains("did not declare sampling"), "{sampled:?}");
    stop.cancel();
}
