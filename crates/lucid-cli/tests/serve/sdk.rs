//! The official Python `openai` SDK as a client of the facade.

use super::*;

/// The Python used by the test of the official SDK.
const SDK_SCRIPT: &str = r#"
import json, sys
import openai
base, key = sys.argv[1], sys.argv[2]
client = openai.OpenAI(base_url=base + "/v1", api_key=key, max_retries=0, timeout=30)
ask = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Say hello"}]
out = {"version": openai.__version__, "models": [m.id for m in client.models.list()]}
reply = client.chat.completions.create(model="default", messages=ask)
out["content"] = reply.choices[0].message.content
out["finish"] = reply.choices[0].finish_reason
out["usage"] = reply.usage.total_tokens
parts, usage, finish = [], None, None
for chunk in client.chat.completions.create(model="default", messages=ask, stream=True,
                                            stream_options={"include_usage": True}):
    assert chunk.object == "chat.completion.chunk"
    if chunk.choices:
        parts.append(chunk.choices[0].delta.content or "")
        finish = chunk.choices[0].finish_reason or finish
    if chunk.usage:
        usage = chunk.usage.total_tokens
out["streamed"], out["stream_finish"], out["stream_usage"] = "".join(parts), finish, usage
chunks = list(client.chat.completions.create(model="default", messages=ask, stream=True,
                                             stream_options={"include_usage": True}))
out["usage_chunk"] = [chunks[-1].choices, chunks[-1].usage.total_tokens, [c.usage for c in chunks[:-1]]]
reply = client.chat.completions.create(
    model="support", messages=ask, temperature=0.2, top_p=0.9, max_completion_tokens=64, stop=["END"], seed=3,
    response_format={"type": "json_schema", "json_schema": {"name": "greeting", "schema": {"type": "object"}}},
    user="u-1", metadata={"k": "v"}, n=1, logprobs=False, store=False)
