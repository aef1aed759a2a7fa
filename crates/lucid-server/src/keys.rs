//! API keys kept in the database, hashed: `lucid serve keys create NAME` prints a new key
//! of tenant `NAME` once and stores only its SHA-256. Every instance on the database accepts
//! it; a revoked key stops working within [`CACHE_FOR`]. Also the rule for tenant names,
//! which the keys of `LUCID_SERVE_API_KEYS` follow too.

use std::time::Duration;

use ring::rand::SecureRandom;

pub use crate::db::StoredKey;
use crate::{Database, ServeError};

/// How long an instance trusts a stored key it looked up before looking again (so a
/// revoked key works at most this long after).
pub const CACHE_FOR: Duration = Duration::from_secs(10);

/// A key just created: the only time it is shown.
#[derive(Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct NewKey {
    /// Its public id (`key_…`), to list and revoke it by.
    pub id: String,
    /// Its tenant.
    pub tenant: String,
    /// The secret (`lk_` and 48 hex digits); only its hash is stored.
    pub key: String,
}

impl std::fmt::Debug for NewKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NewKey").field("id", &self.id).field("tenant", &self.tenant).finish_non_exhaustive()
    }
}

/// A tenant name a log line and a label can carry as it is.
pub(crate) fn valid_tenant(name: &str) -> bool {
    crate::valid_name(name)
}

/// The SHA-256 of a key, in hex: what the database keeps.
///
/// ```
/// assert_eq!(lucid_server::keys::hash("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
/// ```
pub fn hash(key: &str) -> String {
    hex(ring::digest::digest(&ring::digest::SHA256, key.as_bytes()).as_ref())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn random_hex(bytes: usize) -> Result<String, ServeError> {
    let mut buf = vec![0u8; bytes];
    ring::rand::SystemRandom::new()
        .fill(&mut buf)
        .map_err(|_| ServeError::Config("the system's random number generator failed".into()))?;
    Ok(hex(&buf))
}

/// Creates a key of `tenant` in `database` (a tenant may have several: rotate by creating
/// the new one, then revoking the old).
///
/// ```no_run
/// # async fn demo() -> Result<(), lucid_server::ServeError> {
/// let key = lucid_server::keys::create(&"serve.db".into(), "acme").await?;
/// println!("{} {}", key.id, key.key); // the key is never shown again
/// # Ok(()) }
/// ```
pub async fn create(database: &Database, tenant: &str) -> Result<NewKey, ServeError> {
    if !valid_tenant(tenant) {
        return Err(ServeError::Config(format!(
            "tenant `{tenant}`: use letters, digits, `-`, `_` or `.` (at most 64)"
        )));
    }
    let (_, db) = crate::open_database(database).await?;
    let key = NewKey {
        id: format!("key_{}", random_hex(6)?),
        tenant: tenant.to_string(),
        key: format!("lk_{}", random_hex(24)?),
    };
    let row = StoredKey { id: key.id.clone(), tenant: key.tenant.clone(), created_at: crate::now_ms() };
    db.insert_key(&row, &hash(&key.key)).await?;
    Ok(key)
}

/// The keys stored in `database` (ids and tenants; the keys themselves are not kept).
pub async fn list(database: &Database) -> Result<Vec<StoredKey>, ServeError> {
    let (_, db) = crate::open_database(database).await?;
    Ok(db.keys().await?)
}

/// Removes the stored key `id`; false when there is none.
pub async fn revoke(database: &Database, id: &str) -> Result<bool, ServeError> {
    let (_, db) = crate::open_database(database).await?;
    Ok(db.revoke_key(id).await?)
}
