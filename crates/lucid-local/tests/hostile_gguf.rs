//! The engine against model files someone else made: copies of the real test GGUF
//! (`LUCID_TEST_GGUF`, `.ci/gguf.sh`) with metadata rewritten in the test (a small GGUF
//! writer below), a truncated file, and hostile chat templates. Each costs a clear error
//! and bounded memory, never an abort of the process; and the prefix cache on disk survives
//! a truncated file and a different model at the same path, size and modification time.

use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use lucid::model::{ChatModel, ChatOptions, ChatRequest, ModelError};
use lucid::{Message, ToolSpec};
use lucid_local::{LocalModel, LocalOptions};
use serde_json::json;

fn real_gguf() -> Option<PathBuf> {
    match std::env::var("LUCID_TEST_GGUF") {
        Ok(v) if !v.is_empty() => Some(PathBuf::from(v)),
        _ if std::env::var("CI").is_ok_and(|v| v == "true") => {
            panic!("LUCID_TEST_GGUF is not set under CI=true; .ci/gguf.sh prints one")
        }
        _ => {
            eprintln!(
                "skipped: LUCID_TEST_GGUF is not set (the path of a Qwen2.5 instruct GGUF; .ci/gguf.sh prints one)"
            );
            None
        }
    }
}

/// A folder of this test's own, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("lucid-hostile-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A metadata value to write in place of the file's own.
enum Meta {
    U32(u32),
    Str(String),
}

/// GGUF's scalar sizes by type id (8 is a string, 9 an array).
fn scalar_size(t: u32) -> Option<u64> {
    match t {
        0 | 1 | 7 => Some(1),
        2 | 3 => Some(2),
        4..=6 => Some(4),
        10..=12 => Some(8),
        _ => None,
    }
}

struct Reader<R> {
    r: R,
}

impl<R: Read> Reader<R> {
    fn bytes(&mut self, n: u64) -> Vec<u8> {
        let mut b = vec![0u8; n as usize];
        self.r.read_exact(&mut b).unwrap();
        b
    }
    fn u32(&mut self) -> u32 {
        u32::from_le_bytes(self.bytes(4).try_into().unwrap())
    }
    fn u64(&mut self) -> u64 {
        u64::from_le_bytes(self.bytes(8).try_into().unwrap())
    }
    fn string(&mut self) -> Vec<u8> {
        let n = self.u64();
        assert!(n < 1 << 30, "a string of {n} bytes in the test GGUF");
        self.bytes(n)
    }
    /// The raw bytes of one value of type `t`.
    fn value(&mut self, t: u32) -> Vec<u8> {
        match t {
            8 => {
                let s = self.string();
                [(s.len() as u64).to_le_bytes().to_vec(), s].concat()
            }
            9 => {
                let (item, n) = (self.u32(), self.u64());
                let mut out = [item.to_le_bytes().to_vec(), n.to_le_bytes().to_vec()].concat();
                for _ in 0..n {
                    out.extend(self.value(item));
                }
                out
            }
            t => self.bytes(scalar_size(t).expect("a GGUF type")),
        }
    }
}

/// Writes a copy of the GGUF at `from` to `to` with the metadata `edits` applied (keys
/// replaced or added), its tensor index unchanged and its tensor data copied at the new
/// (aligned) offset.
fn forge(from: &Path, to: &Path, edits: &[(&str, Meta)]) {
    let mut r = Reader { r: std::io::BufReader::new(std::fs::File::open(from).unwrap()) };
    assert_eq!(r.bytes(4), b"GGUF");
    let version = r.u32();
    let (n_tensors, n_kv) = (r.u64(), r.u64());
    let mut kvs: Vec<(Vec<u8>, u32, Vec<u8>)> = Vec::new();
    let mut alignment = 32u64;
    for _ in 0..n_kv {
        let key = r.string();
        let t = r.u32();
        let value = r.value(t);
        if key == b"general.alignment" {
            alignment = u64::from(u32::from_le_bytes(value[..4].try_into().unwrap()));
        }
        kvs.push((key, t, value));
    }
    let mut index = Vec::new();
    for _ in 0..n_tensors {
        let name = r.string();
        let dims = r.u32();
        index.extend((name.len() as u64).to_le_bytes());
        index.extend(name);
        index.extend(dims.to_le_bytes());
        for _ in 0..dims {
            index.extend(r.u64().to_le_bytes());
        }
        index.extend(r.u32().to_le_bytes());
        index.extend(r.u64().to_le_bytes());
    }
    let mut f = r.r;
    let end = f.stream_position().unwrap();
    let data_offset = end.div_ceil(alignment) * alignment;
    for (key, meta) in edits {
        let (t, value) = match meta {
            Meta::U32(v) => (4, v.to_le_bytes().to_vec()),
            Meta::Str(s) => (8, [(s.len() as u64).to_le_bytes().to_vec(), s.as_bytes().to_vec()].concat()),
        };
        match kvs.iter_mut().find(|kv| kv.0 == key.as_bytes()) {
            Some(kv) => (kv.1, kv.2) = (t, value),
            None => kvs.push((key.as_bytes().to_vec(), t, value)),
        }
    }
    let mut out = std::io::BufWriter::new(std::fs::File::create(to).unwrap());
    let mut header = Vec::new();
    header.extend(b"GGUF");
    header.extend(version.to_le_bytes());
    header.extend(n_tensors.to_le_bytes());
    header.extend((kvs.len() as u64).to_le_bytes());
    for (key, t, value) in &kvs {
        header.extend((key.len() as u64).to_le_bytes());
        header.extend(key);
        header.extend(t.to_le_bytes());
        header.extend(value);
    }
    header.extend(index);
    let padded = (header.len() as u64).div_ceil(alignment) * alignment;
    header.resize(padded as usize, 0);
    out.write_all(&header).unwrap();
    f.seek(SeekFrom::Start(data_offset)).unwrap();
    std::io::copy(&mut f, &mut out).unwrap();
    out.flush().unwrap();
}

