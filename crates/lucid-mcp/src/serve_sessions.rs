//! The sessions of [`serve_http`](super::serve_http): bounded per client and in total, an
//! idle one closed soon, and the least recently used idle one closed to make room for a
//! new client rather than refusing it.
//!
//! rmcp's `LocalSessionManager` keeps the sessions; its own idle timer (`keep_alive`) is
//! reset only by messages, so it would also end a session in the middle of a long tool
//! call: it stays a safety net set longer than any call may take, and this table decides
//! what is idle from the HTTP exchanges themselves (a call in progress, a stream open).

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use rmcp::transport::streamable_http_server::session::SessionManager as _;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;

/// A client as the server tells them apart: the address it connects from.
pub(super) type Client = IpAddr;

/// The bounds on the sessions.
#[derive(Debug, Clone, Copy)]
pub(super) struct Bounds {
    /// The most sessions open at once.
    pub total: usize,
    /// The most sessions one client may have open.
    pub per_client: usize,
    /// How long a session without a call in progress or a stream open stays open.
    pub idle: Duration,
}

/// What an HTTP exchange with a session is, for the session's idleness.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Exchange {
    /// A `POST` or `DELETE`: a call in progress while its answer is open.
    Call,
    /// A `GET`: the client listening on the session's stream.
    Listen,
}

/// One open session.
#[derive(Debug)]
struct Entry {
    client: Client,
    last_used: Instant,
    /// Answers to calls still open: the session is never closed under them.
    calls: usize,
    /// Streams open: the client is there, so it is not idle, but the session may be closed
    /// for room (the client starts a new one when it finds it gone).
    listening: usize,
}

impl Entry {
    fn idle_for(&self, idle: Duration) -> bool {
        self.calls == 0 && self.listening == 0 && self.last_used.elapsed() >= idle
    }
}

#[derive(Debug, Default)]
struct Table {
    open: HashMap<String, Entry>,
    /// Sessions admitted whose `initialize` has not been answered yet, by client.
    pending: HashMap<Client, usize>,
}

impl Table {
    fn of(&self, client: Client) -> usize {
        self.open.values().filter(|e| e.client == client).count() + self.pending.get(&client).copied().unwrap_or(0)
    }

    fn total(&self) -> usize {
        self.open.len() + self.pending.values().sum::<usize>()
    }

    /// The least recently used session without a call in progress, of `client` if given.
    fn least_recent(&self, client: Option<Client>) -> Option<String> {
        self.open
            .iter()
            .filter(|(_, e)| e.calls == 0 && client.is_none_or(|c| e.client == c))
            .min_by_key(|(_, e)| e.last_used)
            .map(|(id, _)| id.clone())
    }
}

/// Why a new session was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Refused {
    /// The client has its most sessions open, each with a call in progress (`429`).
    ClientFull,
    /// The server has its most sessions open, each with a call in progress (`503`).
    ServerFull,
}

/// The sessions' table beside rmcp's session manager.
pub(super) struct Sessions {
    table: Mutex<Table>,
    manager: Arc<LocalSessionManager>,
    bounds: Bounds,
}

impl Sessions {
    pub(super) fn new(manager: Arc<LocalSessionManager>, bounds: Bounds) -> Arc<Self> {
        Arc::new(Sessions { table: Mutex::default(), manager, bounds })
    }

    fn table(&self) -> MutexGuard<'_, Table> {
        self.table.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Admits a new session for `client`, first closing what must go to make room: the
    /// sessions idle too long, then the client's least recently used one if it is at its
    /// bound, then the server's if the server is. Refused only when every candidate has a
    /// call in progress.
    pub(super) async fn admit(self: &Arc<Self>, client: Client) -> Result<Ticket, Refused> {
        self.forget_closed().await;
        let closing = {
            let mut table = self.table();
            let mut closing: Vec<String> =
                table.open.iter().filter(|(_, e)| e.idle_for(self.bounds.idle)).map(|(id, _)| id.clone()).collect();
            for id in &closing {
                table.open.remove(id);
            }
            if table.of(client) >= self.bounds.per_client {
                let id = table.least_recent(Some(client)).ok_or(Refused::ClientFull)?;
                table.open.remove(&id);
                tracing::info!(session = %id, %client, "MCP session closed: its client opened more than its share");
                closing.push(id);
            }
            if table.total() >= self.bounds.total {
                let id = table.least_recent(None).ok_or(Refused::ServerFull)?;
                table.open.remove(&id);
                tracing::info!(session = %id, "MCP session closed: the least recently used, to make room");
                closing.push(id);
            }
            *table.pending.entry(client).or_default() += 1;
            closing
        };
        self.close(closing).await;
        Ok(Ticket { sessions: self.clone(), client, used: false })
    }

