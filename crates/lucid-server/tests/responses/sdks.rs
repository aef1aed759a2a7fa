//! The official OpenAI Python SDK and the Agents SDK as clients.

use super::*;

/// The official OpenAI Python SDK's `client.responses`: plain, streamed (its typed events,
/// and its `responses.stream` helper, which checks the events' order as it accumulates
/// them), a function tool round trip, structured output with `responses.parse`, a stored
/// response continued, read and deleted, and a refusal.
const SDK_SCRIPT: &str = r#"
import json, sys, openai, pydantic
base, key = sys.argv[1], sys.argv[2]
client = openai.OpenAI(base_url=base + "/v1", api_key=key, max_retries=0)
out = {}
r = client.responses.create(model="default", input="hi", instructions="Be brief.", temperature=0.5,
                            max_output_tokens=100, metadata={"k": "v"})
out["plain"] = [type(r).__name__, r.object, r.status, r.output_text, type(r.output[0]).__name__,
                type(r.output[0].content[0]).__name__, r.usage.input_tokens, r.usage.output_tokens,
                r.usage.total_tokens, r.usage.input_tokens_details.cached_tokens,
                r.usage.output_tokens_details.reasoning_tokens, r.metadata]
events = list(client.responses.create(model="default", input="hi", stream=True))
out["events"] = [type(e).__name__ for e in events]
out["sequence"] = [e.sequence_number for e in events]
out["streamed"] = "".join(e.delta for e in events if e.type == "response.output_text.delta")
out["completed"] = events[-1].response.output_text
with client.responses.stream(model="default", input="hi") as s:
    for _ in s:
        pass
    out["helper"] = s.get_final_response().output_text
weather = {"type": "function", "name": "weather", "description": "The weather in a city.", "strict": True,
           "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"],
                          "additionalProperties": False}}
ask = [{"role": "user", "content": "Weather in Paris, and 2 + 3?"}]
r = client.responses.create(model="default", input=ask, tools=[weather])
call = r.output[0]
out["call"] = [type(call).__name__, call.call_id, call.name, json.loads(call.arguments)]
with client.responses.stream(model="default", input=ask, tools=[weather]) as s:
    for e in s:
        if e.type == "response.function_call_arguments.done":
            out["stream_call"] = e.arguments
    out["stream_call_item"] = s.get_final_response().output[0].call_id
history = ask + [call.model_dump(exclude_none=True), {"type": "function_call_output", "call_id": call.call_id, "output": "sunny"}]
out["after_tool"] = client.responses.create(model="default", input=history, tools=[weather]).output_text
class Sum(pydantic.BaseModel):
    sum: int
parsed = client.responses.parse(model="default", input="What is 2 + 3?", text_format=Sum)
out["parsed"] = parsed.output_parsed.sum
first = client.responses.create(model="default", input="one", store=True)
out["continued"] = client.responses.create(model="default", input="two", previous_response_id=first.id).output_text
out["retrieved"] = client.responses.retrieve(first.id).output_text
out["deleted"] = client.responses.delete(first.id) is None
try:
    client.responses.retrieve(first.id)
except openai.NotFoundError as e:
    out["gone"] = e.status_code
try:
    client.responses.create(model="default", input="hi", tools=[{"type": "web_search"}])
except openai.BadRequestError as e:
    out["refused"] = [e.status_code, e.body.get("message", "") if isinstance(e.body, dict) else ""]
print(json.dumps(out))
"#;

/// The OpenAI Agents SDK with its default settings (the Responses API), an `Agent` with a
/// `@function_tool` of its own, run plain and streamed against the server.
const AGENTS_SCRIPT: &str = r#"
import asyncio, json, sys, openai
from agents import Agent, Runner, function_tool, set_default_openai_client, set_tracing_disabled
base, key = sys.argv[1], sys.argv[2]
set_tracing_disabled(True)
set_default_openai_client(openai.AsyncOpenAI(base_url=base + "/v1", api_key=key, max_retries=0), use_for_tracing=False)
called = []
@function_tool
def weather(city: str) -> str:
    """The weather in a city."""
    called.append(city)
    return "sunny"
agent = Agent(name="Assistant", instructions="You help with the weather.", model="default", tools=[weather])
async def main():
    out = {"final": (await Runner.run(agent, "Weather in Paris, and 2 + 3?")).final_output}
    run = Runner.run_streamed(agent, "Weather in Paris, and 2 + 3?")
    async for _ in run.stream_events():
        pass
    out["streamed"] = run.final_output
    return out
