//! `lucid models pull|list|rm` and the local default model, against a fake Hugging Face
//! hub on loopback (`hub/mod.rs`): the cache layout `huggingface_hub` writes, the CDN
//! redirect, resumed downloads, the sha256 check, offline mode.

mod common;
mod hub;

use std::path::{Path, PathBuf};
use std::process::Output;

use common::{run_in, test_dir, text};
use hub::{COMMIT, FakeHub, HubFile, sha256};

const REPO: &str = "org/tiny-GGUF";

/// Bytes that are not all alike, so a misplaced range shows in the hash.
fn bytes(n: usize, seed: u8) -> Vec<u8> {
    (0..n).map(|i| ((i * 31 + seed as usize) % 251) as u8).collect()
}

/// `lucid ARGS` in `dir` with the fake hub as endpoint and `dir/hf` as HF_HOME.
async fn lucid(dir: &Path, hub: &FakeHub, args: &[&str], vars: &[(&str, &str)]) -> Output {
    let home = dir.join("hf").display().to_string();
    let endpoint = hub.url();
    let mut all = vec![("HF_HOME", home.as_str()), ("HF_ENDPOINT", endpoint.as_str())];
    all.extend_from_slice(vars);
    run_in(dir, args, &all).await
}

fn repo_dir(dir: &Path, repo: &str) -> PathBuf {
    dir.join("hf/hub").join(format!("models--{}", repo.replace('/', "--")))
}

fn entries(path: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(path)
        .map(|d| d.flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect())
        .unwrap_or_default();
    v.sort();
    v
}

#[tokio::test(flavor = "multi_thread")]
async fn pull_writes_the_hub_cache_layout_through_the_cdn_redirect() {
    let data = bytes(200_000, 1);
    let sha = sha256(&data);
    let hub = FakeHub::start(vec![HubFile::new(REPO, "tiny-Q8_0.gguf", data.clone())]).await;
    let dir = test_dir("models-pull");
    let out =
        lucid(&dir, &hub, &["models", "pull", "org/tiny-GGUF:tiny-Q8_0.gguf"], &[("HF_TOKEN", "hf_secret")]).await;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    let repo = repo_dir(&dir, REPO);
    let pointer = repo.join("snapshots").join(COMMIT).join("tiny-Q8_0.gguf");
    assert_eq!(text(&out.stdout).trim(), pointer.display().to_string());
    assert_eq!(std::fs::read_link(&pointer).unwrap(), PathBuf::from(format!("../../blobs/{sha}")));
    assert_eq!(std::fs::read(&pointer).unwrap(), data);
    assert_eq!(std::fs::read_to_string(repo.join("refs/main")).unwrap(), COMMIT);
    assert_eq!(entries(&repo.join("blobs")), [sha.as_str()], "no .incomplete left");
    let err = text(&out.stderr);
    assert!(
        err.contains(&format!(
            "downloading tiny-Q8_0.gguf (200.0 kB) from {}/{REPO} into {}",
            hub.url(),
            repo.display()
        )),
        "{err}"
    );
    assert!(
        err.contains("\nlucid: tiny-Q8_0.gguf: 200.0 kB of 200.0 kB, ") && !err.contains('\r'),
        "no bar in a pipe: {err}"
    );
    // HEAD without following the redirect (its headers are the answer), then the CDN.
    assert_eq!(hub.lines(), [format!("HEAD /{REPO}/resolve/main/tiny-Q8_0.gguf"), format!("GET /cdn/{sha}")]);
    let seen = hub.seen();
    assert_eq!(seen[0].authorization.as_deref(), Some("Bearer hf_secret"), "the hub gets the token");
    assert_eq!(seen[1].authorization, None, "the token does not go to the CDN, another origin");
    assert_eq!(seen[1].range, None);

    // Pulled again: the hub is asked, nothing is downloaded.
    let out = lucid(&dir, &hub, &["models", "pull", "org/tiny-GGUF:tiny-Q8_0.gguf"], &[]).await;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    assert!(text(&out.stderr).contains("already in the cache"), "{}", text(&out.stderr));
    assert_eq!(hub.lines().len(), 3, "one HEAD more, no GET: {:?}", hub.lines());
}

