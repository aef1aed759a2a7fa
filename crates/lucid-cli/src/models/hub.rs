//! Talking to the hub: which commit and blob a file is (a `HEAD` of its resolve URL, as
//! `huggingface_hub` does), which GGUFs a repository has, and the download itself —
//! into `blobs/<etag>.incomplete`, resumed with a `Range` request after an interruption,
//! checked against the hub's sha256 before it is moved into place and linked from
//! `snapshots/`.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, bail};
use reqwest::header::{HeaderMap, HeaderValue};
use tokio::io::AsyncWriteExt;

use super::cache::{Cache, is_commit};
use super::name::{FileChoice, ModelRef, pick_gguf};
use super::progress::{Progress, size};

/// Where models come from and go: the cache, the hub's endpoint and token, and whether
/// the network may be used at all.
#[derive(Debug, Clone)]
pub struct Hub {
    /// The cache folder (`$HF_HUB_CACHE`, `$HF_HOME/hub`, `~/.cache/huggingface/hub`).
    pub cache: Cache,
    /// `$HF_ENDPOINT`, default `https://huggingface.co`.
    pub endpoint: String,
    /// `$HF_TOKEN`, for gated and private repositories.
    pub token: Option<String>,
    /// `--offline` or `HF_HUB_OFFLINE=1`: the cache only.
    pub offline: bool,
}

/// A model file in the cache, after [`Hub::pull`].
#[derive(Debug, Clone)]
pub struct Pulled {
    /// `ORG/REPO`.
    pub repo: String,
    /// The file's path in the repository.
    pub file: String,
    /// Its snapshot entry.
    pub path: PathBuf,
    /// Bytes.
    pub size: u64,
    /// Whether it was downloaded now (not already cached).
    pub downloaded: bool,
}

/// What a `HEAD` of a resolve URL says.
struct Metadata {
    commit: String,
    etag: String,
    size: Option<u64>,
    /// Where the bytes are: a CDN for LFS files (the hub's redirect), else the URL itself.
    location: String,
}

impl Hub {
    /// The file a name means, from the cache when it is there, else downloaded first
    /// (with the progress and a line saying what goes where). An existing `.gguf` path is
    /// taken as it is.
    pub async fn locate(&self, name: &str) -> anyhow::Result<PathBuf> {
        let path = Path::new(name);
        if name.to_ascii_lowercase().ends_with(".gguf") && path.is_file() {
            return Ok(path.to_path_buf());
        }
        let model = ModelRef::parse(name)?;
        if let Some(found) = self.cache.find(&model) {
            return Ok(found);
        }
        Ok(self.pull(&model).await?.path)
    }

