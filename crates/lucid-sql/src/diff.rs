//! What changed between two schemas (tables, columns, keys, indexes added, dropped,
//! changed), and the DDL that turns one into the other.

use serde_json::{Value, json};

use super::guard::{ident, is_fragment, leading_name};
use super::table::{ColumnSchema, TableSchema};

/// The differences from `old` to `new`, as JSON: `tables_added`, `tables_dropped`, and per
/// changed table its `columns_added`, `columns_dropped`, `columns_changed` (before and
/// after: type, null, key) and `indexes_added`, `indexes_dropped`.
pub(super) fn diff(old: &[TableSchema], new: &[TableSchema]) -> Value {
    let find = |list: &[TableSchema], name: &str| list.iter().find(|t| t.name == name).cloned();
    let added: Vec<&str> = new.iter().filter(|t| find(old, &t.name).is_none()).map(|t| t.name.as_str()).collect();
    let dropped: Vec<&str> = old.iter().filter(|t| find(new, &t.name).is_none()).map(|t| t.name.as_str()).collect();
    let mut changed = Vec::new();
    for t in new {
        let Some(before) = find(old, &t.name) else { continue };
        if before == *t {
            continue;
        }
        let col = |list: &[ColumnSchema], name: &str| list.iter().find(|c| c.name == name).cloned();
        let columns_added: Vec<&str> =
            t.columns.iter().filter(|c| col(&before.columns, &c.name).is_none()).map(|c| c.name.as_str()).collect();
        let columns_dropped: Vec<&str> =
            before.columns.iter().filter(|c| col(&t.columns, &c.name).is_none()).map(|c| c.name.as_str()).collect();
        let columns_changed: Vec<Value> = t
            .columns
            .iter()
            .filter_map(|c| {
                let b = col(&before.columns, &c.name)?;
                (b != *c).then(|| json!({"column": c.name, "before": b, "after": c}))
            })
            .collect();
        let indexes_added: Vec<&String> = t.indexes.iter().filter(|i| !before.indexes.contains(i)).collect();
        let indexes_dropped: Vec<&String> = before.indexes.iter().filter(|i| !t.indexes.contains(i)).collect();
        changed.push(json!({
            "table": t.name,
            "columns_added": columns_added,
            "columns_dropped": columns_dropped,
            "columns_changed": columns_changed,
            "indexes_added": indexes_added,
            "indexes_dropped": indexes_dropped,
        }));
    }
    json!({"tables_added": added, "tables_dropped": dropped, "tables_changed": changed})
}

/// An index as the schema lists it (`name [unique] [method] (columns)`, names written as
/// SQL): the parts of its name, whether it is unique, and what follows (`(columns)`, or
/// Postgres' `btree (columns)`); `None` for the indexes a key makes by itself, and for a
/// listing that does not read as one.
fn index_parts(index: &str) -> Option<(Vec<String>, bool, &str)> {
    let (name, rest) = leading_name(index)?;
    let last = name.last()?;
    if last.starts_with("sqlite_autoindex_") || last.ends_with("_pkey") {
        return None;
    }
    let rest = rest.trim_start();
    let (unique, on) = match rest.split_once(char::is_whitespace) {
        Some(("unique", on)) => (true, on.trim()),
        _ => (false, rest.trim()),
    };
    Some((name, unique, on))
}

/// A table's name as SQL: quoted, and its Postgres schema quoted apart.
fn table_sql(t: &TableSchema) -> String {
    match &t.schema {
        Some(schema) => {
            let name = t.name.strip_prefix(schema.as_str()).and_then(|n| n.strip_prefix('.')).unwrap_or(&t.name);
            format!("{}.{}", ident(schema), ident(name))
        }
        None => ident(&t.name),
    }
}

/// A column's definition. Its type and the key it refers to are SQL read from the
/// database; one that is not a single fragment (a type of `x); DROP …`) is quoted as a
/// name, or (a key) left out, so nothing of it can end the statement.
fn column_ddl(c: &ColumnSchema) -> String {
    let ty = if is_fragment(&c.ty) { c.ty.clone() } else { ident(&c.ty) };
    let mut s = format!("{} {ty}", ident(&c.name));
    if c.not_null {
        s.push_str(" NOT NULL");
    }
    if let Some(r) = c.references.as_deref().filter(|r| is_fragment(r)) {
        s.push_str(&format!(" REFERENCES {r}"));
    }
    s.trim_end().to_string()
}

/// `CREATE TABLE` and `CREATE INDEX` of one table.
pub(super) fn create_ddl(t: &TableSchema) -> Vec<String> {
    let mut parts: Vec<String> = t.columns.iter().map(column_ddl).collect();
    let keys: Vec<String> = t.columns.iter().filter(|c| c.primary_key).map(|c| ident(&c.name)).collect();
    if !keys.is_empty() {
        parts.push(format!("PRIMARY KEY ({})", keys.join(", ")));
    }
    let mut out = vec![format!("CREATE TABLE {} ({})", table_sql(t), parts.join(", "))];
    out.extend(t.indexes.iter().filter_map(|i| create_index(t, i)));
    out
}

