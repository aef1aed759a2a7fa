//! `lucid sessions`: list, show, delete and export stored conversations, and opening the
//! store they live in.

use std::io::Write;
use std::sync::Arc;

use anyhow::Context as _;
use lucid::Message;
use lucid::store::{SessionStore, StoredSession};
use lucid_sqlite::SqliteStore;

use crate::args::{ExportFormat, SessionsAction};
use crate::config::ConfigError;

/// Opens the store named by the flag, `LUCID_STORE` or the configuration file, or the
/// default SQLite file.
pub async fn open_store(spec: Option<&str>) -> anyhow::Result<Arc<dyn SessionStore>> {
    let spec = spec.unwrap_or_default().to_string();
    if spec.starts_with("postgres://") || spec.starts_with("postgresql://") {
        return open_postgres(&spec).await;
    }
    let path = sqlite_path(&spec)?;
    let store = tokio::task::spawn_blocking(move || SqliteStore::open(&path)).await??;
    Ok(Arc::new(store))
}

/// Where `lucid` keeps its sessions by default: `$XDG_DATA_HOME/lucid/lucid.db`, else
/// `~/.local/share/lucid/lucid.db`.
pub fn default_db_path() -> Option<std::path::PathBuf> {
    let base = std::env::var_os("XDG_DATA_HOME")
        .map(std::path::PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| std::env::var_os("HOME").map(|h| std::path::PathBuf::from(h).join(".local/share")))?;
    Some(base.join("lucid").join("lucid.db"))
}

/// The SQLite file a store spec names (`PATH`, `sqlite:PATH`, or empty for the default).
pub fn sqlite_path(spec: &str) -> Result<std::path::PathBuf, ConfigError> {
    match spec.strip_prefix("sqlite:").unwrap_or(spec) {
        "" => {
            default_db_path().ok_or_else(|| ConfigError("no home folder to keep sessions in: pass --store PATH".into()))
        }
        p => Ok(p.into()),
    }
}

#[cfg(feature = "postgres")]
async fn open_postgres(url: &str) -> anyhow::Result<Arc<dyn SessionStore>> {
    Ok(Arc::new(lucid_postgres::PostgresStore::connect(url).await?))
}

#[cfg(not(feature = "postgres"))]
async fn open_postgres(_url: &str) -> anyhow::Result<Arc<dyn SessionStore>> {
    Err(ConfigError("this lucid was built without Postgres support: rebuild with `--features postgres`".into()).into())
}

pub fn time(ms: i64) -> String {
    let secs = ms / 1000;
    let (days, rest) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let (y, m, d) = civil_from_days(days);
    format!("{y:04}-{m:02}-{d:02} {:02}:{:02} UTC", rest / 3600, rest % 3600 / 60)
}

/// Days since 1970-01-01 to a calendar date (Howard Hinnant's algorithm).
pub(crate) fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

/// The conversation as Markdown: who said what, tool calls with their results.
pub fn markdown(s: &StoredSession) -> String {
    markdown_with(s, None).unwrap_or_default()
}

/// [`markdown`], extracting attachments into `dir` when given.
pub fn markdown_with(s: &StoredSession, dir: Option<&std::path::Path>) -> anyhow::Result<String> {
    let mut out = format!("# {}\n\n", s.info.title.as_deref().unwrap_or(&s.info.id));
    out.push_str(&format!(
        "Session `{}`, {} messages, last updated {}.\n",
        s.info.id,
        s.info.message_count,
        time(s.info.updated_at)
    ));
    if let Some(spent) = s.info.metadata.get(lucid::store::SPEND_KEY) {
        match serde_json::from_value::<lucid::Spend>(spent.clone()) {
            Ok(spent) => out.push_str(&format!(
                "Spent {} tokens ({} in, {} out) in {} model calls, {}.\n",
                spent.total_tokens(),
                spent.usage.input_tokens,
                spent.usage.output_tokens,
                spent.model_calls,
                crate::display::dollars(spent.cost_usd)
            )),
            Err(e) => tracing::warn!(session = %s.info.id, error = %e, "the stored spend cannot be read"),
        }
    }
    let summaries = s.info.metadata.get(lucid::store::SUMMARIES_KEY).cloned().unwrap_or_default();
    let summaries: Vec<lucid::memory::Summary> = serde_json::from_value(summaries).unwrap_or_default();
    if !summaries.is_empty() {
        out.push_str("\n## Summaries of earlier turns\n\n");
        for x in &summaries {
            out.push_str(&format!(
                "- {} ({} messages, recalled {}×)\n",
                x.text.replace('\n', " "),
                x.messages,
                x.recalled
            ));
        }
    }
    out.push_str(&markdown_messages_with(&s.messages, dir)?);
    Ok(out)
}

/// Messages as Markdown sections: who said what, tool calls with their results.
pub fn markdown_messages(messages: &[Message]) -> String {
    markdown_messages_with(messages, None).unwrap_or_default()
}

/// The file extension of an attachment's media type.
fn extension(media_type: &str) -> &str {
    match media_type {
        "image/png" => "png",
        "image/jpeg" => "jpg",
        "image/gif" => "gif",
        "image/webp" => "webp",
        "application/pdf" => "pdf",
        "audio/wav" | "audio/x-wav" => "wav",
        "audio/mpeg" => "mp3",
        t if t.starts_with("text/") => "txt",
        _ => "bin",
    }
}

