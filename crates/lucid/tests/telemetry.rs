//! The agent loop's spans after the OpenTelemetry GenAI conventions, as a tracing layer
//! sees them: one `invoke_agent` per turn, a `chat` per model call, an `execute_tool` per
//! tool call, with their `gen_ai.*` fields; message content only when opted in.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

mod common;

use common::add;
use lucid::prelude::*;
use lucid_mock::{MockServer, bench_handler};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing_subscriber::layer::{Context, Layer, SubscriberExt};

/// A span as recorded: its name, its fields (as text), and its parent's position.
#[derive(Debug, Clone, Default)]
struct Seen {
    name: String,
    fields: BTreeMap<String, String>,
    parent: Option<usize>,
}

/// The spans seen, in order, and each span id's position among them.
#[derive(Default)]
struct State {
    seen: Vec<Seen>,
    by_id: BTreeMap<u64, usize>,
}

#[derive(Clone, Default)]
struct Spans(Arc<Mutex<State>>);

struct Fields<'a>(&'a mut BTreeMap<String, String>);

impl Visit for Fields<'_> {
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().to_string(), value.to_string());
    }
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0.insert(field.name().to_string(), format!("{value:?}"));
    }
}

impl<S: tracing::Subscriber + for<'a> tracing_subscriber::registry::LookupSpan<'a>> Layer<S> for Spans {
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
        if attrs.metadata().target() != lucid::telemetry::TARGET {
            return;
        }
        let mut seen = Seen { name: attrs.metadata().name().to_string(), ..Seen::default() };
        attrs.record(&mut Fields(&mut seen.fields));
        let mut state = self.0.lock().unwrap();
        let parent =
            ctx.span(id).and_then(|s| s.scope().skip(1).find_map(|p| state.by_id.get(&p.id().into_u64()).copied()));
        seen.parent = parent;
        state.seen.push(seen);
        let at = state.seen.len() - 1;
        state.by_id.insert(id.into_u64(), at);
    }

    fn on_record(&self, id: &Id, values: &Record<'_>, _ctx: Context<'_, S>) {
        let mut state = self.0.lock().unwrap();
        if let Some(&at) = state.by_id.get(&id.into_u64()) {
            values.record(&mut Fields(&mut state.seen[at].fields));
        }
    }
}

async fn spans_of_one_task(capture: bool) -> Vec<Seen> {
    lucid::telemetry::capture_content(capture);
    let spans = Spans::default();
    let _guard = tracing::subscriber::set_default(tracing_subscriber::registry().with(spans.clone()));
    let mock = MockServer::start(bench_handler()).await;
    let model = lucid::model::OpenAiCompatible::new(&format!("{}/v1", mock.url()), None, "gpt-4o-mini").unwrap();
    let agent = Agent::builder(model).name("calculator").tool(add).build();
    let result = agent.session().run("What is 2 + 3?").await.unwrap();
    assert_eq!(result.content, "The answer is 5.");
    spans.0.lock().unwrap().seen.clone()
}

#[tokio::test]
async fn a_turn_is_an_invoke_agent_span_with_chat_and_execute_tool_spans_inside_and_content_is_opt_in() {
    let spans = spans_of_one_task(false).await;
    let names: Vec<&str> = spans.iter().map(|s| s.fields["otel.name"].as_str()).collect();
    assert_eq!(names, ["invoke_agent calculator", "chat gpt-4o-mini", "execute_tool add", "chat gpt-4o-mini"]);
    let agent = &spans[0];
    assert_eq!(agent.fields["gen_ai.operation.name"], "invoke_agent");
    assert_eq!(agent.fields["gen_ai.agent.name"], "calculator");
    assert_eq!(agent.fields["gen_ai.provider.name"], "openai");
    assert!(agent.fields.contains_key("gen_ai.usage.input_tokens"), "{agent:?}");
    assert_eq!(agent.fields["gen_ai.response.model"], "gpt-4o-mini", "the model that answered");
    for chat in [&spans[1], &spans[3]] {
        assert_eq!(chat.parent, Some(0), "inside the turn");
        assert_eq!(chat.fields["gen_ai.operation.name"], "chat");
        assert_eq!(chat.fields["gen_ai.request.model"], "gpt-4o-mini");
        assert!(!chat.fields["gen_ai.response.model"].is_empty(), "{chat:?}");
        assert!(chat.fields.contains_key("gen_ai.usage.output_tokens"), "{chat:?}");
        assert!(!chat.fields.contains_key("gen_ai.input.messages"), "no content unless opted in");
    }
    assert_eq!(spans[1].fields["gen_ai.response.finish_reasons"], "[\"tool_calls\"]");
    assert_eq!(spans[3].fields["gen_ai.response.finish_reasons"], "[\"stop\"]");
    let tool = &spans[2];
    assert_eq!(tool.parent, Some(0));
    assert_eq!(tool.fields["gen_ai.tool.name"], "add");
    assert_eq!(tool.fields["gen_ai.tool.call.id"], "call_add_1");
    assert!(!tool.fields.contains_key("error.type"));

    // Message content only when opted in (one test: the switch is process-wide).
    let spans = spans_of_one_task(true).await;
    lucid::telemetry::capture_content(false);
    let chat = spans.iter().find(|s| s.name == "chat").unwrap();
    assert!(chat.fields["gen_ai.input.messages"].contains("What is 2 + 3?"), "{chat:?}");
    assert!(chat.fields["gen_ai.output.messages"].contains("add"), "{chat:?}");
}

#[tokio::test]
async fn after_a_switch_the_spans_name_the_backup_that_answered() {
    use lucid::model::http::HttpTransport;
    use lucid::model::retry::RetryPolicy;
    use lucid_mock::{Reply, text_completion};
    let spans = Spans::default();
    let _guard = tracing::subscriber::set_default(tracing_subscriber::registry().with(spans.clone()));
    let overloaded =
        || Reply::json(503, &serde_json::json!({"error": {"message": "overloaded", "type": "server_error"}}));
    let primary = MockServer::sequence(vec![overloaded(), overloaded()]).await;
    let backup = MockServer::sequence(vec![Reply::json(200, &text_completion("From the backup."))]).await;
    let retry =
        RetryPolicy { max_retries: 1, initial_backoff: std::time::Duration::from_millis(1), ..Default::default() };
    let model = |url: &str, name: &str| {
        let transport = HttpTransport::builder().retry(retry).build().unwrap();
        lucid::model::OpenAiCompatible::new(url, None, name).unwrap().with_transport(transport)
    };
    let fallback = lucid::model::Fallback::new(model(&primary.url(), "primary-model"))
        .backup(model(&backup.url(), "backup-model"));
    let result = Agent::builder(fallback).build().session().run("hi").await.unwrap();
    assert_eq!(result.content, "From the backup.");
    let seen = spans.0.lock().unwrap().seen.clone();
    let agent = seen.iter().find(|s| s.name == "invoke_agent").unwrap();
    assert_eq!(agent.fields["gen_ai.request.model"], "primary-model");
    assert_eq!(agent.fields["gen_ai.response.model"], "backup-model", "{agent:?}");
    let chat = seen.iter().find(|s| s.name == "chat").unwrap();
    // The provider's own name for the model that answered (the mock says `mock`).
    assert_eq!(chat.fields["gen_ai.response.model"], "mock", "{chat:?}");
}
