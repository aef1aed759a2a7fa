//! `schema_history`'s versions in Lucid's Postgres store: the `lucid_schema_versions`
//! table that [`PostgresStore`]'s migrations make, with the same columns, order and
//! pruning rule as the SQLite file's `schema_versions`.

use tokio::sync::OnceCell;

use super::SqlError;
use super::versions::{Version, pruned, version};
use lucid_postgres::PostgresStore;

fn pg_error(e: impl std::fmt::Display) -> SqlError {
    SqlError::Database(format!("the schema history in Postgres: {e}"))
}

/// Lucid's Postgres store, connected (and migrated) at the first use.
pub(super) struct Pg {
    url: String,
    store: OnceCell<PostgresStore>,
}

impl std::fmt::Debug for Pg {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The URL may carry a password.
        f.debug_struct("Pg").field("connected", &self.store.initialized()).finish()
    }
}

const COLUMNS: &str = "id, created_at, message, kind, tables";

fn row(r: &tokio_postgres::Row) -> Version {
    version(r.get(0), r.get(1), r.get(2), r.get(3), r.get::<_, &str>(4))
}

impl Pg {
    /// The store at `url`, checked as a Postgres URL but not connected yet.
    pub(super) fn new(url: &str) -> Result<Self, SqlError> {
        url.parse::<tokio_postgres::Config>().map_err(|e| SqlError::Url(format!("invalid Postgres URL: {e}")))?;
        Ok(Pg { url: url.to_string(), store: OnceCell::new() })
    }

    async fn client(&self) -> Result<deadpool_postgres::Object, SqlError> {
        let store = self.store.get_or_try_init(|| PostgresStore::connect(&self.url)).await.map_err(pg_error)?;
        store.deadpool().get().await.map_err(pg_error)
    }

    /// Adds a version and prunes the project's older ones, in one transaction; its id.
    pub(super) async fn insert(
        &self,
        project: &str,
        at: i64,
        message: &str,
        kind: &str,
        tables: &str,
        keep: usize,
    ) -> Result<i64, SqlError> {
        let mut client = self.client().await?;
        let tx = client.transaction().await.map_err(pg_error)?;
        let id: i64 = tx
            .query_one(
                "INSERT INTO lucid_schema_versions (project, created_at, message, kind, tables) \
                 VALUES ($1, $2, $3, $4, $5) RETURNING id",
                &[&project, &at, &message, &kind, &tables],
            )
            .await
            .map_err(pg_error)?
            .get(0);
        let all: Vec<(i64, i64)> = tx
            .query(
                "SELECT id, created_at FROM lucid_schema_versions WHERE project = $1 ORDER BY created_at DESC, id DESC",
                &[&project],
            )
            .await
            .map_err(pg_error)?
            .iter()
            .map(|r| (r.get(0), r.get(1)))
            .collect();
        let gone = pruned(&all, keep);
        if !gone.is_empty() {
            tx.execute("DELETE FROM lucid_schema_versions WHERE id = ANY($1)", &[&gone]).await.map_err(pg_error)?;
        }
        tx.commit().await.map_err(pg_error)?;
        Ok(id)
    }

    /// The project's versions, newest first.
    pub(super) async fn list(&self, project: &str) -> Result<Vec<Version>, SqlError> {
        let sql =
            format!("SELECT {COLUMNS} FROM lucid_schema_versions WHERE project = $1 ORDER BY created_at DESC, id DESC");
        let rows = self.client().await?.query(&sql, &[&project]).await.map_err(pg_error)?;
        Ok(rows.iter().map(row).collect())
    }

    /// The version `id` of the project, if it has one.
    pub(super) async fn get(&self, project: &str, id: i64) -> Result<Option<Version>, SqlError> {
        let sql = format!("SELECT {COLUMNS} FROM lucid_schema_versions WHERE project = $1 AND id = $2");
        let found = self.client().await?.query_opt(&sql, &[&project, &id]).await.map_err(pg_error)?;
        Ok(found.as_ref().map(row))
    }
}
