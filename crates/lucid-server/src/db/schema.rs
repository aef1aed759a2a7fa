//! The server's tables as each backend creates them, and what a database made by an
//! earlier version gets added (columns checked by name: `CREATE TABLE IF NOT EXISTS`
//! leaves an older table as it was).
//!
//! `serve_runs.input_parts` holds a run's input when it has attachments (the user message
//! as stored, each attachment by SHA-256; the bytes in the session store's blobs).

use rusqlite::Connection;

const SQLITE: &str = "
PRAGMA journal_mode = WAL;
PRAGMA synchronous = NORMAL;
CREATE TABLE IF NOT EXISTS serve_sessions (
    id TEXT PRIMARY KEY, tenant TEXT NOT NULL, agent TEXT NOT NULL, metadata TEXT NOT NULL,
    created_at INTEGER NOT NULL, bytes INTEGER NOT NULL DEFAULT 0);
DROP INDEX IF EXISTS serve_sessions_by_tenant;
CREATE INDEX IF NOT EXISTS serve_sessions_newest ON serve_sessions (tenant, created_at DESC, id DESC);
CREATE TABLE IF NOT EXISTS serve_runs (
    id TEXT PRIMARY KEY, tenant TEXT NOT NULL, session_id TEXT NOT NULL, status TEXT NOT NULL,
    result TEXT, error TEXT, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL,
    owner TEXT, lease_until INTEGER NOT NULL DEFAULT 0, generation INTEGER NOT NULL DEFAULT 0,
    cancel_requested INTEGER NOT NULL DEFAULT 0, input TEXT, bytes INTEGER NOT NULL DEFAULT 0,
    input_parts TEXT);
CREATE UNIQUE INDEX IF NOT EXISTS serve_runs_one_active ON serve_runs (session_id)
    WHERE status IN ('queued', 'running');