out = asyncio.run(main())
out["called"] = called
print(json.dumps(out))
"#;

/// Runs `script` with `python` against a server with keys; its JSON output and the mock.
async fn run_python(name: &str, python: String, script: &'static str) -> (Value, Arc<MockServer>) {
    let keys = ApiKeys::parse("acme:acme-key-0123456789").unwrap();
    let (api, mock) = serve(name, |c| c.keys(keys)).await;
    let url = api.url.clone();
    let out = tokio::task::spawn_blocking(move || {
        std::process::Command::new(python).args(["-c", script, &url, "acme-key-0123456789"]).output().unwrap()
    })
    .await
    .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "the script failed:\n{stderr}");
    (
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout))),
        mock,
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_official_openai_python_sdk_parses_the_responses_facade() {
    let Some(python) =
        common::real_part("LUCID_TEST_OPENAI_PYTHON", ".ci/run installs PyPI's openai in a venv and sets it")
    else {
        return;
    };
    let (got, mock) = run_python("responses-sdk", python, SDK_SCRIPT).await;
    assert_eq!(
        got["plain"],
        json!(["Response", "response", "completed", "You said 1 things.", "ResponseOutputMessage", "ResponseOutputText",
               20, 5, 25, 0, 0, {"k": "v"}]),
        "{got}"
    );
    assert_eq!(
        got["events"],
        json!([
            "ResponseCreatedEvent",
            "ResponseInProgressEvent",
            "ResponseOutputItemAddedEvent",
            "ResponseContentPartAddedEvent",
            "ResponseTextDeltaEvent",
            "ResponseTextDeltaEvent",
            "ResponseTextDoneEvent",
            "ResponseContentPartDoneEvent",
            "ResponseOutputItemDoneEvent",
            "ResponseCompletedEvent"
        ]),
        "the SDK's own types for each event"
    );
    assert_eq!(got["sequence"], json!((0..10).collect::<Vec<_>>()));
    assert_eq!(
        (got["streamed"].as_str(), got["completed"].as_str()),
        (Some("You said 1 things."), Some("You said 1 things."))
    );
    assert_eq!(got["helper"], "You said 1 things.");
    assert_eq!(got["call"], json!(["ResponseFunctionToolCall", "call_w", "weather", {"city": "Paris"}]), "{got}");
    assert_eq!(
        (got["stream_call"].as_str(), got["stream_call_item"].as_str()),
        (Some(r#"{"city":"Paris"}"#), Some("call_w"))
    );
    assert_eq!(got["after_tool"], "Paris is sunny; 2 + 3 = 5.");
    assert_eq!(got["parsed"], 5, "structured output through the SDK's parse");
    assert_eq!(
        (got["continued"].as_str(), got["retrieved"].as_str()),
        (Some("You said 2 things."), Some("You said 1 things."))
    );
    assert_eq!((got["deleted"].as_bool(), got["gone"].as_u64()), (Some(true), Some(404)));
    assert_eq!(got["refused"][0], 400);
    assert!(got["refused"][1].as_str().unwrap().starts_with("`tools[0].type`"), "{got}");
    let first = mock.requests()[0].json();
    assert_eq!(first["messages"][0]["content"], "You add numbers.\n\nBe brief.", "the operator's prompt kept");
    assert_eq!(
        (first["temperature"].as_f64(), first["max_tokens"].as_u64().or(first["max_completion_tokens"].as_u64())),
        (Some(0.5), Some(100))
    );
    let parsed =
        mock.requests().iter().map(|r| r.json()).find(|b| b["response_format"]["type"] == "json_schema").unwrap();
    assert_eq!(parsed["response_format"]["json_schema"]["name"], "Sum");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_openai_agents_sdk_runs_an_agent_with_its_own_function_tool() {
    let Some(python) = common::real_part(
        "LUCID_TEST_OPENAI_PYTHON",
        ".ci/run installs PyPI's openai and openai-agents in a venv and sets it",
    ) else {
        return;
    };
    let (got, mock) = run_python("responses-agents-sdk", python, AGENTS_SCRIPT).await;
    assert_eq!(got["final"], "Paris is sunny; 2 + 3 = 5.", "{got}");
    assert_eq!(got["streamed"], "Paris is sunny; 2 + 3 = 5.", "{got}");
    assert_eq!(got["called"], json!(["Paris", "Paris"]), "the Agents SDK ran its own tool, once a run");
    let first = mock.requests()[0].json();
    assert_eq!(first["messages"][0]["content"], "You add numbers.\n\nYou help with the weather.");
}
