//! The user's home folders hidden from a project's own code (`run_tests`, `coverage`):
//! in the code's mount namespace, each home (`$HOME`, the account's home from the password
//! database, and the XDG configuration, data, state and cache folders) shows the run's
//! private home instead, so that an absolute path such as `/home/me/.ssh/id_rsa` or
//! `~/.config/lucid/config.toml` finds nothing of the user's. What the code needs from
//! there is bound back: the project writable, the toolchains (`~/.cargo`, `~/.rustup`,
//! `~/.pyenv`, a `PATH` entry, what a `PATH` program links to) and the build tools'
//! caches (`~/.m2/repository`, `~/.gradle/caches`) read-only, credential files covered.
//!
//! Everything is worked out here, before the fork; the child only mounts
//! ([`super::linux`]).

use std::collections::BTreeSet;
use std::ffi::{CString, OsStr, OsString};
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// The folders of a home that hold secrets and configuration: a toolchain found in one of
/// them is bound back alone, never the whole folder.
const SHARED: &[&str] = &[".config", ".local", ".cache"];

/// Credential files a toolchain folder may hold, covered by an empty file.
const CREDENTIALS: &[&str] = &["credentials", "credentials.toml", ".credentials.json", ".netrc", ".npmrc", ".pypirc"];

/// The caches of the build tools that find them by the account's home, not `$HOME`
/// (Java's `user.home`), bound back read-only where they are.
const BUILD_CACHES: &[&str] = &[".m2/repository", ".gradle/caches", ".gradle/wrapper"];

/// The variables naming a toolchain's folder.
const TOOLCHAIN_VARS: &[&str] =
    &["CARGO_HOME", "RUSTUP_HOME", "GOPATH", "GOROOT", "PYENV_ROOT", "NVM_DIR", "JAVA_HOME", "VIRTUAL_ENV"];

/// One folder bound back into a hidden home.
#[derive(Debug)]
pub(crate) struct Kept {
    /// Where it is (and is bound back to).
    pub path: CString,
    /// An empty folder it is bound to while the home is hidden.
    pub stage: CString,
    /// Bound back read-only, with these mount flags kept (a remount in a user namespace
    /// must keep the locked ones).
    pub read_only: Option<libc::c_ulong>,
}

/// What to hide and what to bind back, ready for the child.
#[derive(Debug)]
pub struct Hide {
    /// The run's private home, bound over each of `homes`.
    pub(crate) private: CString,
    pub(crate) homes: Vec<CString>,
    pub(crate) kept: Vec<Kept>,
    /// Credential files in kept folders, each covered by `/dev/null`.
    pub(crate) covered: Vec<CString>,
    /// What is not hidden, for the answer.
    pub note: Option<String>,
}

fn c(path: &Path) -> io::Result<CString> {
    CString::new(path.as_os_str().as_bytes()).map_err(io::Error::other)
}

/// The user's home folders as this process sees them: `$HOME`, the account's home, and
/// the XDG folders set outside them; canonical, the ones inside another left out.
fn homes() -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = Vec::new();
    let mut add = |p: Option<PathBuf>| {
        if let Some(p) = p.filter(|p| p.is_absolute()).and_then(|p| std::fs::canonicalize(p).ok())
            && p.is_dir()
            && p.parent().is_some()
        {
            found.push(p);
        }
    };
    add(std::env::var_os("HOME").map(PathBuf::from));
    add(account_home());
    for var in ["XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "HF_HOME"] {
        add(std::env::var_os(var).map(PathBuf::from));
    }
    found.sort();
    found.dedup();
    let all = found.clone();
    found.retain(|p| !all.iter().any(|other| other != p && p.starts_with(other)));
    found
}

/// The home of this process's user in the password database.
fn account_home() -> Option<PathBuf> {
    let mut buf = vec![0u8; 4096];
    // SAFETY: a zeroed passwd is a valid out-parameter for getpwuid_r.
    let mut pw: libc::passwd = unsafe { std::mem::zeroed() };
    let mut out: *mut libc::passwd = std::ptr::null_mut();
    // SAFETY: getpwuid_r writes into `pw` and `buf` (its length passed) and sets `out`.
    let rc = unsafe { libc::getpwuid_r(libc::getuid(), &mut pw, buf.as_mut_ptr().cast(), buf.len(), &mut out) };
    if rc != 0 || out.is_null() || pw.pw_dir.is_null() {
        return None;
    }
    // SAFETY: pw_dir points to a nul-terminated string inside `buf`, alive here.
    let dir = unsafe { std::ffi::CStr::from_ptr(pw.pw_dir) };
    Some(PathBuf::from(OsStr::from_bytes(dir.to_bytes())))
}

/// The folder to bind back for `path` inside `home`: the first folder under the home
/// (`~/.cargo` for `~/.cargo/bin`), or `path` itself inside `~/.config`, `~/.local`,
/// `~/.cache`; `None` for the home itself.
fn toolchain_folder(home: &Path, path: &Path) -> Option<PathBuf> {
    let rel = path.strip_prefix(home).ok()?;
    let first = rel.components().next()?;
    if SHARED.iter().any(|s| OsStr::new(s) == first.as_os_str()) {
        return Some(path.to_path_buf());
    }
    Some(home.join(first))
}