    /// Marks an exchange with session `id` begun; the guard marks it ended. `None` for a
    /// session this table does not know (rmcp answers it).
    pub(super) fn enter(self: &Arc<Self>, id: &str, exchange: Exchange) -> Option<InUse> {
        let mut table = self.table();
        let entry = table.open.get_mut(id)?;
        entry.last_used = Instant::now();
        match exchange {
            Exchange::Call => entry.calls += 1,
            Exchange::Listen => entry.listening += 1,
        }
        Some(InUse { sessions: self.clone(), id: id.to_string(), exchange })
    }

    /// Closes the sessions idle past the bound; run every so often until `stop`.
    pub(super) async fn reap(self: Arc<Self>, stop: tokio_util::sync::CancellationToken) {
        let every = (self.bounds.idle / 4).clamp(Duration::from_millis(50), Duration::from_secs(5));
        loop {
            tokio::select! {
                _ = stop.cancelled() => return,
                _ = tokio::time::sleep(every) => {}
            }
            self.forget_closed().await;
            let idle: Vec<String> = {
                let mut table = self.table();
                let ids: Vec<String> =
                    table.open.iter().filter(|(_, e)| e.idle_for(self.bounds.idle)).map(|(id, _)| id.clone()).collect();
                for id in &ids {
                    table.open.remove(id);
                }
                ids
            };
            for id in &idle {
                tracing::debug!(session = %id, "MCP session closed: idle");
            }
            self.close(idle).await;
        }
    }

    /// Forgets the sessions rmcp no longer has (a client's `DELETE`, a session ended).
    async fn forget_closed(&self) {
        let known: Vec<String> = self.manager.sessions.read().await.keys().map(|k| k.to_string()).collect();
        self.table().open.retain(|id, _| known.iter().any(|k| k == id));
    }

    async fn close(&self, ids: Vec<String>) {
        for id in ids {
            if let Err(e) = self.manager.close_session(&id.as_str().into()).await {
                tracing::debug!(session = %id, error = %e, "closing an MCP session failed");
            }
        }
    }
}

/// A place reserved for a session being opened; given back unless [`Ticket::opened`].
pub(super) struct Ticket {
    sessions: Arc<Sessions>,
    client: Client,
    used: bool,
}

impl Ticket {
    /// The session `id` was opened on this place, with the exchange that opened it begun.
    pub(super) fn opened(mut self, id: &str, exchange: Exchange) -> Option<InUse> {
        self.used = true;
        {
            let mut table = self.sessions.table();
            release(&mut table, self.client);
            let entry = Entry { client: self.client, last_used: Instant::now(), calls: 0, listening: 0 };
            table.open.insert(id.to_string(), entry);
        }
        self.sessions.enter(id, exchange)
    }
}

impl Drop for Ticket {
    fn drop(&mut self) {
        if !self.used {
            release(&mut self.sessions.table(), self.client);
        }
    }
}

fn release(table: &mut Table, client: Client) {
    if let Some(n) = table.pending.get_mut(&client) {
        *n = n.saturating_sub(1);
        if *n == 0 {
            table.pending.remove(&client);
        }
    }
}

/// An exchange with a session in progress; dropped when its answer ends.
pub(super) struct InUse {
    sessions: Arc<Sessions>,
    id: String,
    exchange: Exchange,
}

impl Drop for InUse {
    fn drop(&mut self) {
        let mut table = self.sessions.table();
        if let Some(entry) = table.open.get_mut(&self.id) {
            entry.last_used = Instant::now();
            match self.exchange {
                Exchange::Call => entry.calls = entry.calls.saturating_sub(1),
                Exchange::Listen => entry.listening = entry.listening.saturating_sub(1),
            }
        }
    }
}
