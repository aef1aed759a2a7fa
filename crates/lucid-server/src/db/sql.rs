//! Every statement of the server's tables, SQLite's and PostgreSQL's side by side: one
//! text where they agree (`$N` placeholders), two where they do not (PostgreSQL's casts,
//! booleans and arrays, `FOR UPDATE SKIP LOCKED`; SQLite's integers for flags).

use super::query::Sql::{self, Both, Each};

pub const PING: Sql = Both("SELECT 1");

pub const INSERT_SESSION: Sql =
    Both("INSERT INTO serve_sessions (id, tenant, agent, metadata, created_at, bytes) VALUES ($1, $2, $3, $4, $5, $6)");

pub const SESSION: Sql =
    Both("SELECT id, agent, metadata, created_at FROM serve_sessions WHERE tenant = $1 AND id = $2");

pub const SESSIONS: Sql = Both(
    "SELECT id, agent, metadata, created_at FROM serve_sessions WHERE tenant = $1 \
     ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3",
);

/// [`SESSIONS`] without reading the metadata.
pub const SESSIONS_BARE: Sql = Both(
    "SELECT id, agent, 'null', created_at FROM serve_sessions WHERE tenant = $1 \
     ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3",
);

pub const USAGE: Sql = Each {
    sqlite: "SELECT (SELECT COUNT(*) FROM serve_sessions WHERE tenant = ?1), \
             (SELECT COALESCE(SUM(bytes), 0) FROM serve_sessions WHERE tenant = ?1) \
             + (SELECT COALESCE(SUM(bytes), 0) FROM serve_runs WHERE tenant = ?1) \
             + (SELECT COALESCE(SUM(bytes), 0) FROM serve_responses WHERE tenant = ?1)",
    postgres: "SELECT (SELECT COUNT(*) FROM serve_sessions WHERE tenant = $1)::BIGINT, \
               ((SELECT COALESCE(SUM(bytes), 0) FROM serve_sessions WHERE tenant = $1) \
               + (SELECT COALESCE(SUM(bytes), 0) FROM serve_runs WHERE tenant = $1) \
               + (SELECT COALESCE(SUM(bytes), 0) FROM serve_responses WHERE tenant = $1))::BIGINT",
};

pub const INSERT_RESPONSE: Sql =
    Both("INSERT INTO serve_responses (id, tenant, bytes, created_at) VALUES ($1, $2, $3, $4)");

pub const DELETE_RESPONSE: Sql = Both("DELETE FROM serve_responses WHERE tenant = $1 AND id = $2");

/// Deletes the session unless a run of it is active, in the same statement.
pub const DELETE_SESSION: Sql = Both(
    "DELETE FROM serve_sessions WHERE tenant = $1 AND id = $2 AND NOT EXISTS \
     (SELECT 1 FROM serve_runs WHERE session_id = $2 AND status IN ('queued', 'running'))",
);

pub const DELETE_SESSION_EVENTS: Sql =
    Both("DELETE FROM serve_events WHERE run_id IN (SELECT id FROM serve_runs WHERE session_id = $1)");

pub const DELETE_SESSION_RUNS: Sql = Both("DELETE FROM serve_runs WHERE session_id = $1");

pub const SESSION_EXISTS: Sql = Both("SELECT 1 FROM serve_sessions WHERE tenant = $1 AND id = $2");

/// Refused by the partial unique index `serve_runs_one_active` when the session has an
/// active run.
pub const INSERT_RUN: Sql = Both(
    "INSERT INTO serve_runs (id, tenant, session_id, status, created_at, updated_at, owner, lease_until, \
     input, bytes, input_parts) VALUES ($1, $2, $3, $4, $5, $5, $6, $7, $8, $9, $10)",
);

pub const MOVE_RUN: Sql = Both("UPDATE serve_runs SET status = $1, updated_at = $2 WHERE id = $3 AND status = $4");

pub const CONTINUE_RUN: Sql = Each {
    sqlite: "UPDATE serve_runs SET status = 'running', owner = ?1, lease_until = ?2, cancel_requested = 0, \
             updated_at = ?3, input = COALESCE(?5, input), bytes = bytes + ?6, \
             input_parts = CASE WHEN ?5 IS NULL THEN input_parts ELSE ?8 END WHERE id = ?4 AND status = ?7",
    postgres: "UPDATE serve_runs SET status = 'running', owner = $1, lease_until = $2, cancel_requested = FALSE, \
               updated_at = $3, input = COALESCE($5, input), bytes = bytes + $6, \
               input_parts = CASE WHEN $5::TEXT IS NULL THEN input_parts ELSE $8 END WHERE id = $4 AND status = $7",
};

pub const WAITING: Sql = Both(
    "SELECT r.id, r.tenant, r.session_id, s.agent FROM serve_runs r JOIN serve_sessions s \
     ON s.id = r.session_id WHERE r.status = 'needs_approval' AND r.updated_at <= $1 \
     ORDER BY r.updated_at LIMIT $2",
);

/// Fenced: only the run's owner ends it.
pub const FINISH_RUN: Sql = Both(
    "UPDATE serve_runs SET status = $1, result = $2, error = $3, updated_at = $4, owner = NULL, \
     lease_until = 0, bytes = bytes + $7 WHERE id = $5 AND owner = $6 AND status = 'running'",
);

/// Fenced; on PostgreSQL it locks the run's row: a claim waits for the events, and skips
/// the run meanwhile.
pub const APPEND_EVENTS: Sql =
    Both("UPDATE serve_runs SET bytes = bytes + $3 WHERE id = $1 AND owner = $2 AND status = 'running'");

/// One event (SQLite, once per event).
pub const INSERT_EVENT: Sql = Both("INSERT INTO serve_events (run_id, seq, kind, data) VALUES ($1, $2, $3, $4)");

