//! Talking to the hub: which commit and blob a file is (a `HEAD` of its resolve URL, as
//! `huggingface_hub` does), which GGUFs a repository has, and the download (`download`),
//! checked against the hub's sha256 before it is linked from `snapshots/`. What the hub
//! answers is checked (`checked`) before it names anything on disk: a listed file name
//! that would leave the repository's folder refuses the listing, an `X-Repo-Commit` that
//! is no commit hash or an ETag that is no hash refuses the file.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, bail};
use reqwest::header::{HeaderMap, HeaderValue};

use super::cache::Cache;
use super::checked::{BlobHash, Commit, RepoPath, shown};
use super::download::{MAX_JSON, Source, check, download, read_bounded};
use super::name::{FileChoice, ModelRef, pick_gguf};
use super::progress::size;

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
    /// The most bytes one download takes when the hub announces no size
    /// (`LUCID_MODELS_MAX_DOWNLOAD`, see [`super::max_download`]); an announced size above
    /// it is refused. The error is the setting's, reported when a download needs it.
    pub max_download: Result<u64, String>,
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

/// What a `HEAD` of a resolve URL says, checked.
struct Metadata {
    commit: Commit,
    hash: BlobHash,
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
                    RepoPath::parse(
                        &pick_gguf(&files, tag.as_deref())
                            .with_context(|| format!("{} at {}", model.repo, model.revision))?,
                    )?
                }
            };
            let url = format!(
                "{endpoint}/{}/resolve/{}/{}",
                model.repo,
                encode(model.revision.as_str()),
                encode_path(file.as_str())
            );
            anyhow::Ok((self.metadata(&url).await?, file))
        };
        let (meta, file) = match asked.await {
            Ok(found) => found,
            Err(e) if e.downcast_ref::<reqwest::Error>().is_some_and(|r| r.is_connect() || r.is_timeout()) => {
                // The hub out of reach: a copy already here still does, as with huggingface_hub.
                if let Some(path) = self.cache.find(model) {
                    eprintln!(
                        "lucid: {}",
                        shown(&format!("{endpoint} is out of reach ({e}); using the cached {}", path.display()))
                    );
                    return Ok(cached(model, path));
                }
                return Err(e.context(format!("cannot reach {endpoint} to download {}", model.display())));
            }
            Err(e) => return Err(e),
        };
        let repo = &model.repo;
        self.cache.set_ref(repo, &model.revision, &meta.commit)?;
        let blob = self.cache.blob(repo, &meta.hash);
        let pointer = self.cache.pointer(repo, &meta.commit, &file);
        let pulled = |path: PathBuf, downloaded| -> anyhow::Result<Pulled> {
            let size = std::fs::metadata(&path)?.len();
            Ok(Pulled { repo: repo.to_string(), file: file.to_string(), path, size, downloaded })
        };
        if blob.is_file() {
            let path = if std::fs::metadata(&pointer).is_ok_and(|m| m.is_file()) {
                pointer
            } else {
                self.cache.link(repo, &meta.commit, &file, &meta.hash)?
            };
            return pulled(path, false);
        }
        let cap = self.max_download.clone().map_err(anyhow::Error::msg)?;
        let total = meta.size.map_or_else(|| "unknown size".to_string(), size);
        eprintln!(
            "lucid: downloading {} ({total}) from {}/{repo} into {}",
            shown(file.as_str()),
            shown(&endpoint),
            shown(&self.cache.repo_dir(repo).display().to_string())
        );
        let _lock = lock(&self.cache.lock(repo, &meta.hash)).await?;
        // Another lucid may have finished it while this one waited for the lock.
        if !blob.is_file() {
            let bearer = same_host(&meta.location, &endpoint).then_some(self.token.as_deref()).flatten();
            let src = Source { location: &meta.location, hash: &meta.hash, size: meta.size, bearer };
            download(&client, &src, &blob, &file, cap).await?;
        }
        pulled(self.cache.link(repo, &meta.commit, &file, &meta.hash)?, true)
    }

    /// The files of a repository at a revision (`GET /api/models/ORG/REPO/revision/REV`),
    /// each a path inside the repository: one that is not (`../x`, `/etc/x`, a control
    /// character) refuses the whole list, as only a broken or hostile hub sends one.
    async fn files(&self, client: &reqwest::Client, endpoint: &str, model: &ModelRef) -> anyhow::Result<Vec<String>> {
        let url = format!("{endpoint}/api/models/{}/revision/{}", model.repo, encode(model.revision.as_str()));
        let resp = client.get(&url).headers(self.auth()).send().await?;
        let resp = check(resp, &model.display())?;
        let body = read_bounded(resp, MAX_JSON, &url).await?;
        let body: serde_json::Value =
            serde_json::from_slice(&body).with_context(|| format!("{}: not the hub's JSON", shown(&url)))?;
        body["siblings"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|s| s["rfilename"].as_str())
            .map(|name| {
                RepoPath::parse(name)
                    .map(|p| p.as_str().to_string())
                    .with_context(|| format!("the hub's file list of {} at {} was refused", model.repo, model.revision))
            })
            .collect()
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
                .context("the hub did not say which commit the file is at (no X-Repo-Commit header)")?;
            let commit = Commit::parse(commit.trim())
                .with_context(|| format!("the hub's X-Repo-Commit `{}` is not a commit hash", shown(&commit)))?;
            // A redirect's own Content-Length is its (empty) body's, not the file's.
            let redirected = resp.status().is_redirection();
            let size = match header(&headers, "x-linked-size")
                .or_else(|| header(&headers, "content-length").filter(|_| !redirected))
            {
                Some(s) => Some(s.trim().parse::<u64>().ok().with_context(|| {
                    format!("the hub announced the file's size as `{}`, not a number of bytes", shown(&s))
                })?),
                None => None,
            };
            let etag = header(&headers, "x-linked-etag")
                .or_else(|| header(&headers, "etag"))
                .context("the hub gave no ETag for the file, so its download could not be checked")?;
            let hash = BlobHash::from_etag(&etag, size)?;
            let location = match location {
                Some(l) if redirected => l,
                _ => url.clone(),
            };
            return Ok(Metadata { commit, hash, size, location });
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
        FileChoice::Exact(f) => f.to_string(),
        FileChoice::Tag(_) => path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default(),
    };
    let size = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
    Pulled { repo: model.repo.to_string(), file, path, size, downloaded: false }
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
    fn revisions_and_paths_are_encoded_per_segment() {
        assert_eq!(encode("refs/pr/1"), "refs%2Fpr%2F1");
        assert_eq!(encode_path("sub dir/m.gguf"), "sub%20dir/m.gguf");
        assert_eq!(origin("http://127.0.0.1:8/a/b"), "http://127.0.0.1:8");
        assert!(!same_host("https://cdn.example/x", "https://huggingface.co"));
    }
}
