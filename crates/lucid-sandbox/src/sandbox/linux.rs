//! The Linux system calls of the sandbox. Everything here but [`probe`]'s caller side runs
//! in a child between fork and exec, so it only makes async-signal-safe system calls and
//! allocates nothing.

use std::io;

use super::{Available, Hide, Plan, View, seccomp};

/// Confines the calling child (forked, about to exec): namespaces, the process limit, the
/// reaper, a fresh `/proc`, the seccomp filter — each as far as `plan.available` says the
/// system allows.
pub(super) fn confine(plan: &Plan, view: Option<&View>, hide: Option<&Hide>) -> io::Result<()> {
    let a = plan.available;
    if a.namespaces {
        let mut flags = libc::CLONE_NEWUSER | libc::CLONE_NEWPID;
        if !plan.network {
            flags |= libc::CLONE_NEWNET;
        }
        // SAFETY: unshare(2) changes only this single-threaded child.
        if unsafe { libc::unshare(flags) } != 0 {
            return Err(io::Error::last_os_error());
        }
        if a.nproc && plan.processes > 0 {
            // In a new user namespace the count starts from this tree alone.
            let limit = libc::rlimit { rlim_cur: plan.processes, rlim_max: plan.processes };
            // SAFETY: setrlimit reads the struct we pass.
            if unsafe { libc::setrlimit(libc::RLIMIT_NPROC, &limit) } != 0 {
                return Err(io::Error::last_os_error());
            }
        }
        // SAFETY: forks and waits only; see `reap`.
        unsafe { reap() }?;
        if a.proc {
            // SAFETY: unshare and mount on constant, nul-terminated strings.
            unsafe { fresh_proc() }?;
            if let Some(view) = view {
                // SAFETY: mount and chdir on nul-terminated strings the view owns.
                unsafe { see_only(view) }?;
            }
            if let Some(hide) = hide {
                // SAFETY: mount and umount2 on nul-terminated strings the plan owns.
                unsafe { hide_homes(hide) }?;
            }
        }
    }
    if a.seccomp {
        seccomp::install()?;
    }
    Ok(())
}

/// Splits the child in three: the caller's child waits for the namespace's PID 1 and ends
/// as the code ended; PID 1 (dying with its parent) reaps orphans until the code ends,
/// and its death kills every process left in the namespace; the third process returns to
/// exec the code.
///
/// # Safety
/// Only between fork and exec, in a single-threaded child that just unshared a PID
/// namespace.
unsafe fn reap() -> io::Result<()> {
    let mut status_pipe = [0; 2];
    // SAFETY: pipe2 writes two descriptors into the array we own.
    if unsafe { libc::pipe2(status_pipe.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(io::Error::last_os_error());
    }
    let [read_end, write_end] = status_pipe;
    // SAFETY: fork in a single-threaded process.
    let init = unsafe { libc::fork() };
    if init < 0 {
        return Err(io::Error::last_os_error());
    }
    if init > 0 {
        // The child tokio waits for: keeps only the status pipe, and ends as the code did.
        // SAFETY: descriptor and wait calls on values we own; never returns.
        unsafe {
            keep_only(read_end);
            let mut status = 0;
            let got = read_full(0, &mut status);
            let mut own = 0;
            while libc::waitpid(init, &mut own, 0) < 0 && *libc::__errno_location() == libc::EINTR {}
            end_as(if got { status } else { own });
        }
    }
    // PID 1 of the namespace: dies with the child above.
    // SAFETY: prctl and fork on values we own.
    unsafe {
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0);
        libc::close(read_end);
    }
    // SAFETY: fork in a single-threaded process.
    let code = unsafe { libc::fork() };
    if code < 0 {
        // SAFETY: _exit ends this process only.
        unsafe { libc::_exit(127) };
    }
    if code > 0 {
        // SAFETY: descriptor and wait calls on values we own; never returns.
        unsafe {
            keep_only(write_end);
            loop {
                let mut status = 0;
                let pid = libc::waitpid(-1, &mut status, 0);
                if pid == code {
                    libc::write(0, (&raw const status).cast(), size_of::<libc::c_int>());
                    libc::_exit(0);
                }
                if pid < 0 && *libc::__errno_location() != libc::EINTR {
                    libc::_exit(0);
                }
            }
        }
    }
    // SAFETY: closes a descriptor this process owns.
    unsafe { libc::close(write_end) };
    Ok(())
}

