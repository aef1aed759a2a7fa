//! A control group of its own for one interpreter, where this process may make one (as
//! root, or in a delegated cgroup v2 subtree): a process limit (`pids.max`) and a memory
//! limit for the whole tree, which `RLIMIT_NPROC` (per user, not for root) and
//! `RLIMIT_AS` (per process) are not. The child joins it between fork and exec by writing
//! `0` into a `cgroup.procs` opened here.

use std::fs::File;
use std::io::Write;
use std::os::fd::{AsRawFd, RawFd};
use std::path::{Path, PathBuf};

/// One interpreter's control groups (one per cgroup v1 hierarchy, or one v2 group),
/// removed when dropped.
#[derive(Debug)]
pub(crate) struct Cgroup {
    groups: Vec<(PathBuf, File)>,
}

/// Where this process's groups are: (controller, folder), for `pids` and `memory`.
fn own_groups() -> Vec<(&'static str, PathBuf)> {
    let cgroups = std::fs::read_to_string("/proc/self/cgroup").unwrap_or_default();
    let mounts = std::fs::read_to_string("/proc/self/mountinfo").unwrap_or_default();
    // mountinfo: id parent major:minor root mountpoint options - fstype source superoptions
    let mounts: Vec<(&str, &str, &str, &str)> = mounts
        .lines()
        .filter_map(|l| {
            let (left, right) = l.split_once(" - ")?;
            let f: Vec<&str> = left.split(' ').collect();
            let r: Vec<&str> = right.split(' ').collect();
            Some((*f.get(3)?, *f.get(4)?, *r.first()?, *r.get(2)?))
        })
        .collect();
    let mut out = Vec::new();
    for controller in ["pids", "memory"] {
        let v1 = cgroups.lines().find_map(|l| {
            let mut parts = l.splitn(3, ':');
            let (_, names, path) = (parts.next()?, parts.next()?, parts.next()?);
            names.split(',').any(|n| n == controller).then_some(path)
        });
        let found = match v1 {
            Some(path) => mounts
                .iter()
                .find(|(_, _, fs, opts)| *fs == "cgroup" && opts.split(',').any(|o| o == controller))
                .map(|(root, point, _, _)| (*point, path.strip_prefix(root).unwrap_or(path))),
            None => cgroups.lines().find_map(|l| l.strip_prefix("0::")).and_then(|path| {
                mounts
                    .iter()
                    .find(|(_, _, fs, _)| *fs == "cgroup2")
                    .map(|(root, point, _, _)| (*point, path.strip_prefix(root).unwrap_or(path)))
            }),
        };
        if let Some((point, path)) = found {
            out.push((controller, Path::new(point).join(path.trim_start_matches('/'))));
        }
    }
    out
}

impl Cgroup {
    /// New groups limiting the tree to `processes` processes and `memory` bytes (0: no
    /// memory limit); `None` when no group with a process limit can be made here.
    pub fn make(processes: u64, memory: u64) -> Option<Cgroup> {
        let name = format!("lucid-{}-{:016x}", std::process::id(), fastrand::u64(..));
        let mut groups: Vec<(PathBuf, File)> = Vec::new();
        let mut limited = false;
        for (controller, parent) in own_groups() {
            remove_stale(&parent);
            let dir = parent.join(&name);
            if !groups.iter().any(|(d, _)| *d == dir) {
                if std::fs::create_dir(&dir).is_err() {
                    continue;
                }
                match File::options().write(true).open(dir.join("cgroup.procs")) {
                    Ok(procs) => groups.push((dir.clone(), procs)),
                    Err(_) => {
                        let _ = std::fs::remove_dir(&dir);
                        continue;
                    }
                }
            }
            let set = |file: &str, value: String| {
                File::options().write(true).open(dir.join(file)).and_then(|mut f| f.write_all(value.as_bytes())).is_ok()
            };
            if controller == "pids" {
                limited |= set("pids.max", processes.to_string());
            } else if memory > 0 && !set("memory.max", memory.to_string()) {
                set("memory.limit_in_bytes", memory.to_string());
            }
        }
        let made = Cgroup { groups };
        limited.then_some(made)
    }

    /// The `cgroup.procs` descriptors the child writes `0` into (at most two).
    pub fn procs(&self) -> [RawFd; 2] {
        let mut fds = [-1; 2];
        for (slot, (_, f)) in fds.iter_mut().zip(&self.groups) {
            *slot = f.as_raw_fd();
        }
        fds
    }
}

impl Drop for Cgroup {
    fn drop(&mut self) {
        let mut dirs: Vec<PathBuf> = self.groups.drain(..).map(|(d, _)| d).collect();
        dirs.retain(|d| std::fs::remove_dir(d).is_err() && d.exists());
        if dirs.is_empty() {
            return;
        }
        // The processes are being killed; a group can be removed once they are gone.
        std::thread::spawn(move || {
            for dir in dirs {
                let _ = std::fs::write(dir.join("cgroup.kill"), "1");
                for _ in 0..100 {
                    if std::fs::remove_dir(&dir).is_ok() || !dir.exists() {
                        break;
                    }
                    std::thread::sleep(std::time::Duration::from_millis(20));
                }
            }
        });
    }
}

/// Removes the empty groups left in `parent` by a process that has ended.
fn remove_stale(parent: &Path) {
    for entry in std::fs::read_dir(parent).into_iter().flatten().flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(|n| n.strip_prefix("lucid-")).and_then(|n| n.split('-').next()) else {
            continue;
        };
        if !Path::new("/proc").join(pid).exists() {
            let _ = std::fs::remove_dir(entry.path());
        }
    }
}

/// Joins the groups whose `cgroup.procs` are `fds` (-1: none). Async-signal-safe.
pub(crate) fn join(fds: [RawFd; 2]) -> std::io::Result<()> {
    for fd in fds.into_iter().filter(|fd| *fd >= 0) {
        // SAFETY: writes one byte from a constant to a descriptor opened for this purpose.
        if unsafe { libc::write(fd, b"0".as_ptr().cast(), 1) } != 1 {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(())
}
