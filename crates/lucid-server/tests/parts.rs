//! Runs of the server's own API take content parts: an image given to
//! `POST /v1/sessions/{id}/runs` reaches the model in Chat Completions' wire shape (Lucid's
//! strict image mock checks it), the run and the session show it described (media type,
//! size, SHA-256) rather than inlined, its bytes are stored once however many runs send
//! them, a run continued after its instance was gone still carries it, wrong parts are 400s
//! naming the field, and a text-only model refuses an image with the library's capability
//! error, and the answers to the agent's questions may carry one too. On SQLite and on
//! the real PostgreSQL (`LUCID_TEST_POSTGRES_URL`).

mod common;

use lucid::Agent;
use lucid::content::Media;
use lucid::model::catalogue::Capabilities;
use lucid_mock::MockServer;
use lucid_mock::images::image_handler;
use lucid_server::{Database, Server, ServerConfig};
use serde_json::{Value, json};

/// 16 bytes that start as a PNG does (the mock checks the magic bytes).
const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR";

fn b64(data: &[u8]) -> String {
    Media::bytes("image/png", data.to_vec()).base64()
}

fn agent(mock: &MockServer) -> Agent {
    let model = lucid::model::OpenAiCompatible::new(&format!("{}/v1", mock.url()), None, "mock").unwrap();
    Agent::builder(model).build()
}

/// A server on `database` that stops when the sender is dropped or sent to.
async fn serve(
    database: Database,
    agent: Agent,
    tune: impl FnOnce(ServerConfig) -> ServerConfig,
) -> (String, tokio::sync::oneshot::Sender<()>, tokio::task::JoinHandle<()>) {
    let server = Server::open(tune(ServerConfig::new(database).agent("default", agent))).await.unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let serving = tokio::spawn(async move {
        server
            .serve(listener, async {
                let _ = stopped.await;
            })
            .await
            .unwrap();
    });
    (url, stop, serving)
}

fn client(url: String, dir: &std::sync::Arc<common::TempDir>) -> common::Api {
    common::Api {
        url,
        http: lucid::model::http::reqwest_client_builder().build().unwrap(),
        key: None,
        dir: std::sync::Arc::clone(dir),
    }
}

/// Raw SQL on the server's database, to look at the stored blobs and to leave a run as a
/// process that died before its turn's first commit would.
enum Raw {
    Sqlite(std::path::PathBuf),
    #[cfg(feature = "postgres")]
    Postgres(String),
}

impl Raw {
    /// `sql` with `{t}` as the session store's table prefix (`lucid_` on PostgreSQL).
    async fn execute(&self, sql: &str) {
        match self {
            Raw::Sqlite(path) => {
                rusqlite::Connection::open(path).unwrap().execute_batch(&sql.replace("{t}", "")).unwrap()
            }
            #[cfg(feature = "postgres")]
            Raw::Postgres(url) => {
                let (c, conn) = tokio_postgres::connect(url, tokio_postgres::NoTls).await.unwrap();
                tokio::spawn(conn);
                c.batch_execute(&sql.replace("{t}", "lucid_")).await.unwrap();
            }
        }
    }

    async fn count(&self, sql: &str) -> i64 {
        match self {
            Raw::Sqlite(path) => {
                rusqlite::Connection::open(path).unwrap().query_row(&sql.replace("{t}", ""), [], |r| r.get(0)).unwrap()
            }
            #[cfg(feature = "postgres")]
            Raw::Postgres(url) => {
                let (c, conn) = tokio_postgres::connect(url, tokio_postgres::NoTls).await.unwrap();
                tokio::spawn(conn);
                c.query_one(&sql.replace("{t}", "lucid_"), &[]).await.unwrap().get(0)
            }
        }
    }
}

/// The last user message the mock received.
fn last_user_content(mock: &MockServer) -> Value {
    let req = mock.requests().last().expect("the model was called").json();
    let messages = req["messages"].as_array().unwrap().clone();
    messages.iter().rev().find(|m| m["role"] == "user").unwrap()["content"].clone()
}

