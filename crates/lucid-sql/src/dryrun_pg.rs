//! The rehearsal of a Postgres migration: `up` then `down` in one transaction on the
//! real database that is always rolled back (Postgres' DDL is transactional, so this is
//! exact but for sequences, whose `nextval` a rollback does not undo), `REPEATABLE READ` so
//! other sessions' writes do not show as differences. It holds the locks `up` takes until
//! it rolls back, within a lock timeout and the database's statement time limit. Deferred
//! constraints are validated after `up` (`SET CONSTRAINTS ALL IMMEDIATE`).
//!
//! What it reads: the tables and views of the schemas the role may create in (the ones a
//! migration of its own can change), their constraints, triggers, views, defaults and
//! indexes, and each table's rows in summary (counts and a checksum of `hashtext` of each
//! row's text, summed).

use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};
use std::time::Duration;

use tokio_postgres::Client;

use super::SqlError;
use super::diff::migration;
use super::dryrun::first_line;
use super::guard::{self, Dialect};
use super::lint::{Checks, lint};
use super::postgres::{Postgres, db_error, list_tables};
use super::review::{Finding, Review, Severity, Snapshot, StatementEffect, TableData};
use super::review::{data_lost, differences, schema_changes};

/// Rehearses `up`, then `down` (or, without it, the DDL back to the schema before), in
/// a transaction of its own that is rolled back whatever happens.
pub(super) async fn rehearse(
    db: &Postgres,
    up: &str,
    down: Option<&str>,
    timeout: Duration,
) -> Result<Review, SqlError> {
    let up: Vec<String> =
        guard::statements(up, Dialect::Postgres, "the migration")?.into_iter().map(str::to_string).collect();
    let given_down: Option<Vec<String>> = match down {
        Some(d) => Some(
            guard::statements(d, Dialect::Postgres, "the migration's down")?.into_iter().map(str::to_string).collect(),
        ),
        None => None,
    };
    let client = db.writer().await?;
    let ms = timeout.as_millis().max(1);
    client
        .batch_execute(&format!(
            "BEGIN ISOLATION LEVEL REPEATABLE READ; SET LOCAL statement_timeout = {ms}; SET LOCAL lock_timeout = {}",
            ms.min(5_000)
        ))
        .await
        .map_err(db_error)?;
    let out = run(&client, &up, given_down).await;
    // Nothing of the rehearsal stays, whatever it did.
    let _ = client.batch_execute("ROLLBACK").await;
    out
}

async fn run(client: &Client, up: &[String], given_down: Option<Vec<String>>) -> Result<Review, SqlError> {
    let before = snapshot(client, true).await?;
    let mut statements = Vec::with_capacity(up.len());
    let mut last = before.clone();
    for (n, statement) in up.iter().enumerate() {
        let rows = client.execute(statement.as_str(), &[]).await.map_err(|e| {
            SqlError::Database(format!(
                "the migration failed in its rehearsal and was rolled back; the database was not changed: \
                 statement {} failed: {}",
                n + 1,
                db_error(e)
            ))
        })?;
        let now = snapshot(client, false).await?;
        statements.push(StatementEffect {
            sql: first_line(statement),
            rows_affected: rows,
            changes: schema_changes(&last, &now),
        });
        last = now;
    }
    let mut findings = Vec::new();
    if let Err(e) = client.batch_execute("SET CONSTRAINTS ALL IMMEDIATE").await {
        findings.push(Finding {
            rule: "constraint-validation".into(),
            severity: Severity::Error,
            why: format!("after up, the deferred constraints do not hold: {}", db_error(e)),
        });
        return Ok(Review { statements, findings, ..Default::default() });
    }
    let after = snapshot(client, true).await?;
    findings.extend(lint(Dialect::Postgres, up, &before, &after, &Checks::default()));
    let down = given_down.unwrap_or_else(|| migration(&after.tables, &before.tables));
    let mut not_restored = Vec::new();
    for (n, statement) in down.iter().enumerate() {
        if let Err(e) = client.execute(statement.as_str(), &[]).await {
            not_restored.push(format!("down fails after up: its statement {} failed: {}", n + 1, db_error(e)));
            break;
        }
    }
    if not_restored.is_empty() {
        not_restored = differences(&before, &snapshot(client, true).await?);
    }
    Ok(Review {
        statements,
        changes: schema_changes(&before, &after),
        lost: data_lost(&before, &after),
        findings,
        not_restored,
        down: down.join(";\n"),
    })
}