fn load(path: &Path, options: LocalOptions) -> Result<LocalModel, ModelError> {
    LocalModel::load(path, options)
}

fn small() -> LocalOptions {
    LocalOptions { context_size: Some(1024), ..LocalOptions::default() }
}

async fn ask(model: &LocalModel, text: &str, max_tokens: u32) -> Result<lucid::model::ChatResponse, ModelError> {
    let messages = [Message::user(text)];
    let options = ChatOptions { max_tokens: Some(max_tokens), ..Default::default() };
    model.chat(ChatRequest::new(&messages, &[], &options)).await
}

#[tokio::test(flavor = "multi_thread")]
async fn a_context_length_too_small_or_absurd_is_a_clear_error_not_an_abort() {
    let Some(real) = real_gguf() else { return };
    let dir = Scratch::new("context");
    let tiny = dir.0.join("tiny.gguf");
    forge(&real, &tiny, &[("qwen2.context_length", Meta::U32(100))]);
    let e = load(&tiny, LocalOptions::default()).unwrap_err().to_string();
    assert!(e.contains("context_length") && e.contains("100 tokens") && e.contains("256"), "{e}");

    let absurd = dir.0.join("absurd.gguf");
    forge(&real, &absurd, &[("qwen2.context_length", Meta::U32(3_000_000_000))]);
    let e = load(&absurd, LocalOptions::default()).unwrap_err().to_string();
    assert!(e.contains("context_length is 3000000000"), "{e}");

    // 300 tokens: llama.cpp rounds its context up to 512 but bounds its batch by 300; a
    // prompt between the two once went to llama.cpp in one batch (an assertion, abort).
    let short = dir.0.join("short.gguf");
    forge(&real, &short, &[("qwen2.context_length", Meta::U32(300))]);
    let model = load(&short, LocalOptions::default()).unwrap();
    assert_eq!(model.context_window(), 300);
    let long = "Repeat after me: ".to_string() + &"apple banana cherry ".repeat(100);
    let e = ask(&model, &long, 8).await.unwrap_err().to_string();
    assert!(e.contains("exceeds the context window (300 tokens)"), "{e}");
    let fits = ask(&model, &format!("Say yes. {}", "ok ".repeat(150)), 4).await.unwrap();
    assert!(fits.usage.unwrap().input_tokens > 150, "a prompt within the window runs: {fits:?}");

    for bad in [LocalOptions { batch_size: 0, ..small() }, LocalOptions { context_size: Some(64), ..small() }] {
        let e = load(&real, bad).unwrap_err().to_string();
        assert!(e.contains("batch_size is 0") || e.contains("context_size is 64"), "{e}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn hostile_chat_templates_in_the_file_or_given_are_clear_errors() {
    let Some(real) = real_gguf() else { return };
    let dir = Scratch::new("template");
    // A template that renders nothing: once an abort inside llama.cpp (no token to sample).
    let empty = dir.0.join("empty.gguf");
    forge(&real, &empty, &[("tokenizer.chat_template", Meta::Str("{% if false %}never{% endif %}".into()))]);
    let model = load(&empty, small()).unwrap();
    let e = ask(&model, "hi", 4).await.unwrap_err().to_string();
    assert!(e.contains("empty prompt"), "{e}");
    drop(model);

    // 20 MB of template: refused at load.
    let huge = dir.0.join("huge.gguf");
    let source = format!("{{{{ '{}' }}}}", "x".repeat(20 << 20));
    forge(&real, &huge, &[("tokenizer.chat_template", Meta::Str(source))]);
    let e = load(&huge, small()).unwrap_err().to_string();
    assert!(e.contains("the chat template is") && e.contains("over the 262144"), "{e}");

    // Given in place of the file's: one that loops, one that writes without end, one
    // whose tojson asks for an indent of 2^62 spaces. Each ends in bounded time.
    let cases = [
        ("{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}x", "instructions"),
        ("{% for i in range(100000) %}{{ 'x' * 10000000 }}{% endfor %}", "output is over"),
        ("{{ messages | tojson(indent=4611686018427387904) }}", "indent of 4611686018427387904"),
    ];
    for (source, expected) in cases {
        let options = LocalOptions { chat_template: Some(source.into()), ..small() };
        let model = load(&real, options).unwrap();
        let started = std::time::Instant::now();
        let e = tokio::time::timeout(std::time::Duration::from_secs(120), ask(&model, "hi", 4))
            .await
            .expect("bounded")
            .unwrap_err()
            .to_string();
        assert!(e.contains(expected), "{source}: {e}");
        eprintln!("{expected}: an error after {:?}", started.elapsed());
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_truncated_file_is_an_error_with_llama_cpp_s_reason() {
    let Some(real) = real_gguf() else { return };
    let dir = Scratch::new("truncated");
    let cut = dir.0.join("cut.gguf");
    let mut src = std::fs::File::open(&real).unwrap();
    let mut out = std::fs::File::create(&cut).unwrap();
    std::io::copy(&mut (&mut src).take(8 << 20), &mut out).unwrap();
    let e = load(&cut, small()).unwrap_err().to_string();
    assert!(e.contains("cut.gguf") && e.contains("llama.cpp: "), "the loader's own reason: {e}");
}

fn calculator() -> ToolSpec {
    ToolSpec::new(
        "calculator",
        "Evaluates an arithmetic expression and returns the result.",
        json!({"type": "object", "properties": {"expression": {"type": "string"}}, "required": ["expression"]}),
    )
    .unwrap()
}

fn cache_files(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| {
            d.filter_map(|e| Some(e.ok()?.path())).filter(|p| p.extension().is_some_and(|x| x == "lucidkv")).collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

#[tokio::test(flavor = "multi_thread")]
async fn the_prefix_cache_survives_a_truncated_file_and_follows_the_model_s_content() {
    let Some(real) = real_gguf() else { return };
    let dir = Scratch::new("cache");
    let cache = dir.0.join("kv");
    let model_path = dir.0.join("model.gguf");
    forge(&real, &model_path, &[]);
    let options =
        LocalOptions { context_size: Some(1024), prefix_cache: Some(cache.clone()), ..LocalOptions::default() };
    let tools = [calculator()];
    let messages = [
        Message::system("You are a careful assistant. Use the calculator for every arithmetic question."),
        Message::user("What is 12 * 12?"),
    ];
    let call = ChatOptions { max_tokens: Some(8), ..Default::default() };
    let run = |options: LocalOptions| {
        let (model_path, tools, messages, call) = (&model_path, &tools, &messages, &call);
        async move {
            let model = load(model_path, options).unwrap();
            let r = model.chat(ChatRequest::new(messages, tools, call)).await.unwrap();
            r.usage.unwrap().cached_input_tokens
        }
    };
    assert_eq!(run(options.clone()).await, 0);
    let saved = cache_files(&cache);
    assert_eq!(saved.len(), 1, "{saved:?}");
    let full = std::fs::read(&saved[0]).unwrap();
    assert!(run(options.clone()).await > 100, "the prefix came from disk");

    // A crash or a full disk while writing: half a file. The run succeeds (computing the
    // prefix), the file is written again whole and serves the run after.
    std::fs::write(&saved[0], &full[..full.len() / 2]).unwrap();
    assert_eq!(run(options.clone()).await, 0);
    assert_eq!(std::fs::read(&saved[0]).unwrap().len(), full.len(), "rebuilt");
    assert!(run(options.clone()).await > 100);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!((mode(&cache), mode(&saved[0])), (0o700, 0o600));
    }

    // Another model at the same path, of the same size, with the same modification time
    // (its name changed, one letter): its own prefix, not the other model's.
    let mtime = std::fs::metadata(&model_path).unwrap().modified().unwrap();
    let other = dir.0.join("other.gguf");
    forge(&real, &other, &[("general.name", Meta::Str("Qwen2.5 Coder 0.5B Instruct AWX".into()))]);
    assert_eq!(std::fs::metadata(&other).unwrap().len(), std::fs::metadata(&model_path).unwrap().len());
    std::fs::rename(&other, &model_path).unwrap();
    std::fs::File::options().append(true).open(&model_path).unwrap().set_modified(mtime).unwrap();
    assert_eq!(run(options.clone()).await, 0, "a cache miss: the content changed");
    assert_eq!(cache_files(&cache).len(), 2, "a state of its own");
}
