use super::*;

/// `(kind, name, parent, first line, last line, doc)` of each symbol.
fn summary(lang: Lang, source: &str) -> Vec<Row> {
    let o = outline_source(lang, source).unwrap();
    assert!(!o.syntax_errors, "{source}");
    o.symbols.into_iter().map(|s| (s.kind, s.name, s.parent, s.lines[0], s.lines[1], s.doc)).collect()
}

type Row = (String, String, Option<String>, usize, usize, Option<String>);

fn row(kind: &str, name: &str, parent: Option<&str>, lines: [usize; 2], doc: Option<&str>) -> Row {
    (kind.into(), name.into(), parent.map(Into::into), lines[0], lines[1], doc.map(Into::into))
}

#[test]
fn every_language_query_compiles_against_its_grammar() {
    for (lang, name) in ALL {
        assert!(lang.query().is_ok(), "{name}: {:?}", lang.query().err());
    }
}

#[test]
fn rust_items_methods_docs_and_signatures() {
    let src = "//! The crate.\n\n/// Adds two numbers.\n#[inline]\npub fn add(a: i32,\n    b: i32) -> i32 {\n    a + b\n}\n\n/// A counter.\n#[derive(Debug)]\npub struct Counter {\n    n: u32,\n}\n\nimpl Counter {\n    /// A new one.\n    pub fn new() -> Self {\n        Counter { n: 0 }\n    }\n}\n\npub trait Shape {\n    fn area(&self) -> f64;\n}\n\nconst MAX: u32 = 3;\n";
    assert_eq!(
        summary(Lang::Rust, src),
        [
            row("function", "add", None, [5, 8], Some("Adds two numbers.")),
            row("struct", "Counter", None, [12, 14], Some("A counter.")),
            row("impl", "Counter", None, [16, 21], None),
            row("method", "new", Some("Counter"), [18, 20], Some("A new one.")),
            row("trait", "Shape", None, [23, 25], None),
            row("method", "area", Some("Shape"), [24, 24], None),
            row("constant", "MAX", None, [27, 27], None),
        ]
    );
    let o = outline_source(Lang::Rust, src).unwrap();
    assert_eq!(o.symbols[0].signature, "pub fn add(a: i32, b: i32) -> i32");
    assert_eq!(o.symbols[3].signature, "pub fn new() -> Self");
}

#[test]
fn python_classes_methods_decorators_and_docstrings() {
    let src = "import os\n\nclass Stack:\n    '''A stack.\n\n    Last in, first out.\n    '''\n\n    @property\n    def size(self) -> int:\n        \"\"\"How many.\"\"\"\n        return 0\n\ndef push(s, x):\n    return s\n";
    assert_eq!(
        summary(Lang::Python, src),
        [
            row("class", "Stack", None, [3, 12], Some("A stack.")),
            row("method", "size", Some("Stack"), [9, 12], Some("How many.")),
            row("function", "push", None, [14, 15], None),
        ]
    );
    assert_eq!(outline_source(Lang::Python, src).unwrap().symbols[1].signature, "def size(self) -> int");
}

#[test]
fn java_classes_constructors_and_javadoc() {
    let src = "package a;\n\n/** A calculator. */\npublic class Calc {\n    /**\n     * Adds.\n     */\n    @Override\n    public int add(int a, int b) {\n        return a + b;\n    }\n\n    Calc() {}\n}\n\ninterface Op { int apply(int x); }\n";
    assert_eq!(
        summary(Lang::Java, src),
        [
            row("class", "Calc", None, [4, 14], Some("A calculator.")),
            row("method", "add", Some("Calc"), [8, 11], Some("Adds.")),
            row("constructor", "Calc", Some("Calc"), [13, 13], None),
            row("interface", "Op", None, [16, 16], None),
            row("method", "apply", Some("Op"), [16, 16], None),
        ]
    );
}

#[test]
fn javascript_exports_arrow_functions_and_classes() {
    let src = "// Sums a list.\nexport function sum(xs) {\n  return xs.reduce((a, b) => a + b, 0);\n}\n\n/** Doubles. */\nexport const double = (x) => {\n  const inner = () => 1;\n  return 2 * x;\n};\n\nclass Box {\n  get(k) { return k; }\n}\n";
    assert_eq!(
        summary(Lang::JavaScript, src),
        [
            row("function", "sum", None, [2, 4], Some("Sums a list.")),
            row("function", "double", None, [7, 10], Some("Doubles.")),
            row("class", "Box", None, [12, 14], None),
            row("method", "get", Some("Box"), [13, 13], None),
        ]
    );
    // JSX, and a `<` that is a comparison, read by the same (TSX) grammar.
    let jsx = "export function App({ n }) {\n  return <ul>{n < 3 ? <li>few</li> : null}</ul>;\n}\n\nconst isSmall = (a, b) => a < b && b > 0;\n";
    assert_eq!(
        summary(Lang::JavaScript, jsx),
        [row("function", "App", None, [1, 3], None), row("function", "isSmall", None, [5, 5], None)]
    );
}