/// The schemas a migration of this role may change: those it may create in.
const MINE: &str = "has_schema_privilege(n.oid, 'CREATE') AND n.nspname NOT IN ('pg_catalog', 'information_schema') \
                    AND n.nspname NOT LIKE 'pg\\_%'";

/// The schema of the role's schemas, and with `rows` each table's rows in summary.
async fn snapshot(client: &Client, rows: bool) -> Result<Snapshot, SqlError> {
    let mine: Vec<(String, u32, String, bool)> = client
        .query(
            &format!(
                "SELECT CASE WHEN n.nspname = 'public' THEN c.relname::text ELSE n.nspname || '.' || c.relname END, \
                 c.oid, c.oid::regclass::text, c.relkind IN ('r', 'p') AND has_table_privilege(c.oid, 'SELECT') \
                 FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace \
                 WHERE c.relkind IN ('r', 'p', 'v', 'm') AND {MINE}"
            ),
            &[],
        )
        .await
        .map_err(db_error)?
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2), r.get(3)))
        .collect();
    let tables: Vec<_> = list_tables(client, None)
        .await?
        .into_iter()
        .filter(|t| mine.iter().any(|(name, ..)| *name == t.name))
        .collect();
    let mut objects = BTreeMap::new();
    for r in client.query(&objects_sql(), &[]).await.map_err(db_error)? {
        let (name, definition): (String, Option<String>) = (r.get(0), r.get(1));
        objects.insert(name, definition.unwrap_or_default());
    }
    let mut data = BTreeMap::new();
    if rows {
        for (name, _, regclass, readable) in &mine {
            let Some(t) = tables.iter().find(|t| t.name == *name) else { continue };
            if !*readable {
                continue;
            }
            let counts: String =
                t.columns.iter().map(|c| format!(", count({})", guard::ident(&c.name))).collect::<Vec<_>>().join("");
            let row = client
                .query_one(
                    &format!("SELECT count(*){counts}, coalesce(sum(hashtext(x::text)::bigint), 0)::text FROM {regclass} AS x"),
                    &[],
                )
                .await
                .map_err(db_error)?;
            let mut d = TableData { rows: row.get::<_, i64>(0).max(0) as u64, ..Default::default() };
            for (i, c) in t.columns.iter().enumerate() {
                d.filled.insert(c.name.clone(), row.get::<_, i64>(i + 1).max(0) as u64);
            }
            let mut h = std::collections::hash_map::DefaultHasher::new();
            row.get::<_, String>(t.columns.len() + 1).hash(&mut h);
            d.checksum = h.finish();
            data.insert(name.clone(), d);
        }
    }
    Ok(Snapshot { tables, objects, data })
}

/// Constraints, triggers, views, defaults and indexes of the role's schemas, each by a
/// name a person reads and its definition as the server prints it.
fn objects_sql() -> String {
    format!(
        "SELECT 'constraint ' || c.conname || ' on ' || c.conrelid::regclass::text, pg_get_constraintdef(c.oid) \
         FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace WHERE c.conrelid <> 0 AND {MINE} \
         UNION ALL \
         SELECT 'trigger ' || t.tgname || ' on ' || t.tgrelid::regclass::text, pg_get_triggerdef(t.oid) \
         FROM pg_trigger t JOIN pg_class r ON r.oid = t.tgrelid JOIN pg_namespace n ON n.oid = r.relnamespace \
         WHERE NOT t.tgisinternal AND {MINE} \
         UNION ALL \
         SELECT 'view ' || r.oid::regclass::text, pg_get_viewdef(r.oid) \
         FROM pg_class r JOIN pg_namespace n ON n.oid = r.relnamespace WHERE r.relkind IN ('v', 'm') AND {MINE} \
         UNION ALL \
         SELECT 'default of column ' || a.attname || ' of ' || a.attrelid::regclass::text, pg_get_expr(d.adbin, d.adrelid) \
         FROM pg_attrdef d JOIN pg_attribute a ON a.attrelid = d.adrelid AND a.attnum = d.adnum \
         JOIN pg_class r ON r.oid = d.adrelid JOIN pg_namespace n ON n.oid = r.relnamespace WHERE {MINE} \
         UNION ALL \
         SELECT 'index ' || i.indexrelid::regclass::text || ' on ' || i.indrelid::regclass::text, \
         pg_get_indexdef(i.indexrelid) \
         FROM pg_index i JOIN pg_class r ON r.oid = i.indrelid JOIN pg_namespace n ON n.oid = r.relnamespace \
         WHERE {MINE}"
    )
}
