//! # lucid-tools
//!
//! The general built-in tools of Lucid agents: [`calculator`](struct@calculator),
//! [`current_time`](struct@current_time), `ask_user`, and the file tools of a
//! [`Workspace`] (`read_file`, `list_dir`, `search_files`, `write_file`, `edit_file`,
//! confined to its root). [`TOOLS`] are their entries in an application's
//! [`Catalogue`](lucid::tool::catalogue::Catalogue); the other tool crates add theirs
//! (`lucid-sandbox`: `shell`, `python`; `lucid-code`: `code_outline`, `run_tests`,
//! `coverage`; `lucid-sql`: the SQL tools).
//!
//! ```
//! use lucid::tool::catalogue::{Catalogue, Setup};
//! let catalogue = Catalogue::new().with(lucid_tools::TOOLS);
//! let setup = Setup::new(std::env::temp_dir());
//! let read = catalogue.find("read_file").unwrap().build(&setup).unwrap();
//! assert_eq!(read.spec().name(), "read_file");
//! // Reading allowed; the tools that write ask first.
//! let policy = lucid::tool::permission::PermissionPolicy::asking_before_writes(&catalogue);
//! assert_eq!(policy.permission("write_file"), lucid::tool::permission::Permission::Ask);
//! ```

#![warn(missing_docs)]

mod arithmetic;
mod clock;
mod files;

use std::sync::Arc;

use lucid::tool::AskUser;
use lucid::tool::catalogue::{BuiltinTool, Need, Setup};
use lucid::tool::{Tool, ToolSet};

pub use arithmetic::{calculator, evaluate};
pub use clock::current_time;
pub use files::{PROTECTED, Workspace};

/// The file tools' settings in a [`Setup`]: the [`PROTECTED`] paths they may write all the
/// same, named as they are there (see [`Workspace::unprotect`]).
///
/// ```
/// let setup = lucid::tool::catalogue::Setup::new(".").with(lucid_tools::FilesConfig::default().unprotect(".env.example"));
/// # let _ = setup;
/// ```
#[derive(Debug, Clone, Default)]
pub struct FilesConfig {
    unprotected: Vec<String>,
}

impl FilesConfig {
    /// Lets the file tools write `name`, one of the [`PROTECTED`] paths.
    pub fn unprotect(mut self, name: impl Into<String>) -> Self {
        self.unprotected.push(name.into());
        self
    }
}

/// The key of the one workspace a setup makes for its file tools.
struct Files;

/// The file tool `name`, from the one workspace `setup` makes.
fn file_tool(setup: &Setup, name: &str) -> std::io::Result<Arc<dyn Tool>> {
    setup.shared_tool::<Files>(name, "the workspace", || {
        let unprotected = setup.get::<FilesConfig>().map(|c| c.unprotected.as_slice()).unwrap_or_default();
        let workspace = unprotected
            .iter()
            .try_fold(Workspace::new(setup.root())?, |w, name| Ok::<_, std::io::Error>(w.unprotect(name)))?;
        Ok(Arc::new(workspace).tools())
    })
}

/// The general tools, for an application's catalogue, in the order help texts list them.
pub const TOOLS: &[BuiltinTool] = &[
    BuiltinTool::new("calculator", "evaluates an arithmetic expression", false, &[], |_| Ok(Arc::new(calculator))),
    BuiltinTool::new("current_time", "the date and time in a time zone", false, &[], |_| Ok(Arc::new(current_time))),
    BuiltinTool::new("ask_user", "asks the user clarifying questions", false, &[], |s| {
        Ok(Arc::new(match s.answerer() {
            Some(i) => AskUser::new(Arc::clone(i)),
            None => AskUser::deferred(),
        }))
    }),
    BuiltinTool::new("read_file", "reads a text file", false, &[Need::Root], |s| file_tool(s, "read_file")),
    BuiltinTool::new("list_dir", "lists a directory", false, &[Need::Root], |s| file_tool(s, "list_dir")),
    BuiltinTool::new("search_files", "searches text files for a pattern", false, &[Need::Root], |s| {
        file_tool(s, "search_files")
    }),
    BuiltinTool::new("write_file", "writes a text file", true, &[Need::Root], |s| file_tool(s, "write_file")),
    BuiltinTool::new("edit_file", "replaces text in a file", true, &[Need::Root], |s| file_tool(s, "edit_file")),
];

#[cfg(test)]
mod tests {
    use super::*;
    use lucid::tool::catalogue::Catalogue;

    #[test]
    fn each_entry_builds_its_own_tool_and_the_writing_ones_are_marked() {
        let catalogue = Catalogue::new().with(TOOLS);
        let setup = Setup::new(std::env::temp_dir());
        for entry in &catalogue {
            assert_eq!(entry.build(&setup).unwrap().spec().name(), entry.name);
        }
        let writing: Vec<&str> = catalogue.iter().filter(|t| t.writes).map(|t| t.name).collect();
        assert_eq!(writing, ["write_file", "edit_file"]);
    }

    #[test]
    fn file_tools_share_one_workspace_and_a_missing_root_is_an_error() {
        let find = |name: &str| TOOLS.iter().find(|t| t.name == name).unwrap();
        let setup = Setup::new(std::env::temp_dir());
        let first = find("read_file").build(&setup).unwrap();
        let again = find("read_file").build(&setup).unwrap();
        assert!(Arc::ptr_eq(&first, &again), "the workspace's tools are made once per setup");
        let missing = Setup::new("/nonexistent/lucid-catalogue-root");
        assert!(find("write_file").build(&missing).is_err());
        assert!(find("calculator").build(&missing).is_ok(), "tools without a root do not need one");
    }
}
