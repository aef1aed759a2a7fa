//! The seed's `operation` and `currentSchema`: what a `--input` request's `context` says
//! about the database work it asks for.
//!
//! ```json
//! {"text": "Add a table of refunds.",
//!  "context": {"operation": "schema_modification", "currentSchema": "CREATE TABLE orders (…);"}}
//! ```
//!
//! `operation` decides the tools the request is offered and how it is planned, always
//! within the run's own tools (a request never adds one that writes):
//!
//! | operation | tools | planning |
//! |---|---|---|
//! | `query` | those that only read: `sql_schema`, `sql_query` (read-only), … — no `sql_migrate`, no `schema_history`, no tool that writes | answered at once |
//! | `schema_modification` | all of the run's: `schema_history` and `sql_migrate` included | answered at once |
//! | `schema_design` | all but `sql_migrate` (a design is proposed and saved, not applied), plus `checklist` | the model keeps a checklist of the design's parts |
//! | `general` | the run's | as configured |
//!
//! `currentSchema` (DDL as a string, or a JSON description) is shown to the model in a
//! block of its own before the request, instead of inside the context's JSON.

use serde_json::Value;

/// The seed's operations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Operation {
    /// Design a schema: propose DDL, save versions, keep a checklist.
    SchemaDesign,
    /// Change the schema: propose, save and apply a migration.
    SchemaModification,
    /// Answer from the data: read-only.
    Query,
    /// Anything else: the run as configured.
    General,
}

/// What a bad `operation` is told (the request names the field).
pub const OPERATION_MUST: &str = "must be one of schema_design, schema_modification, query, general";
/// What a bad `currentSchema` is told.
pub const SCHEMA_MUST: &str = "must be the schema as DDL (a non-empty string) or as a JSON object or array";

impl Operation {
    /// Reads a request's `context.operation` (`None`: not an operation, see
    /// [`OPERATION_MUST`]).
    pub fn read(value: &Value) -> Option<Operation> {
        match value.as_str()? {
            "schema_design" => Some(Operation::SchemaDesign),
            "schema_modification" => Some(Operation::SchemaModification),
            "query" => Some(Operation::Query),
            "general" => Some(Operation::General),
            _ => None,
        }
    }

    /// Its name on the wire.
    pub fn name(self) -> &'static str {
        match self {
            Operation::SchemaDesign => "schema_design",
            Operation::SchemaModification => "schema_modification",
            Operation::Query => "query",
            Operation::General => "general",
        }
    }

    /// Whether a tool the run has is offered to this operation.
    pub fn keeps(self, tool: &str) -> bool {
        match self {
            Operation::General | Operation::SchemaModification => true,
            Operation::SchemaDesign => tool != "sql_migrate",
            Operation::Query => tool != "schema_history" && !crate::catalogue::find(tool).is_some_and(|t| t.writes),
        }
    }

    /// Whether the model gets the `checklist` tool (the seed's "complex requests as a
    /// checklist").
    pub fn checklist(self) -> bool {
        self == Operation::SchemaDesign
    }

    /// Whether the configuration's `plan` still applies (otherwise the request is answered
    /// at once, the design through its checklist).
    pub fn uses_configured_plan(self) -> bool {
        self == Operation::General
    }

    /// What the model is told about the operation, before the request's text.
    pub fn guidance(self) -> Option<&'static str> {
        match self {
            Operation::SchemaDesign => Some(
                "Operation: schema_design. Open a checklist of the design's parts with the `checklist` tool \
                 and tick each part as it is done; read the current schema, propose the schema as DDL with \
                 its reasons, and save it with `schema_history` when that tool is available. Do not apply it.",
            ),
            Operation::SchemaModification => Some(
                "Operation: schema_modification. Compare with the current schema, save the proposed version \
                 with `schema_history` and apply the change with `sql_migrate` (in one transaction, with the \
                 data moves it needs) when those tools are available.",
            ),
            Operation::Query => Some(
                "Operation: query. Answer from the database with read-only queries (`sql_schema`, \
                 `sql_query`); change nothing.",
            ),
            Operation::General => None,
        }
    }
}

/// Reads a request's `context.currentSchema`: DDL text or a JSON description (`None`:
/// neither, see [`SCHEMA_MUST`]).
pub fn read_schema(value: Value) -> Option<Value> {
    match value {
        Value::String(s) if !s.trim().is_empty() => Some(Value::String(s)),
        v @ (Value::Object(_) | Value::Array(_)) => Some(v),
        _ => None,
    }
}

/// The `<current_schema>` block: DDL as it is, a JSON description pretty-printed. `</`
/// inside it becomes `<\/` so nothing in it closes the block.
pub fn schema_block(schema: &Value) -> String {
    let body = match schema {
        Value::String(s) => s.trim().to_string(),
        other => serde_json::to_string_pretty(other).unwrap_or_default(),
    };
    format!("<current_schema>\n{}\n</current_schema>", body.replace("</", "<\\/"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn each_operation_offers_its_tools() {
        let run = ["sql_schema", "sql_query", "schema_history", "sql_migrate", "ask_user", "write_file", "checklist"];
        let kept = |op: Operation| run.iter().copied().filter(|t| op.keeps(t)).collect::<Vec<_>>();
        assert_eq!(kept(Operation::Query), ["sql_schema", "sql_query", "ask_user", "checklist"]);
        assert_eq!(
            kept(Operation::SchemaDesign),
            ["sql_schema", "sql_query", "schema_history", "ask_user", "write_file", "checklist"]
        );
        assert_eq!(kept(Operation::SchemaModification), run);
        assert_eq!(kept(Operation::General), run);
        assert!(Operation::SchemaDesign.checklist() && !Operation::Query.checklist());
    }

    #[test]
    fn operations_and_schemas_are_checked_and_the_schema_block_cannot_be_closed_from_inside() {
        for op in [Operation::SchemaDesign, Operation::SchemaModification, Operation::Query, Operation::General] {
            assert_eq!(Operation::read(&json!(op.name())), Some(op));
        }
        assert_eq!(Operation::read(&json!("drop_everything")), None);
        assert_eq!(Operation::read(&json!(3)), None);
        assert_eq!(read_schema(json!(" ")), None);
        assert_eq!(read_schema(json!(true)), None);
        let ddl = read_schema(json!("CREATE TABLE t (note TEXT DEFAULT '</current_schema>');")).unwrap();
        let block = schema_block(&ddl);
        assert_eq!(block.matches("</").count(), 1, "{block}");
        let described = schema_block(&read_schema(json!({"tables": ["t"]})).unwrap());
        assert!(described.contains("\"tables\""), "{described}");
    }
}