#[test]
fn typescript_and_tsx_interfaces_types_and_components() {
    let src = "export interface User {\n  name: string;\n}\n\nexport type Id = string;\n\nexport enum Color { Red }\n\nexport async function load(id: Id): Promise<User> {\n  return { name: id };\n}\n\nexport abstract class Repo {\n  abstract find(id: Id): User;\n}\n";
    assert_eq!(
        summary(Lang::TypeScript, src),
        [
            row("interface", "User", None, [1, 3], None),
            row("type", "Id", None, [5, 5], None),
            row("enum", "Color", None, [7, 7], None),
            row("function", "load", None, [9, 11], None),
            row("class", "Repo", None, [13, 15], None),
            row("method", "find", Some("Repo"), [14, 14], None),
        ]
    );
    assert_eq!(
        outline_source(Lang::TypeScript, src).unwrap().symbols[3].signature,
        "async function load(id: Id): Promise<User>"
    );
    let tsx = "/** The greeting. */\nexport function Hello(props: { name: string }) {\n  return <div>Hello {props.name}</div>;\n}\n";
    assert_eq!(summary(Lang::Tsx, tsx), [row("function", "Hello", None, [2, 4], Some("The greeting."))]);
}

#[test]
fn go_functions_methods_and_types() {
    let src = "package calc\n\n// Calc adds.\ntype Calc struct {\n\tn int\n}\n\n// Shape has an area.\ntype Shape interface {\n\tArea() float64\n}\n\n// Add adds.\nfunc (c *Calc) Add(a, b int) int {\n\treturn a + b\n}\n\nfunc New() *Calc { return &Calc{} }\n";
    assert_eq!(
        summary(Lang::Go, src),
        [
            row("struct", "Calc", None, [4, 6], Some("Calc adds.")),
            row("interface", "Shape", None, [9, 11], Some("Shape has an area.")),
            row("method", "Add", None, [14, 16], Some("Add adds.")),
            row("function", "New", None, [18, 18], None),
        ]
    );
    assert_eq!(outline_source(Lang::Go, src).unwrap().symbols[2].signature, "func (c *Calc) Add(a, b int) int");
}

#[test]
fn a_broken_file_is_outlined_as_far_as_it_parses() {
    let o = outline_source(Lang::Rust, "fn good() {}\nfn broken( {\n").unwrap();
    assert!(o.syntax_errors);
    assert_eq!(o.symbols[0].name, "good");
}

