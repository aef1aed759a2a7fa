//! Built-in tools: [`calculator`](struct@calculator), [`current_time`](struct@current_time),
//! the file tools of a [`Workspace`] (`read_file`, `list_dir`, `search_files`,
//! `write_file`, `edit_file`, confined to its root) and `Shell` (feature `shell`; a timeout
//! and an output cap; off unless added).
//!
//! Pair the writing tools with a permission policy
//! ([`PermissionPolicy::recommended`](crate::tool::permission::PermissionPolicy::recommended)
//! asks before `write_file`, `edit_file` and `shell`).

mod arithmetic;
mod clock;
mod files;
#[cfg(feature = "shell")]
mod shell;

pub use arithmetic::{calculator, evaluate};
pub use clock::current_time;
pub use files::Workspace;
#[cfg(feature = "shell")]
pub use shell::Shell;

use std::sync::Arc;

use super::Tool;

/// Every built-in tool, by name (`ask_user` in its deferred form: calling it stops the run
/// with the questions).
pub fn by_name(name: &str) -> Option<Arc<dyn Tool>> {
    match name {
        "calculator" => Some(Arc::new(calculator)),
        "current_time" => Some(Arc::new(current_time)),
        "ask_user" => Some(Arc::new(super::AskUser::deferred())),
        _ => None,
    }
}

/// The names of the built-in tools.
pub const NAMES: &[&str] = &["calculator", "current_time", "ask_user"];
