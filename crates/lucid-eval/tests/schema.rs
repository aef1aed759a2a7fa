//! The dataset format's JSON Schema in `docs/eval-dataset.schema.json` is the one the code
//! reads with: regenerate it with `LUCID_WRITE_SCHEMA=1 cargo test -p lucid-eval --test schema`.

use std::path::PathBuf;

#[test]
fn the_documented_schema_is_the_one_the_code_reads_with() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/eval-dataset.schema.json");
    let now = serde_json::to_string_pretty(&lucid_eval::Dataset::json_schema()).unwrap() + "\n";
    if std::env::var("LUCID_WRITE_SCHEMA").is_ok_and(|v| v == "1") {
        std::fs::write(&path, &now).unwrap();
    }
    // Compared as JSON: the keys' order depends on serde_json's features in the build.
    let written: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap_or_default()).unwrap_or_default();
    assert_eq!(
        written,
        lucid_eval::Dataset::json_schema(),
        "docs/eval-dataset.schema.json is stale: regenerate it (see this file's doc)"
    );
}