async fn image_runs(database: Database, raw: Raw, name: &str) {
    let dir = std::sync::Arc::new(common::temp_dir(name));
    let mock = MockServer::start(image_handler()).await;
    let (url, stop, serving) = serve(database.clone(), agent(&mock), |c| c).await;
    let api = client(url, &dir);
    let sha = lucid::store::encoding::hex_sha256(PNG);
    let id = api.session().await;
    let image = json!({"type": "image", "media_type": "image/png", "data": b64(PNG)});

    // The image reaches the model as Chat Completions' `image_url` with a data URL.
    let (status, run) = api
        .post(&format!("/v1/sessions/{id}/runs"), json!({"input": [{"type": "text", "text": "What is it?"}, image]}))
        .await;
    assert_eq!(status, 200, "{run}");
    assert_eq!(run["status"], "completed", "{run}");
    assert_eq!(run["result"]["content"], "I see: image/png (16 bytes).");
    let data_url = format!("data:image/png;base64,{}", b64(PNG));
    assert_eq!(
        last_user_content(&mock),
        json!([{"type": "text", "text": "What is it?"}, {"type": "image_url", "image_url": {"url": data_url}}])
    );

    // The run and the session describe it; the bytes only when asked.
    let described = json!({"type": "image", "media_type": "image/png", "sha256": sha, "size": PNG.len()});
    let (_, shown) = api.get(&format!("/v1/runs/{}", run["id"].as_str().unwrap())).await;
    assert_eq!(shown["input"], json!([{"type": "text", "text": "What is it?"}, described]), "{shown}");
    let (_, session) = api.get(&format!("/v1/sessions/{id}")).await;
    assert_eq!(session["messages"][0]["parts"][1], described, "{session}");
    let (_, full) = api.get(&format!("/v1/sessions/{id}?attachments=true")).await;
    assert_eq!(full["messages"][0]["parts"][1], image, "{full}");
    let (status, _) = api.get(&format!("/v1/sessions/{id}?attachments=maybe")).await;
    assert_eq!(status, 400);

    // A text run shows its text as before.
    let (_, text_run) = api.post(&format!("/v1/sessions/{id}/runs"), json!({"input": "Thanks."})).await;
    assert_eq!(text_run["input"], "Thanks.", "{text_run}");

    // The same image in another run is stored once.
    let (_, again) = api
        .post(&format!("/v1/sessions/{id}/runs"), json!({"input": [{"type": "text", "text": "And now?"}, image]}))
        .await;
    assert_eq!(again["status"], "completed", "{again}");
    let blobs = format!("SELECT COUNT(*) FROM {{t}}blobs WHERE sha256 = '{sha}'");
    assert_eq!(raw.count(&blobs).await, 1, "one copy of the bytes");

    // A run refused because the session has one going (another instance's, its lease
    // current) keeps none of its image: the bytes are kept with the run or not at all.
    let again_id = again["id"].as_str().unwrap();
    raw.execute(&format!(
        "INSERT INTO serve_runs (id, tenant, session_id, status, created_at, updated_at, owner, lease_until) \
         SELECT 'run_elsewhere', tenant, session_id, 'running', created_at, updated_at, 'elsewhere:1:0', \
         9000000000000000 FROM serve_runs WHERE id = '{again_id}'"
    ))
    .await;
    let other_png = [PNG, b"other"].concat();
    let other_sha = lucid::store::encoding::hex_sha256(&other_png);
    let other = json!({"type": "image", "media_type": "image/png", "data": b64(&other_png)});
    let (status, refused) = api
        .post(&format!("/v1/sessions/{id}/runs"), json!({"input": [{"type": "text", "text": "This?"}, other]}))
        .await;
    assert_eq!((status, refused["error"]["code"].as_str()), (409, Some("session_busy")), "{refused}");
    let other_blobs = format!("SELECT COUNT(*) FROM {{t}}blobs WHERE sha256 = '{other_sha}'");
    assert_eq!(raw.count(&other_blobs).await, 0, "the refused run's bytes are not kept");
    let refs = format!("SELECT COUNT(*) FROM {{t}}session_blobs WHERE sha256 = '{other_sha}'");
    assert_eq!(raw.count(&refs).await, 0, "nor referred to by the session");
    raw.execute("DELETE FROM serve_runs WHERE id = 'run_elsewhere'").await;
    stop.send(()).unwrap();
    serving.await.unwrap();

    // The last run's process died before its turn's first commit: its row says running with
    // an expired lease, the session's history has none of its messages — nor of any other,
    // so the image's bytes are kept for the run's input alone.
    raw.execute(&format!(
        "UPDATE serve_runs SET status = 'running', owner = 'elsewhere:1:0', lease_until = 1, result = NULL \
         WHERE id = '{again_id}'; DELETE FROM serve_events WHERE run_id = '{again_id}'; \
         DELETE FROM {{t}}messages WHERE session_id = '{id}';"
    ))
    .await;
    let before = mock.requests().len();
    let (url, stop, serving) = serve(database, agent(&mock), |c| c).await;
    let api = client(url, &dir);
    let events = api.get_text(&format!("/v1/runs/{again_id}/events")).await;
    let events = common::parse_sse(&events);
    assert_eq!(events.last().unwrap().event.as_deref(), Some("completed"), "{events:?}");
    assert!(mock.requests().len() > before, "the model was called again");
    assert_eq!(
        last_user_content(&mock),
        json!([{"type": "text", "text": "And now?"}, {"type": "image_url", "image_url": {"url": data_url}}]),
        "the continued run still carries the image"
    );
    let (_, recovered) = api.get(&format!("/v1/runs/{again_id}")).await;
    assert_eq!(recovered["result"]["content"], "I see: image/png (16 bytes).", "{recovered}");

    // Deleting the session deletes the bytes it was the last to refer to.
    let (status, _) = api.send(reqwest::Method::DELETE, &format!("/v1/sessions/{id}"), None).await;
    assert_eq!(status, 204);
    assert_eq!(raw.count(&blobs).await, 0, "the bytes went with the session");
    stop.send(()).unwrap();
    serving.await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn image_runs_on_sqlite() {
    let dir = common::temp_dir("parts-db");
    let path = dir.0.join("serve.db");
    image_runs(Database::Sqlite(path.clone()), Raw::Sqlite(path), "parts").await;
}

#[cfg(feature = "postgres")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn image_runs_on_postgres() {
    let Some(admin) = common::postgres_url() else { return };
    let db = common::PgDatabase::create(&admin, "lucid_parts").await;
    image_runs(Database::Postgres(db.url.clone()), Raw::Postgres(db.url.clone()), "parts-pg").await;
    db.drop_now().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wrong_parts_are_400s_naming_the_field() {
    let mock = MockServer::start(image_handler()).await;
    // Room in the body for an attachment past the 20 MiB cap.
    let api = common::start("parts-400", agent(&mock), |c| c.body_limit(40 << 20)).await;
    let id = api.session().await;
    let run = |input: Value| {
        let api = &api;
        let id = &id;
        async move { api.post(&format!("/v1/sessions/{id}/runs"), json!({"input": input})).await }
    };
    let text = json!({"type": "text", "text": "look"});
    let over = vec![0u8; (20 << 20) + 1];
    let cases = [
        (
            json!([text, {"type": "video", "media_type": "video/mp4", "data": "AAAA"}]),
            "`input[1].type`: unknown part type `video`",
        ),
        (
            json!([text, {"type": "image", "media_type": "image/png", "data": "not base64!"}]),
            "`input[1].data`: must be standard base64",
        ),
        (
            json!([{"type": "image", "media_type": "image/png", "data": b64(&over)}]),
            "`input[0].data`: the attachment is 20971521 bytes, over the cap of 20971520 bytes",
        ),
        (
            json!([{"type": "image", "media_type": "application/pdf", "data": "AAAA"}]),
            "`input[0].media_type`: `application/pdf` is not an image",
        ),
        (
            json!([{"type": "image", "media_type": "image/png", "url": "file:///etc/passwd"}]),
            "`input[0].url`: must be an http(s) URL",
        ),
        (
            json!([{"type": "image", "media_type": "image/png"}]),
            "`input[0]`: needs exactly one of `data` (base64) and `url`",
        ),
        (
            json!([{"type": "image", "media_type": "image/png", "data": "AAAA", "detail": "high"}]),
            "`input[0].detail`: unknown field",
        ),
        (json!(["look"]), "`input[0]`: must be a content part"),
        (json!([]), "`input`: must hold at least one part"),
        (json!(7), "`input`: must be a string or a list of content parts"),
    ];
    for (input, message) in cases {
        let (status, body) = run(input).await;
        assert_eq!(status, 400, "{body}");
        assert_eq!(common::error_code(&body), "invalid_field", "{body}");
        let got = body["error"]["message"].as_str().unwrap();
        assert!(got.starts_with(message), "{got:?} should start with {message:?}");
    }
    assert!(mock.requests().is_empty(), "nothing reached the model");
    let (_, session) = api.get(&format!("/v1/sessions/{id}")).await;
    assert_eq!(session["messages"], json!([]), "no run entered the history: {session}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_text_only_model_refuses_an_image_with_the_capability_error() {
    let mock = MockServer::start(image_handler()).await;
    let model = lucid::model::OpenAiCompatible::new(&format!("{}/v1", mock.url()), None, "mock")
        .unwrap()
        .with_capabilities(Capabilities::TEXT);
    let api = common::start("parts-text-only", Agent::builder(model).build(), |c| c).await;
    let id = api.session().await;
    let image = json!({"type": "image", "media_type": "image/png", "data": b64(PNG)});
    let (status, body) =
        api.post(&format!("/v1/sessions/{id}/runs"), json!({"input": [{"type": "text", "text": "see"}, image]})).await;
    assert_eq!(status, 400, "{body}");
    let message = body["error"]["message"].as_str().unwrap();
    assert!(message.starts_with("`input`: the model mock ("), "{message}");
    assert!(message.contains("does not take image input"), "{message}");
    assert!(mock.requests().is_empty(), "nothing was sent");
    // The session is not poisoned: a text run goes on.
    let (_, run) = api.post(&format!("/v1/sessions/{id}/runs"), json!({"input": "Just text."})).await;
    assert_eq!(run["status"], "completed", "{run}");
    assert_eq!(run["result"]["content"], "I see no attachment.");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_answers_to_the_agents_questions_may_carry_an_image() {
    let images = image_handler();
    let mock = MockServer::start(move |req: &lucid_mock::RecordedRequest| {
        if String::from_utf8_lossy(&req.body).contains("image_url") {
            images(req)
        } else {
            let ask = [("call_q", "ask_user", r#"{"questions": ["Which screenshot?"]}"#)];
            lucid_mock::Reply::sse(&lucid_mock::tool_call_stream(&ask))
        }
    })
    .await;
    let model = lucid::model::OpenAiCompatible::new(&format!("{}/v1", mock.url()), None, "mock").unwrap();
    let agent = Agent::builder(model).tool(lucid::tool::AskUser::deferred()).build();
    let api = common::start("parts-input", agent, |c| c).await;
    let id = api.session().await;
    let (_, run) = api.post(&format!("/v1/sessions/{id}/runs"), json!({"input": "What is wrong?"})).await;
    assert_eq!(run["status"], "needs_input", "{run}");
    let run_id = run["id"].as_str().unwrap();
    let image = json!({"type": "image", "media_type": "image/png", "data": b64(PNG)});
    let (status, done) = api
        .post(&format!("/v1/runs/{run_id}/input"), json!({"input": [{"type": "text", "text": "This one."}, image]}))
        .await;
    assert_eq!(status, 200, "{done}");
    assert_eq!(done["result"]["content"], "I see: image/png (16 bytes).", "{done}");
    let sha = lucid::store::encoding::hex_sha256(PNG);
    let described = json!({"type": "image", "media_type": "image/png", "sha256": sha, "size": PNG.len()});
    assert_eq!(done["input"], json!([{"type": "text", "text": "This one."}, described]), "{done}");
}
