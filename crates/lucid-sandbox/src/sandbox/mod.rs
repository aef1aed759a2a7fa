//! The room the code tools (`shell`, `python`) run their code in, on Linux where an
//! unprivileged process may make namespaces:
//!
//! - a new user, network, PID and mount namespace: no network but loopback; no access to
//!   the `/proc/PID/environ`, `mem` and the like of any process outside the sandbox (the
//!   user namespace does that: the kernel lets a process read them only in the same user
//!   namespace or with `CAP_SYS_PTRACE` over the target's, which the code lacks); a fresh
//!   `/proc` that does not even list them; and a small reaper as PID 1, so that every
//!   process the code starts (a `setsid` double fork included) dies when the command or
//!   the interpreter does;
//! - a process limit for the whole tree: a control group of its own where this process
//!   can make one (root, a delegated cgroup v2 subtree), also limiting the tree's memory;
//!   else `RLIMIT_NPROC`, counted per user namespace (the kernel does not apply it to root);
//! - a seccomp filter refusing `socket(AF_UNIX, …)` (local databases and daemons),
//!   `io_uring_setup` and `pidfd_getfd`, with `no_new_privs` set;
//! - this process made non-dumpable at the first spawn, so that even without user
//!   namespaces a process of the same (non-root) user cannot read its environment or
//!   memory through `/proc` (the way `ssh-agent` protects itself).
//!
//! - for a project's own code (`run_tests`, `coverage`), the user's home folders hidden
//!   behind a private home in its mount namespace, the project and the toolchains bound
//!   back ([`Hide`]).
//!
//! Whatever the system refuses is found once ([`available`]) and said in the tool's
//! description and results. The code still runs as the user: it reads and writes what the
//! user can, outside its folder (and, but for `run_tests` and `coverage`, its home) too.

mod cgroup;
mod env;
#[cfg(target_os = "linux")]
mod home;
mod seccomp;

pub(crate) use cgroup::Cgroup;

pub use env::Environment;
#[cfg(target_os = "linux")]
pub use home::Hide;

/// The user's home folders hidden from the code (not on this system).
#[cfg(not(target_os = "linux"))]
#[derive(Debug)]
pub struct Hide;

use std::sync::OnceLock;

/// What this system lets the sandbox do, found once by trying it in a forked child.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Available {
    /// New user, network and PID namespaces (and with them the reaper).
    pub namespaces: bool,
    /// A fresh `/proc` in a new mount namespace.
    pub proc: bool,
    /// The seccomp filter.
    pub seccomp: bool,
    /// `RLIMIT_NPROC` holds for this user (not root).
    pub nproc: bool,
    /// A control group with a process limit can be made (root, or a delegated subtree).
    pub cgroup: bool,
}

impl Available {
    /// What is missing, in words for the model and the user (`what` runs: "the
    /// interpreter", "the command"; `processes`: a process limit is wanted); empty when
    /// nothing is.
    fn missing(&self, network: bool, processes: bool, what: &str) -> Vec<String> {
        let mut out = Vec::new();
        if !self.namespaces {
            if !network {
                out.push(format!(
                    "this system does not let {what} run without network (no user namespaces); the network is reachable"
                ));
            }
            out.push("processes started in a new session may outlive the call (no PID namespace)".to_string());
            if !self.nproc {
                out.push("running as root, the code can read this process's environment through /proc".to_string());
            }
        }
        if !self.proc {
            out.push("other processes of this user are visible in /proc".to_string());
        }
        if !self.seccomp {
            out.push("Unix sockets (local databases, daemons) are reachable (no seccomp filter)".to_string());
        }
        if processes && !self.cgroup && !(self.nproc && self.namespaces) {
            out.push("the number of processes is not limited".to_string());
        }
        if processes && !self.cgroup {
            out.push(
                "memory is limited per process, not for all the processes together (no control group)".to_string(),
            );
        }
        out
    }
}

/// What the sandbox can do here (tried once, then remembered).
pub fn available() -> Available {
    static FOUND: OnceLock<Available> = OnceLock::new();
    *FOUND.get_or_init(probe)
}

/// How one command or interpreter is confined.
#[derive(Debug, Clone, Copy)]
pub struct Plan {
    /// What this system allows.
    pub available: Available,
    /// Keep the network (only the user, PID and mount namespaces are new).
    pub network: bool,
    /// Most processes (threads count) the code may have at once.
    pub processes: u64,
}

impl Plan {
    /// The plan for what this system allows.
    pub fn new(network: bool, processes: u64) -> Self {
        Plan { available: available(), network, processes }
    }