/// The attachments of a message as Markdown list lines: with `dir`, each inline one is
/// written there once (named by the SHA-256 of its bytes) and linked; else described.
fn attachment_lines(m: &Message, dir: Option<&std::path::Path>) -> anyhow::Result<String> {
    let mut out = String::new();
    for p in m.attachments() {
        let Some(media) = p.media() else { continue };
        let link = match (&media.source, dir) {
            (lucid::content::MediaSource::Url(u), _) => Some(u.clone()),
            (lucid::content::MediaSource::Bytes(b), Some(dir)) => {
                let hash = lucid::store::encoding::hex_sha256(b);
                let path = dir.join(format!("{}.{}", &hash[..16], extension(&media.media_type)));
                if !path.exists() {
                    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
                    std::fs::write(&path, b).with_context(|| format!("writing {}", path.display()))?;
                }
                Some(path.display().to_string())
            }
            _ => None,
        };
        match link {
            Some(l) => out.push_str(&format!("\n- attached [{}]({l})\n", p.describe())),
            None => out.push_str(&format!("\n- attached {}\n", p.describe())),
        }
    }
    Ok(out)
}

/// [`markdown_messages`], extracting attachments into `dir` when given.
pub fn markdown_messages_with(messages: &[Message], dir: Option<&std::path::Path>) -> anyhow::Result<String> {
    let mut out = String::new();
    for m in messages {
        match m {
            Message::System { content } => out.push_str(&format!("\n## System\n\n{content}\n")),
            Message::User { content, .. } => {
                out.push_str(&format!("\n## User\n\n{content}\n"));
                out.push_str(&attachment_lines(m, dir)?);
            }
            Message::Assistant(a) => {
                out.push_str("\n## Assistant\n");
                if let Some(r) = a.reasoning.as_ref().filter(|r| !r.text.is_empty()) {
                    out.push_str(&format!("\n> {}\n", r.text.replace('\n', "\n> ")));
                }
                if !a.content.is_empty() {
                    out.push_str(&format!("\n{}\n", a.content));
                }
                for c in &a.tool_calls {
                    out.push_str(&format!("\n- tool call `{}` `{}`: `{}`\n", c.id, c.name, c.arguments));
                }
            }
            Message::Tool(r) => {
                let label = if r.is_error { "error" } else { "result" };
                out.push_str(&format!(
                    "\n### Tool {label} for `{}` ({})\n\n```\n{}\n```\n",
                    r.call_id, r.name, r.content
                ));
                out.push_str(&attachment_lines(m, dir)?);
            }
            _ => {}
        }
    }
    Ok(out)
}

/// Runs `lucid sessions …`.
pub async fn run(store: Option<&str>, action: SessionsAction) -> anyhow::Result<i32> {
    let store = open_store(store).await?;
    let mut out = std::io::stdout().lock();
    match action {
        SessionsAction::List { limit, offset } => {
            let list = store.list(limit, offset).await?;
            if list.is_empty() {
                eprintln!("no stored sessions");
            }
            for s in list {
                writeln!(
                    out,
                    "{:<24} {:>5} msgs  {}  {}",
                    s.id,
                    s.message_count,
                    time(s.updated_at),
                    s.title.unwrap_or_default()
                )?;
            }
        }
        SessionsAction::Show { id } => write!(out, "{}", markdown(&load(&*store, &id).await?))?,
        SessionsAction::Export { id, format, attachments } => {
            let s = load(&*store, &id).await?;
            match format {
                ExportFormat::Markdown => write!(out, "{}", markdown_with(&s, attachments.as_deref())?)?,
                ExportFormat::Json => {
                    let v = serde_json::json!({"session": s.info, "messages": s.messages});
                    writeln!(out, "{}", serde_json::to_string_pretty(&v)?)?;
                }
            }
        }
        SessionsAction::Delete { id } => {
            if !store.delete(&id).await? {
                return Err(ConfigError(format!("no session `{id}`")).into());
            }
            eprintln!("deleted session `{id}`");
        }
        SessionsAction::Repair { id } => {
            let Some(r) = lucid::store::repair(&*store, &id).await? else {
                return Err(ConfigError(format!("no session `{id}`")).into());
            };
            let h = &r.history;
            writeln!(
                out,
                "session `{id}` rebuilt: {} messages kept; {} unreadable dropped{}; {} orphaned and {} duplicate tool results dropped, {} interrupted results added, {} empty messages dropped",
                r.messages,
                r.unreadable_dropped.len(),
                if r.unreadable_dropped.is_empty() {
                    String::new()
                } else {
                    format!(
                        " (at {})",
                        r.unreadable_dropped.iter().map(|i| (i + 1).to_string()).collect::<Vec<_>>().join(", ")
                    )
                },
                h.orphaned_results_dropped,
                h.duplicate_results_dropped,
                h.interrupted_results_added,
                h.empty_messages_dropped,
            )?;
        }
    }
    Ok(0)
}

async fn load(store: &dyn SessionStore, id: &str) -> anyhow::Result<StoredSession> {
    store
        .load(id)
        .await
        .with_context(|| format!("loading session `{id}`"))?
        .ok_or_else(|| ConfigError(format!("no session `{id}`; `lucid sessions list` shows the stored ones")).into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_civil() {
        assert_eq!(time(0), "1970-01-01 00:00 UTC");
        assert_eq!(time(1_763_780_400_000), "2025-11-22 03:00 UTC");
        assert_eq!(time(951_782_400_000), "2000-02-29 00:00 UTC");
    }
}
