//! Built-in tools: [`calculator`](struct@calculator) and [`current_time`](struct@current_time).
//!
//! Both are ordinary `#[tool]` functions; `lucid run` enables them by default.

mod arithmetic;
mod clock;

pub use arithmetic::{calculator, evaluate};
pub use clock::current_time;

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
