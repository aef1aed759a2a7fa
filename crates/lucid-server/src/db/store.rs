//! [`RunStore`] once, over either backend: each method's logic and row mapping is
//! written here, on a [`Conn`], with the statements of [`sql`](super::sql).

use futures::future::BoxFuture;
use serde_json::Value;

use lucid::agent::budget::Limits;

use super::query::{Backend, Cells, Conn, Dialect, args, end, first, not_unique};
use super::{
    Claimed, DailySpend, HashMap, Held, Hold, Removal, Renewed, Result, RunInput, RunRow, RunStatus, RunStore,
    SessionRow, StoredEvent, StoredKey, Usage, Waiting, attachments, event_bytes, json_bytes, json_or_null, kind,
    spend, sql,
};

/// The server's tables in the database of `B`.
pub struct Store<B>(pub B);

fn session_row(r: &dyn Cells) -> Result<SessionRow> {
    Ok(SessionRow {
        id: r.text(0)?,
        agent: r.text(1)?,
        metadata: serde_json::from_str(&r.text(2)?)?,
        created_at: r.int(3)?,
    })
}

fn run_row(r: &dyn Cells) -> Result<RunRow> {
    Ok(RunRow {
        id: r.text(0)?,
        session_id: r.text(1)?,
        status: RunStatus::parse(&r.text(2)?),
        result: json_or_null(r.opt_text(3)?)?,
        error: json_or_null(r.opt_text(4)?)?,
        created_at: r.int(5)?,
        updated_at: r.int(6)?,
        input: RunInput::shown(r.opt_text(7)?, r.opt_text(8)?)?,
    })
}

/// A claimed run: its id, tenant, session, agent, new generation, cancel flag and input.
fn claimed_row(r: &dyn Cells) -> Result<Claimed> {
    Ok(Claimed {
        id: r.text(0)?,
        tenant: r.text(1)?,
        session_id: r.text(2)?,
        agent: r.text(3)?,
        generation: r.int(4)?,
        cancel_requested: r.flag(5)?,
        input: RunInput {
            text: r.opt_text(6)?.unwrap_or_default(),
            parts: r.opt_text(7)?,
            bytes: 0,
            blobs: Vec::new(),
        },
    })
}

/// A run SQLite may claim, with its owner and lease to tell whether it is free.
fn candidate_row(r: &dyn Cells) -> Result<(Claimed, Option<String>, i64)> {
    Ok((claimed_row(r)?, r.opt_text(8)?, r.int(9)?))
}

fn event_row(r: &dyn Cells) -> Result<StoredEvent> {
    Ok(StoredEvent { seq: r.int(0)? as u64, kind: kind(&r.text(1)?), data: r.text(2)? })
}

fn key_row(r: &dyn Cells) -> Result<StoredKey> {
    Ok(StoredKey { id: r.text(0)?, tenant: r.text(1)?, created_at: r.int(2)? })
}

fn waiting_row(r: &dyn Cells) -> Result<Waiting> {
    Ok(Waiting { id: r.text(0)?, tenant: r.text(1)?, session_id: r.text(2)?, agent: r.text(3)? })
}

fn renewed_row(r: &dyn Cells) -> Result<Renewed> {
    Ok(Renewed { id: r.text(0)?, cancel_requested: r.flag(1)? })
}

fn text0(r: &dyn Cells) -> Result<String> {
    r.text(0)
}

fn int0(r: &dyn Cells) -> Result<i64> {
    r.int(0)
}

fn nothing(_: &dyn Cells) -> Result<()> {
    Ok(())
}

/// Stores `events` of run `id` in the caller's transaction.
async fn insert_events<C: Conn>(c: &mut C, id: &str, events: &[StoredEvent]) -> Result<()> {
    match C::DIALECT {
        Dialect::Sqlite => {
            for e in events {
                c.execute(&sql::INSERT_EVENT, args![id, e.seq as i64, e.kind, &e.data]).await?;
            }
        }
        Dialect::Postgres if events.is_empty() => {}
        Dialect::Postgres => {
            let seqs: Vec<i64> = events.iter().map(|e| e.seq as i64).collect();
            let kinds: Vec<&str> = events.iter().map(|e| e.kind).collect();
            let data: Vec<&str> = events.iter().map(|e| e.data.as_str()).collect();
            c.execute(&sql::INSERT_EVENTS, args![id, &seqs[..], &kinds[..], &data[..]]).await?;
        }
    }
    Ok(())
}