#[tokio::test]
async fn unknown_languages_large_files_and_escapes_are_refused_with_reasons() {
    let dir = std::env::temp_dir().join(format!("lucid-outline-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("notes.txt"), "hello").unwrap();
    std::fs::write(dir.join("big.py"), "x = 1\n".repeat(100)).unwrap();
    let tool = CodeOutline::new(&dir).unwrap().max_bytes(100);
    let call = |path: &str| tool.invoke(serde_json::json!({ "path": path }), ToolContext::default());
    let e = call("notes.txt").await.unwrap_err();
    assert!(e.message().contains("not in a language code_outline reads") && e.message().contains("rust"), "{e}");
    let e = call("big.py").await.unwrap_err();
    assert!(e.message().contains("too large to outline (600 bytes; the limit is 100)"), "{e}");
    let e = call("../x.rs").await.unwrap_err();
    assert!(e.message().contains("outside the workspace"), "{e}");
    std::fs::write(dir.join("small.go"), "package a\nfunc F() {}\n").unwrap();
    let v: Value = serde_json::from_str(&call("small.go").await.unwrap()).unwrap();
    assert_eq!(v["language"], "go");
    assert_eq!(v["symbols"][0]["signature"], "func F()");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn this_very_file_is_outlined() {
    let source = include_str!("mod.rs");
    let o = outline_source(Lang::Rust, source).unwrap();
    assert!(!o.syntax_errors);
    let find = |kind: &str, name: &str| o.symbols.iter().find(|s| s.kind == kind && s.name == name);
    let outline = find("function", "outline_source").expect("a free function");
    assert_eq!(outline.signature, "fn outline_source(lang: Lang, source: &str) -> Result<Outline, ToolError>");
    assert_eq!(outline.doc.as_deref(), Some("Parses `source` and lists its symbols in the order they start."));
    let line = source.lines().position(|l| l.starts_with("fn outline_source(")).unwrap() + 1;
    assert_eq!(outline.lines[0], line);
    assert!(find("struct", "CodeOutline").is_some());
    let invoke = find("method", "invoke").expect("the Tool impl's method");
    assert_eq!(invoke.parent.as_deref(), Some("CodeOutline"));
    assert!(find("constant", "SYMBOL_CAP").is_some());
}

/// How many outlines of a large source (over 64 KiB: the other tests' are small) are
/// being worked on now, in this test binary.
static RUNNING: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Counts one outline of a large source at work while it lives.
pub(super) struct Running(bool);

impl Running {
    pub(super) fn start(len: usize) -> Self {
        let large = len > 64 * 1024;
        if large {
            RUNNING.fetch_add(1, Ordering::SeqCst);
        }
        Running(large)
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if self.0 {
            RUNNING.fetch_sub(1, Ordering::SeqCst);
        }
    }
}

/// A file of a little over 1 MiB: `n` one-line JavaScript functions, each with a comment.
fn megabyte(dir: &std::path::Path) -> usize {
    let mut src = String::new();
    let mut n = 0;
    while src.len() <= 1024 * 1024 - 64 {
        src.push_str(&format!("// f{n}\nfunction f{n}(a) {{ return a + {n}; }}\n"));
        n += 1;
    }
    std::fs::write(dir.join("big.js"), src).unwrap();
    n
}

/// Waits (bounded) until no large outline is at work; whether none is.
async fn none_running() -> bool {
    for _ in 0..600 {
        if RUNNING.load(Ordering::SeqCst) == 0 {
            return true;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    false
}

/// A megabyte of symbols is outlined in a bounded time, the first thousand shown and the
/// rest counted (the walk after the parse was quadratic in the symbols: minutes). An
/// outline stops when its flag is set, and the flag is set however the call ends: at its
/// own time limit, or when the caller stops waiting (the tool's timeout dropping the
/// call); either way its thread ends, nothing is left outlining.
#[tokio::test]
async fn a_megabyte_is_outlined_in_bounded_time_and_a_call_nobody_waits_for_stops() {
    let dir = std::env::temp_dir().join(format!("lucid-outline-big-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let n = megabyte(&dir);
    let args = serde_json::json!({"path": "big.js"});
    let outline = CodeOutline::new(&dir).unwrap();
    let call = outline.invoke(args.clone(), Default::default());
    let out = tokio::time::timeout(std::time::Duration::from_secs(120), call).await.expect("bounded").unwrap();
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["symbols"].as_array().unwrap().len(), SYMBOL_CAP);
    assert_eq!((&v["symbols"][999]["name"], &v["symbols"][999]["doc"]), (&"f999".into(), &"f999".into()));
    assert_eq!(v["symbols_not_shown"], n - SYMBOL_CAP, "{n} functions");

    let source = std::fs::read_to_string(dir.join("big.js")).unwrap();
    let err = outline_until(Lang::JavaScript, &source, &AtomicBool::new(true)).err().unwrap();
    assert!(err.to_string().contains("stopped"), "{err}");

    let quick = CodeOutline::new(&dir).unwrap().timeout(std::time::Duration::ZERO);
    let err = quick.invoke(args.clone(), Default::default()).await.unwrap_err();
    assert!(err.to_string().contains("took longer than 0 s to outline and was stopped"), "{err}");
    assert!(none_running().await, "the outline past its time limit stopped");

    // Polled until its thread is at work, then dropped, as the tool's timeout does.
    let mut call = outline.invoke(args, Default::default());
    let mut started = false;
    for _ in 0..6000 {
        tokio::select! {
            done = &mut call => panic!("a megabyte outlined before its thread was seen: {done:?}"),
            _ = tokio::time::sleep(std::time::Duration::from_millis(1)) => {}
        }
        if RUNNING.load(Ordering::SeqCst) > 0 {
            started = true;
            break;
        }
    }
    assert!(started);
    drop(call);
    assert!(none_running().await, "the outline nobody waits for stopped");
    std::fs::remove_dir_all(dir).ok();
}
