//! The one catalogue of `lucid`'s built-in tools: every tool crate this build has, in the
//! order help texts list them. Tool lists in the configuration, the help texts, the starter
//! configuration, `lucid mcp serve` and the names MCP servers may not take all read it.

use std::sync::LazyLock;

use lucid::tool::catalogue::{BuiltinTool, Catalogue, Need};

static CATALOGUE: LazyLock<Catalogue> = LazyLock::new(|| {
    let catalogue = Catalogue::new().with(lucid_tools::TOOLS).with(lucid_sandbox::TOOLS);
    #[cfg(any(feature = "code-outline", feature = "test-tools"))]
    let catalogue = catalogue.with(lucid_code::TOOLS);
    catalogue.with(lucid_sql::TOOLS)
});

/// Every built-in tool of this build.
pub fn catalogue() -> &'static Catalogue {
    &CATALOGUE
}

/// The entry named `name`.
pub fn find(name: &str) -> Option<&'static BuiltinTool> {
    CATALOGUE.find(name)
}

/// The names, in catalogue order.
pub fn names() -> impl Iterator<Item = &'static str> {
    CATALOGUE.names()
}

/// Whether the tool needs something from outside that may be missing (a database, an
/// interpreter): such a tool is left out, or refused with a configuration error, when it is.
pub fn needs_outside(entry: &BuiltinTool) -> bool {
    entry.needs(Need::Database) || entry.needs(Need::Interpreter)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_catalogue_names_every_tool_once_in_the_order_of_the_help() {
        let mut expected = vec![
            "calculator",
            "current_time",
            "ask_user",
            "read_file",
            "list_dir",
            "search_files",
            "write_file",
            "edit_file",
        ];
        expected.extend(["shell", "python"]);
        if cfg!(feature = "code-outline") {
            expected.push("code_outline");
        }
        if cfg!(feature = "test-tools") {
            expected.extend(["run_tests", "coverage"]);
        }
        expected.extend(["sql_query", "sql_schema", "schema_history", "sql_migrate"]);
        assert_eq!(names().collect::<Vec<_>>(), expected);
    }
}
