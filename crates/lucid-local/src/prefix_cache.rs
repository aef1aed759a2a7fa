//! The attention (KV) cache of a conversation's fixed prefix, kept on disk: every run of
//! an agent starts with the same system prompt and tool schemas, so a new process loads
//! their computed state instead of prefilling them again.
//!
//! A file is named by a hash of the model file (path, size, modification time), the chat
//! template and the exact prefix tokens; llama.cpp stores the tokens in the file too, and a
//! load whose tokens differ is thrown away, so a hash collision costs a prefill, never a
//! wrong answer. The directory is bounded (oldest files go first) and safe to delete at any
//! time; files are written under a temporary name and renamed into place.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use llama_cpp_2::token::LlamaToken;

/// Files of this cache end with this extension; nothing else in the directory is touched.
const EXT: &str = "lucidkv";

/// A directory of prefix states for one model file and template.
#[derive(Debug, Clone)]
pub struct PrefixCache {
    dir: PathBuf,
    max_bytes: u64,
    seed: u64,
}

impl PrefixCache {
    /// The cache in `dir` for the model at `model` rendered with `template`, holding at most
    /// `max_bytes`.
    pub fn new(dir: &Path, max_bytes: u64, model: &Path, template: &str) -> Self {
        let meta = std::fs::metadata(model).ok();
        let size = meta.as_ref().map_or(0, std::fs::Metadata::len);
        let mtime = meta
            .and_then(|m| m.modified().ok())
            .and_then(|t| t.duration_since(SystemTime::UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_nanos());
        let mut h = Fnv::default();
        h.write(model.to_string_lossy().as_bytes());
        h.write(&size.to_le_bytes());
        h.write(&mtime.to_le_bytes());
        h.write(template.as_bytes());
        PrefixCache { dir: dir.to_path_buf(), max_bytes, seed: h.0 }
    }

    /// The file that holds (or would hold) the state of exactly these tokens.
    pub fn file_for(&self, tokens: &[LlamaToken]) -> PathBuf {
        let mut h = Fnv(self.seed);
        for t in tokens {
            h.write(&t.0.to_le_bytes());
        }
        self.dir.join(format!("{:016x}-{}.{EXT}", h.0, tokens.len()))
    }

    /// A temporary name beside `file`, for writing it.
    pub fn temp_for(file: &Path) -> PathBuf {
        file.with_extension(format!("{EXT}.{}.tmp", std::process::id()))
    }

    /// Creates the directory.
    pub fn ensure_dir(&self) -> std::io::Result<()> {
        std::fs::create_dir_all(&self.dir)
    }

    /// Marks `file` as just used (pruning removes the least recently used first).
    pub fn touch(file: &Path) {
        if let Ok(f) = std::fs::File::options().append(true).open(file) {
            let _ = f.set_modified(SystemTime::now());
        }
    }

    /// Deletes the least recently used files until the cache fits its bound.
    pub fn prune(&self) {
        let Ok(entries) = std::fs::read_dir(&self.dir) else { return };
        let mut files: Vec<(SystemTime, u64, PathBuf)> = entries
            .filter_map(Result::ok)
            .filter(|e| e.path().extension().is_some_and(|x| x == EXT))
            .filter_map(|e| {
                let m = e.metadata().ok()?;
                Some((m.modified().ok()?, m.len(), e.path()))
            })
            .collect();
        files.sort();
        let mut total: u64 = files.iter().map(|f| f.1).sum();
        for (_, len, path) in files {
            if total <= self.max_bytes {
                break;
            }
            if std::fs::remove_file(&path).is_ok() {
                tracing::debug!(file = %path.display(), "prefix cache: removed the least recently used state");
                total -= len;
            }
        }
    }
}

/// FNV-1a, 64 bits: stable across Rust versions and platforms, unlike `DefaultHasher`.
#[derive(Debug)]
struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

impl Fnv {
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 ^= u64::from(*b);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_depend_on_the_model_template_and_tokens_and_pruning_keeps_the_newest() {
        let dir = std::env::temp_dir().join(format!("lucid-prefix-cache-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let model = dir.join("m.gguf");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(&model, b"weights").unwrap();
        let a = PrefixCache::new(&dir, 10, &model, "tpl");
        let toks = [LlamaToken(1), LlamaToken(2)];
        assert_eq!(a.file_for(&toks), a.file_for(&toks));
        assert_ne!(a.file_for(&toks), a.file_for(&toks[..1]));
        assert_ne!(a.file_for(&toks), PrefixCache::new(&dir, 10, &model, "other").file_for(&toks));
        let old = a.file_for(&toks[..1]);
        let new = a.file_for(&toks);
        std::fs::write(&old, [0u8; 8]).unwrap();
        std::fs::File::options().append(true).open(&old).unwrap().set_modified(SystemTime::UNIX_EPOCH).unwrap();
        std::fs::write(&new, [0u8; 8]).unwrap();
        a.prune();
        assert!(!old.exists() && new.exists(), "16 bytes over a 10-byte bound: the older goes");
        assert!(model.exists(), "only the cache's own files are pruned");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
