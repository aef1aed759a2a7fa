//! The Hugging Face hub cache, laid out exactly as `huggingface_hub` writes it, so Python
//! tools, llama.cpp and lucid share one copy of each file:
//!
//! ```text
//! $HF_HUB_CACHE/models--ORG--REPO/
//!     blobs/<etag>                  the file (its sha256 for an LFS file)
//!     blobs/<etag>.incomplete       a download under way or interrupted (resumed from here)
//!     snapshots/<commit>/<file>     symlink to ../../blobs/<etag>
//!     refs/<revision>               the commit the revision pointed at
//! $HF_HUB_CACHE/.locks/models--ORG--REPO/<etag>.lock
//! ```
//!
//! A file appears under `snapshots/` only once its blob is complete and checked. Every
//! path here is built from the checked names of `checked` (a repository, a relative file
//! path, a revision, a commit, a hash), never from text the hub or a URL sent.

use std::fs;
use std::path::{Path, PathBuf};

use anyhow::Context;

use super::checked::{BlobHash, Commit, RepoId, RepoPath, Revision};
use super::name::{FileChoice, ModelRef, pick_gguf};

/// The cache folder (`hub/`).
#[derive(Debug, Clone)]
pub struct Cache {
    root: PathBuf,
}

/// One cached GGUF, as `lucid models list` shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CachedModel {
    /// `ORG/REPO`.
    pub repo: String,
    /// The file's path in the repository.
    pub file: String,
    /// Bytes.
    pub size: u64,
    /// The snapshot entry (a symlink into `blobs/`).
    pub path: PathBuf,
}