    /// What this plan cannot have on this system, in words for the model and the user
    /// (`what` runs: "the interpreter", "the command"); empty when nothing is missing.
    pub fn missing(&self, what: &str) -> Vec<String> {
        self.available.missing(self.network, self.processes > 0, what)
    }

    /// The note each result carries when the network the plan cuts is reachable (the
    /// rest of what is missing is in the tool's description).
    pub fn network_note(&self, what: &str) -> Option<String> {
        (!self.network && !self.available.namespaces).then(|| {
            format!(
                "this system does not let {what} run without network (no user namespaces); the network is reachable"
            )
        })
    }

    /// A control group for one run of this plan, when it limits processes and the system
    /// lets this process make one.
    pub(crate) fn cgroup(&self, memory: u64) -> Option<Cgroup> {
        (self.processes > 0 && self.available.cgroup).then(|| Cgroup::make(self.processes, memory)).flatten()
    }

    /// Whether the code can be given a mount namespace of its own, where the user's home
    /// folders are hidden ([`Hide`]).
    pub fn can_hide_homes(&self) -> bool {
        self.available.proc
    }

    /// Sets `cmd` up to run confined (in `cgroup` when given, seeing only `view` of its
    /// folders, the user's homes hidden by `hide`): this process hidden, the confinement
    /// applied in the child before exec.
    pub(crate) fn apply(
        self,
        cmd: &mut tokio::process::Command,
        cgroup: Option<&Cgroup>,
        view: Option<View>,
        hide: Option<Hide>,
    ) {
        hide_this_process();
        let procs = cgroup.map_or([-1; 2], Cgroup::procs);
        let view = view.filter(|_| self.available.proc);
        let hide = hide.filter(|_| self.available.proc);
        // SAFETY: `confine` runs between fork and exec and makes only async-signal-safe
        // system calls (unshare, setrlimit, fork, waitpid, mount, prctl, seccomp) on
        // values copied into the closure.
        unsafe {
            cmd.pre_exec(move || {
                cgroup::join(procs)?;
                confine(&self, view.as_ref(), hide.as_ref())
            });
        }
    }
}

/// A folder among others (the sessions' folders of one `python` tool) that the code sees
/// alone: in its mount namespace, `root` shows only `own`.
#[derive(Debug)]
pub(crate) struct View {
    root: std::ffi::CString,
    own: std::ffi::CString,
    /// An empty folder holding one empty folder named as `own`, bound over `root`.
    view: std::ffi::CString,
    /// That inner folder, where `own` is bound first.
    place: std::ffi::CString,
}

impl View {
    /// The view of `own` (a folder directly in `root`) through the empty folder `view`
    /// (made here, with the folder inside it; the caller removes it).
    pub fn new(root: &std::path::Path, own: &std::path::Path, view: &std::path::Path) -> std::io::Result<View> {
        use std::os::unix::ffi::OsStrExt;
        let name = own.file_name().ok_or_else(|| std::io::Error::other("a folder without a name"))?;
        let place = view.join(name);
        std::fs::create_dir_all(&place)?;
        let c = |p: &std::path::Path| std::ffi::CString::new(p.as_os_str().as_bytes()).map_err(std::io::Error::other);
        Ok(View { root: c(root)?, own: c(own)?, view: c(view)?, place: c(&place)? })
    }
}

/// Makes this process non-dumpable: its `/proc/PID/environ`, `mem` and the like are
/// then closed to every process without `CAP_SYS_PTRACE` over it, the code tools'
/// included (done once).
fn hide_this_process() {
    static DONE: OnceLock<()> = OnceLock::new();
    DONE.get_or_init(|| {
        #[cfg(target_os = "linux")]
        // SAFETY: prctl(PR_SET_DUMPABLE) changes a flag of this process; no memory is passed.
        unsafe {
            libc::prctl(libc::PR_SET_DUMPABLE, 0, 0, 0, 0);
        }
        tracing::debug!("this process is no longer dumpable, so the code tools cannot read its /proc files");
    });
}

#[cfg(target_os = "linux")]
mod linux;
#[cfg(target_os = "linux")]
use linux::{confine, probe};

#[cfg(not(target_os = "linux"))]
fn probe() -> Available {
    Available { namespaces: false, proc: false, seccomp: false, nproc: false, cgroup: false }
}

#[cfg(not(target_os = "linux"))]
fn confine(_: &Plan, _: Option<&View>, _: Option<&Hide>) -> std::io::Result<()> {
    Ok(())
}