/// After the fenced `write` to run `id` (changing no row when its writer no longer owns
/// it), stores `events` in the same transaction; false (nothing to keep) when it changed
/// none.
async fn fenced<C: Conn>(c: &mut C, id: &str, events: &[StoredEvent], write: Result<u64>) -> Result<bool> {
    if write? == 0 {
        return Ok(false);
    }
    insert_events(c, id, events).await?;
    Ok(true)
}

async fn delete_session<C: Conn>(c: &mut C, tenant: &str, id: &str) -> Result<Removal> {
    if c.execute(&sql::DELETE_SESSION, args![tenant, id]).await? > 0 {
        c.execute(&sql::DELETE_SESSION_EVENTS, args![id]).await?;
        c.execute(&sql::DELETE_SESSION_RUNS, args![id]).await?;
        return Ok(Removal::Deleted);
    }
    let kept = first(c, &sql::SESSION_EXISTS, args![tenant, id], nothing).await?;
    Ok(if kept.is_some() { Removal::Busy } else { Removal::Missing })
}

async fn insert_run<C: Conn>(
    c: &mut C,
    tenant: &str,
    row: &RunRow,
    input: &RunInput,
    owner: &str,
    lease_until: i64,
) -> Result<bool> {
    let r = c
        .execute(
            &sql::INSERT_RUN,
            args![
                &row.id,
                tenant,
                &row.session_id,
                row.status.as_str(),
                row.created_at,
                owner,
                lease_until,
                &input.text,
                input.bytes,
                &input.parts
            ],
        )
        .await;
    if !not_unique(r)? {
        return Ok(false);
    }
    attachments::keep(c, &row.session_id, &input.blobs).await?;
    Ok(true)
}

#[allow(clippy::too_many_arguments)]
async fn continue_run<C: Conn>(
    c: &mut C,
    id: &str,
    from: RunStatus,
    input: Option<&RunInput>,
    owner: &str,
    lease_until: i64,
    now: i64,
) -> Result<bool> {
    let added = input.map_or(0, |i| i.bytes);
    let (text, parts) = input.map_or((None, None), |i| (Some(i.text.as_str()), i.parts.as_deref()));
    let r = c.execute(&sql::CONTINUE_RUN, args![owner, lease_until, now, id, text, added, from.as_str(), parts]).await;
    if !not_unique(r)? {
        return Ok(false);
    }
    attachments::keep_for_run(c, id, input.map_or(&[], |i| &i.blobs)).await?;
    Ok(true)
}

/// Gives up `owner`'s lease on the runs `ids`: one statement on PostgreSQL, one a run in
/// a transaction on SQLite.
async fn release<C: Conn>(c: &mut C, owner: &str, ids: &[String]) -> Result<()> {
    if C::DIALECT == Dialect::Postgres {
        return c.execute(&sql::RELEASE, args![ids, owner]).await.map(drop);
    }
    c.begin().await?;
    let released: Result<()> = async {
        for id in ids {
            c.execute(&sql::RELEASE, args![id, owner]).await?;
        }
        Ok(())
    }
    .await;
    end(c, released, |_| true).await
}

/// Takes over the free runs: on PostgreSQL in one statement that skips the rows other
/// instances hold locked; on SQLite picked here, in an `IMMEDIATE` transaction (one
/// writer at a time, so no other instance picks them meanwhile).
async fn claim<C: Conn>(
    c: &mut C,
    owner: &str,
    lease_until: i64,
    now: i64,
    gone: &[String],
    limit: usize,
) -> Result<Vec<Claimed>> {
    if C::DIALECT == Dialect::Postgres {
        let a = args![owner, lease_until, now, gone, limit as i64];
        return c.query(&sql::CLAIM, a, claimed_row).await;
    }
    c.begin().await?;
    let picked: Result<Vec<Claimed>> = async {
        let mut claimed = Vec::new();
        for (run, holder, until) in c.query(&sql::CLAIM_CANDIDATES, args![owner], candidate_row).await? {
            let free = until < now || holder.as_ref().is_none_or(|h| gone.contains(h));
            if free && claimed.len() < limit {
                claimed.push(run);
            }
        }
        for run in &claimed {
            c.execute(&sql::CLAIM_ONE, args![owner, lease_until, run.generation, &run.id]).await?;
        }
        Ok(claimed)
    }
    .await;
    end(c, picked, |_| true).await
}