#[tokio::test(flavor = "multi_thread")]
async fn an_interrupted_download_resumes_with_a_range_request_and_matches_its_sha256() {
    let data = bytes(300_000, 2);
    let sha = sha256(&data);
    let hub = FakeHub::start(vec![HubFile::new(REPO, "tiny-Q4_K_M.gguf", data.clone())]).await;
    let dir = test_dir("models-resume");
    hub.cut_next(1);
    let out = lucid(&dir, &hub, &["models", "pull", "org/tiny-GGUF:tiny-Q4_K_M.gguf"], &[]).await;
    assert_eq!(out.status.code(), Some(1), "stderr: {}", text(&out.stderr));
    assert!(text(&out.stderr).contains("run the same command again to resume it"), "{}", text(&out.stderr));
    let repo = repo_dir(&dir, REPO);
    let incomplete = repo.join("blobs").join(format!("{sha}.incomplete"));
    assert_eq!(std::fs::metadata(&incomplete).unwrap().len(), 150_000, "the half that came is kept");
    assert!(entries(&repo.join("snapshots").join(COMMIT)).is_empty(), "nothing half-written under snapshots/");

    let out = lucid(&dir, &hub, &["models", "pull", "org/tiny-GGUF:tiny-Q4_K_M.gguf"], &[]).await;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    let last = hub.seen().pop().unwrap();
    assert_eq!((last.path.as_str(), last.range.as_deref()), (format!("/cdn/{sha}").as_str(), Some("bytes=150000-")));
    let pointer = repo.join("snapshots").join(COMMIT).join("tiny-Q4_K_M.gguf");
    assert_eq!(sha256(&std::fs::read(&pointer).unwrap()), sha);
    assert!(!incomplete.exists());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_sha256_mismatch_is_refused_and_nothing_is_left_in_the_cache() {
    let mut file = HubFile::new(REPO, "tiny-Q8_0.gguf", bytes(50_000, 3));
    file.announced = "f".repeat(64);
    let hub = FakeHub::start(vec![file]).await;
    let dir = test_dir("models-mismatch");
    let out = lucid(&dir, &hub, &["models", "pull", "org/tiny-GGUF:tiny-Q8_0.gguf"], &[]).await;
    assert_eq!(out.status.code(), Some(1), "stdout: {}", text(&out.stdout));
    let err = text(&out.stderr);
    assert!(err.contains("does not match the hub's checksum") && err.contains(&"f".repeat(64)), "{err}");
    let repo = repo_dir(&dir, REPO);
    assert!(entries(&repo.join("blobs")).is_empty(), "neither blob nor .incomplete");
    assert!(entries(&repo.join("snapshots").join(COMMIT)).is_empty());
}

#[tokio::test(flavor = "multi_thread")]
async fn offline_uses_only_the_cache_and_says_so_when_the_file_is_missing() {
    let hub = FakeHub::start(vec![HubFile::new(REPO, "tiny-Q8_0.gguf", bytes(10_000, 4))]).await;
    let dir = test_dir("models-offline");
    for (args, vars) in [
        (&["models", "pull", "--offline", "org/tiny-GGUF:tiny-Q8_0.gguf"][..], &[][..]),
        (&["models", "pull", "org/tiny-GGUF:tiny-Q8_0.gguf"][..], &[("HF_HUB_OFFLINE", "1")][..]),
    ] {
        let out = lucid(&dir, &hub, args, vars).await;
        assert_eq!(out.status.code(), Some(1));
        let err = text(&out.stderr);
        assert!(
            err.contains(
                "offline (--offline or HF_HUB_OFFLINE=1), and org/tiny-GGUF:tiny-Q8_0.gguf is not in the cache at"
            ) && err.contains(&dir.join("hf/hub").display().to_string()),
            "{err}"
        );
    }
    assert!(hub.seen().is_empty(), "offline: no request at all");
    let out = lucid(&dir, &hub, &["models", "pull", "org/tiny-GGUF:tiny-Q8_0.gguf"], &[]).await;
    assert_eq!(out.status.code(), Some(0));
    let asked = hub.seen().len();
    let out = lucid(&dir, &hub, &["models", "pull", "--offline", "org/tiny-GGUF:Q8_0"], &[]).await;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    assert!(text(&out.stdout).trim().ends_with(&format!("snapshots/{COMMIT}/tiny-Q8_0.gguf")));
    assert_eq!(hub.seen().len(), asked, "the cached copy, found by its tag, without the hub");
    // The hub out of reach: `pull` says so and gives the cached copy.
    let home = dir.join("hf").display().to_string();
    let vars = [("HF_HOME", home.as_str()), ("HF_ENDPOINT", "http://127.0.0.1:9")];
    for name in ["org/tiny-GGUF:tiny-Q8_0.gguf", "org/tiny-GGUF:Q8_0"] {
        let out = run_in(&dir, &["models", "pull", name], &vars).await;
        assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
        assert!(text(&out.stderr).contains("http://127.0.0.1:9 is out of reach"), "{}", text(&out.stderr));
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_repository_alone_picks_its_q4_k_m_and_a_tag_picks_by_name() {
    let hub = FakeHub::start(vec![
        HubFile::new(REPO, "tiny-Q8_0.gguf", bytes(1_000, 5)),
        HubFile::new(REPO, "tiny-Q4_K_M.gguf", bytes(1_000, 6)),
        HubFile::new(REPO, "mmproj-tiny-Q4_K_M.gguf", bytes(1_000, 7)),
    ])
    .await;
    let dir = test_dir("models-pick");
    let out = lucid(&dir, &hub, &["models", "pull", REPO], &[]).await;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    assert!(text(&out.stdout).trim().ends_with("/tiny-Q4_K_M.gguf"), "{}", text(&out.stdout));
    assert_eq!(hub.lines()[0], format!("GET /api/models/{REPO}/revision/main"));
    let out = lucid(&dir, &hub, &["models", "pull", "org/tiny-GGUF:q8_0"], &[]).await;
    assert!(text(&out.stdout).trim().ends_with("/tiny-Q8_0.gguf"), "{}", text(&out.stderr));
    let url = format!("{}/{REPO}/resolve/main/tiny-Q8_0.gguf", hub.url());
    let out = run_in(&dir, &["models", "pull", &url], &[("HF_HOME", &dir.join("hf").display().to_string())]).await;
    assert!(
        text(&out.stderr).contains("already in the cache"),
        "a full URL names the same file: {}",
        text(&out.stderr)
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn list_shows_cached_models_and_rm_keeps_blobs_another_entry_uses() {
    let same = bytes(5_000, 8);
    let hub = FakeHub::start(vec![
        HubFile::new(REPO, "a-Q8_0.gguf", same.clone()),
        HubFile::new(REPO, "copy-Q8_0.gguf", same.clone()),
        HubFile::new("other/thing-GGUF", "thing-F16.gguf", bytes(7_000, 9)),
    ])
    .await;
    let dir = test_dir("models-list-rm");
    for name in ["org/tiny-GGUF:a-Q8_0.gguf", "org/tiny-GGUF:copy-Q8_0.gguf", "other/thing-GGUF:thing-F16.gguf"] {
        let out = lucid(&dir, &hub, &["models", "pull", name], &[]).await;
        assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    }
    let out = lucid(&dir, &hub, &["models", "list"], &[]).await;
    let list = text(&out.stdout);
    let lines: Vec<&str> = list.lines().collect();
    assert_eq!(lines.len(), 4, "{list}");
    assert!(lines[0].starts_with("repo") && lines[0].ends_with("path"), "{list}");
    assert!(lines[1].starts_with("org/tiny-GGUF     a-Q8_0.gguf") && lines[1].contains("5.0 kB"), "{list}");
    assert!(lines[3].contains("thing-F16.gguf") && lines[3].contains("7.0 kB"), "{list}");
    let out = lucid(&dir, &hub, &["models", "list", "--json"], &[]).await;
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json[2]["repo"], "other/thing-GGUF");
    assert_eq!(json[2]["size"], 7_000);

    let repo = repo_dir(&dir, REPO);
    let sha = sha256(&same);
    let out = lucid(&dir, &hub, &["models", "rm", "org/tiny-GGUF:a-Q8_0.gguf"], &[]).await;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    assert_eq!(entries(&repo.join("snapshots").join(COMMIT)), ["copy-Q8_0.gguf"]);
    assert_eq!(entries(&repo.join("blobs")), [sha.as_str()], "still used by copy-Q8_0.gguf");
    let out = lucid(&dir, &hub, &["models", "rm", "org/tiny-GGUF:copy-Q8_0.gguf"], &[]).await;
    assert_eq!(out.status.code(), Some(0));
    assert!(!repo.exists(), "nothing left of the repository");
    let out = lucid(&dir, &hub, &["models", "list"], &[]).await;
    assert_eq!(text(&out.stdout).lines().count(), 2, "{}", text(&out.stdout));
    let out = lucid(&dir, &hub, &["models", "rm", "org/tiny-GGUF:a-Q8_0.gguf"], &[]).await;
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("is not in the cache"));
    let out = lucid(&dir, &hub, &["models", "rm", "other/thing-GGUF"], &[]).await;
    assert_eq!(out.status.code(), Some(0));
    assert!(entries(&dir.join("hf/hub")).iter().all(|e| !e.starts_with("models--")));
}

/// The default model of the fake hub: the alias's repository and file, small fake bytes.
#[cfg(feature = "local")]
fn default_model() -> HubFile {
    HubFile::new("Qwen/Qwen3-0.6B-GGUF", "Qwen3-0.6B-Q8_0.gguf", bytes(20_000, 10))
}

#[cfg(feature = "local")]
#[tokio::test(flavor = "multi_thread")]
async fn with_no_key_and_no_server_run_pulls_the_default_model_and_says_what_goes_where() {
    let hub = FakeHub::start(vec![default_model()]).await;
    let dir = test_dir("models-default");
    let out = lucid(&dir, &hub, &["run", "hello"], &[]).await;
    let err = text(&out.stderr);
    let repo = repo_dir(&dir, "Qwen/Qwen3-0.6B-GGUF");
    let lines: Vec<&str> = err.lines().collect();
    assert!(
        lines[0]
            .starts_with("lucid: no API key or local model server found, so the model runs in-process (qwen3-0.6b)")
            && lines[0].contains("to use a hosted provider instead, set its key (e.g. export OPENAI_API_KEY=..."),
        "{err}"
    );
    assert_eq!(
        lines[1],
        format!(
            "lucid: downloading Qwen3-0.6B-Q8_0.gguf (20.0 kB) from {}/Qwen/Qwen3-0.6B-GGUF into {}",
            hub.url(),
            repo.display()
        )
    );
    let pointer = repo.join("snapshots").join(COMMIT).join("Qwen3-0.6B-Q8_0.gguf");
    assert_eq!(std::fs::read(&pointer).unwrap(), default_model().bytes);
    // The fake bytes are no model: the engine (or its absence) refuses them, naming the file.
    assert_ne!(out.status.code(), Some(0));

    // Once cached: no download, not even a question to the hub, also offline.
    let asked = hub.seen().len();
    let out = lucid(&dir, &hub, &["config", "show"], &[]).await;
    let shown = text(&out.stdout);
    assert!(
        shown.contains(&format!(
            "provider = \"local\"\nmodel = \"qwen3-0.6b\"\nmodel_file = {:?}",
            pointer.display().to_string()
        )),
        "{shown}"
    );
    let out = lucid(&dir, &hub, &["run", "--offline", "hello"], &[]).await;
    assert!(!text(&out.stderr).contains("downloading"), "{}", text(&out.stderr));
    assert_eq!(hub.seen().len(), asked);
}

#[cfg(feature = "local")]
#[tokio::test(flavor = "multi_thread")]
async fn offline_with_nothing_cached_and_no_provider_is_a_clear_error() {
    let hub = FakeHub::start(vec![default_model()]).await;
    let dir = test_dir("models-default-offline");
    let out = lucid(&dir, &hub, &["chat", "--offline"], &[]).await;
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    for needle in [
        "no model provider found",
        "OPENAI_API_KEY",
        "no model provider found, and the default local model qwen3-0.6b is neither cached nor downloadable: \
         offline (--offline or HF_HUB_OFFLINE=1), and Qwen/Qwen3-0.6B-GGUF:Qwen3-0.6B-Q8_0.gguf is not in the cache",
        "--model-file FILE.gguf",
    ] {
        assert!(err.contains(needle), "missing {needle:?} in:\n{err}");
    }
    assert!(hub.seen().is_empty());
}

#[cfg(not(feature = "local"))]
#[tokio::test(flavor = "multi_thread")]
async fn without_the_engine_a_local_model_is_resolved_then_refused_clearly() {
    let hub = FakeHub::start(vec![HubFile::new(REPO, "tiny-Q8_0.gguf", bytes(1_000, 11))]).await;
    let dir = test_dir("models-no-engine");
    let out = lucid(&dir, &hub, &["run", "--model", "local:org/tiny-GGUF:Q8_0", "hello"], &[]).await;
    assert_eq!(out.status.code(), Some(2), "stderr: {}", text(&out.stderr));
    let pointer = repo_dir(&dir, REPO).join("snapshots").join(COMMIT).join("tiny-Q8_0.gguf");
    assert!(pointer.is_file(), "the name was resolved through the cache (and pulled)");
    let err = text(&out.stderr);
    assert!(
        err.contains(&format!(
            "this lucid was built without the local model engine, so it cannot run org/tiny-GGUF:Q8_0 ({})",
            pointer.display()
        )),
        "{err}"
    );
    // Without the engine, no key and no server is the message of old, not a download.
    let out = lucid(&dir, &hub, &["run", "hello"], &[]).await;
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("no model provider found"));
}

/// `lucid serve`'s agents and a workflow's agents name `local:MODEL`: resolved through
/// the same cache, pulled when missing, before the engine is asked to load it.
#[tokio::test(flavor = "multi_thread")]
async fn serve_agents_and_workflow_agents_resolve_local_names_through_the_cache() {
    let hub = FakeHub::start(vec![
        HubFile::new(REPO, "tiny-Q8_0.gguf", bytes(2_000, 12)),
        HubFile::new("other/thing-GGUF", "thing-Q4_K_M.gguf", bytes(3_000, 13)),
    ])
    .await;
    let dir = test_dir("models-serve-workflow");
    std::fs::write(dir.join("config.toml"), "model = \"local:org/tiny-GGUF:Q8_0\"\n").unwrap();
    let out = lucid(&dir, &hub, &["serve", "--config", "config.toml", "--listen", "127.0.0.1:0"], &[]).await;
    assert_ne!(out.status.code(), Some(0), "fake bytes are no model");
    let tiny = repo_dir(&dir, REPO).join("snapshots").join(COMMIT).join("tiny-Q8_0.gguf");
    assert!(tiny.is_file(), "the agent's model was pulled: {}", text(&out.stderr));

    std::fs::write(
        dir.join("flow.toml"),
        "name = \"local\"\n[agents.writer]\nmodel = \"local:other/thing-GGUF\"\n\
         [[steps]]\nname = \"say\"\nagent = \"writer\"\nprompt = \"hi\"\n",
    )
    .unwrap();
    let out = lucid(&dir, &hub, &["workflow", "run", "flow.toml"], &[]).await;
    assert_ne!(out.status.code(), Some(0));
    let thing = repo_dir(&dir, "other/thing-GGUF").join("snapshots").join(COMMIT).join("thing-Q4_K_M.gguf");
    assert!(thing.is_file(), "the workflow agent's model was pulled: {}", text(&out.stderr));
    assert!(text(&out.stderr).contains("agent `writer`"), "{}", text(&out.stderr));
}

/// On a terminal the download draws a bar in place (a plain line otherwise, as the other
/// tests' piped stderr shows).
#[tokio::test(flavor = "multi_thread")]
async fn on_a_terminal_the_download_draws_a_progress_bar() {
    let hub = FakeHub::start(vec![HubFile::new(REPO, "tiny-Q8_0.gguf", bytes(400_000, 14))]).await;
    let dir = test_dir("models-pty");
    let (url, d) = (hub.url(), dir.clone());
    tokio::task::spawn_blocking(move || {
        let mut cmd = common::lucid_command();
        cmd.args(["models", "pull", "org/tiny-GGUF:tiny-Q8_0.gguf"])
            .current_dir(&d)
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("HOME", &d)
            .env("HF_HOME", d.join("hf"))
            .env("HF_ENDPOINT", url)
            .env("TERM", "xterm");
        let mut p = expectrl::Session::spawn(cmd).expect("spawn lucid models pull");
        p.set_expect_timeout(Some(std::time::Duration::from_secs(20)));
        p.expect("lucid: downloading tiny-Q8_0.gguf (400.0 kB)").unwrap();
        p.expect("\r\x1b[2Ktiny-Q8_0.gguf: [==============================] 100% 400.0 kB of 400.0 kB, ").unwrap();
        p.expect("lucid: org/tiny-GGUF:tiny-Q8_0.gguf (400.0 kB) downloaded").unwrap();
        p.expect(expectrl::Eof).unwrap();
    })
    .await
    .unwrap();
}

/// A name from the hub's file list or from a resolve URL that would leave the cache (`../`,
/// an absolute path) or a revision that would (`..%2F..`) is refused before anything is
/// written: the file of that name outside `HF_HOME` (`dir/hf`) stays as it was.
#[tokio::test(flavor = "multi_thread")]
async fn names_and_revisions_that_leave_the_cache_are_refused_and_nothing_outside_changes() {
    let hub = FakeHub::start(vec![HubFile::new(REPO, "tiny-Q8_0.gguf", bytes(4_000, 20))]).await;
    // A hostile hub answers every path, even one the client normalised a `../` out of.
    hub.hostile(|h| h.stand_in = true);
    let dir = test_dir("models-escape");
    let outside = dir.join("outside-Q4_K_M.gguf");
    std::fs::write(&outside, "precious").unwrap();
    // snapshots/COMMIT/ and five `..` is `dir`; refs/ and four.
    let up = "../../../../../outside-Q4_K_M.gguf".to_string();
    let absolute = outside.display().to_string();
    let url = |rev: &str, file: &str| format!("{}/{REPO}/resolve/{rev}/{file}", hub.url());
    let not_inside = "is not a file path inside the repository";
    let cases = [
        (vec![up.clone()], REPO.to_string(), not_inside),
        (vec![absolute.clone()], REPO.to_string(), not_inside),
        (vec![], url("main", &up.replace('/', "%2F")), not_inside),
        (vec![], url("main", &absolute.replace('/', "%2F")), not_inside),
        (vec![], url("..%2F..%2F..%2F..%2Foutside-Q4_K_M.gguf", "tiny-Q8_0.gguf"), "is not a revision"),
    ];
    for (listed, name, said) in cases {
        // A fresh cache each time: with the blob already there, old code took the
        // outside file as the cached entry instead of replacing it.
        let _ = std::fs::remove_dir_all(dir.join("hf"));
        hub.hostile(|h| h.listed = listed);
        let out = lucid(&dir, &hub, &["models", "pull", &name], &[]).await;
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{name}: {err}");
        assert!(err.contains(said), "{name}: {err}");
        let meta = std::fs::symlink_metadata(&outside).unwrap();
        assert!(meta.is_file(), "{name}: {outside:?} was replaced");
        assert_eq!(std::fs::read_to_string(&outside).unwrap(), "precious", "{name}");
        let here = entries(&dir);
        assert!(here.iter().all(|e| e == "hf" || e == "outside-Q4_K_M.gguf"), "{name}: {here:?}");
        assert!(entries(&repo_dir(&dir, REPO).join("snapshots").join(COMMIT)).is_empty(), "{name}");
    }
}

/// A body that goes on past the announced size (or, with no size announced, past the
/// cap) is stopped there, failed and removed, instead of filling the disk.
#[tokio::test(flavor = "multi_thread")]
async fn a_body_longer_than_announced_or_than_the_cap_is_stopped_and_removed() {
    const MIB: u64 = 1 << 20;
    let hub = FakeHub::start(vec![HubFile::new(REPO, "tiny-Q8_0.gguf", bytes(MIB as usize, 21))]).await;
    hub.hostile(|h| h.overlong = true);
    let dir = test_dir("models-overlong");
    let repo = repo_dir(&dir, REPO);
    let cases = [
        (false, None, "more of tiny-Q8_0.gguf than the 1048576 bytes it announced; the download was stopped"),
        (true, Some("1MiB"), "than the download cap of 1.0 MB (LUCID_MODELS_MAX_DOWNLOAD)"),
    ];
    for (hide_size, cap, said) in cases {
        hub.hostile(|h| h.hide_size = hide_size);
        let before = hub.sent();
        let vars: Vec<_> = cap.map(|c| ("LUCID_MODELS_MAX_DOWNLOAD", c)).into_iter().collect();
        let pull = lucid(&dir, &hub, &["models", "pull", "org/tiny-GGUF:tiny-Q8_0.gguf"], &vars);
        let out = tokio::time::timeout(std::time::Duration::from_secs(300), pull).await.expect("the pull ends");
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{err}");
        assert!(err.contains(said), "{err}");
        let sent = hub.sent() - before;
        assert!(sent < 64 * MIB, "the body was read on: {sent} of its {} bytes", hub::OVERLONG);
        for blob in entries(&repo.join("blobs")) {
            let len = std::fs::metadata(repo.join("blobs").join(&blob)).unwrap().len();
            assert!(len <= 2 * MIB, "{blob}: {len} bytes for 1 MiB announced");
        }
        assert!(entries(&repo.join("snapshots").join(COMMIT)).is_empty());
    }
}

/// An ETag that is no hash gives nothing to check the download against: nothing is
/// downloaded and nothing linked.
#[tokio::test(flavor = "multi_thread")]
async fn an_etag_that_is_no_hash_links_nothing() {
    let hub = FakeHub::start(vec![HubFile::new(REPO, "tiny-Q8_0.gguf", bytes(3_000, 22))]).await;
    hub.hostile(|h| h.etag = Some("not-a-hash".into()));
    let dir = test_dir("models-etag");
    let out = lucid(&dir, &hub, &["models", "pull", "org/tiny-GGUF:tiny-Q8_0.gguf"], &[]).await;
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("`not-a-hash`, is not a sha256") && err.contains("does not link an unchecked file"), "{err}");
    let repo = repo_dir(&dir, REPO);
    assert!(entries(&repo.join("snapshots").join(COMMIT)).is_empty());
    assert!(entries(&repo.join("blobs")).is_empty());
    assert!(!hub.lines().iter().any(|l| l.starts_with("GET /cdn/")), "nothing downloaded: {:?}", hub.lines());
}

/// Escape sequences in a name (from the hub's list, a URL, or the cache) are printed as
/// text, never as raw bytes a terminal obeys.
#[tokio::test(flavor = "multi_thread")]
async fn escape_sequences_in_names_never_reach_the_terminal() {
    let hub = FakeHub::start(vec![HubFile::new(REPO, "tiny-Q8_0.gguf", bytes(3_000, 23))]).await;
    hub.hostile(|h| {
        h.stand_in = true;
        h.listed = vec!["evil\x1b[31m\x1b]0;pwned\x07-Q4_K_M.gguf".into()];
    });
    let dir = test_dir("models-escapes");
    let url = format!("{}/{REPO}/resolve/main/evil%1B%5B2J-Q8_0.gguf", hub.url());
    // Put in the cache by another tool.
    let snapshot = repo_dir(&dir, REPO).join("snapshots").join(COMMIT);
    std::fs::create_dir_all(&snapshot).unwrap();
    std::fs::write(snapshot.join("cached\x1b[2J-Q8_0.gguf"), "x").unwrap();
    for args in [&["models", "pull", REPO][..], &["models", "pull", &url], &["models", "list"]] {
        let out = lucid(&dir, &hub, args, &[]).await;
        let (stdout, err) = (text(&out.stdout), text(&out.stderr));
        assert!(!out.stdout.contains(&0x1b) && !out.stderr.contains(&0x1b), "{args:?}: {stdout}{err}");
        assert!(!out.stderr.contains(&0x07), "{args:?}: {err}");
        assert!(stdout.contains("\\u{1b}[") || err.contains("\\u{1b}["), "{args:?} names it, escaped: {stdout}{err}");
    }
}
