//! A run input's attachments in the session store's own blob tables (SQLite `blobs` and
//! `session_blobs`, PostgreSQL `lucid_blobs` and `lucid_session_blobs`, schema v2 of
//! `lucid`'s stores, in the same database as the server's tables): stored once by SHA-256
//! and referred to by the run's session, so the bytes a run was given and those of the
//! message its turn commits are one copy, deleted with the session's last reference.

use std::collections::HashMap;

use lucid::store::encoding::Blob;

use super::query::{Conn, Dialect, RowFn, args, first};
use super::{DbError, Result, sql};

/// Keeps `blobs`, referred to by `session`, in the caller's transaction (the one that
/// stores the run they came with); on PostgreSQL holding the store's blob lock shared
/// for it (the store's collection of unreferenced blobs takes it exclusive).
pub async fn keep<C: Conn>(c: &mut C, session: &str, blobs: &[Blob]) -> Result<()> {
    if blobs.is_empty() {
        return Ok(());
    }
    if C::DIALECT == Dialect::Postgres {
        c.execute(&sql::BLOB_LOCK, args![lucid::store::encoding::POSTGRES_BLOB_LOCK]).await?;
    }
    for b in blobs {
        c.execute(&sql::KEEP_BLOB, args![&b.sha256, &b.media_type, &b.data[..]]).await?;
        c.execute(&sql::KEEP_SESSION_BLOB, args![session, &b.sha256]).await?;
    }
    Ok(())
}

/// Keeps `blobs`, referred to by the session of run `run`, in the caller's transaction.
pub async fn keep_for_run<C: Conn>(c: &mut C, run: &str, blobs: &[Blob]) -> Result<()> {
    if blobs.is_empty() {
        return Ok(());
    }
    let session = first(c, &sql::RUN_SESSION, args![run], |r| r.text(0)).await?;
    keep(c, &session.ok_or_else(|| DbError::Vanished(run.to_string()))?, blobs).await
}

/// The stored bytes of `hashes` (those found): one query a hash on SQLite, one for all
/// on PostgreSQL.
pub async fn fetch<C: Conn>(c: &mut C, hashes: &[String]) -> Result<HashMap<String, Vec<u8>>> {
    let blob: RowFn<(String, Vec<u8>)> = |r| Ok((r.text(0)?, r.bytes(1)?));
    if C::DIALECT == Dialect::Postgres {
        return Ok(c.query(&sql::BLOBS, args![hashes], blob).await?.into_iter().collect());
    }
    let mut found = HashMap::new();
    for h in hashes {
        found.extend(c.query(&sql::BLOBS, args![h], blob).await?);
    }
    Ok(found)
}
