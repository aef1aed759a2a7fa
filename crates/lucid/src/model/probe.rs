//! Asking a local server how large its context window is.
//!
//! A local model's window is whatever the server was started with, so no catalogue can
//! know it: llama.cpp says it at `GET /props` (`n_ctx`), vLLM at `GET /v1/models`
//! (`max_model_len`), Ollama at `POST /api/show` (the model's `num_ctx` parameter, else its
//! trained length, which Ollama's default runtime window of 4096 caps). Each is tried in
//! turn with a short timeout; a server that answers none gives `None`.

use std::time::Duration;

use serde_json::{Value, json};

/// Ollama's runtime window when the model sets no `num_ctx` (it truncates silently past it).
pub const OLLAMA_DEFAULT_NUM_CTX: u32 = 4096;

/// The context window the server at `base_url` (its OpenAI-compatible base, e.g.
/// `http://127.0.0.1:8080/v1`) serves `model` with, if it says.
///
/// ```no_run
/// # async fn demo() {
/// let n = lucid::model::probe::context_window("http://127.0.0.1:8080/v1", "local").await;
/// println!("{n:?}");
/// # }
/// ```
pub async fn context_window(base_url: &str, model: &str) -> Option<u32> {
    let client = crate::model::http::reqwest_client_builder()
        .connect_timeout(Duration::from_secs(2))
        .timeout(Duration::from_secs(3))
        .build()
        .ok()?;
    let base = base_url.trim_end_matches('/');
    let root = base.strip_suffix("/v1").unwrap_or(base);
    if let Some(n) = get(&client, &format!("{root}/props")).await.and_then(|v| llamacpp_n_ctx(&v)) {
        return Some(n);
    }
    if let Some(n) = get(&client, &format!("{base}/models")).await.and_then(|v| vllm_max_model_len(&v, model)) {
        return Some(n);
    }
    let shown = client.post(format!("{root}/api/show")).json(&json!({"model": model})).send().await.ok()?;
    let v: Value = shown.error_for_status().ok()?.json().await.ok()?;
    ollama_window(&v)
}

async fn get(client: &reqwest::Client, url: &str) -> Option<Value> {
    let r = client.get(url).send().await.ok()?.error_for_status().ok()?;
    r.json().await.ok()
}

/// llama.cpp's `/props`: `default_generation_settings.n_ctx` (older servers: `n_ctx` at
/// the top).
pub fn llamacpp_n_ctx(props: &Value) -> Option<u32> {
    let n = props.pointer("/default_generation_settings/n_ctx").or_else(|| props.get("n_ctx"))?;
    n.as_u64().and_then(|n| u32::try_from(n).ok()).filter(|n| *n > 0)
}

/// vLLM's `/v1/models`: the `max_model_len` of the model named (or of the only one).
pub fn vllm_max_model_len(models: &Value, model: &str) -> Option<u32> {
    let data = models.get("data")?.as_array()?;
    let entry = data.iter().find(|m| m["id"] == model).or(if data.len() == 1 { data.first() } else { None })?;
    entry.get("max_model_len")?.as_u64().and_then(|n| u32::try_from(n).ok()).filter(|n| *n > 0)
}

/// Ollama's `/api/show`: `num_ctx` among the parameters, else the trained
/// `*.context_length` capped at [`OLLAMA_DEFAULT_NUM_CTX`].
pub fn ollama_window(show: &Value) -> Option<u32> {
    let params = show.get("parameters").and_then(Value::as_str).unwrap_or_default();
    let num_ctx = params.lines().find_map(|l| {
        let mut parts = l.split_whitespace();
        (parts.next() == Some("num_ctx")).then(|| parts.next()?.parse::<u32>().ok()).flatten()
    });
    if let Some(n) = num_ctx {
        return Some(n);
    }
    let info = show.get("model_info")?.as_object()?;
    let trained = info.iter().find(|(k, _)| k.ends_with(".context_length"))?.1.as_u64()?;
    Some(u32::try_from(trained).unwrap_or(u32::MAX).min(OLLAMA_DEFAULT_NUM_CTX))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_servers_answer_is_read() {
        assert_eq!(llamacpp_n_ctx(&json!({"default_generation_settings": {"n_ctx": 4096}})), Some(4096));
        assert_eq!(llamacpp_n_ctx(&json!({"n_ctx": 2048})), Some(2048));
        assert_eq!(llamacpp_n_ctx(&json!({"status": "ok"})), None);
        let models = json!({"data": [{"id": "Qwen/Qwen2.5-7B", "max_model_len": 32768}]});
        assert_eq!(vllm_max_model_len(&models, "Qwen/Qwen2.5-7B"), Some(32768));
        assert_eq!(vllm_max_model_len(&models, "other"), Some(32768), "the only model served");
        assert_eq!(vllm_max_model_len(&json!({"data": [{"id": "gpt-4o"}]}), "gpt-4o"), None);
        let show =
            json!({"parameters": "stop \"<|eot_id|>\"\nnum_ctx 16384", "model_info": {"llama.context_length": 131072}});
        assert_eq!(ollama_window(&show), Some(16384));
        assert_eq!(ollama_window(&json!({"model_info": {"llama.context_length": 131072}})), Some(4096));
        assert_eq!(ollama_window(&json!({"model_info": {"gemma.context_length": 2048}})), Some(2048));
    }
}
