//! `logging/setLevel` and the log messages a served session sends (rmcp marks MCP logging
//! deprecated by SEP-2577; clients of protocol 2025-11-25 still use it).
#![allow(deprecated, reason = "MCP logging is deprecated upstream but still part of 2025-11-25")]

use rmcp::RoleServer;
use rmcp::model::{LoggingLevel, LoggingMessageNotificationParam, ServerCapabilities};

/// Declares the `logging` capability.
pub(super) fn declare(capabilities: &mut ServerCapabilities) {
    capabilities.logging = Some(Default::default());
}

/// The rank of a logging level (debug lowest).
fn rank(level: LoggingLevel) -> u8 {
    match level {
        LoggingLevel::Debug => 0,
        LoggingLevel::Info => 1,
        LoggingLevel::Notice => 2,
        LoggingLevel::Warning => 3,
        LoggingLevel::Error => 4,
        LoggingLevel::Critical => 5,
        LoggingLevel::Alert => 6,
        LoggingLevel::Emergency => 7,
    }
}

/// The lowest level a client asked to be sent; nothing is sent before it asks.
#[derive(Default)]
pub(super) struct Level(std::sync::Mutex<Option<LoggingLevel>>);

impl Level {
    /// What `logging/setLevel` asked for.
    pub(super) fn set(&self, level: LoggingLevel) {
        *self.0.lock().unwrap_or_else(|p| p.into_inner()) = Some(level);
    }

    /// Sends `message` at `error` when the client asked for that level or a lower one.
    pub(super) async fn error(&self, peer: &rmcp::Peer<RoleServer>, message: String) {
        self.send(peer, LoggingLevel::Error, message.into()).await;
    }

    /// Sends a tool's log line at its level (`trace` as `debug`, `warn` as `warning`)
    /// when the client asked for that level or a lower one.
    pub(super) async fn tool(&self, peer: &rmcp::Peer<RoleServer>, level: tracing::Level, data: serde_json::Value) {
        let level = match level {
            tracing::Level::ERROR => LoggingLevel::Error,
            tracing::Level::WARN => LoggingLevel::Warning,
            tracing::Level::INFO => LoggingLevel::Info,
            _ => LoggingLevel::Debug,
        };
        self.send(peer, level, data).await;
    }

    /// Sends `data` at `level` when the client asked for that level or a lower one.
    async fn send(&self, peer: &rmcp::Peer<RoleServer>, level: LoggingLevel, data: serde_json::Value) {
        let wanted = *self.0.lock().unwrap_or_else(|p| p.into_inner());
        if wanted.is_some_and(|w| rank(level) >= rank(w)) {
            let mut param = LoggingMessageNotificationParam::new(level, data);
            param.logger = Some("lucid".into());
            if let Err(e) = peer.notify_logging_message(param).await {
                tracing::debug!(error = %e, "could not send a log message to the MCP client");
            }
        }
    }
}
