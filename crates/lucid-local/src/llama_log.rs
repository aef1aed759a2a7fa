//! llama.cpp's own log, caught: its warnings and errors are kept (the last few, per thread)
//! so that a failure reported by the C API as a bare null or `false` reaches the caller with
//! llama.cpp's reason ("error loading model: ..."), and every line goes to `tracing` (target
//! `llama.cpp`) when `LUCID_LOCAL_LOG` is set.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::ffi::{CStr, c_char, c_void};
use std::sync::atomic::{AtomicBool, Ordering};

use llama_cpp_sys_2 as sys;

/// Lines kept per thread, and the longest kept line.
const KEEP: usize = 6;
const LINE: usize = 400;

static TO_TRACING: AtomicBool = AtomicBool::new(false);

thread_local! {
    /// Warnings and errors llama.cpp logged on this thread, oldest first; `bool`: the last
    /// line is still open (llama.cpp continues it with `GGML_LOG_LEVEL_CONT`).
    static RECENT: RefCell<(VecDeque<String>, bool)> = const { RefCell::new((VecDeque::new(), false)) };
}

/// Routes llama.cpp's and ggml's log to [`on_log`]; `to_tracing`: also to `tracing`.
pub fn install(to_tracing: bool) {
    TO_TRACING.store(to_tracing, Ordering::Relaxed);
    // SAFETY: `on_log` is a plain function that lives for the program and never unwinds;
    // the user data pointer is unused.
    unsafe {
        sys::llama_log_set(Some(on_log), std::ptr::null_mut());
        sys::ggml_log_set(Some(on_log), std::ptr::null_mut());
    }
}

/// Forgets what this thread's llama.cpp calls logged so far (before a call whose failure
/// is to be explained).
pub fn clear() {
    let _ = RECENT.try_with(|r| {
        if let Ok(mut r) = r.try_borrow_mut() {
            r.0.clear();
            r.1 = false;
        }
    });
}

/// What llama.cpp warned of or failed with on this thread since [`clear`], as
/// `": llama.cpp: first; second"`, or an empty string when it said nothing.
pub fn reason() -> String {
    let lines: Vec<String> = RECENT
        .try_with(|r| r.try_borrow().map(|r| r.0.iter().cloned().collect()).unwrap_or_default())
        .unwrap_or_default();
    if lines.is_empty() { String::new() } else { format!(": llama.cpp: {}", lines.join("; ")) }
}

extern "C" fn on_log(level: sys::ggml_log_level, text: *const c_char, _data: *mut c_void) {
    if text.is_null() {
        return;
    }
    // SAFETY: llama.cpp passes a NUL-terminated string valid for the call.
    let text = unsafe { CStr::from_ptr(text) }.to_string_lossy();
    if TO_TRACING.load(Ordering::Relaxed) {
        tracing::debug!(target: "llama.cpp", "{}", text.trim_end());
    }
    let keep = level == sys::GGML_LOG_LEVEL_ERROR || level == sys::GGML_LOG_LEVEL_WARN;
    let cont = level == sys::GGML_LOG_LEVEL_CONT;
    let _ = RECENT.try_with(|r| {
        let Ok(mut r) = r.try_borrow_mut() else { return };
        let (lines, open) = &mut *r;
        if cont && *open {
            if let Some(last) = lines.back_mut() {
                push_bounded(last, &text);
            }
        } else if keep {
            if lines.len() == KEEP {
                lines.pop_front();
            }
            let mut line = String::new();
            push_bounded(&mut line, &text);
            lines.push_back(line);
        } else if !cont {
            *open = false;
            return;
        }
        *open = !text.ends_with('\n');
        if let Some(last) = lines.back_mut() {
            let trimmed = last.trim_end().len();
            last.truncate(trimmed);
        }
    });
}

fn push_bounded(line: &mut String, text: &str) {
    for c in text.chars() {
        if line.len() + c.len_utf8() > LINE {
            break;
        }
        line.push(if c == '\n' { ' ' } else { c });
    }
}