impl<B: Backend> RunStore for Store<B> {
    fn ping(&self) -> BoxFuture<'_, Result<()>> {
        self.0.with(|c| Box::pin(async move { c.query(&sql::PING, &[], nothing).await.map(drop) }))
    }

    fn create_session<'a>(&'a self, tenant: &'a str, row: &'a SessionRow) -> BoxFuture<'a, Result<()>> {
        let (tenant, row) = (tenant.to_string(), row.clone());
        self.0.with(move |c| {
            Box::pin(async move {
                let metadata = row.metadata.to_string();
                let bytes = metadata.len() as i64;
                let a = args![&row.id, &tenant, &row.agent, &metadata, row.created_at, bytes];
                c.execute(&sql::INSERT_SESSION, a).await.map(drop)
            })
        })
    }

    fn session<'a>(&'a self, tenant: &'a str, id: &'a str) -> BoxFuture<'a, Result<Option<SessionRow>>> {
        let (tenant, id) = (tenant.to_string(), id.to_string());
        self.0.with(move |c| Box::pin(async move { first(c, &sql::SESSION, args![&tenant, &id], session_row).await }))
    }

    fn sessions<'a>(
        &'a self,
        tenant: &'a str,
        limit: usize,
        offset: usize,
        with_metadata: bool,
    ) -> BoxFuture<'a, Result<Vec<SessionRow>>> {
        let tenant = tenant.to_string();
        self.0.with(move |c| {
            Box::pin(async move {
                let stmt = if with_metadata { &sql::SESSIONS } else { &sql::SESSIONS_BARE };
                c.query(stmt, args![&tenant, limit as i64, offset as i64], session_row).await
            })
        })
    }

    fn usage<'a>(&'a self, tenant: &'a str) -> BoxFuture<'a, Result<Usage>> {
        let tenant = tenant.to_string();
        self.0.with(move |c| {
            Box::pin(async move {
                let row = c.query(&sql::USAGE, args![&tenant], |r| Ok((r.int(0)?, r.int(1)?))).await?;
                let (sessions, bytes) = row.into_iter().next().unwrap_or_default();
                Ok(Usage { sessions: sessions.max(0) as u64, bytes: bytes.max(0) as u64 })
            })
        })
    }

    fn insert_response<'a>(&'a self, tenant: &'a str, id: &'a str, bytes: i64, now: i64) -> BoxFuture<'a, Result<()>> {
        let (tenant, id) = (tenant.to_string(), id.to_string());
        self.0.with(move |c| {
            Box::pin(async move { c.execute(&sql::INSERT_RESPONSE, args![&id, &tenant, bytes, now]).await.map(drop) })
        })
    }

    fn delete_response<'a>(&'a self, tenant: &'a str, id: &'a str) -> BoxFuture<'a, Result<bool>> {
        let (tenant, id) = (tenant.to_string(), id.to_string());
        self.0.with(move |c| {
            Box::pin(async move { Ok(c.execute(&sql::DELETE_RESPONSE, args![&tenant, &id]).await? > 0) })
        })
    }

    fn delete_session<'a>(&'a self, tenant: &'a str, id: &'a str) -> BoxFuture<'a, Result<Removal>> {
        let (tenant, id) = (tenant.to_string(), id.to_string());
        self.0.with(move |c| {
            Box::pin(async move {
                c.begin().await?;
                let r = delete_session(c, &tenant, &id).await;
                end(c, r, |_| true).await
            })
        })
    }

    fn insert_run<'a>(
        &'a self,
        tenant: &'a str,
        row: &'a RunRow,
        input: &'a RunInput,
        owner: &'a str,
        lease_until: i64,
    ) -> BoxFuture<'a, Result<bool>> {
        let (tenant, row, input, owner) = (tenant.to_string(), row.clone(), input.clone(), owner.to_string());
        self.0.with(move |c| {
            Box::pin(async move {
                c.begin().await?;
                let r = insert_run(c, &tenant, &row, &input, &owner, lease_until).await;
                // Refused: rolled back, keeping none of the blobs.
                end(c, r, |kept| *kept).await
            })
        })
    }

    fn attachments<'a>(&'a self, hashes: Vec<String>) -> BoxFuture<'a, Result<HashMap<String, Vec<u8>>>> {
        self.0.with(move |c| Box::pin(async move { attachments::fetch(c, &hashes).await }))
    }

    fn move_run<'a>(&'a self, id: &'a str, from: RunStatus, to: RunStatus, now: i64) -> BoxFuture<'a, Result<bool>> {
        let id = id.to_string();
        self.0.with(move |c| {
            Box::pin(
                async move { not_unique(c.execute(&sql::MOVE_RUN, args![to.as_str(), now, &id, from.as_str()]).await) },
            )
        })
    }

    fn continue_run<'a>(
        &'a self,
        id: &'a str,
        from: RunStatus,
        input: Option<&'a RunInput>,
        owner: &'a str,
        lease_until: i64,
        now: i64,
    ) -> BoxFuture<'a, Result<bool>> {
        let (id, input, owner) = (id.to_string(), input.cloned(), owner.to_string());
        self.0.with(move |c| {
            Box::pin(async move {
                c.begin().await?;
                let r = continue_run(c, &id, from, input.as_ref(), &owner, lease_until, now).await;
                end(c, r, |kept| *kept).await
            })
        })
    }

    fn waiting_since<'a>(&'a self, before: i64, limit: usize) -> BoxFuture<'a, Result<Vec<Waiting>>> {
        self.0.with(move |c| {
            Box::pin(async move { c.query(&sql::WAITING, args![before, limit as i64], waiting_row).await })
        })
    }

    #[allow(clippy::too_many_arguments)]
    fn finish_run<'a>(
        &'a self,
        id: &'a str,
        owner: &'a str,
        status: RunStatus,
        result: Option<Value>,
        error: Option<Value>,
        events: Vec<StoredEvent>,
        now: i64,
    ) -> BoxFuture<'a, Result<bool>> {
        let (id, owner) = (id.to_string(), owner.to_string());
        self.0.with(move |c| {
            Box::pin(async move {
                let ((result, r), (error, e)) = (json_bytes(&result), json_bytes(&error));
                let bytes = r + e + event_bytes(&events);
                c.begin().await?;
                let a = args![status.as_str(), &result, &error, now, &id, &owner, bytes];
                let write = c.execute(&sql::FINISH_RUN, a).await;
                let r = fenced(c, &id, &events, write).await;
                end(c, r, |owned| *owned).await
            })
        })
    }

    fn append_events<'a>(
        &'a self,
        id: &'a str,
        owner: &'a str,
        events: Vec<StoredEvent>,
    ) -> BoxFuture<'a, Result<bool>> {
        let (id, owner) = (id.to_string(), owner.to_string());
        self.0.with(move |c| {
            Box::pin(async move {
                c.begin().await?;
                let write = c.execute(&sql::APPEND_EVENTS, args![&id, &owner, event_bytes(&events)]).await;
                let r = fenced(c, &id, &events, write).await;
                end(c, r, |owned| *owned).await
            })
        })
    }

    fn renew<'a>(&'a self, owner: &'a str, lease_until: i64) -> BoxFuture<'a, Result<Vec<Renewed>>> {
        let owner = owner.to_string();
        self.0
            .with(move |c| Box::pin(async move { c.query(&sql::RENEW, args![lease_until, &owner], renewed_row).await }))
    }

    fn release<'a>(&'a self, owner: &'a str, ids: Vec<String>) -> BoxFuture<'a, Result<()>> {
        let owner = owner.to_string();
        self.0.with(move |c| Box::pin(async move { release(c, &owner, &ids).await }))
    }

    fn other_owners<'a>(&'a self, owner: &'a str, now: i64) -> BoxFuture<'a, Result<Vec<String>>> {
        let owner = owner.to_string();
        self.0.with(move |c| Box::pin(async move { c.query(&sql::OTHER_OWNERS, args![&owner, now], text0).await }))
    }

    fn claim<'a>(
        &'a self,
        owner: &'a str,
        lease_until: i64,
        now: i64,
        gone: Vec<String>,
        limit: usize,
    ) -> BoxFuture<'a, Result<Vec<Claimed>>> {
        let owner = owner.to_string();
        self.0.with(move |c| Box::pin(async move { claim(c, &owner, lease_until, now, &gone, limit).await }))
    }

    fn request_cancel<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<bool>> {
        let id = id.to_string();
        self.0.with(move |c| Box::pin(async move { Ok(c.execute(&sql::REQUEST_CANCEL, args![&id]).await? > 0) }))
    }

    fn insert_key<'a>(&'a self, row: &'a StoredKey, hash: &'a str) -> BoxFuture<'a, Result<()>> {
        let (row, hash) = (row.clone(), hash.to_string());
        self.0.with(move |c| {
            Box::pin(async move {
                c.execute(&sql::INSERT_KEY, args![&row.id, &row.tenant, &hash, row.created_at]).await.map(drop)
            })
        })
    }

    fn keys(&self) -> BoxFuture<'_, Result<Vec<StoredKey>>> {
        self.0.with(|c| Box::pin(async move { c.query(&sql::KEYS, &[], key_row).await }))
    }

    fn revoke_key<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<bool>> {
        let id = id.to_string();
        self.0.with(move |c| Box::pin(async move { Ok(c.execute(&sql::REVOKE_KEY, args![&id]).await? > 0) }))
    }

    fn key_tenant<'a>(&'a self, hash: &'a str) -> BoxFuture<'a, Result<Option<String>>> {
        let hash = hash.to_string();
        self.0.with(move |c| Box::pin(async move { first(c, &sql::KEY_TENANT, args![&hash], text0).await }))
    }

    fn run<'a>(&'a self, tenant: &'a str, id: &'a str) -> BoxFuture<'a, Result<Option<RunRow>>> {
        let (tenant, id) = (tenant.to_string(), id.to_string());
        self.0.with(move |c| Box::pin(async move { first(c, &sql::RUN, args![&tenant, &id], run_row).await }))
    }

    fn run_status<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<RunStatus>>> {
        let id = id.to_string();
        self.0.with(move |c| {
            Box::pin(
                async move { Ok(first(c, &sql::RUN_STATUS, args![&id], text0).await?.map(|s| RunStatus::parse(&s))) },
            )
        })
    }

    fn events_after<'a>(&'a self, id: &'a str, after: u64) -> BoxFuture<'a, Result<Vec<StoredEvent>>> {
        let id = id.to_string();
        let after = after.min(i64::MAX as u64) as i64;
        self.0.with(move |c| Box::pin(async move { c.query(&sql::EVENTS_AFTER, args![&id, after], event_row).await }))
    }

    fn last_event<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<u64>> {
        let id = id.to_string();
        self.0.with(move |c| {
            Box::pin(async move { Ok(first(c, &sql::LAST_EVENT, args![&id], int0).await?.unwrap_or(0) as u64) })
        })
    }

    fn spend<'a>(&'a self, tenant: &'a str, day: i64) -> BoxFuture<'a, Result<DailySpend>> {
        let tenant = tenant.to_string();
        self.0.with(move |c| Box::pin(async move { spend::spend(c, &tenant, day).await }))
    }

    fn hold<'a>(&'a self, hold: &'a Hold, limits: Limits, now: i64) -> BoxFuture<'a, Result<Held>> {
        let hold = hold.clone();
        self.0.with(move |c| Box::pin(async move { spend::hold(c, &hold, limits, now).await }))
    }

    fn settle<'a>(
        &'a self,
        tenant: &'a str,
        day: i64,
        id: &'a str,
        used: Option<DailySpend>,
    ) -> BoxFuture<'a, Result<()>> {
        let (tenant, id) = (tenant.to_string(), id.to_string());
        self.0.with(move |c| Box::pin(async move { spend::settle(c, &tenant, day, &id, used).await }))
    }
}