/// The folders the code's environment `env` points at for its toolchains: its `PATH`
/// entries, what their programs link to, the toolchain variables.
fn toolchain_paths(env: &[(OsString, OsString)]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for (k, v) in env {
        let Some(k) = k.to_str() else { continue };
        if k == "PATH" {
            for dir in std::env::split_paths(v) {
                // A virtual environment's `python3` is a link into `~/.pyenv`.
                for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
                    if entry.file_type().is_ok_and(|t| t.is_symlink())
                        && let Ok(target) = std::fs::canonicalize(entry.path())
                    {
                        out.extend(target.parent().map(Path::to_path_buf));
                    }
                }
                out.push(dir);
            }
        } else if TOOLCHAIN_VARS.contains(&k) {
            out.push(PathBuf::from(v));
        }
    }
    out
}

/// The mount flags of the file system at `path` that a read-only remount keeps.
fn locked_flags(path: &Path) -> libc::c_ulong {
    let Ok(p) = c(path) else { return 0 };
    // SAFETY: a zeroed statvfs is a valid out-parameter.
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: statvfs reads the nul-terminated path and writes `st`.
    if unsafe { libc::statvfs(p.as_ptr(), &mut st) } != 0 {
        return 0;
    }
    // The ST_* bits are the MS_* bits on Linux.
    let keep = libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC | libc::MS_NOATIME | libc::MS_NODIRATIME;
    st.f_flag & keep
}

impl Hide {
    /// The plan for one run in `root` whose private home is `private` (an empty folder)
    /// and whose folder is `scratch` (where the stages are made), for the code's
    /// environment `env`. `Err` with the reason when the homes cannot be hidden (the
    /// run's folder inside a home); a project folder that is a home is not hidden (said
    /// in [`Hide::note`]).
    pub fn new(root: &Path, private: &Path, scratch: &Path, env: &[(OsString, OsString)]) -> io::Result<Hide> {
        let mut homes = homes();
        let canon = |p: &Path| std::fs::canonicalize(p).ok();
        let private_c = canon(private).ok_or_else(|| io::Error::other("the private home is gone"))?;
        let scratch_c = canon(scratch).ok_or_else(|| io::Error::other("the run's folder is gone"))?;
        if let Some(h) = homes.iter().find(|h| scratch_c.starts_with(h)) {
            return Err(io::Error::other(format!(
                "the temporary folder {} is inside the home folder {}",
                scratch_c.display(),
                h.display()
            )));
        }
        let mut writable: BTreeSet<PathBuf> = BTreeSet::new();
        let mut read_only: BTreeSet<PathBuf> = BTreeSet::new();
        let root = canon(root);
        // A project folder that is a home stays as it is (its files are the project's).
        let unhidden: Vec<PathBuf> = homes.iter().filter(|h| root.as_deref() == Some(h.as_path())).cloned().collect();
        homes.retain(|h| !unhidden.contains(h));
        let under = |p: &Path| homes.iter().find(|h| p.starts_with(h) && p != h.as_path()).cloned();
        if let Some(root) = root
            && under(&root).is_some()
        {
            writable.insert(root);
        }
        for p in toolchain_paths(env) {
            if let Some(p) = canon(&p)
                && let Some(home) = under(&p)
                && let Some(folder) = toolchain_folder(&home, &p)
                && folder.is_dir()
            {
                read_only.insert(folder);
            }
        }
        for home in &homes {
            read_only.extend(BUILD_CACHES.iter().map(|c| home.join(c)).filter(|p| p.is_dir()));
        }
        // A folder inside another kept one comes with it.
        let all: Vec<(PathBuf, bool)> =
            writable.iter().map(|p| (p.clone(), true)).chain(read_only.iter().map(|p| (p.clone(), false))).collect();
        let kept_paths: Vec<(PathBuf, bool)> =
            all.iter().filter(|(p, _)| !all.iter().any(|(o, _)| o != p && p.starts_with(o))).cloned().collect();
        let mut kept = Vec::new();
        let mut covered = Vec::new();
        for (i, (path, rw)) in kept_paths.iter().enumerate() {
            let stage = scratch_c.join(format!("stage-{i}"));
            std::fs::create_dir_all(&stage)?;
            // Its place in the private home, which is bound over the home.
            if let Some(home) = under(path) {
                let rel = path.strip_prefix(&home).map_err(io::Error::other)?;
                std::fs::create_dir_all(private_c.join(rel))?;
            }
            if !rw {
                covered.extend(CREDENTIALS.iter().map(|f| path.join(f)).filter(|f| f.is_file()));
            }
            kept.push(Kept { path: c(path)?, stage: c(&stage)?, read_only: (!rw).then(|| locked_flags(path)) });
        }
        let note = (!unhidden.is_empty()).then(|| {
            let shown: Vec<String> = unhidden.iter().map(|h| h.display().to_string()).collect();
            format!("the project folder is the home folder {}, which is not hidden", shown.join(", "))
        });
        Ok(Hide {
            note,
            private: c(&private_c)?,
            homes: homes.iter().map(|h| c(h)).collect::<io::Result<_>>()?,
            kept,
            covered: covered.iter().map(|f| c(f)).collect::<io::Result<_>>()?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_toolchain_is_its_first_folder_under_the_home_but_never_a_shared_one() {
        let home = Path::new("/h");
        assert_eq!(toolchain_folder(home, Path::new("/h/.cargo/bin")), Some(PathBuf::from("/h/.cargo")));
        assert_eq!(toolchain_folder(home, Path::new("/h/.local/bin")), Some(PathBuf::from("/h/.local/bin")));
        assert_eq!(toolchain_folder(home, Path::new("/h/.config/x/bin")), Some(PathBuf::from("/h/.config/x/bin")));
        assert_eq!(toolchain_folder(home, Path::new("/h")), None);
        assert_eq!(toolchain_folder(home, Path::new("/other/bin")), None);
    }
}