/// Moves `fd` to 0 and closes every other descriptor, so that a helper process holds no
/// pipe of the code and nothing of the parent (a listening socket, the database).
///
/// # Safety
/// Closes descriptors of the calling process; only in a helper that will never exec.
unsafe fn keep_only(fd: libc::c_int) {
    // SAFETY: dup2/close/close_range on this process's own descriptor table.
    unsafe {
        libc::dup2(fd, 0);
        if libc::syscall(libc::SYS_close_range, 1u32, u32::MAX, 0u32) != 0 {
            for other in 1..4096 {
                libc::close(other);
            }
        }
    }
}

/// Reads one `c_int` from `fd`.
///
/// # Safety
/// `fd` is open.
unsafe fn read_full(fd: libc::c_int, out: &mut libc::c_int) -> bool {
    loop {
        // SAFETY: reads at most size_of::<c_int>() bytes into `out`.
        let n = unsafe { libc::read(fd, (out as *mut libc::c_int).cast(), size_of::<libc::c_int>()) };
        // SAFETY: errno of this thread.
        if n < 0 && unsafe { *libc::__errno_location() } == libc::EINTR {
            continue;
        }
        return n == size_of::<libc::c_int>() as isize;
    }
}

/// Ends this process the way `status` (a wait status) says the code ended: the same exit
/// code, or the same signal.
///
/// # Safety
/// Ends the calling process.
unsafe fn end_as(status: libc::c_int) -> ! {
    if libc::WIFSIGNALED(status) {
        let sig = libc::WTERMSIG(status);
        let no_core = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
        // SAFETY: resets one signal's disposition and sends it to this process.
        unsafe {
            libc::setrlimit(libc::RLIMIT_CORE, &no_core);
            libc::signal(sig, libc::SIG_DFL);
            libc::kill(libc::getpid(), sig);
        }
    }
    let code = if libc::WIFEXITED(status) { libc::WEXITSTATUS(status) } else { 128 + libc::WTERMSIG(status) };
    // SAFETY: ends this process.
    unsafe { libc::_exit(code) }
}