    /// Makes sure the newest file a reference names is in the cache: asks the hub which
    /// commit and blob it is, and downloads the blob unless the cache has it.
    pub async fn pull(&self, model: &ModelRef) -> anyhow::Result<Pulled> {
        if self.offline {
            return self.cache.find(model).map(|path| cached(model, path)).with_context(|| {
                format!(
                    "offline (--offline or HF_HUB_OFFLINE=1), and {} is not in the cache at {}: pull it while \
                     online (`lucid models pull {}`), or pass a file with --model-file FILE.gguf",
                    model.display(),
                    self.cache.root().display(),
                    model.display()
                )
            });
        }
        let endpoint = model.endpoint.clone().unwrap_or_else(|| self.endpoint.trim_end_matches('/').to_string());
        let client = client(reqwest::redirect::Policy::limited(10))?;
        let asked = async {
            let file = match &model.file {
                FileChoice::Exact(f) => f.clone(),
                FileChoice::Tag(tag) => {
                    let files = self.files(&client, &endpoint, model).await?;
                    pick_gguf(&files, tag.as_deref())
                        .with_context(|| format!("{} at {}", model.repo, model.revision))?
                }
            };
            let url = format!("{endpoint}/{}/resolve/{}/{}", model.repo, encode(&model.revision), encode_path(&file));
            anyhow::Ok((self.metadata(&url).await?, file))
        };
        let (meta, file) = match asked.await {
            Ok(found) => found,
            Err(e) if e.downcast_ref::<reqwest::Error>().is_some_and(|r| r.is_connect() || r.is_timeout()) => {
                // The hub out of reach: a copy already here still does, as with huggingface_hub.
                if let Some(path) = self.cache.find(model) {
                    eprintln!("lucid: {endpoint} is out of reach ({e}); using the cached {}", path.display());
                    return Ok(cached(model, path));
                }
                return Err(e.context(format!("cannot reach {endpoint} to download {}", model.display())));
            }
            Err(e) => return Err(e),
        };
        self.cache.set_ref(&model.repo, &model.revision, &meta.commit)?;
        let blob = self.cache.blob(&model.repo, &meta.etag);
        let pointer = self.cache.pointer(&model.repo, &meta.commit, &file);
        if blob.is_file() {
            let path = if std::fs::metadata(&pointer).is_ok_and(|m| m.is_file()) {
                pointer
            } else {
                self.cache.link(&model.repo, &meta.commit, &file, &meta.etag)?
            };
            let size = std::fs::metadata(&path)?.len();
            return Ok(Pulled { repo: model.repo.clone(), file, path, size, downloaded: false });
        }
        let total = meta.size.map_or_else(|| "unknown size".to_string(), size);
        eprintln!(
            "lucid: downloading {file} ({total}) from {endpoint}/{} into {}",
            model.repo,
            self.cache.repo_dir(&model.repo).display()
        );
        let _lock = lock(&self.cache.lock(&model.repo, &meta.etag)).await?;
        // Another lucid may have finished it while this one waited for the lock.
        if !blob.is_file() {
            let bearer = same_host(&meta.location, &endpoint).then_some(self.token.as_deref()).flatten();
            download(&client, &meta, &blob, bearer, &file).await?;
        }
        let path = self.cache.link(&model.repo, &meta.commit, &file, &meta.etag)?;
        let size = std::fs::metadata(&path)?.len();
        Ok(Pulled { repo: model.repo.clone(), file, path, size, downloaded: true })
    }

    /// The files of a repository at a revision (`GET /api/models/ORG/REPO/revision/REV`).
    async fn files(&self, client: &reqwest::Client, endpoint: &str, model: &ModelRef) -> anyhow::Result<Vec<String>> {
        let url = format!("{endpoint}/api/models/{}/revision/{}", model.repo, encode(&model.revision));
        let resp = client.get(&url).headers(self.auth()).send().await?;
        let resp = check(resp, &model.display())?;
        let body: serde_json::Value = resp.json().await.with_context(|| format!("{url}: not the hub's JSON"))?;
        Ok(body["siblings"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|s| s["rfilename"].as_str().map(str::to_string))
            .collect())
    }

