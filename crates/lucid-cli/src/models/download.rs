//! One blob's download: into `blobs/<hash>.incomplete` (resumed with a `Range` request
//! after an interruption), never past the size the hub announced (or, with none
//! announced, past the download cap), checked against its hash, and only then moved to
//! `blobs/<hash>`. Every failure but an interrupted connection removes the partial file.

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use tokio::io::AsyncWriteExt;

use super::checked::{BlobHash, HashKind, RepoPath, shown};
use super::progress::{Progress, size};

/// The download cap when `LUCID_MODELS_MAX_DOWNLOAD` is not set: 64 GiB, above the hub's
/// largest single file (50 GB; bigger models are split).
pub const DEFAULT_MAX_DOWNLOAD: u64 = 64 << 30;

/// The most bytes of a JSON answer of the hub (a repository's file list) read.
pub const MAX_JSON: u64 = 32 << 20;

/// What the hub said about one file, as far as the download needs it.
pub struct Source<'a> {
    /// Where the bytes are.
    pub location: &'a str,
    /// The hash the bytes must have (the blob's name).
    pub hash: &'a BlobHash,
    /// The size the hub announced (`X-Linked-Size`, or the `Content-Length` of a `HEAD`).
    pub size: Option<u64>,
    /// The token, when `location` is the hub's own origin.
    pub bearer: Option<&'a str>,
}

/// The download cap a `LUCID_MODELS_MAX_DOWNLOAD` value sets: bytes, or a number with a
/// unit (`500MB`, `64GiB`, `1T`: k, M, G, T decimal, Ki, Mi, Gi, Ti binary, `B` optional);
/// unset, [`DEFAULT_MAX_DOWNLOAD`]. The error says what is wrong with the value.
pub fn max_download(setting: Option<&str>) -> Result<u64, String> {
    let Some(text) = setting.map(str::trim).filter(|s| !s.is_empty()) else { return Ok(DEFAULT_MAX_DOWNLOAD) };
    let digits = text.find(|c: char| !c.is_ascii_digit()).unwrap_or(text.len());
    let unit = text[digits..].trim().trim_end_matches(['B', 'b']);
    let scale: u64 = match unit.to_ascii_lowercase().as_str() {
        "" => 1,
        "k" => 1_000,
        "m" => 1_000_000,
        "g" => 1_000_000_000,
        "t" => 1_000_000_000_000,
        "ki" => 1 << 10,
        "mi" => 1 << 20,
        "gi" => 1 << 30,
        "ti" => 1 << 40,
        _ => 0,
    };
    text[..digits].parse::<u64>().ok().filter(|n| *n > 0 && scale > 0).and_then(|n| n.checked_mul(scale)).ok_or_else(
        || format!("LUCID_MODELS_MAX_DOWNLOAD=`{}` is not a size (bytes, or e.g. 500MB, 64GiB)", shown(text)),
    )
}

/// Downloads `src` into `<blob>.incomplete` (from where an earlier attempt stopped),
/// checks size and hash, and only then renames it to `blob`. At most `cap` bytes are
/// taken when the hub announced no size, and a larger announcement is refused first.
pub async fn download(
    client: &reqwest::Client,
    src: &Source<'_>,
    blob: &Path,
    file: &RepoPath,
    cap: u64,
) -> anyhow::Result<()> {
    let name = file.as_str();
    if let Some(total) = src.size.filter(|t| *t > cap) {
        bail!(
            "the hub announces {name} at {}, more than the download cap of {} (LUCID_MODELS_MAX_DOWNLOAD)",
            size(total),
            size(cap)
        );
    }
    let limit = src.size.unwrap_or(cap);
    if let Some(dir) = blob.parent() {
        tokio::fs::create_dir_all(dir).await.with_context(|| format!("creating {}", dir.display()))?;
    }
    let incomplete = PathBuf::from(format!("{}.incomplete", blob.display()));
    let mut have = tokio::fs::metadata(&incomplete).await.map(|m| m.len()).unwrap_or(0);
    if have > limit {
        have = 0;
    }
    if src.size != Some(have) || have == 0 {
        let mut resp = get(client, src, have).await.with_context(|| format!("downloading {name}"))?;
        if have > 0 && resp.status() != reqwest::StatusCode::PARTIAL_CONTENT {
            // The server sent the whole file (or refused the range): start over.
            have = 0;
            if resp.status() == reqwest::StatusCode::RANGE_NOT_SATISFIABLE {
                resp = get(client, src, 0).await?;
            }
        }
        let mut resp = check(resp, name)?;
        let over = |got: u64| match src.size {
            Some(total) => format!("the hub sent more of {name} than the {total} bytes it announced"),
            None => format!(
                "the hub sent more of {name} (whose size it did not announce) than the download cap of {} \
                 (LUCID_MODELS_MAX_DOWNLOAD); {got} bytes came",
                size(cap)
            ),
        };
        if let Some(len) = resp.content_length().filter(|len| have.saturating_add(*len) > limit) {
            let _ = tokio::fs::remove_file(&incomplete).await;
            bail!("{}; the download was refused", over(have.saturating_add(len)));
        }
        let mut out = tokio::fs::OpenOptions::new()
            .create(true)
            .write(true)
            .append(have > 0)
            .truncate(have == 0)
            .open(&incomplete)
            .await
            .with_context(|| format!("writing {}", incomplete.display()))?;
        let mut progress = Progress::new(&format!("{name}:"), have, src.size);
        let mut written = have;
        let result = async {
            while let Some(chunk) = resp.chunk().await? {
                written = written.saturating_add(chunk.len() as u64);
                if written > limit {
                    return Ok(false);
                }
                out.write_all(&chunk).await?;
                progress.add(chunk.len() as u64);
            }
            anyhow::Ok(true)
        }
        .await;
        drop(resp);
        out.flush().await?;
        out.sync_all().await?;
        progress.finish();
        match result {
            Ok(true) => {}
            Ok(false) => {
                drop(out);
                let _ = tokio::fs::remove_file(&incomplete).await;
                bail!("{}; the download was stopped and removed", over(written));
            }
            Err(e) => {
                let got = tokio::fs::metadata(&incomplete).await.map(|m| m.len()).unwrap_or(0);
                return Err(e.context(format!(
                    "the download of {name} stopped after {}; run the same command again to resume it",
                    size(got)
                )));
            }
        }
    }
    let got = tokio::fs::metadata(&incomplete).await?.len();
    if let Some(total) = src.size.filter(|t| *t != got) {
        let _ = tokio::fs::remove_file(&incomplete).await;
        bail!("the download of {name} has {got} bytes where the hub announced {total}; it was removed");
    }
    let path = incomplete.clone();
    let kind = src.hash.kind();
    let actual = tokio::task::spawn_blocking(move || digest(&path, kind)).await??;
    if actual != src.hash.as_str() {
        let _ = tokio::fs::remove_file(&incomplete).await;
        bail!(
            "the download of {name} does not match the hub's checksum (expected {}, got {actual}); it was removed",
            src.hash.as_str()
        );
    }
    tokio::fs::rename(&incomplete, blob).await.with_context(|| format!("moving the download to {}", blob.display()))
}

