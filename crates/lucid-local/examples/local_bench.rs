//! Speed of the in-process model on one GGUF file: prefill and generation tokens per
//! second, the second turn's prefill (only its new tokens), and peak RSS.
//!
//! ```sh
//! cargo run --release -p lucid-local --example local_bench -- FILE.gguf [PREFILL_WORDS] [GEN_TOKENS]
//! ```
//! `benches/local.sh` runs it beside llama.cpp's `llama-server` on the same file.

use std::time::Instant;

use futures::StreamExt;
use lucid::model::{ChatModel, ChatOptions, ChatRequest, StreamEvent};
use lucid::{AssistantMessage, Message};
use lucid_local::{LocalModel, LocalOptions};

/// CPU seconds this process has used (user + system), from /proc/self/stat.
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let fields: Vec<&str> = stat.rsplit(')').next().unwrap_or("").split_whitespace().collect();
    let ticks = |i: usize| fields.get(i).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0);
    // utime and stime are fields 14 and 15 of the line, 12 and 13 after the `)`.
    (ticks(11) + ticks(12)) / 100.0
}

/// One streamed call: (seconds to the first token, seconds from it to the end, usage).
async fn timed(model: &LocalModel, messages: &[Message], max_tokens: u32) -> (f64, f64, lucid::Usage, String) {
    let options = ChatOptions { max_tokens: Some(max_tokens), ..Default::default() };
    let cpu = cpu_seconds();
    let start = Instant::now();
    let mut stream = model.chat_stream(ChatRequest::new(messages, &[], &options)).await.expect("call");
    let mut first = None;
    let mut done = None;
    while let Some(event) = stream.next().await {
        match event.expect("event") {
            StreamEvent::TextDelta(_) if first.is_none() => first = Some(start.elapsed().as_secs_f64()),
            StreamEvent::Done(r) => done = Some(r),
            _ => {}
        }
    }
    let total = start.elapsed().as_secs_f64();
    let done = done.expect("done");
    let first = first.unwrap_or(total);
    // On a busy machine wall time measures the neighbours: the CPU time the call used,
    // spread over the engine's threads, is what it would take on idle cores.
    let cpu = cpu_seconds() - cpu;
    println!(
        "  (call: {total:.2} s wall, {cpu:.2} CPU-s = {:.2} s on {} idle cores)",
        cpu / threads() as f64,
        threads()
    );
    (first, total - first, done.usage.unwrap_or_default(), done.message.content)
}

/// The engine's threads: `THREADS` from the environment, else 2 (llama-server's `-t 2` in
/// benches/local.sh).
fn threads() -> usize {
    std::env::var("THREADS").ok().and_then(|t| t.parse().ok()).unwrap_or(2)
}

fn peak_rss_mib() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let kb: f64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap_or(0.0);
    kb / 1024.0
}

#[tokio::main(flavor = "multi_thread")]
async fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("usage: local_bench FILE.gguf [PREFILL_WORDS] [GEN_TOKENS]");
    let words: usize = args.next().map_or(400, |a| a.parse().expect("PREFILL_WORDS"));
    let gen_tokens: u32 = args.next().map_or(64, |a| a.parse().expect("GEN_TOKENS"));
    let start = Instant::now();
    let model = tokio::task::spawn_blocking(move || {
        LocalModel::load(path, LocalOptions { threads: Some(threads()), ..LocalOptions::default() })
    })
    .await
    .unwrap()
    .expect("load");
    println!("load: {:.2} s", start.elapsed().as_secs_f64());

    // Prefill: a long user message, one token generated.
    let filler: Vec<String> = (0..words).map(|i| format!("item{}", i % 97)).collect();
    let long = format!("Here is a list: {}. Count from 1 to 100, separated by commas.", filler.join(" "));
    let mut messages = vec![Message::system("You are a helpful assistant."), Message::user(long)];
    let (ttft, _, usage, _) = timed(&model, &messages, 1).await;
    let prefilled = usage.input_tokens - usage.cached_input_tokens;
    println!("prefill: {prefilled} tokens in {ttft:.2} s = {:.2} tok/s", prefilled as f64 / ttft);

    // Generation: the same prompt (cached), then GEN_TOKENS tokens.
    let (ttft, rest, usage, answer) = timed(&model, &messages, gen_tokens).await;
    let generated = usage.output_tokens.saturating_sub(1);
    println!(
        "generation: {} tokens, {:.2} tok/s after the first (first token {ttft:.2} s, cached prompt {} of {})",
        usage.output_tokens,
        generated as f64 / rest.max(1e-9),
        usage.cached_input_tokens,
        usage.input_tokens
    );

    // Second turn: the answer and a short question appended; only they are prefilled.
    messages.push(Message::Assistant(AssistantMessage { content: answer, ..Default::default() }));
    messages.push(Message::user("Now count down from 10 to 1."));
    let (ttft, _, usage, _) = timed(&model, &messages, 1).await;
    let new = usage.input_tokens - usage.cached_input_tokens;
    println!(
        "second turn: {new} new tokens of {} prefilled in {ttft:.2} s ({:.1} tok/s incl. the first sample)",
        usage.input_tokens,
        new as f64 / ttft
    );
    println!("peak RSS: {:.0} MiB", peak_rss_mib());
}
