//! The attention (KV) cache of a conversation's fixed prefix, kept on disk: every run of
//! an agent starts with the same system prompt and tool schemas, so a new process loads
//! their computed state instead of prefilling them again.
//!
//! A file is named by a SHA-256 of the model's content (see [`model_key`]), the chat
//! template, the engine's version and the exact prefix tokens. Each file is Lucid's own
//! format, verified before llama.cpp sees a byte of it:
//!
//! ```text
//! "LUCIDKV\x01" | tokens: u32 LE | state bytes: u64 LE | SHA-256 of the rest | tokens (i32 LE) | state
//! ```
//!
//! A file whose length, checksum or tokens do not match (a crash or a full disk while
//! writing, a file from elsewhere) is deleted with a warning and computed again. Files are
//! written under a temporary name, synced and renamed into place, private to the user
//! (0600 in a 0700 directory on Unix). The directory is bounded: least recently used files
//! go first, and temporary files count against the bound and are removed once stale.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use llama_cpp_2::token::LlamaToken;
use sha2::{Digest, Sha256};

/// Files of this cache end with this extension; nothing else in the directory is touched.
const EXT: &str = "lucidkv";
/// Temporary files end with this (after the cache file's own name).
const TEMP_EXT: &str = "tmp";
/// A temporary file older than this is what a crashed writer left: removed by pruning.
const STALE_TEMP: Duration = Duration::from_secs(600);
const MAGIC: &[u8; 8] = b"LUCIDKV\x01";
/// Magic, token count, state length, checksum.
const HEADER: usize = 8 + 4 + 8 + 32;
/// Blocks of tensor data sampled into the model's key, and their size.
const SAMPLES: u64 = 16;
const SAMPLE_BYTES: usize = 64 << 10;

/// A directory of prefix states for one model file and template.
#[derive(Debug, Clone)]
pub struct PrefixCache {
    dir: PathBuf,
    max_bytes: u64,
    seed: [u8; 32],
}

/// A prefix state read back from disk and verified.
#[derive(Debug)]
pub struct Stored {
    pub tokens: Vec<LlamaToken>,
    pub state: Vec<u8>,
}

impl PrefixCache {
    /// The cache in `dir` for the model whose content key is `model_key` rendered with
    /// `template`, holding at most `max_bytes`.
    pub fn new(dir: &Path, max_bytes: u64, model_key: &[u8; 32], template: &str) -> Self {
        let mut h = Sha256::new();
        h.update(b"lucid-local prefix cache\0");
        h.update(env!("CARGO_PKG_VERSION").as_bytes());
        h.update([0]);
        h.update(model_key);
        h.update(template.as_bytes());
        PrefixCache { dir: dir.to_path_buf(), max_bytes, seed: h.finalize().into() }
    }

    /// The most bytes the cache keeps.
    pub fn max_bytes(&self) -> u64 {
        self.max_bytes
    }

    /// The file that holds (or would hold) the state of exactly these tokens.
    pub fn file_for(&self, tokens: &[LlamaToken]) -> PathBuf {
        let mut h = Sha256::new();
        h.update(self.seed);
        for t in tokens {
            h.update(t.0.to_le_bytes());
        }
        let digest = h.finalize();
        let hex: String = digest[..16].iter().map(|b| format!("{b:02x}")).collect();
        self.dir.join(format!("{hex}-{}.{EXT}", tokens.len()))
    }

    /// The verified state of `tokens` in `file`, or `None` when there is none. A file that
    /// is there but does not verify (truncated, corrupted, other tokens, over the cache's
    /// bound) is deleted with a warning: the caller computes the prefix again.
    pub fn load(&self, file: &Path, tokens: &[LlamaToken]) -> Option<Stored> {
        let mut f = std::fs::File::open(file).ok()?;
        match read_verified(&mut f, self.max_bytes) {
            Ok(stored) if stored.tokens == tokens => Some(stored),
            Ok(_) => {
                self.discard(file, "it holds other tokens");
                None
            }
            Err(why) => {
                self.discard(file, &why);
                None
            }
        }
    }

    fn discard(&self, file: &Path, why: &str) {
        tracing::warn!(file = %file.display(), reason = why, "prefix cache file unusable: removed, to be computed again");
        let _ = std::fs::remove_file(file);
    }

