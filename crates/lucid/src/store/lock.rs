//! Turn locks: who holds one, and when a holder is gone.
//!
//! A lock's owner is `host:pid:nonce` ([`owner`]). A lock may be taken over when its lease
//! expired or when its holder was a process on this host that no longer runs
//! ([`is_stale`]); a store keeps the owner and the expiry beside the session.

use super::error::StoreError;

/// This process's identity for turn locks: `host:pid:nonce`.
pub fn owner() -> String {
    format!("{}:{}:{:08x}", hostname(), std::process::id(), fastrand::u32(..))
}

fn hostname() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .or_else(|_| std::fs::read_to_string("/etc/hostname"))
        .map(|h| h.trim().to_string())
        .unwrap_or_else(|_| "localhost".into())
}

/// Whether a lock held by `owner` may be taken over: its lease expired, or it was taken
/// by a process on this host that no longer runs.
pub fn is_stale(owner: &str, expires_at: i64, now: i64) -> bool {
    if expires_at <= now {
        return true;
    }
    let mut parts = owner.split(':');
    let (Some(host), Some(pid)) = (parts.next(), parts.next().and_then(|p| p.parse::<u32>().ok())) else {
        return false;
    };
    host == hostname() && pid != std::process::id() && !process_alive(pid)
}

#[cfg(target_os = "linux")]
fn process_alive(pid: u32) -> bool {
    // A zombie still has a /proc entry; its state letter is Z.
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => stat.rsplit_once(')').is_some_and(|(_, rest)| !rest.trim_start().starts_with('Z')),
        Err(_) => false,
    }
}

#[cfg(not(target_os = "linux"))]
fn process_alive(_pid: u32) -> bool {
    true
}

/// The error for a session whose turn lock `owner` holds.
pub fn busy(id: &str, owner: &str) -> StoreError {
    StoreError::Busy { id: id.to_string(), owner: owner.to_string(), in_this_process: is_this_process(owner) }
}

/// Whether `owner` (`host:pid:nonce`) is this process.
pub fn is_this_process(owner: &str) -> bool {
    let mut parts = owner.split(':');
    parts.next().is_some_and(|host| host == hostname())
        && parts.next().and_then(|p| p.parse::<u32>().ok()) == Some(std::process::id())
}