/// All the events at once (PostgreSQL, from arrays).
pub const INSERT_EVENTS: Sql = Both(
    "INSERT INTO serve_events (run_id, seq, kind, data) \
     SELECT $1, * FROM UNNEST($2::BIGINT[], $3::TEXT[], $4::TEXT[])",
);

pub const RENEW: Sql = Both(
    "UPDATE serve_runs SET lease_until = $1 WHERE owner = $2 AND status = 'running' RETURNING id, cancel_requested",
);

/// One run (SQLite, once per run) or an array of them (PostgreSQL).
pub const RELEASE: Sql = Each {
    sqlite: "UPDATE serve_runs SET owner = NULL, lease_until = 0 WHERE id = ?1 AND owner = ?2 \
             AND status = 'running'",
    postgres: "UPDATE serve_runs SET owner = NULL, lease_until = 0 WHERE id = ANY($1) AND owner = $2 \
               AND status = 'running'",
};

pub const OTHER_OWNERS: Sql = Both(
    "SELECT DISTINCT owner FROM serve_runs WHERE status = 'running' AND owner IS NOT NULL \
     AND owner <> $1 AND lease_until >= $2",
);

/// The running runs of other owners (SQLite, in an `IMMEDIATE` transaction: the caller
/// picks the free ones); the columns of [`CLAIM`] and then the owner and the lease.
pub const CLAIM_CANDIDATES: Sql = Both(
    "SELECT r.id, r.tenant, r.session_id, s.agent, r.generation + 1, r.cancel_requested, r.input, \
     r.input_parts, r.owner, r.lease_until FROM serve_runs r JOIN serve_sessions s ON s.id = r.session_id \
     WHERE r.status = 'running' AND (r.owner IS NULL OR r.owner <> $1) ORDER BY r.lease_until",
);

/// Takes one run picked from [`CLAIM_CANDIDATES`] (SQLite).
pub const CLAIM_ONE: Sql = Both("UPDATE serve_runs SET owner = $1, lease_until = $2, generation = $3 WHERE id = $4");

/// Takes the free runs in one statement (PostgreSQL): rows another instance holds locked
/// are skipped, so two instances never claim the same run.
pub const CLAIM: Sql = Both(
    "WITH free AS (
         SELECT id FROM serve_runs
         WHERE status = 'running' AND (owner IS NULL OR owner <> $1)
           AND (lease_until < $3 OR owner IS NULL OR owner = ANY($4))
         ORDER BY lease_until LIMIT $5
         FOR UPDATE SKIP LOCKED)
     UPDATE serve_runs r SET owner = $1, lease_until = $2, generation = r.generation + 1
     FROM free, serve_sessions s
     WHERE r.id = free.id AND s.id = r.session_id
     RETURNING r.id, r.tenant, r.session_id, s.agent, r.generation, r.cancel_requested, r.input, r.input_parts",
);

pub const INSERT_KEY: Sql = Both("INSERT INTO serve_keys (id, tenant, hash, created_at) VALUES ($1, $2, $3, $4)");

pub const KEYS: Sql = Both("SELECT id, tenant, created_at FROM serve_keys ORDER BY created_at, id");

pub const REVOKE_KEY: Sql = Both("DELETE FROM serve_keys WHERE id = $1");

pub const KEY_TENANT: Sql = Both("SELECT tenant FROM serve_keys WHERE hash = $1");

pub const REQUEST_CANCEL: Sql = Each {
    sqlite: "UPDATE serve_runs SET cancel_requested = 1 WHERE id = ?1 AND status = 'running'",
    postgres: "UPDATE serve_runs SET cancel_requested = TRUE WHERE id = $1 AND status = 'running'",
};

pub const RUN: Sql = Both(
    "SELECT id, session_id, status, result, error, created_at, updated_at, input, input_parts \
     FROM serve_runs WHERE tenant = $1 AND id = $2",
);

pub const RUN_STATUS: Sql = Both("SELECT status FROM serve_runs WHERE id = $1");

pub const EVENTS_AFTER: Sql =
    Both("SELECT seq, kind, data FROM serve_events WHERE run_id = $1 AND seq > $2 ORDER BY seq");

pub const LAST_EVENT: Sql = Both("SELECT COALESCE(MAX(seq), 0) FROM serve_events WHERE run_id = $1");

pub const RUN_SESSION: Sql = Both("SELECT session_id FROM serve_runs WHERE id = $1");

/// Shared on PostgreSQL while a transaction keeps blobs; the session store's collection
/// of unreferenced blobs takes it exclusive.
pub const BLOB_LOCK: Sql = Both("SELECT pg_advisory_xact_lock_shared($1)");

pub const KEEP_BLOB: Sql = Each {
    sqlite: "INSERT OR IGNORE INTO blobs (sha256, media_type, data) VALUES (?1, ?2, ?3)",
    postgres: "INSERT INTO lucid_blobs (sha256, media_type, data) VALUES ($1, $2, $3) \
               ON CONFLICT (sha256) DO NOTHING",
};

pub const KEEP_SESSION_BLOB: Sql = Each {
    sqlite: "INSERT OR IGNORE INTO session_blobs (session_id, sha256) VALUES (?1, ?2)",
    postgres: "INSERT INTO lucid_session_blobs (session_id, sha256) VALUES ($1, $2) ON CONFLICT DO NOTHING",
};

/// One blob (SQLite, once per hash) or an array of them (PostgreSQL).
pub const BLOBS: Sql = Each {
    sqlite: "SELECT sha256, data FROM blobs WHERE sha256 = ?1",
    postgres: "SELECT sha256, data FROM lucid_blobs WHERE sha256 = ANY($1)",
};
