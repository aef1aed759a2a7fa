//! A run input's attachments in the session store's own blob tables (SQLite `blobs` and
//! `session_blobs`, PostgreSQL `lucid_blobs` and `lucid_session_blobs`, schema v2 of
//! `lucid`'s stores, in the same database as the server's tables): stored once by SHA-256
//! and referred to by the run's session, so the bytes a run was given and those of the
//! message its turn commits are one copy, deleted with the session's last reference.

use std::collections::HashMap;

use lucid::store::encoding::Blob;

use super::Result;

/// Keeps `blobs`, referred to by `session`, in the caller's transaction `tx` (the one that
/// stores the run they came with).
pub fn keep_sqlite(tx: &rusqlite::Transaction<'_>, session: &str, blobs: &[Blob]) -> Result<()> {
    for b in blobs {
        tx.execute(
            "INSERT OR IGNORE INTO blobs (sha256, media_type, data) VALUES (?1, ?2, ?3)",
            rusqlite::params![b.sha256, b.media_type, &b.data[..]],
        )?;
        tx.execute(
            "INSERT OR IGNORE INTO session_blobs (session_id, sha256) VALUES (?1, ?2)",
            rusqlite::params![session, b.sha256],
        )?;
    }
    Ok(())
}

/// Keeps `blobs`, referred to by the session of run `run`, in the caller's transaction.
pub fn keep_sqlite_for_run(tx: &rusqlite::Transaction<'_>, run: &str, blobs: &[Blob]) -> Result<()> {
    if blobs.is_empty() {
        return Ok(());
    }
    let session: String = tx.query_row("SELECT session_id FROM serve_runs WHERE id = ?1", [run], |r| r.get(0))?;
    keep_sqlite(tx, &session, blobs)
}

/// The stored bytes of `hashes`.
pub fn fetch_sqlite(c: &rusqlite::Connection, hashes: &[String]) -> Result<HashMap<String, Vec<u8>>> {
    let mut found = HashMap::new();
    let mut stmt = c.prepare_cached("SELECT data FROM blobs WHERE sha256 = ?1")?;
    for h in hashes {
        let mut rows = stmt.query([h])?;
        if let Some(r) = rows.next()? {
            found.insert(h.clone(), r.get(0)?);
        }
    }
    Ok(found)
}

/// Keeps `blobs`, referred to by `session`, in the caller's transaction `tx` (the one that
/// stores the run they came with), holding the store's blob lock shared for it (the
/// store's collection of unreferenced blobs takes it exclusive).
#[cfg(feature = "postgres")]
pub async fn keep_postgres(tx: &deadpool_postgres::Transaction<'_>, session: &str, blobs: &[Blob]) -> Result<()> {
    if blobs.is_empty() {
        return Ok(());
    }
    tx.execute("SELECT pg_advisory_xact_lock_shared($1)", &[&lucid::store::encoding::POSTGRES_BLOB_LOCK]).await?;
    for b in blobs {
        tx.execute(
            "INSERT INTO lucid_blobs (sha256, media_type, data) VALUES ($1, $2, $3) ON CONFLICT (sha256) DO NOTHING",
            &[&b.sha256, &b.media_type, &&b.data[..]],
        )
        .await?;
        tx.execute(
            "INSERT INTO lucid_session_blobs (session_id, sha256) VALUES ($1, $2) ON CONFLICT DO NOTHING",
            &[&session, &b.sha256],
        )
        .await?;
    }
    Ok(())
}

/// Keeps `blobs`, referred to by the session of run `run`, in the caller's transaction.
#[cfg(feature = "postgres")]
pub async fn keep_postgres_for_run(tx: &deadpool_postgres::Transaction<'_>, run: &str, blobs: &[Blob]) -> Result<()> {
    if blobs.is_empty() {
        return Ok(());
    }
    let session: String = tx.query_one("SELECT session_id FROM serve_runs WHERE id = $1", &[&run]).await?.get(0);
    keep_postgres(tx, &session, blobs).await
}

/// The stored bytes of `hashes`.
#[cfg(feature = "postgres")]
pub async fn fetch_postgres(c: &deadpool_postgres::Object, hashes: &[String]) -> Result<HashMap<String, Vec<u8>>> {
    let rows = c.query("SELECT sha256, data FROM lucid_blobs WHERE sha256 = ANY($1)", &[&hashes]).await?;
    Ok(rows.iter().map(|r| (r.get(0), r.get(1))).collect())
}
