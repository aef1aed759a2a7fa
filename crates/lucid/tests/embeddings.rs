//! Embedders and vector indexes: the real local model, the HTTP clients against a local
//! server, and the SQLite and pgvector indexes.

mod common;

use std::sync::Arc;

use lucid::memory::{Embedder, GeminiEmbedder, MemoryFilter, MemoryRecord, OpenAiEmbedder, VectorIndex};

use lucid_mock::{MockServer, Reply};
use lucid_sqlite::SqliteVectorIndex;
use serde_json::json;

fn record(id: &str, text: &str, session: &str, kind: &str) -> MemoryRecord {
    MemoryRecord {
        id: id.into(),
        text: text.into(),
        kind: kind.into(),
        session_id: Some(session.into()),
        user_id: Some("ada".into()),
        created_at: 0,
        metadata: json!({}),
    }
}

#[cfg(feature = "local-embeddings")]
#[tokio::test]
async fn the_local_model_embeds_meaning() {
    let Some(dir) = common::embedding_model_dir() else { return };
    let e = lucid::memory::LocalEmbedder::load(&dir).unwrap();
    let texts: Vec<String> =
        ["My cat is called Tom.", "What is the name of my cat?", "The stock market fell sharply today."]
            .map(String::from)
            .to_vec();
    let v = e.embed(&texts).await.unwrap();
    assert_eq!(v.len(), 3);
    assert_eq!(v[0].len(), 384);
    use lucid::memory::dot;
    assert!((dot(&v[0], &v[0]) - 1.0).abs() < 1e-4, "unit length");
    let related = dot(&v[0], &v[1]);
    let unrelated = dot(&v[0], &v[2]);
    assert!(related > unrelated + 0.2, "related {related}, unrelated {unrelated}");
    // Padding must not change a text's vector: embedding it alone or beside a longer text agrees.
    let alone = e.embed(&texts[..1]).await.unwrap();
    assert!(dot(&alone[0], &v[0]) > 0.9999);
}

#[tokio::test]
async fn openai_compatible_embeddings_are_batched_in_order() {
    let server = MockServer::start(|req| {
        let body = req.json();
        let data: Vec<_> = body["input"]
            .as_array()
            .unwrap()
            .iter()
            .enumerate()
            .rev()
            .map(|(i, t)| json!({"index": i, "embedding": [t.as_str().unwrap().len() as f64, 0.0]}))
            .collect();
        Reply::json(200, &json!({"data": data, "model": "m"}))
    })
    .await;
    let e = OpenAiEmbedder::new(&server.url(), Some("k".into()), "text-embedding-3-small").unwrap().with_batch_size(2);
    let texts: Vec<String> = ["a", "bb", "ccc"].map(String::from).to_vec();
    let v = e.embed(&texts).await.unwrap();
    assert_eq!(v, vec![vec![1.0, 0.0]; 3], "unit length, in input order");
    let reqs = server.requests();
    assert_eq!(reqs.len(), 2);
    assert_eq!(reqs[0].path, "/v1/embeddings");
    assert_eq!(reqs[0].json()["input"], json!(["a", "bb"]));
    assert_eq!(reqs[0].json()["encoding_format"], "float");
}

#[tokio::test]
async fn gemini_batch_embeddings() {
    let server = MockServer::start(|req| {
        let n = req.json()["requests"].as_array().unwrap().len();
        Reply::json(200, &json!({"embeddings": vec![json!({"values": [0.0, 2.0]}); n]}))
    })
    .await;
    let root = server.url().trim_end_matches("/v1").to_string();
    let e = GeminiEmbedder::new("k", "gemini-embedding-001")
        .unwrap()
        .with_base_url(&root)
        .with_task_type("RETRIEVAL_DOCUMENT");
    let v = e.embed(&["x".to_string(), "y".to_string()]).await.unwrap();
    assert_eq!(v, vec![vec![0.0, 1.0]; 2]);
    let req = &server.requests()[0];
    assert_eq!(req.path, "/v1beta/models/gemini-embedding-001:batchEmbedContents");
    assert_eq!(req.json()["requests"][1]["content"]["parts"][0]["text"], "y");
    assert_eq!(req.json()["requests"][0]["model"], "models/gemini-embedding-001");
}