/// A mount namespace of its own with a `/proc` of the new PID namespace.
///
/// # Safety
/// Only in a child inside a new user and PID namespace.
unsafe fn fresh_proc() -> io::Result<()> {
    // SAFETY: unshare and mount read the constant strings passed.
    unsafe {
        if libc::unshare(libc::CLONE_NEWNS) != 0 {
            return Err(io::Error::last_os_error());
        }
        let none = std::ptr::null();
        if libc::mount(none, c"/".as_ptr(), none, libc::MS_REC | libc::MS_PRIVATE, std::ptr::null()) != 0 {
            return Err(io::Error::last_os_error());
        }
        let flags = libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC;
        if libc::mount(c"proc".as_ptr(), c"/proc".as_ptr(), c"proc".as_ptr(), flags, std::ptr::null()) != 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

/// Binds the view over its root, so the code sees its own folder alone there.
///
/// # Safety
/// Only in a child with a mount namespace of its own.
unsafe fn see_only(view: &View) -> io::Result<()> {
    // SAFETY: mount and chdir read the nul-terminated strings passed.
    unsafe {
        let none = std::ptr::null();
        if libc::mount(view.own.as_ptr(), view.place.as_ptr(), none, libc::MS_BIND, std::ptr::null()) != 0
            || libc::mount(view.view.as_ptr(), view.root.as_ptr(), none, libc::MS_BIND | libc::MS_REC, std::ptr::null())
                != 0
            || libc::chdir(view.own.as_ptr()) != 0
        {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

/// Shows the private home in place of each of the user's homes, and binds the kept
/// folders back (read-only where said, their credential files covered).
///
/// # Safety
/// Only in a child with a mount namespace of its own.
unsafe fn hide_homes(hide: &Hide) -> io::Result<()> {
    let none = std::ptr::null();
    let fail = || Err(io::Error::last_os_error());
    // SAFETY: mount and umount2 read the nul-terminated strings passed.
    unsafe {
        for k in &hide.kept {
            if libc::mount(k.path.as_ptr(), k.stage.as_ptr(), none, libc::MS_BIND | libc::MS_REC, std::ptr::null()) != 0
            {
                return fail();
            }
        }
        for home in &hide.homes {
            if libc::mount(hide.private.as_ptr(), home.as_ptr(), none, libc::MS_BIND, std::ptr::null()) != 0 {
                return fail();
            }
        }
        for k in &hide.kept {
            if libc::mount(k.stage.as_ptr(), k.path.as_ptr(), none, libc::MS_BIND | libc::MS_REC, std::ptr::null()) != 0
            {
                return fail();
            }
            if let Some(flags) = k.read_only {
                let flags = libc::MS_BIND | libc::MS_REMOUNT | libc::MS_RDONLY | flags;
                if libc::mount(none, k.path.as_ptr(), none, flags, std::ptr::null()) != 0 {
                    return fail();
                }
            }
            // The stage would be a writable way into a read-only folder.
            if libc::umount2(k.stage.as_ptr(), libc::MNT_DETACH) != 0 {
                return fail();
            }
        }
        for f in &hide.covered {
            if libc::mount(c"/dev/null".as_ptr(), f.as_ptr(), none, libc::MS_BIND, std::ptr::null()) != 0 {
                return fail();
            }
        }
    }
    Ok(())
}

const NAMESPACES: i32 = 1;
const PROC: i32 = 2;
const SECCOMP: i32 = 4;

/// Tries each part in a forked child and says which work.
pub(super) fn probe() -> Available {
    // SAFETY: the child makes only async-signal-safe calls and ends with _exit.
    let child = unsafe { libc::fork() };
    if child == 0 {
        // SAFETY: in the forked child; never returns.
        unsafe { libc::_exit(probe_child()) }
    }
    let mut status = 0;
    // SAFETY: waits for the child we forked.
    let waited = child > 0 && unsafe { libc::waitpid(child, &mut status, 0) } == child;
    let bits = if waited && libc::WIFEXITED(status) { libc::WEXITSTATUS(status) } else { 0 };
    // SAFETY: geteuid has no failure mode.
    let root = unsafe { libc::geteuid() } == 0;
    let found = Available {
        namespaces: bits & NAMESPACES != 0,
        proc: bits & PROC != 0,
        seccomp: seccomp::SUPPORTED && bits & SECCOMP != 0,
        nproc: !root,
        cgroup: super::Cgroup::make(1, 0).is_some(),
    };
    tracing::debug!(?found, "code tools' sandbox");
    found
}

/// The probe's child: the namespaces, then (in their PID 1) a fresh `/proc` and the filter.
fn probe_child() -> i32 {
    // SAFETY: unshare in this single-threaded child.
    if unsafe { libc::unshare(libc::CLONE_NEWUSER | libc::CLONE_NEWNET | libc::CLONE_NEWPID) } != 0 {
        return filter_works();
    }
    // SAFETY: fork in a single-threaded child.
    let inner = unsafe { libc::fork() };
    if inner == 0 {
        // SAFETY: in the namespace's first process; ends with _exit.
        let proc = if unsafe { fresh_proc() }.is_ok() { PROC } else { 0 };
        unsafe { libc::_exit(proc | filter_works()) }
    }
    let mut status = 0;
    // SAFETY: waits for the child we forked.
    if inner < 0 || unsafe { libc::waitpid(inner, &mut status, 0) } != inner || !libc::WIFEXITED(status) {
        return NAMESPACES;
    }
    NAMESPACES | libc::WEXITSTATUS(status)
}

/// Installs the filter and checks that a Unix socket is refused.
fn filter_works() -> i32 {
    if seccomp::install().is_err() {
        return 0;
    }
    // SAFETY: socket(2) with constant arguments; a descriptor it returns is closed.
    let fd = unsafe { libc::socket(libc::AF_UNIX, libc::SOCK_STREAM, 0) };
    if fd >= 0 {
        // SAFETY: closes the descriptor just made.
        unsafe { libc::close(fd) };
        return 0;
    }
    // SAFETY: errno of this thread.
    if unsafe { *libc::__errno_location() } == libc::EACCES { SECCOMP } else { 0 }
}