CREATE TABLE IF NOT EXISTS serve_keys (
    id TEXT PRIMARY KEY, tenant TEXT NOT NULL, hash TEXT NOT NULL UNIQUE, created_at INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS serve_responses (
    id TEXT PRIMARY KEY, tenant TEXT NOT NULL, bytes INTEGER NOT NULL, created_at INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS serve_responses_bytes ON serve_responses (tenant, bytes);
CREATE TABLE IF NOT EXISTS serve_events (
    run_id TEXT NOT NULL, seq INTEGER NOT NULL, kind TEXT NOT NULL, data TEXT NOT NULL,
    PRIMARY KEY (run_id, seq)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS serve_spend (
    tenant TEXT NOT NULL, day INTEGER NOT NULL, cost_nanos INTEGER NOT NULL, unpriced INTEGER NOT NULL,
    tokens INTEGER NOT NULL, model_calls INTEGER NOT NULL, PRIMARY KEY (tenant, day));
CREATE TABLE IF NOT EXISTS serve_spend_holds (
    id TEXT PRIMARY KEY, tenant TEXT NOT NULL, day INTEGER NOT NULL, cost_nanos INTEGER NOT NULL,
    tokens INTEGER NOT NULL, expires_at INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS serve_spend_holds_day ON serve_spend_holds (tenant, day);
";

/// Creates the SQLite tables, or brings older ones up to date.
pub fn sqlite(conn: &Connection) -> rusqlite::Result<()> {
    conn.execute_batch(SQLITE)?;
    add_lease_columns(conn)?;
    add_bytes_columns(conn)?;
    add_column(conn, "serve_runs", "input_parts", "TEXT")
}

/// Adds `column` to `table` when an older version made the table without it.
fn add_column(conn: &Connection, table: &str, column: &str, kind: &str) -> rusqlite::Result<()> {
    let has: bool = conn.query_row(
        &format!("SELECT COUNT(*) > 0 FROM pragma_table_info('{table}') WHERE name = '{column}'"),
        [],
        |r| r.get(0),
    )?;
    if !has {
        conn.execute_batch(&format!("ALTER TABLE {table} ADD COLUMN {column} {kind};"))?;
    }
    Ok(())
}

/// Adds the lease columns to a `serve_runs` table made before runs had owners.
fn add_lease_columns(conn: &Connection) -> rusqlite::Result<()> {
    let has_owner: bool =
        conn.query_row("SELECT COUNT(*) > 0 FROM pragma_table_info('serve_runs') WHERE name = 'owner'", [], |r| {
            r.get(0)
        })?;
    if !has_owner {
        conn.execute_batch(
            "ALTER TABLE serve_runs ADD COLUMN owner TEXT;
             ALTER TABLE serve_runs ADD COLUMN lease_until INTEGER NOT NULL DEFAULT 0;
             ALTER TABLE serve_runs ADD COLUMN generation INTEGER NOT NULL DEFAULT 0;
             ALTER TABLE serve_runs ADD COLUMN cancel_requested INTEGER NOT NULL DEFAULT 0;
             ALTER TABLE serve_runs ADD COLUMN input TEXT;",
        )?;
    }
    Ok(())
}

/// Adds the byte counts to tables made before the quotas counted bytes (their rows count
/// nothing), and the indexes that sum a tenant's without reading its rows.
fn add_bytes_columns(conn: &Connection) -> rusqlite::Result<()> {
    for table in ["serve_sessions", "serve_runs"] {
        add_column(conn, table, "bytes", "INTEGER NOT NULL DEFAULT 0")?;
    }
    conn.execute_batch(
        "CREATE INDEX IF NOT EXISTS serve_sessions_bytes ON serve_sessions (tenant, bytes);
         CREATE INDEX IF NOT EXISTS serve_runs_bytes ON serve_runs (tenant, bytes);",
    )
}

/// The PostgreSQL tables (`IF NOT EXISTS` throughout: older tables get their new columns).
#[cfg(feature = "postgres")]
pub const POSTGRES: &str = "
CREATE TABLE IF NOT EXISTS serve_sessions (
    id TEXT PRIMARY KEY, tenant TEXT NOT NULL, agent TEXT NOT NULL, metadata TEXT NOT NULL,
    created_at BIGINT NOT NULL);
DROP INDEX IF EXISTS serve_sessions_by_tenant;
CREATE INDEX IF NOT EXISTS serve_sessions_newest ON serve_sessions (tenant, created_at DESC, id DESC);
CREATE TABLE IF NOT EXISTS serve_runs (
    id TEXT PRIMARY KEY, tenant TEXT NOT NULL, session_id TEXT NOT NULL, status TEXT NOT NULL,
    result TEXT, error TEXT, created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL,
    owner TEXT, lease_until BIGINT NOT NULL DEFAULT 0, generation BIGINT NOT NULL DEFAULT 0,
    cancel_requested BOOLEAN NOT NULL DEFAULT FALSE, input TEXT);
ALTER TABLE serve_runs ADD COLUMN IF NOT EXISTS bytes BIGINT NOT NULL DEFAULT 0;
ALTER TABLE serve_runs ADD COLUMN IF NOT EXISTS input_parts TEXT;
ALTER TABLE serve_sessions ADD COLUMN IF NOT EXISTS bytes BIGINT NOT NULL DEFAULT 0;
CREATE INDEX IF NOT EXISTS serve_sessions_bytes ON serve_sessions (tenant, bytes);
CREATE INDEX IF NOT EXISTS serve_runs_bytes ON serve_runs (tenant, bytes);
CREATE UNIQUE INDEX IF NOT EXISTS serve_runs_one_active ON serve_runs (session_id)
    WHERE status IN ('queued', 'running');
CREATE INDEX IF NOT EXISTS serve_runs_running ON serve_runs (lease_until) WHERE status = 'running';
CREATE TABLE IF NOT EXISTS serve_keys (
    id TEXT PRIMARY KEY, tenant TEXT NOT NULL, hash TEXT NOT NULL UNIQUE, created_at BIGINT NOT NULL);
CREATE TABLE IF NOT EXISTS serve_responses (
    id TEXT PRIMARY KEY, tenant TEXT NOT NULL, bytes BIGINT NOT NULL, created_at BIGINT NOT NULL);
CREATE INDEX IF NOT EXISTS serve_responses_bytes ON serve_responses (tenant, bytes);
CREATE TABLE IF NOT EXISTS serve_events (
    run_id TEXT NOT NULL, seq BIGINT NOT NULL, kind TEXT NOT NULL, data TEXT NOT NULL,
    PRIMARY KEY (run_id, seq));
CREATE TABLE IF NOT EXISTS serve_spend (
    tenant TEXT NOT NULL, day BIGINT NOT NULL, cost_nanos BIGINT NOT NULL, unpriced BIGINT NOT NULL,
    tokens BIGINT NOT NULL, model_calls BIGINT NOT NULL, PRIMARY KEY (tenant, day));
CREATE TABLE IF NOT EXISTS serve_spend_holds (
    id TEXT PRIMARY KEY, tenant TEXT NOT NULL, day BIGINT NOT NULL, cost_nanos BIGINT NOT NULL,
    tokens BIGINT NOT NULL, expires_at BIGINT NOT NULL);
CREATE INDEX IF NOT EXISTS serve_spend_holds_day ON serve_spend_holds (tenant, day);
";

#[cfg(test)]
mod tests {
    use super::*;

    fn columns(conn: &Connection) -> Vec<String> {
        let mut stmt = conn.prepare("SELECT name FROM pragma_table_info('serve_runs')").unwrap();
        stmt.query_map([], |r| r.get(0)).unwrap().collect::<rusqlite::Result<_>>().unwrap()
    }

    #[test]
    fn a_runs_table_of_an_older_version_gets_the_columns_it_lacks() {
        let conn = Connection::open_in_memory().unwrap();
        // As the first version made it: no lease, no input, no bytes, no parts.
        conn.execute_batch(
            "CREATE TABLE serve_runs (id TEXT PRIMARY KEY, tenant TEXT NOT NULL, session_id TEXT NOT NULL,
             status TEXT NOT NULL, result TEXT, error TEXT, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL);
             INSERT INTO serve_runs VALUES ('run_old', 't', 's', 'completed', NULL, NULL, 1, 1);",
        )
        .unwrap();
        sqlite(&conn).unwrap();
        let cols = columns(&conn);
        for c in ["owner", "input", "bytes", "input_parts"] {
            assert!(cols.iter().any(|n| n == c), "{c} missing from {cols:?}");
        }
        sqlite(&conn).unwrap();
        assert_eq!(columns(&conn), cols, "opening again changes nothing");
        let parts: Option<String> =
            conn.query_row("SELECT input_parts FROM serve_runs WHERE id = 'run_old'", [], |r| r.get(0)).unwrap();
        assert_eq!(parts, None, "an older run's input is its text");
    }
}
