//! OpenAI's shape: options reaching the model, 400s naming fields, typed stream events, client function tools, failures.

use super::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_response_has_openais_shape_and_its_options_reach_the_model() {
    let (api, mock) = serve("responses-plain", |c| c).await;
    let schema = json!({"type": "object", "properties": {"sum": {"type": "integer"}}, "required": ["sum"]});
    let ask = json!({
        "model": "default", "input": "What is 2 + 3?", "instructions": "Answer in JSON.",
        "temperature": 0.25, "top_p": 0.5, "max_output_tokens": 300, "parallel_tool_calls": false,
        "text": {"format": {"type": "json_schema", "name": "sum", "schema": schema, "strict": true}},
        "metadata": {"trace": "t-1"}, "store": false, "user": "u-1", "reasoning": {"effort": null}, "include": [],
    });
    let (status, r) = api.post("/v1/responses", ask).await;
    assert_eq!(status, 200, "{r}");
    assert!(r["id"].as_str().unwrap().starts_with("resp_"), "{r}");
    assert_eq!(
        (r["object"].as_str(), r["status"].as_str(), r["model"].as_str()),
        (Some("response"), Some("completed"), Some("default"))
    );
    assert!(r["created_at"].is_u64() && r["error"].is_null() && r["incomplete_details"].is_null(), "{r}");
    assert_eq!(r["metadata"], json!({"trace": "t-1"}));
    assert_eq!((r["instructions"].as_str(), r["temperature"].as_f64()), (Some("Answer in JSON."), Some(0.25)));
    assert_eq!(r["parallel_tool_calls"], false);
    assert_eq!(r["text"]["format"]["name"], "sum");
    let output = r["output"].as_array().unwrap();
    assert_eq!(output.len(), 1, "{r}");
    let item = &output[0];
    assert!(item["id"].as_str().unwrap().starts_with("msg_"));
    assert_eq!(
        (item["type"].as_str(), item["role"].as_str(), item["status"].as_str()),
        (Some("message"), Some("assistant"), Some("completed"))
    );
    assert_eq!(
        item["content"],
        json!([{"type": "output_text", "text": r#"{"sum": 5}"#, "annotations": [], "logprobs": []}])
    );
    assert_eq!(
        r["usage"],
        json!({"input_tokens": 20, "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
               "output_tokens": 5, "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 25}),
        "the mock's usage, in the Responses API's names"
    );
    let sent = mock.requests().last().unwrap().json();
    assert_eq!(sent["messages"][0], json!({"role": "system", "content": "You add numbers.\n\nAnswer in JSON."}));
    assert_eq!((sent["temperature"].as_f64(), sent["top_p"].as_f64()), (Some(0.25), Some(0.5)));
    assert!(sent["max_tokens"] == 300 || sent["max_completion_tokens"] == 300, "{sent}");
    assert_eq!(sent["parallel_tool_calls"], false);
    assert_eq!(
        sent["response_format"],
        json!({"type": "json_schema", "json_schema": {"name": "sum", "schema": schema, "strict": true}})
    );

    // Input items: the client's system message joins `instructions`; an assistant's earlier
    // message and the user's last one are the conversation.
    let items = json!({"model": "default", "instructions": "Be brief.", "input": [
        {"role": "developer", "content": "Say how many."},
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "one"}]},
        {"type": "message", "role": "assistant", "id": "msg_1", "status": "completed",
         "content": [{"type": "output_text", "text": "ok", "annotations": []}]},
        {"role": "user", "content": "two"},
    ]});
    let (status, r) = api.post("/v1/responses", items).await;
    assert_eq!(status, 200, "{r}");
    assert_eq!(r["output"][0]["content"][0]["text"], "You said 2 things.");
    let sent = mock.requests().last().unwrap().json();
    assert_eq!(sent["messages"][0]["content"], "You add numbers.\n\nBe brief.\n\nSay how many.");
    assert_eq!(sent["messages"][2], json!({"role": "assistant", "content": "ok"}));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn what_the_facade_cannot_honour_is_a_400_naming_the_field() {
    let (api, mock) = serve("responses-refused", |c| c).await;
    let refused = [
        (json!({"background": true}), "`background`"),
        (json!({"conversation": "conv_1"}), "`conversation`"),
        (json!({"prompt": {"id": "p"}}), "`prompt`"),
        (json!({"include": ["reasoning.encrypted_content"]}), "`include`"),
        (json!({"truncation": "auto"}), "`truncation`"),
        (json!({"max_tool_calls": 3}), "`max_tool_calls`"),
        (json!({"top_logprobs": 2}), "`top_logprobs`"),
        (json!({"temperature": 3}), "`temperature`"),
        (json!({"reasoning": {"summary": "auto"}}), "`reasoning.summary`"),
        (json!({"text": {"verbosity": "low"}}), "`text.verbosity`"),
        (json!({"text": {"format": {"type": "xml"}}}), "`text.format.type`"),
        (json!({"text": {"format": {"type": "json_schema"}}}), "`text.format.name`"),
        (json!({"tools": [{"type": "web_search"}]}), "`tools[0].type`"),
        (json!({"tools": [{"type": "function", "name": "add"}]}), "`tools[0].name`"),
        (json!({"tool_choice": {"type": "function", "name": "nope"}}), "`tool_choice.name`"),
        (json!({"tool_choice": {"type": "allowed_tools"}}), "`tool_choice`"),
        (json!({"metadata": {"k": 1}}), "`metadata`"),
        (json!({"previous_response_id": 5}), "`previous_response_id`"),
        (json!({"input": [{"type": "reasoning", "id": "rs_1", "summary": []}]}), "`input[0].type`"),
        // Images are taken (issue 28); one whose URL is neither http(s) nor a data URL is not.
        (
            json!({"input": [{"role": "user", "content": [{"type": "input_image", "image_url": "x"}]}]}),
            "`input[0].content[0]`",
        ),
        (
            json!({"input": [{"role": "user", "content": [{"type": "input_file", "file_id": "file-1"}]}]}),
            "`input[0].content[0]`",
        ),
        (json!({"input": [{"type": "function_call_output", "call_id": "c1", "output": "x"}]}), "`input[0].call_id`"),
        (json!({"input": [{"role": "assistant", "content": "hi"}]}), "`input`"),
    ];
    for (extra, field) in refused {
        let mut body = json!({"model": "default", "input": "2 + 3?"});
        for (k, v) in extra.as_object().unwrap() {
            body[k] = v.clone();
        }
        let (status, reply) = api.post("/v1/responses", body).await;
        assert_eq!((status, error_code(&reply)), (400, "invalid_field"), "{extra}: {reply}");
        assert!(message(&reply).starts_with(field), "{extra}: {reply}");
    }
    let (status, reply) = api.post("/v1/responses", json!({"model": "nobody", "input": "hi"})).await;
    assert_eq!((status, error_code(&reply)), (404, "model_not_found"));
    assert!(mock.requests().is_empty(), "a refused request never reaches the model");

    let (api, mock) = serve("responses-refuse-system", |c| c.client_system("default", ClientSystem::Refuse)).await;
    let (status, reply) =
        api.post("/v1/responses", json!({"model": "default", "input": "hi", "instructions": "Obey me."})).await;
    assert_eq!(status, 400);
    assert!(message(&reply).starts_with("`instructions`") && message(&reply).contains("client_system"), "{reply}");
    assert!(mock.requests().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_stream_has_openais_typed_events_in_order_with_sequence_numbers() {
    let (api, _mock) = serve("responses-stream", |c| c).await;
    let events = stream(&api, json!({"model": "default", "input": "hi", "stream": true})).await;
    assert_eq!(
        kinds(&events),
        [
            "response.created",
            "response.in_progress",
            "response.output_item.added",
            "response.content_part.added",
            "response.output_text.delta",
            "response.output_text.delta",
            "response.output_text.done",
            "response.content_part.done",
            "response.output_item.done",
            "response.completed",
        ]
    );
    for (i, (_, data)) in events.iter().enumerate() {
        assert_eq!(data["sequence_number"], i as u64, "{data}");
    }
    let created = &events[0].1["response"];
    assert_eq!(
        (created["status"].as_str(), created["output"].as_array().map(Vec::len)),
        (Some("in_progress"), Some(0))
    );
    let item_id = events[2].1["item"]["id"].as_str().unwrap();
    assert_eq!(events[2].1["item"]["status"], "in_progress");
    let text: String = events
        .iter()
        .filter(|(k, _)| k == "response.output_text.delta")
        .map(|(_, d)| d["delta"].as_str().unwrap())
        .collect();
    assert_eq!(text, "You said 1 things.");
    assert_eq!(events[4].1["item_id"], item_id);
    assert_eq!(
        (events[6].1["text"].as_str(), events[7].1["part"]["text"].as_str()),
        (Some(text.as_str()), Some(text.as_str()))
    );
    let done = &events[9].1["response"];
    assert_eq!(done["status"], "completed");
    assert_eq!(done["id"], created["id"]);
    assert_eq!(done["output"], json!([events[8].1["item"]]));
    assert_eq!(done["usage"]["total_tokens"], 25);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_clients_function_tool_comes_back_as_a_function_call_and_the_run_goes_on_from_its_output() {
    let (api, mock) = serve("responses-client-tools", |c| c).await;
    let user = json!({"role": "user", "content": "Weather in Paris, and 2 + 3?"});
    let (status, r) =
        api.post("/v1/responses", json!({"model": "default", "input": [user], "tools": [weather()]})).await;
    assert_eq!(status, 200, "{r}");
    assert_eq!(r["status"], "completed");
    let call = &r["output"][0];
    assert_eq!(
        (call["type"].as_str(), call["call_id"].as_str(), call["name"].as_str(), call["arguments"].as_str()),
        (Some("function_call"), Some("call_w"), Some("weather"), Some(r#"{"city":"Paris"}"#)),
        "{r}"
    );
    assert!(call["id"].as_str().unwrap().starts_with("fc_"));
    assert_eq!(r["output"].as_array().unwrap().len(), 1, "{r}");
    let sent: Vec<Value> = mock.requests().iter().map(|r| r.json()).collect();
    assert_eq!(sent.len(), 2, "the agent's `add` ran on the server, then the model called `weather`");
    assert_eq!(sent[1]["messages"].as_array().unwrap().last().unwrap()["content"], "5");
    assert!(sent[0]["tools"].as_array().unwrap().iter().any(|t| t["function"]["name"] == "weather"));

    // Stateless: the client sends the call back with its output.
    let input = json!([user, call, {"type": "function_call_output", "call_id": "call_w", "output": "sunny"}]);
    let (status, r) =
        api.post("/v1/responses", json!({"model": "default", "input": input, "tools": [weather()]})).await;
    assert_eq!(status, 200, "{r}");
    assert_eq!(r["output"][0]["content"][0]["text"], "Paris is sunny; 2 + 3 = 5.");
    let last = mock.requests().last().unwrap().json();
    let messages = last["messages"].as_array().unwrap();
    assert_eq!(messages[messages.len() - 2]["tool_calls"][0]["id"], "call_w", "{last}");
    assert_eq!(messages.last().unwrap()["tool_call_id"], "call_w");

    // Streamed: the call as an item with its arguments' events, after the server's own tool ran.
    let events = stream(
        &api,
        json!({"model": "default", "input": [user], "tools": [weather()], "stream": true,
                                     "tool_choice": "required"}),
    )
    .await;
    assert_eq!(
        kinds(&events),
        [
            "response.created",
            "response.in_progress",
            "response.output_item.added",
            "response.function_call_arguments.delta",
            "response.function_call_arguments.done",
            "response.output_item.done",
            "response.completed",
        ]
    );
    assert_eq!(events[2].1["item"]["arguments"], "");
    assert_eq!(events[3].1["delta"], r#"{"city":"Paris"}"#);
    assert_eq!(events[4].1["arguments"], r#"{"city":"Paris"}"#);
    assert_eq!(events[3].1["item_id"], events[2].1["item"]["id"]);
    assert_eq!(events[6].1["response"]["output"][0]["call_id"], "call_w");
    let first = mock.requests()[mock.requests().len() - 2].json();
    assert_eq!(first["tool_choice"], "required", "the first model call's, as in OpenAI");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_that_fails_is_a_502_or_a_response_failed_event() {
    let mock = Arc::new(
        MockServer::start(|_: &RecordedRequest| {
            Reply::json(400, &json!({"error": {"message": "the model is unwell", "type": "invalid_request_error"}}))
        })
        .await,
    );
    let api = start("responses-failed", adder(&mock), |c| c).await;
    let (status, body) = api.post("/v1/responses", json!({"model": "default", "input": "hi"})).await;
    assert_eq!((status, error_code(&body)), (502, "provider_error"), "{body}");
    let events = stream(&api, json!({"model": "default", "input": "hi", "stream": true})).await;
    assert_eq!(kinds(&events), ["response.created", "response.in_progress", "response.failed"]);
    let failed = &events[2].1["response"];
    assert_eq!((failed["status"].as_str(), failed["error"]["code"].as_str()), (Some("failed"), Some("server_error")));
    assert!(failed["error"]["message"].as_str().unwrap().contains("unwell"), "{failed}");
}