fn create_index(table: &TableSchema, index: &str) -> Option<String> {
    let (name, unique, on) = index_parts(index)?;
    if !is_fragment(on) || on.is_empty() || on.ends_with("()") {
        return None;
    }
    // An index is made in its table's schema: its name takes none.
    let name = ident(name.last()?);
    let using = if on.starts_with('(') { on.to_string() } else { format!("USING {on}") };
    Some(format!("CREATE {}INDEX {name} ON {} {using}", if unique { "UNIQUE " } else { "" }, table_sql(table)))
}

/// The statements that turn the schema `from` into `to`: tables created and dropped,
/// columns added and dropped, indexes created and dropped. A column whose type or key
/// changed is dropped and added again (its data is not kept: say so to the user). Every
/// name in them is quoted.
pub(super) fn migration(from: &[TableSchema], to: &[TableSchema]) -> Vec<String> {
    let mut out = Vec::new();
    for t in to.iter().filter(|t| t.kind == "table") {
        let Some(before) = from.iter().find(|b| b.name == t.name) else {
            out.extend(create_ddl(t));
            continue;
        };
        let table = table_sql(t);
        for i in before.indexes.iter().filter(|i| !t.indexes.contains(i)) {
            if let Some((name, ..)) = index_parts(i) {
                out.push(format!("DROP INDEX {}", name.iter().map(|p| ident(p)).collect::<Vec<_>>().join(".")));
            }
        }
        for c in &before.columns {
            if t.columns.iter().find(|n| n.name == c.name) != Some(c) {
                out.push(format!("ALTER TABLE {table} DROP COLUMN {}", ident(&c.name)));
            }
        }
        for c in &t.columns {
            if before.columns.iter().find(|b| b.name == c.name) != Some(c) {
                out.push(format!("ALTER TABLE {table} ADD COLUMN {}", column_ddl(c)));
            }
        }
        out.extend(t.indexes.iter().filter(|i| !before.indexes.contains(i)).filter_map(|i| create_index(t, i)));
    }
    for t in from.iter().filter(|t| t.kind == "table" && !to.iter().any(|n| n.name == t.name)) {
        out.push(format!("DROP TABLE {}", table_sql(t)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn column(name: &str, ty: &str) -> ColumnSchema {
        ColumnSchema { name: name.into(), ty: ty.into(), ..Default::default() }
    }

    #[test]
    fn a_diff_names_what_was_added_dropped_and_changed_and_the_migration_does_it() {
        let city = TableSchema {
            name: "city".into(),
            kind: "table".into(),
            columns: vec![ColumnSchema { primary_key: true, ..column("id", "INTEGER") }, column("name", "TEXT")],
            indexes: vec!["sqlite_autoindex_city_1 unique (id)".into()],
            schema: None,
        };
        let mut city2 = city.clone();
        city2.columns[1].not_null = true;
        city2.columns.push(column("people", "INTEGER"));
        city2.indexes.push("city_name unique (name)".into());
        let country = TableSchema {
            name: "country".into(),
            kind: "table".into(),
            columns: vec![column("code", "TEXT")],
            indexes: vec![],
            schema: None,
        };
        let d = diff(&[city.clone(), country.clone()], &[city2.clone()]);
        assert_eq!(d["tables_dropped"], json!(["country"]));
        assert_eq!(d["tables_added"], json!([]));
        let c = &d["tables_changed"][0];
        assert_eq!((c["columns_added"].clone(), c["columns_dropped"].clone()), (json!(["people"]), json!([])));
        assert_eq!(c["columns_changed"][0]["column"], "name");
        assert_eq!(c["indexes_added"], json!(["city_name unique (name)"]));
        assert_eq!(
            migration(&[city.clone(), country.clone()], &[city2.clone()]),
            [
                r#"ALTER TABLE "city" DROP COLUMN "name""#,
                r#"ALTER TABLE "city" ADD COLUMN "name" TEXT NOT NULL"#,
                r#"ALTER TABLE "city" ADD COLUMN "people" INTEGER"#,
                r#"CREATE UNIQUE INDEX "city_name" ON "city" (name)"#,
                r#"DROP TABLE "country""#,
            ]
        );
        assert_eq!(
            migration(&[city2], &[city, country]),
            [
                r#"DROP INDEX "city_name""#,
                r#"ALTER TABLE "city" DROP COLUMN "name""#,
                r#"ALTER TABLE "city" DROP COLUMN "people""#,
                r#"ALTER TABLE "city" ADD COLUMN "name" TEXT"#,
                r#"CREATE TABLE "country" ("code" TEXT)"#,
            ]
        );
    }
}