    /// Writes the state of `tokens` to `file`: a private temporary file beside it, synced,
    /// then renamed into place; then prunes the directory to its bound.
    pub fn store(&self, file: &Path, tokens: &[LlamaToken], state: &[u8]) -> std::io::Result<()> {
        self.ensure_dir()?;
        let temp = file.with_extension(format!("{EXT}.{}.{TEMP_EXT}", std::process::id()));
        let written = write_file(&temp, tokens, state).and_then(|()| std::fs::rename(&temp, file));
        if written.is_err() {
            let _ = std::fs::remove_file(&temp);
        }
        written?;
        // The rename itself reaches the disk with the directory's metadata.
        if let Ok(d) = std::fs::File::open(&self.dir) {
            let _ = d.sync_all();
        }
        self.prune();
        Ok(())
    }

    /// Creates the directory, private to the user.
    fn ensure_dir(&self) -> std::io::Result<()> {
        let mut b = std::fs::DirBuilder::new();
        b.recursive(true);
        #[cfg(unix)]
        std::os::unix::fs::DirBuilderExt::mode(&mut b, 0o700);
        b.create(&self.dir)
    }

    /// Marks `file` as just used (pruning removes the least recently used first).
    pub fn touch(file: &Path) {
        if let Ok(f) = std::fs::File::options().append(true).open(file) {
            let _ = f.set_modified(SystemTime::now());
        }
    }

    /// Removes stale temporary files, then the least recently used files until the cache
    /// (temporary files included) fits its bound.
    pub fn prune(&self) {
        let Ok(entries) = std::fs::read_dir(&self.dir) else { return };
        let now = SystemTime::now();
        let mut files: Vec<(SystemTime, u64, PathBuf)> = Vec::new();
        let mut temp_bytes = 0u64;
        for e in entries.filter_map(Result::ok) {
            let path = e.path();
            let Some(name) = path.file_name().and_then(|n| n.to_str()) else { continue };
            let Ok(m) = e.metadata() else { continue };
            let modified = m.modified().unwrap_or(SystemTime::UNIX_EPOCH);
            if name.ends_with(&format!(".{TEMP_EXT}")) && name.contains(&format!(".{EXT}.")) {
                let age = now.duration_since(modified).unwrap_or_default();
                if age > STALE_TEMP && std::fs::remove_file(&path).is_ok() {
                    tracing::debug!(file = %path.display(), "prefix cache: removed a stale temporary file");
                } else {
                    temp_bytes += m.len();
                }
            } else if path.extension().is_some_and(|x| x == EXT) {
                files.push((modified, m.len(), path));
            }
        }
        files.sort();
        let mut total: u64 = files.iter().map(|f| f.1).sum::<u64>() + temp_bytes;
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

fn write_file(temp: &Path, tokens: &[LlamaToken], state: &[u8]) -> std::io::Result<()> {
    let mut o = std::fs::File::options();
    o.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut o, 0o600);
    let mut f = std::io::BufWriter::new(o.open(temp)?);
    let n = u32::try_from(tokens.len()).map_err(std::io::Error::other)?;
    let counts = [n.to_le_bytes().as_slice(), (state.len() as u64).to_le_bytes().as_slice()].concat();
    let token_bytes: Vec<u8> = tokens.iter().flat_map(|t| t.0.to_le_bytes()).collect();
    let sum = checksum(&counts, &token_bytes, state);
    f.write_all(MAGIC)?;
    f.write_all(&counts)?;
    f.write_all(&sum)?;
    f.write_all(&token_bytes)?;
    f.write_all(state)?;
    let f = f.into_inner().map_err(std::io::IntoInnerError::into_error)?;
    f.sync_all()
}

fn checksum(counts: &[u8], tokens: &[u8], state: &[u8]) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(counts);
    h.update(tokens);
    h.update(state);
    h.finalize().into()
}