out["options_finish"] = reply.choices[0].finish_reason
weather = {"type": "function", "function": {"name": "weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}
reply = client.chat.completions.create(model="default", messages=ask, tools=[weather])
call = reply.choices[0].message.tool_calls[0]
out["tool_call"] = [reply.choices[0].finish_reason, call.id, call.function.name, json.loads(call.function.arguments)]
calls = {}
for chunk in client.chat.completions.create(model="default", messages=ask, tools=[weather], stream=True):
    for c in (chunk.choices[0].delta.tool_calls or []) if chunk.choices else []:
        calls.setdefault(c.index, [c.id, ""])
        calls[c.index][1] += c.function.arguments or ""
    if chunk.choices and chunk.choices[0].finish_reason:
        out["stream_tool_finish"] = chunk.choices[0].finish_reason
out["stream_tool_calls"] = list(calls.values())
history = ask + [reply.choices[0].message.model_dump(exclude_none=True),
                 {"role": "tool", "tool_call_id": call.id, "content": "sunny"}]
out["after_tool"] = client.chat.completions.create(model="default", messages=history, tools=[weather]).choices[0].message.content
for name, extra in [("n", {"n": 2}), ("tools", {"tools": [{"type": "web_search"}]})]:
    try:
        client.chat.completions.create(model="default", messages=ask, **extra)
    except openai.BadRequestError as e:
        out["refused_" + name] = [e.status_code, e.body.get("message", "") if isinstance(e.body, dict) else ""]
try:
    client.chat.completions.create(model="strict", messages=ask)
except openai.BadRequestError as e:
    out["refused_system"] = [e.status_code, e.body.get("message", "") if isinstance(e.body, dict) else ""]
try:
    client.chat.completions.create(model="nobody", messages=ask)
except openai.NotFoundError as e:
    out["unknown_model"] = [e.status_code, e.body.get("code") if isinstance(e.body, dict) else None]
try:
    openai.OpenAI(base_url=base + "/v1", api_key="wrong-key-0123456789", max_retries=0).models.list()
except openai.AuthenticationError as e:
    out["wrong_key"] = e.status_code
print(json.dumps(out))
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_official_openai_python_sdk_talks_to_the_facade() {
    let Some(python) = real_part("LUCID_TEST_OPENAI_PYTHON", ".ci/run installs PyPI's openai in a venv and sets it")
    else {
        return;
    };
    let mock = MockServer::start(hello).await;
    let dir = test_dir("serve-sdk");
    let config = write_config(&dir, &mock);
    let mut toml = std::fs::read_to_string(&config).unwrap();
    toml.push_str("[agents.strict]\nsystem = \"You keep your instructions.\"\nclient_system = \"refuse\"\n");
    std::fs::write(&config, toml).unwrap();
    let (child, url) = tokio::task::block_in_place(|| serve(&dir, &config, Some("acme:acme-key-0123456789")));
    let out = tokio::task::spawn_blocking(move || {
        Command::new(python).args(["-c", SDK_SCRIPT, &url, "acme-key-0123456789"]).output().unwrap()
    })
    .await
    .unwrap();
    let status = tokio::task::block_in_place(|| stop(child));
    assert!(out.status.success(), "the SDK script failed:\n{}", text(&out.stderr));
    let got: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(got["models"], json!(["default", "strict", "support"]), "{got}");
    assert_eq!((got["content"].as_str(), got["finish"].as_str()), (Some("Hello from the mock."), Some("stop")));
    assert_eq!(got["usage"], 25, "the mock's usage, passed on");
    assert_eq!((got["streamed"].as_str(), got["stream_finish"].as_str()), (Some("Hello from the mock."), Some("stop")));
    assert_eq!(got["stream_usage"], 25);
    assert_eq!(got["unknown_model"], json!([404, "model_not_found"]));
    assert_eq!(got["wrong_key"], 401);
    // `include_usage` as OpenAI documents it: a last chunk without choices, `usage: null` before.
    assert_eq!(got["usage_chunk"], json!([[], 25, vec![Value::Null; got["usage_chunk"][2].as_array().unwrap().len()]]));
    // The options reach the model; the operator's prompt stays, the client's comes after it.
    assert_eq!(got["options_finish"], "stop");
    let sent: Vec<Value> = mock.requests().iter().map(|r| r.json()).filter(|b| b["seed"] == 3).collect();
    assert_eq!(sent.len(), 1, "one request with the options");
    let body = &sent[0];
    assert_eq!((body["temperature"].as_f64(), body["top_p"].as_f64()), (Some(0.2), Some(0.9)), "{body}");
    assert!(body["max_tokens"] == 64 || body["max_completion_tokens"] == 64, "{body}");
    assert_eq!(body["stop"], json!(["END"]));
    assert_eq!(body["response_format"]["json_schema"]["name"], "greeting");
    assert_eq!(body["messages"][0], json!({"role": "system", "content": "You answer support tickets.\n\nBe brief."}));
    for name in ["refused_n", "refused_tools", "refused_system"] {
        assert_eq!(got[name][0], 400, "{name}: {got}");
    }
    assert!(got["refused_n"][1].as_str().unwrap().starts_with("`n`"), "{got}");
    assert!(got["refused_tools"][1].as_str().unwrap().starts_with("`tools[0].type`"), "{got}");
    // The client's own function tool: called, streamed, answered.
    assert_eq!(got["tool_call"], json!(["tool_calls", "call_w", "weather", {"city": "Paris"}]), "{got}");
    assert_eq!(got["stream_tool_calls"], json!([["call_w", r#"{"city":"Paris"}"#]]), "{got}");
    assert_eq!(got["stream_tool_finish"], "tool_calls");
    assert_eq!(got["after_tool"], "The weather: sunny");
    assert!(got["refused_system"][1].as_str().unwrap().contains("client_system"), "{got}");
    assert!(status.success());
}
