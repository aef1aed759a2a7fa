//! The languages `code_outline` reads: their tree-sitter grammars, the file extensions
//! that name them, and the query that finds their symbols.
//!
//! Each query captures a definition node under the symbol's kind (`@function`,
//! `@class`…) and its name under `@name`. A kind ending in `.top` is kept only at the top
//! of the file (a function bound to a `const` inside a function body is not a symbol).

use std::sync::OnceLock;

use tree_sitter::{Language, Query};

/// A language `code_outline` knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Lang {
    Rust,
    Python,
    Java,
    JavaScript,
    TypeScript,
    Tsx,
    Go,
}

/// Every language, with its name as answers spell it.
pub(super) const ALL: &[(Lang, &str)] = &[
    (Lang::Rust, "rust"),
    (Lang::Python, "python"),
    (Lang::Java, "java"),
    (Lang::JavaScript, "javascript"),
    (Lang::TypeScript, "typescript"),
    (Lang::Tsx, "tsx"),
    (Lang::Go, "go"),
];

const RUST: &str = r#"
(function_item name: (identifier) @name) @function
(function_signature_item name: (identifier) @name) @function
(struct_item name: (type_identifier) @name) @struct
(union_item name: (type_identifier) @name) @struct
(enum_item name: (type_identifier) @name) @enum
(trait_item name: (type_identifier) @name) @trait
(impl_item type: (_) @name) @impl
(type_item name: (type_identifier) @name) @type
(const_item name: (identifier) @name) @constant
(static_item name: (identifier) @name) @constant
(mod_item name: (identifier) @name) @module
(macro_definition name: (identifier) @name) @macro
"#;

const PYTHON: &str = r#"
(function_definition name: (identifier) @name) @function
(class_definition name: (identifier) @name) @class
"#;

const JAVA: &str = r#"
(class_declaration name: (identifier) @name) @class
(record_declaration name: (identifier) @name) @class
(interface_declaration name: (identifier) @name) @interface
(annotation_type_declaration name: (identifier) @name) @interface
(enum_declaration name: (identifier) @name) @enum
(method_declaration name: (identifier) @name) @method
(constructor_declaration name: (identifier) @name) @constructor
"#;

/// What JavaScript, TypeScript and TSX share.
const SCRIPT: &str = r#"
(function_declaration name: (_) @name) @function
(generator_function_declaration name: (_) @name) @function
(class_declaration name: (_) @name) @class
(method_definition name: (_) @name) @method
(lexical_declaration (variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression)])) @function.top
(variable_declaration (variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression)])) @function.top
"#;

/// TypeScript's own declarations, added to [`SCRIPT`].
const TYPESCRIPT: &str = r#"
(function_signature name: (_) @name) @function
(abstract_class_declaration name: (_) @name) @class
(interface_declaration name: (_) @name) @interface
(type_alias_declaration name: (_) @name) @type
(enum_declaration name: (_) @name) @enum
(method_signature name: (_) @name) @method
(abstract_method_signature name: (_) @name) @method
(internal_module name: (_) @name) @module
"#;

const GO: &str = r#"
(function_declaration name: (identifier) @name) @function
(method_declaration name: (field_identifier) @name) @method
(type_spec name: (type_identifier) @name) @type
(const_spec name: (identifier) @name) @constant
"#;

impl Lang {
    /// The language of a file name, by its extension.
    pub fn of(path: &str) -> Option<Lang> {
        let ext = path.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase())?;
        Some(match ext.as_str() {
            "rs" => Lang::Rust,
            "py" | "pyi" => Lang::Python,
            "java" => Lang::Java,
            "js" | "mjs" | "cjs" | "jsx" => Lang::JavaScript,
            "ts" | "mts" | "cts" => Lang::TypeScript,
            "tsx" => Lang::Tsx,
            "go" => Lang::Go,
            _ => return None,
        })
    }

    /// The name answers use.
    pub fn name(self) -> &'static str {
        ALL.iter().find(|(l, _)| *l == self).map_or("unknown", |(_, n)| n)
    }

    /// The grammar.
    pub fn grammar(self) -> Language {
        match self {
            Lang::Rust => tree_sitter_rust::LANGUAGE.into(),
            Lang::Python => tree_sitter_python::LANGUAGE.into(),
            Lang::Java => tree_sitter_java::LANGUAGE.into(),
            // TSX's grammar is JavaScript's and TypeScript's with JSX added: two grammars
            // fewer in the binary (JavaScript ~0.44 MB, TypeScript 1.40 MB measured: `lucid` within its size
            // budget). What TypeScript writes differently from TSX — a `<T>x` cast, a
            // generic arrow function `<T>(x: T) => x` — reads as an unclosed JSX element
            // there, and symbols after it are not found (a known loss, README).
            Lang::JavaScript | Lang::TypeScript | Lang::Tsx => tree_sitter_typescript::LANGUAGE_TSX.into(),
            Lang::Go => tree_sitter_go::LANGUAGE.into(),
        }
    }

    /// The symbol query, compiled once per language (an error names a bug in this file:
    /// the tests compile every query).
    pub fn query(self) -> Result<&'static Query, String> {
        static QUERIES: [OnceLock<Result<Query, String>>; 7] = [const { OnceLock::new() }; 7];
        let index = ALL.iter().position(|(l, _)| *l == self).unwrap_or(0);
        QUERIES[index]
            .get_or_init(|| {
                let source = match self {
                    Lang::Rust => RUST.to_string(),
                    Lang::Python => PYTHON.to_string(),
                    Lang::Java => JAVA.to_string(),
                    Lang::JavaScript => SCRIPT.to_string(),
                    Lang::TypeScript | Lang::Tsx => format!("{SCRIPT}{TYPESCRIPT}"),
                    Lang::Go => GO.to_string(),
                };
                Query::new(&self.grammar(), &source)
                    .map_err(|e| format!("the {} symbol query does not compile: {e}", self.name()))
            })
            .as_ref()
            .map_err(Clone::clone)
    }
}