async fn index_suite(index: Arc<dyn VectorIndex>) {
    let unit = |a: f32| vec![a.cos(), a.sin(), 0.0];
    index
        .add(&[
            (record("1", "cats", "s1", "summary"), unit(0.0)),
            (record("2", "dogs", "s1", "summary"), unit(0.5)),
            (record("3", "cars", "s2", "summary"), unit(1.5)),
            (record("4", "fact", "s1", "fact"), unit(0.1)),
        ])
        .await
        .unwrap();
    let all = index.search(&unit(0.02), 3, &MemoryFilter::default()).await.unwrap();
    let ids: Vec<&str> = all.iter().map(|h| h.record.id.as_str()).collect();
    assert_eq!(ids, ["1", "4", "2"]);
    assert!(all[0].score > 0.99);
    let f = MemoryFilter { session_id: Some("s1".into()), kind: Some("summary".into()), ..Default::default() };
    let ids: Vec<String> = index.search(&unit(1.4), 5, &f).await.unwrap().into_iter().map(|h| h.record.id).collect();
    assert_eq!(ids, ["2", "1"], "filters by session and kind");
    let gone = index.delete(&MemoryFilter { session_id: Some("s2".into()), ..Default::default() }).await.unwrap();
    assert_eq!(gone, 1);
    assert_eq!(index.search(&unit(1.5), 10, &MemoryFilter::default()).await.unwrap().len(), 3);
    // One record by its id (a summary past the long-term cap).
    let one = MemoryFilter { id: Some("2".into()), ..Default::default() };
    assert_eq!(index.search(&unit(0.0), 10, &one).await.unwrap().len(), 1, "search by id");
    assert_eq!(index.delete(&one).await.unwrap(), 1);
    let ids: Vec<String> = index
        .search(&unit(0.0), 10, &MemoryFilter::default())
        .await
        .unwrap()
        .into_iter()
        .map(|h| h.record.id)
        .collect();
    assert_eq!(ids, ["1", "4"]);
}

#[tokio::test]
async fn sqlite_vector_index_passes_the_suite_and_sees_other_handles() {
    let dir = std::env::temp_dir().join(format!("lucid-vec-{}", std::process::id()));
    let index = Arc::new(SqliteVectorIndex::open(dir.join("v.db")).unwrap());
    index_suite(index.clone()).await;
    let other = SqliteVectorIndex::open(dir.join("v.db")).unwrap();
    other.add(&[(record("9", "new", "s1", "fact"), vec![0.0, 0.0, 1.0])]).await.unwrap();
    let hits = index.search(&[0.0, 0.0, 1.0], 1, &MemoryFilter::default()).await.unwrap();
    assert_eq!(hits[0].record.id, "9", "rows another process added are found");
    std::fs::remove_dir_all(dir).ok();
}

#[tokio::test]
async fn pgvector_index_passes_the_suite() {
    let Some(url) = common::postgres_url() else { return };
    let store = lucid_postgres::PostgresStore::connect(&url).await.unwrap();
    let dim = 3;
    let index = lucid_postgres::PgVectorIndex::from_deadpool(store.deadpool().clone(), dim).await.unwrap();
    // The table is shared by every run against this server: start from a clean slate.
    index.delete(&MemoryFilter::default()).await.unwrap();
    index_suite(Arc::new(index)).await;
}