/// Reads a cache file, checking its magic, its length against its header (and `max_bytes`,
/// before reading more) and its checksum.
fn read_verified(f: &mut std::fs::File, max_bytes: u64) -> Result<Stored, String> {
    let len = f.metadata().map_err(|e| e.to_string())?.len();
    if len > max_bytes {
        return Err(format!("{len} bytes, over the cache's bound"));
    }
    let mut header = [0u8; HEADER];
    f.read_exact(&mut header).map_err(|_| "shorter than its header".to_string())?;
    if &header[..8] != MAGIC {
        return Err("not a Lucid prefix cache file".into());
    }
    let n = u32::from_le_bytes(header[8..12].try_into().unwrap_or_default()) as u64;
    let state_len = u64::from_le_bytes(header[12..20].try_into().unwrap_or_default());
    let expected = n.checked_mul(4).and_then(|t| t.checked_add(state_len)).and_then(|b| b.checked_add(HEADER as u64));
    if expected != Some(len) {
        return Err(format!("{len} bytes where its header announces {expected:?}: truncated or damaged"));
    }
    let mut body = Vec::with_capacity((len as usize).saturating_sub(HEADER));
    f.read_to_end(&mut body).map_err(|e| e.to_string())?;
    if body.len() as u64 + HEADER as u64 != len {
        return Err("changed while being read".into());
    }
    let (token_bytes, state) = body.split_at(n as usize * 4);
    if checksum(&header[8..20], token_bytes, state) != header[20..52] {
        return Err("checksum mismatch: damaged".into());
    }
    let tokens =
        token_bytes.chunks_exact(4).map(|c| LlamaToken(i32::from_le_bytes(c.try_into().unwrap_or_default()))).collect();
    Ok(Stored { tokens, state: state.to_vec() })
}

/// A key of the model file's content: a SHA-256 of its GGUF header and tensor index (every
/// byte before the tensor data, `data_offset`), its length, and [`SAMPLES`] blocks of
/// tensor data spread over the file. Another model at the same path, with the same size
/// and modification time, gets another key; reading it costs a few megabytes, not the
/// weights.
pub fn model_key(path: &Path, data_offset: u64) -> std::io::Result<[u8; 32]> {
    use std::io::{Seek, SeekFrom};
    let mut f = std::fs::File::open(path)?;
    let len = f.metadata()?.len();
    let data_offset = data_offset.min(len);
    let mut h = Sha256::new();
    h.update(len.to_le_bytes());
    std::io::copy(&mut (&mut f).take(data_offset), &mut HashWriter(&mut h))?;
    let data = len - data_offset;
    let mut block = vec![0u8; SAMPLE_BYTES];
    for i in 0..SAMPLES {
        let at = data_offset + data.saturating_sub(SAMPLE_BYTES as u64) * i / (SAMPLES - 1);
        f.seek(SeekFrom::Start(at))?;
        let n = f.read(&mut block)?;
        h.update(&block[..n]);
    }
    Ok(h.finalize().into())
}

struct HashWriter<'a>(&'a mut Sha256);