    /// `HEAD` of a resolve URL, following only the hub's own (relative) redirects, as a
    /// renamed repository gives; a redirect elsewhere is the CDN holding the bytes.
    async fn metadata(&self, url: &str) -> anyhow::Result<Metadata> {
        // The redirect's own headers (X-Linked-Etag…) are the answer: not followed here.
        let client = client(reqwest::redirect::Policy::none())?;
        let mut url = url.to_string();
        for _ in 0..5 {
            let resp = client.head(&url).headers(self.auth()).header("accept-encoding", "identity").send().await?;
            let headers = resp.headers().clone();
            let location = header(&headers, "location");
            if resp.status().is_redirection()
                && let Some(loc) = location.as_deref().filter(|l| l.starts_with('/'))
            {
                url = format!("{}{loc}", origin(&url));
                continue;
            }
            // A redirect elsewhere (an LFS file's CDN) carries the file's headers itself.
            let resp = if resp.status().is_redirection() { resp } else { check(resp, &url)? };
            let commit = header(&headers, "x-repo-commit")
                .filter(|c| is_commit(c))
                .context("the hub did not say which commit the file is at (no X-Repo-Commit header)")?;
            let etag = header(&headers, "x-linked-etag")
                .or_else(|| header(&headers, "etag"))
                .map(|e| e.trim_start_matches("W/").trim_matches('"').to_string())
                .filter(|e| !e.is_empty() && e.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-'))
                .context("the hub gave no usable ETag for the file, so its download cannot be checked")?;
            let size = header(&headers, "x-linked-size")
                .or_else(|| header(&headers, "content-length"))
                .and_then(|s| s.parse().ok());
            let location = match location {
                Some(l) if resp.status().is_redirection() => l,
                _ => url.clone(),
            };
            return Ok(Metadata { commit, etag, size, location });
        }
        bail!("{url}: too many redirects")
    }

    fn auth(&self) -> HeaderMap {
        let mut h = HeaderMap::new();
        if let Some(v) = self.token.as_deref().and_then(|t| HeaderValue::from_str(&format!("Bearer {t}")).ok()) {
            h.insert("authorization", v);
        }
        h
    }
}

/// A cached file as [`Hub::pull`] reports it.
fn cached(model: &ModelRef, path: PathBuf) -> Pulled {
    let file = match &model.file {
        FileChoice::Exact(f) => f.clone(),
        FileChoice::Tag(_) => path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default(),
    };
    let size = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
    Pulled { repo: model.repo.clone(), file, path, size, downloaded: false }
}

/// Downloads into `<blob>.incomplete` (from where an earlier attempt stopped), checks
/// size and hash, and only then renames it to `blob`. A mismatch deletes the partial file.
async fn download(
    client: &reqwest::Client,
    meta: &Metadata,
    blob: &Path,
    bearer: Option<&str>,
    file: &str,
) -> anyhow::Result<()> {
    if let Some(dir) = blob.parent() {
        tokio::fs::create_dir_all(dir).await.with_context(|| format!("creating {}", dir.display()))?;
    }
    let incomplete = PathBuf::from(format!("{}.incomplete", blob.display()));
    let mut have = tokio::fs::metadata(&incomplete).await.map(|m| m.len()).unwrap_or(0);
    if meta.size.is_some_and(|total| have > total) {
        have = 0;
    }
    if meta.size != Some(have) || have == 0 {
        let mut req = client.get(&meta.location).header("accept-encoding", "identity");
        if let Some(t) = bearer {
            req = req.bearer_auth(t);
        }
        if have > 0 {
            req = req.header("range", format!("bytes={have}-"));
        }
        let mut resp = req.send().await.with_context(|| format!("downloading {file}"))?;
        if have > 0 && resp.status() != reqwest::StatusCode::PARTIAL_CONTENT {
            // The server sent the whole file (or refused the range): start over.
            have = 0;
            if resp.status() == reqwest::StatusCode::RANGE_NOT_SATISFIABLE {
                let mut req = client.get(&meta.location).header("accept-encoding", "identity");
                if let Some(t) = bearer {
                    req = req.bearer_auth(t);
                }
                resp = req.send().await?;
            }
        }
        let mut resp = check(resp, file)?;
        let mut out = tokio::fs::OpenOptions::new()
            .create(true)
            .write(true)
            .append(have > 0)
            .truncate(have == 0)
            .open(&incomplete)
            .await
            .with_context(|| format!("writing {}", incomplete.display()))?;
        let mut progress = Progress::new(&format!("{file}:"), have, meta.size);
        let result = async {
            while let Some(chunk) = resp.chunk().await? {
                out.write_all(&chunk).await?;
                progress.add(chunk.len() as u64);
            }
            anyhow::Ok(())
        }
        .await;
        out.flush().await?;
        out.sync_all().await?;
        progress.finish();
        if let Err(e) = result {
            let got = tokio::fs::metadata(&incomplete).await.map(|m| m.len()).unwrap_or(0);
            return Err(e.context(format!(
                "the download of {file} stopped after {}; run the same command again to resume it",
                size(got)
            )));
        }
    }
    let got = tokio::fs::metadata(&incomplete).await?.len();
    if let Some(total) = meta.size.filter(|t| *t != got) {
        let _ = tokio::fs::remove_file(&incomplete).await;
        bail!("the download of {file} has {got} bytes where the hub announced {total}; it was removed");
    }
    let path = incomplete.clone();
    let etag = meta.etag.clone();
    let actual = tokio::task::spawn_blocking(move || digest(&path, &etag)).await??;
    if let Some(actual) = actual.filter(|a| *a != meta.etag) {
        let _ = tokio::fs::remove_file(&incomplete).await;
        bail!(
            "the download of {file} does not match the hub's checksum (expected {}, got {actual}); it was removed",
            meta.etag
        );
    }
    tokio::fs::rename(&incomplete, blob).await.with_context(|| format!("moving the download to {}", blob.display()))
}

/// The hash the ETag is of: the sha256 for an LFS file (64 hex digits), the git blob
/// sha1 for a small one (40); `None` for an ETag that is neither (nothing to check).
fn digest(path: &Path, etag: &str) -> anyhow::Result<Option<String>> {
    use std::io::Read;
    let hex = |s: &str| s.bytes().all(|b| b.is_ascii_hexdigit());
    let mut ctx = match etag.len() {
        64 if hex(etag) => ring::digest::Context::new(&ring::digest::SHA256),
        40 if hex(etag) => {
            let mut c = ring::digest::Context::new(&ring::digest::SHA1_FOR_LEGACY_USE_ONLY);
            c.update(format!("blob {}\0", std::fs::metadata(path)?.len()).as_bytes());
            c
        }
        _ => return Ok(None),
    };
    let mut file = std::fs::File::open(path)?;
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = file.read(&mut buf)?;
        if n == 0 {
            break;
        }
        ctx.update(&buf[..n]);
    }
    Ok(Some(ctx.finish().as_ref().iter().map(|b| format!("{b:02x}")).collect()))
}