/// Each provider's embedder, against the response shape its documentation shows: the
/// OpenAI-compatible `/embeddings` of Zhipu (`embedding-3`), DashScope (`text-embedding-v4`,
/// at most 10 texts a request), Ollama and OpenAI, and Gemini's `batchEmbedContents`.
#[tokio::test]
async fn each_providers_embedder_speaks_its_documented_shape() {
    use lucid::memory::provider_embedder;
    use lucid::model::Provider;
    use lucid::model::http::HttpTransport;
    let record = |name: &str| Provider::find(name).unwrap();
    let server = MockServer::start(|req| {
        let body = req.json();
        if req.path.ends_with(":batchEmbedContents") {
            // https://ai.google.dev/api/embeddings#method:-models.batchembedcontents
            let n = body["requests"].as_array().unwrap().len();
            return Reply::json(200, &json!({"embeddings": vec![json!({"values": [0.013168523, -0.008711934, 0.0]}); n]}));
        }
        let model = body["model"].as_str().unwrap().to_string();
        let data: Vec<_> = (0..body["input"].as_array().unwrap().len())
            .map(|i| json!({"embedding": [-0.02675454691052437, 0.019060475751757622, 0.0], "index": i, "object": "embedding"}))
            .collect();
        let mut answer = json!({"model": model, "data": data, "object": "list",
                                "usage": {"completion_tokens": 0, "prompt_tokens": 4, "total_tokens": 4}});
        if model == "text-embedding-v4" {
            // DashScope adds an id.
            answer["id"] = json!("f62c2ae7-0906-9758-ab34-47c5764f07e2");
        }
        Reply::json(200, &answer)
    })
    .await;
    let root = server.url().trim_end_matches("/v1").to_string();
    let texts: Vec<String> = (0..12).map(|i| format!("text {i}")).collect();
    for (provider, base, model, requests) in [
        ("openai", server.url(), "text-embedding-3-small", 1),
        ("zhipu", server.url(), "embedding-3", 1),
        ("qwen", server.url(), "text-embedding-v4", 2),
        ("ollama", server.url(), "nomic-embed-text", 1),
        ("gemini", root.clone(), "gemini-embedding-001", 1),
    ] {
        let before = server.requests().len();
        let e = provider_embedder(record(provider), &base, Some("key-1".into()), None, HttpTransport::default())
            .expect("the provider has an embeddings endpoint")
            .unwrap();
        assert_eq!(e.model_name(), model);
        let v = e.embed(&texts).await.unwrap_or_else(|err| panic!("{provider}: {err}"));
        assert_eq!(v.len(), 12, "{provider}");
        assert!((lucid::memory::dot(&v[0], &v[0]) - 1.0).abs() < 1e-5, "{provider}: unit length");
        let sent = &server.requests()[before..];
        assert_eq!(sent.len(), requests, "{provider}: requests of at most the provider's batch");
        let r = &sent[0];
        if provider == "gemini" {
            assert_eq!(r.path, "/v1beta/models/gemini-embedding-001:batchEmbedContents");
            assert_eq!(r.header("x-goog-api-key"), Some("key-1"));
            assert_eq!(r.json()["requests"][0]["model"], "models/gemini-embedding-001");
            assert_eq!(r.json()["requests"][0]["content"]["parts"][0]["text"], "text 0");
        } else {
            assert_eq!(r.path, "/v1/embeddings", "{provider}");
            assert_eq!(r.header("authorization"), Some("Bearer key-1"));
            assert_eq!(r.json()["model"], model);
        }
    }
    let none = provider_embedder(record("deepseek"), "https://api.deepseek.com", None, None, HttpTransport::default());
    assert!(none.is_none(), "no endpoint, no embedder");
    // A server with no preset is used with a model named.
    let named = provider_embedder(record("vllm"), &server.url(), None, Some("bge-m3"), HttpTransport::default());
    assert_eq!(named.unwrap().unwrap().model_name(), "bge-m3");
    // So is a provider of one's own (a configuration file's), by its record.
    let own = Provider::compatible().renamed("acme");
    let named = provider_embedder(&own, &server.url(), None, Some("bge-m3"), HttpTransport::default());
    assert_eq!(named.unwrap().unwrap().model_name(), "bge-m3");
}