impl Cache {
    /// The cache at `root`.
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Cache { root: root.into() }
    }

    /// The cache folder.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// `models--ORG--REPO`.
    pub fn repo_dir(&self, repo: &RepoId) -> PathBuf {
        self.root.join(repo.folder())
    }

    /// Where the blob of this hash lives.
    pub fn blob(&self, repo: &RepoId, hash: &BlobHash) -> PathBuf {
        self.repo_dir(repo).join("blobs").join(hash.as_str())
    }

    /// The lock file of one blob's download.
    pub fn lock(&self, repo: &RepoId, hash: &BlobHash) -> PathBuf {
        self.root.join(".locks").join(repo.folder()).join(format!("{}.lock", hash.as_str()))
    }

    /// The snapshot entry of `file` at `commit`.
    pub fn pointer(&self, repo: &RepoId, commit: &Commit, file: &RepoPath) -> PathBuf {
        self.repo_dir(repo).join("snapshots").join(commit.as_str()).join(file.as_str())
    }

    /// The commit a revision points at: the revision itself when it is a commit hash,
    /// else what `refs/<revision>` says (when that is a commit hash).
    pub fn commit_of(&self, repo: &RepoId, revision: &Revision) -> Option<Commit> {
        if let Some(commit) = revision.commit() {
            return Some(commit);
        }
        let text = fs::read_to_string(self.repo_dir(repo).join("refs").join(revision.as_str())).ok()?;
        Commit::parse(text.trim())
    }

    /// Records that `revision` points at `commit` (`refs/<revision>`), as the hub said.
    pub fn set_ref(&self, repo: &RepoId, revision: &Revision, commit: &Commit) -> anyhow::Result<()> {
        if revision.as_str() == commit.as_str() {
            return Ok(());
        }
        let path = self.repo_dir(repo).join("refs").join(revision.as_str());
        fs::create_dir_all(path.parent().unwrap_or(&self.root))?;
        let tmp = path.with_extension(format!("tmp{}", std::process::id()));
        fs::write(&tmp, commit.as_str())
            .and_then(|()| fs::rename(&tmp, &path))
            .with_context(|| format!("writing {}", path.display()))
    }

    /// Links the snapshot entry to its blob (relative, as `huggingface_hub` does, so the
    /// cache can be moved), replacing an older entry.
    pub fn link(&self, repo: &RepoId, commit: &Commit, file: &RepoPath, hash: &BlobHash) -> anyhow::Result<PathBuf> {
        let pointer = self.pointer(repo, commit, file);
        let parent = pointer.parent().context("a snapshot entry has a folder")?;
        fs::create_dir_all(parent)?;
        // snapshots/<commit>/<dirs of file>/… back up to the repository folder.
        let depth = 2 + file.depth();
        let target = PathBuf::from("../".repeat(depth)).join("blobs").join(hash.as_str());
        let tmp = parent.join(format!(
            ".{}.tmp{}",
            pointer.file_name().and_then(|n| n.to_str()).unwrap_or("f"),
            std::process::id()
        ));
        let _ = fs::remove_file(&tmp);
        std::os::unix::fs::symlink(&target, &tmp)
            .and_then(|()| fs::rename(&tmp, &pointer))
            .with_context(|| format!("linking {} to {}", pointer.display(), target.display()))?;
        Ok(pointer)
    }

    /// The cached file a reference names, if its snapshot entry is there and whole: at
    /// the commit its revision points at, the exact file or the one the tag picks.
    pub fn find(&self, model: &ModelRef) -> Option<PathBuf> {
        let commit = self.commit_of(&model.repo, &model.revision)?;
        let file = match &model.file {
            FileChoice::Exact(f) => f.clone(),
            FileChoice::Tag(tag) => {
                let files = files_under(&self.repo_dir(&model.repo).join("snapshots").join(commit.as_str()));
                RepoPath::parse(&pick_gguf(&files, tag.as_deref()).ok()?).ok()?
            }
        };
        let pointer = self.pointer(&model.repo, &commit, &file);
        // metadata() follows the link: a dangling entry is not a cached file.
        fs::metadata(&pointer).ok().filter(|m| m.is_file()).map(|_| pointer)
    }

    /// Every cached GGUF: each snapshot entry whose blob is there, by repository and file.
    pub fn list(&self) -> Vec<CachedModel> {
        let mut out = Vec::new();
        let Ok(entries) = fs::read_dir(&self.root) else { return out };
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let Some(repo) = name.strip_prefix("models--").map(|r| r.replacen("--", "/", 1)) else { continue };
            let snapshots = entry.path().join("snapshots");
            for snapshot in fs::read_dir(&snapshots).into_iter().flatten().flatten() {
                for file in files_under(&snapshot.path()) {
                    let path = snapshot.path().join(&file);
                    match fs::metadata(&path) {
                        Ok(m) if m.is_file() && file.to_ascii_lowercase().ends_with(".gguf") => {
                            out.push(CachedModel { repo: repo.clone(), file, size: m.len(), path })
                        }
                        _ => {}
                    }
                }
            }
        }
        out.sort_by(|a, b| (&a.repo, &a.file, &a.path).cmp(&(&b.repo, &b.file, &b.path)));
        out.dedup_by(|a, b| a.repo == b.repo && a.file == b.file && a.size == b.size && a.path == b.path);
        out
    }

    /// Removes what a reference names from every snapshot of its repository (the whole
    /// repository when it names no file), then the blobs no remaining entry uses, the
    /// snapshots left empty and the refs pointing at them. Returns the entries removed.
    pub fn remove(&self, model: &ModelRef) -> anyhow::Result<Vec<PathBuf>> {
        let repo_dir = self.repo_dir(&model.repo);
        let snapshots = repo_dir.join("snapshots");
        let mut removed = Vec::new();
        for snapshot in fs::read_dir(&snapshots).into_iter().flatten().flatten() {
            let files = files_under(&snapshot.path());
            let doomed: Vec<String> = match &model.file {
                FileChoice::Exact(f) => files.iter().filter(|x| x.as_str() == f.as_str()).cloned().collect(),
                FileChoice::Tag(Some(tag)) => pick_gguf(&files, Some(tag)).into_iter().collect(),
                FileChoice::Tag(None) => files.clone(),
            };
            for file in doomed {
                let path = snapshot.path().join(&file);
                fs::remove_file(&path).with_context(|| format!("removing {}", path.display()))?;
                removed.push(path);
            }
            remove_empty_dirs(&snapshot.path());
        }
        // Blobs still used by an entry of some snapshot stay.
        let used: Vec<PathBuf> = fs::read_dir(&snapshots)
            .into_iter()
            .flatten()
            .flatten()
            .flat_map(|s| files_under(&s.path()).into_iter().map(move |f| s.path().join(f)))
            .filter_map(|p| fs::canonicalize(p).ok())
            .collect();
        for blob in fs::read_dir(repo_dir.join("blobs")).into_iter().flatten().flatten() {
            let path = blob.path();
            let whole = !path.to_string_lossy().ends_with(".incomplete");
            let in_use = fs::canonicalize(&path).is_ok_and(|p| used.contains(&p));
            if (whole || matches!(model.file, FileChoice::Tag(None))) && !in_use {
                fs::remove_file(&path).with_context(|| format!("removing {}", path.display()))?;
            }
        }
        // Refs whose snapshot is gone.
        for r in fs::read_dir(repo_dir.join("refs")).into_iter().flatten().flatten() {
            let commit = fs::read_to_string(r.path()).unwrap_or_default();
            if !snapshots.join(commit.trim()).is_dir() {
                let _ = fs::remove_file(r.path());
            }
        }
        if fs::read_dir(&snapshots).map_or(true, |mut d| d.next().is_none()) {
            let _ = fs::remove_dir_all(&repo_dir);
        }
        Ok(removed)
    }
}

/// The paths of the files (and links) under `dir`, relative to it, `/`-separated.
fn files_under(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![PathBuf::new()];
    while let Some(rel) = stack.pop() {
        for entry in fs::read_dir(dir.join(&rel)).into_iter().flatten().flatten() {
            let rel = rel.join(entry.file_name());
            match entry.file_type() {
                Ok(t) if t.is_dir() => stack.push(rel),
                Ok(_) if !entry.file_name().to_string_lossy().starts_with('.') => {
                    out.push(rel.to_string_lossy().into_owned())
                }
                _ => {}
            }
        }
    }
    out.sort();
    out
}

/// Removes `dir` and the folders under it that hold nothing.
fn remove_empty_dirs(dir: &Path) {
    for entry in fs::read_dir(dir).into_iter().flatten().flatten() {
        if entry.file_type().is_ok_and(|t| t.is_dir()) {
            remove_empty_dirs(&entry.path());
        }
    }
    let _ = fs::remove_dir(dir);
}