/// Holds an exclusive lock on `path` (flock) until dropped: one download per blob.
async fn lock(path: &Path) -> anyhow::Result<std::fs::File> {
    use std::os::fd::AsRawFd;
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let file = std::fs::OpenOptions::new().create(true).truncate(false).write(true).open(path)?;
    tokio::task::spawn_blocking(move || {
        // SAFETY: flock(2) on a descriptor this function owns.
        if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
            eprintln!("lucid: another download of this file is under way; waiting for it");
            // SAFETY: as above.
            if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) } != 0 {
                return Err(std::io::Error::last_os_error());
            }
        }
        Ok(file)
    })
    .await?
    .with_context(|| format!("locking {}", path.display()))
}

fn client(redirects: reqwest::redirect::Policy) -> anyhow::Result<reqwest::Client> {
    Ok(lucid::model::http::reqwest_client_builder()
        .user_agent(concat!("lucid/", env!("CARGO_PKG_VERSION"), "; hf_hub-compatible"))
        .redirect(redirects)
        .connect_timeout(Duration::from_secs(10))
        .read_timeout(Duration::from_secs(60))
        .build()?)
}

/// The response, or an error a user can act on.
fn check(resp: reqwest::Response, what: &str) -> anyhow::Result<reqwest::Response> {
    let status = resp.status();
    if status.is_success() {
        return Ok(resp);
    }
    let hint = match status.as_u16() {
        401 | 403 => ": the repository is gated or private (accept its terms on the hub and set HF_TOKEN)",
        404 => ": no such repository, revision or file",
        _ => "",
    };
    bail!("{what}: the hub answered {status}{hint}")
}

fn header(headers: &HeaderMap, name: &str) -> Option<String> {
    headers.get(name).and_then(|v| v.to_str().ok()).map(str::to_string)
}

/// `scheme://host[:port]` of a URL.
fn origin(url: &str) -> String {
    let (scheme, rest) = url.split_once("://").unwrap_or(("https", url));
    format!("{scheme}://{}", rest.split('/').next().unwrap_or_default())
}

fn same_host(url: &str, endpoint: &str) -> bool {
    origin(url) == origin(endpoint)
}

/// A revision as one path segment (`refs/pr/1` → `refs%2Fpr%2F1`).
fn encode(segment: &str) -> String {
    segment
        .bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// A file path, each segment encoded.
fn encode_path(path: &str) -> String {
    path.split('/').map(encode).collect::<Vec<_>>().join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_etag_says_which_hash_to_check() {
        let dir = std::env::temp_dir().join(format!("lucid-digest-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("f");
        std::fs::write(&path, "hello\n").unwrap();
        // `sha256sum` and `git hash-object` of the same bytes.
        let sha256 = "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03";
        assert_eq!(digest(&path, sha256).unwrap().as_deref(), Some(sha256));
        let git = "ce013625030ba8dba906f756967f9e9ca394464a";
        assert_eq!(digest(&path, git).unwrap().as_deref(), Some(git));
        assert_eq!(digest(&path, "not-a-hash").unwrap(), None);
        std::fs::remove_dir_all(dir).ok();
    }

    #[test]
    fn revisions_and_paths_are_encoded_per_segment() {
        assert_eq!(encode("refs/pr/1"), "refs%2Fpr%2F1");
        assert_eq!(encode_path("sub dir/m.gguf"), "sub%20dir/m.gguf");
        assert_eq!(origin("http://127.0.0.1:8/a/b"), "http://127.0.0.1:8");
        assert!(!same_host("https://cdn.example/x", "https://huggingface.co"));
    }
}
