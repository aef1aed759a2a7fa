//! A small seccomp filter, built by hand: `socket(AF_UNIX, …)` (the way to a local database
//! or daemon the network namespace does not cut), `io_uring_setup` (whose requests seccomp
//! cannot see) and `pidfd_getfd` (taking another process's descriptors) fail with `EACCES`,
//! as does every call of a foreign system-call ABI (x32, 32-bit); the rest is allowed.

/// Whether this build has a filter for its architecture.
pub(crate) const SUPPORTED: bool = cfg!(all(target_os = "linux", any(target_arch = "x86_64", target_arch = "aarch64")));

#[cfg(all(target_os = "linux", any(target_arch = "x86_64", target_arch = "aarch64")))]
mod filter {
    use libc::{sock_filter, sock_fprog};

    #[cfg(target_arch = "x86_64")]
    const AUDIT_ARCH: u32 = 0xC000_003E;
    #[cfg(target_arch = "aarch64")]
    const AUDIT_ARCH: u32 = 0xC000_00B7;
    /// x32 system calls on x86_64 carry this bit in their number.
    const X32_BIT: u32 = 0x4000_0000;
    /// `struct seccomp_data`: `nr` at 0, `arch` at 4, `args[0]` at 16 (its low half on
    /// these little-endian machines).
    const NR: u32 = 0;
    const ARCH: u32 = 4;
    const ARG0: u32 = 16;

    const fn stmt(code: u32, k: u32) -> sock_filter {
        sock_filter { code: code as u16, jt: 0, jf: 0, k }
    }

    const fn jump(k: u32, jt: u8, jf: u8) -> sock_filter {
        sock_filter { code: (libc::BPF_JMP | libc::BPF_JEQ | libc::BPF_K) as u16, jt, jf, k }
    }

    const LOAD: u32 = libc::BPF_LD | libc::BPF_W | libc::BPF_ABS;
    const RET: u32 = libc::BPF_RET | libc::BPF_K;
    const DENY: u32 = libc::SECCOMP_RET_ERRNO | libc::EACCES as u32;

    /// The program; jumps count instructions after the next one.
    const PROGRAM: [sock_filter; 11] = [
        /* 0 */ stmt(LOAD, ARCH),
        /* 1 */ jump(AUDIT_ARCH, 0, 8), // a foreign ABI: deny
        /* 2 */ stmt(LOAD, NR),
        /* 3 */
        sock_filter { code: (libc::BPF_JMP | libc::BPF_JGE | libc::BPF_K) as u16, jt: 6, jf: 0, k: X32_BIT },
        /* 4 */ jump(libc::SYS_io_uring_setup as u32, 5, 0),
        /* 5 */ jump(libc::SYS_pidfd_getfd as u32, 4, 0),
        /* 6 */ jump(libc::SYS_socket as u32, 0, 2),
        /* 7 */ stmt(LOAD, ARG0),
        /* 8 */ jump(libc::AF_UNIX as u32, 1, 0),
        /* 9 */ stmt(RET, libc::SECCOMP_RET_ALLOW),
        /* 10 */ stmt(RET, DENY),
    ];

    /// Installs the filter on the calling thread (and what it execs). Sets
    /// `no_new_privs` first, as an unprivileged filter needs. Async-signal-safe.
    pub(crate) fn install() -> std::io::Result<()> {
        // SAFETY: prctl and seccomp read only the values passed; the program is a
        // constant that outlives the call (the kernel copies it).
        unsafe {
            if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            let prog = sock_fprog { len: PROGRAM.len() as u16, filter: PROGRAM.as_ptr().cast_mut() };
            if libc::syscall(libc::SYS_seccomp, libc::SECCOMP_SET_MODE_FILTER, 0, &prog as *const sock_fprog) != 0 {
                return Err(std::io::Error::last_os_error());
            }
        }
        Ok(())
    }
}

#[cfg(all(target_os = "linux", any(target_arch = "x86_64", target_arch = "aarch64")))]
pub(crate) use filter::install;

/// No filter for this system.
#[cfg(not(all(target_os = "linux", any(target_arch = "x86_64", target_arch = "aarch64"))))]
pub(crate) fn install() -> std::io::Result<()> {
    Err(std::io::Error::from(std::io::ErrorKind::Unsupported))
}