impl Write for HashWriter<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.update(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("lucid-prefix-cache-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        d
    }

    #[test]
    fn names_depend_on_the_model_template_and_tokens_and_pruning_keeps_the_newest() {
        let dir = dir("names");
        let a = PrefixCache::new(&dir, 200, &[1; 32], "tpl");
        let toks = [LlamaToken(1), LlamaToken(2)];
        assert_eq!(a.file_for(&toks), a.file_for(&toks));
        assert_ne!(a.file_for(&toks), a.file_for(&toks[..1]));
        assert_ne!(a.file_for(&toks), PrefixCache::new(&dir, 10, &[1; 32], "other").file_for(&toks));
        assert_ne!(a.file_for(&toks), PrefixCache::new(&dir, 10, &[2; 32], "tpl").file_for(&toks));
        let old = a.file_for(&toks[..1]);
        let new = a.file_for(&toks);
        a.store(&old, &toks[..1], &[7u8; 60]).unwrap();
        std::fs::File::options().append(true).open(&old).unwrap().set_modified(SystemTime::UNIX_EPOCH).unwrap();
        let other = dir.join("not-ours.gguf");
        std::fs::write(&other, [0u8; 500]).unwrap();
        a.store(&new, &toks, &[8u8; 60]).unwrap();
        assert!(!old.exists() && new.exists(), "2 × 116 bytes over a 200-byte bound: the older goes");
        assert!(other.exists(), "only the cache's own files are pruned");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_stored_state_reads_back_and_a_truncated_or_altered_one_is_deleted() {
        let dir = dir("verify");
        let cache = PrefixCache::new(&dir, 1 << 20, &[3; 32], "tpl");
        let toks: Vec<LlamaToken> = (0..100).map(LlamaToken).collect();
        let file = cache.file_for(&toks);
        let state: Vec<u8> = (0..5000u32).map(|i| i as u8).collect();
        cache.store(&file, &toks, &state).unwrap();
        let back = cache.load(&file, &toks).expect("a file just written verifies");
        assert_eq!((back.tokens, back.state), (toks.clone(), state.clone()));

        // A crash or a full disk while writing: the file stops short.
        let bytes = std::fs::read(&file).unwrap();
        std::fs::write(&file, &bytes[..bytes.len() - 1000]).unwrap();
        assert!(cache.load(&file, &toks).is_none());
        assert!(!file.exists(), "a truncated file is deleted");

        // One bit flipped in the state.
        let mut flipped = bytes.clone();
        let last = flipped.len() - 1;
        flipped[last] ^= 1;
        std::fs::write(&file, &flipped).unwrap();
        assert!(cache.load(&file, &toks).is_none() && !file.exists(), "a damaged file is deleted");

        // Intact, but for other tokens.
        std::fs::write(&file, &bytes).unwrap();
        assert!(cache.load(&file, &toks[..99]).is_none() && !file.exists());

        // A header announcing far more than the file holds is refused before any big read.
        let mut lying = bytes[..HEADER].to_vec();
        lying[12..20].copy_from_slice(&u64::MAX.to_le_bytes());
        std::fs::write(&file, &lying).unwrap();
        assert!(cache.load(&file, &toks).is_none() && !file.exists());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[cfg(unix)]
    #[test]
    fn files_are_private_and_stale_temporary_files_are_removed_and_counted() {
        use std::os::unix::fs::PermissionsExt;
        let dir = dir("modes");
        let cache = PrefixCache::new(&dir, 10_000, &[4; 32], "tpl");
        let toks = [LlamaToken(5)];
        let file = cache.file_for(&toks);
        cache.store(&file, &toks, &[1u8; 100]).unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!((mode(&dir), mode(&file)), (0o700, 0o600));

        // A writer that crashed long ago, and one writing now.
        let stale = dir.join(format!("abc-1.{EXT}.999.{TEMP_EXT}"));
        std::fs::write(&stale, [0u8; 50]).unwrap();
        std::fs::File::options().append(true).open(&stale).unwrap().set_modified(SystemTime::UNIX_EPOCH).unwrap();
        let fresh = dir.join(format!("def-1.{EXT}.998.{TEMP_EXT}"));
        std::fs::write(&fresh, [0u8; 9_900]).unwrap();
        cache.prune();
        assert!(!stale.exists(), "a stale temporary file is removed");
        assert!(fresh.exists(), "a temporary file being written is left alone");
        assert!(!file.exists(), "temporary files count against the bound: 9,900 + 156 > 10,000");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_model_key_follows_the_content_not_the_path_size_or_time() {
        let dir = dir("key");
        std::fs::create_dir_all(&dir).unwrap();
        let model = dir.join("m.gguf");
        let mut bytes = vec![0u8; 3 << 20];
        bytes[..4].copy_from_slice(b"GGUF");
        std::fs::write(&model, &bytes).unwrap();
        let mtime = std::fs::metadata(&model).unwrap().modified().unwrap();
        let a = model_key(&model, 1000).unwrap();
        assert_eq!(a, model_key(&model, 1000).unwrap());
        // Another header, same size and modification time.
        bytes[500] = 1;
        std::fs::write(&model, &bytes).unwrap();
        std::fs::File::options().append(true).open(&model).unwrap().set_modified(mtime).unwrap();
        let b = model_key(&model, 1000).unwrap();
        assert_ne!(a, b);
        // Other weights under the same header: a sampled block differs.
        let last = bytes.len() - 1;
        bytes[last] = 9;
        std::fs::write(&model, &bytes).unwrap();
        std::fs::File::options().append(true).open(&model).unwrap().set_modified(mtime).unwrap();
        assert_ne!(b, model_key(&model, 1000).unwrap());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