/// `GET` of the bytes, from byte `from` on.
async fn get(client: &reqwest::Client, src: &Source<'_>, from: u64) -> reqwest::Result<reqwest::Response> {
    let mut req = client.get(src.location).header("accept-encoding", "identity");
    if let Some(t) = src.bearer {
        req = req.bearer_auth(t);
    }
    if from > 0 {
        req = req.header("range", format!("bytes={from}-"));
    }
    req.send().await
}

/// The body of `resp`, refused past `limit` bytes (announced or received).
pub async fn read_bounded(mut resp: reqwest::Response, limit: u64, what: &str) -> anyhow::Result<Vec<u8>> {
    if resp.content_length().is_some_and(|n| n > limit) {
        bail!("{what}: the hub's answer is larger than {}", size(limit));
    }
    let mut body = Vec::new();
    while let Some(chunk) = resp.chunk().await? {
        if body.len() as u64 + chunk.len() as u64 > limit {
            bail!("{what}: the hub's answer is larger than {}", size(limit));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

/// The hash of the file at `path`, in lowercase hex: its sha256, or its git blob sha1.
fn digest(path: &Path, kind: HashKind) -> anyhow::Result<String> {
    use std::io::Read;
    let mut ctx = match kind {
        HashKind::Sha256 => ring::digest::Context::new(&ring::digest::SHA256),
        HashKind::GitSha1 => {
            let mut c = ring::digest::Context::new(&ring::digest::SHA1_FOR_LEGACY_USE_ONLY);
            c.update(format!("blob {}\0", std::fs::metadata(path)?.len()).as_bytes());
            c
        }
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
    Ok(ctx.finish().as_ref().iter().map(|b| format!("{b:02x}")).collect())
}

/// The response, or an error a user can act on.
pub(super) fn check(resp: reqwest::Response, what: &str) -> anyhow::Result<reqwest::Response> {
    let status = resp.status();
    if status.is_success() {
        return Ok(resp);
    }
    let hint = match status.as_u16() {
        401 | 403 => ": the repository is gated or private (accept its terms on the hub and set HF_TOKEN)",
        404 => ": no such repository, revision or file",
        _ => "",
    };
    bail!("{}: the hub answered {status}{hint}", shown(what))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hash_kind_says_which_digest_to_take() {
        let dir = std::env::temp_dir().join(format!("lucid-digest-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("f");
        std::fs::write(&path, "hello\n").unwrap();
        // `sha256sum` and `git hash-object` of the same bytes.
        let sha256 = "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03";
        assert_eq!(digest(&path, HashKind::Sha256).unwrap(), sha256);
        let git = "ce013625030ba8dba906f756967f9e9ca394464a";
        assert_eq!(digest(&path, HashKind::GitSha1).unwrap(), git);
        std::fs::remove_dir_all(dir).ok();
    }

    #[test]
    fn the_download_cap_reads_bytes_and_units() {
        assert_eq!(max_download(None), Ok(DEFAULT_MAX_DOWNLOAD));
        assert_eq!(max_download(Some("  ")), Ok(DEFAULT_MAX_DOWNLOAD));
        assert_eq!(max_download(Some("1048576")), Ok(1 << 20));
        assert_eq!(max_download(Some("500MB")), Ok(500_000_000));
        assert_eq!(max_download(Some("64 GiB")), Ok(64 << 30));
        assert_eq!(max_download(Some("2k")), Ok(2_000));
        for bad in ["0", "-1", "ten", "5 parsecs", "99999999999999999999", "1.5G"] {
            let err = max_download(Some(bad)).unwrap_err();
            assert!(err.contains("LUCID_MODELS_MAX_DOWNLOAD"), "{bad}: {err}");
        }
    }
}
