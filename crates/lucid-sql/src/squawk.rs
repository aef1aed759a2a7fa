//! Squawk (PyPI `squawk-cli`), the Postgres migration linter, over a migration's `up`
//! where it is installed: its findings join Lucid's own as `squawk:RULE` warnings (they
//! flag, they never refuse). Rules about what Lucid already does are left out: the
//! migration runs in one transaction, all or nothing (`prefer-robust-stmts`,
//! `transaction-nesting`), and within the database's time limits
//! (`require-statement-timeout`, `require-lock-timeout`).

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use tokio::io::AsyncWriteExt;

use super::review::{Finding, Severity};

/// The rules left out (see the module).
const EXCLUDED: &str = "prefer-robust-stmts,transaction-nesting,require-statement-timeout,require-lock-timeout";

/// How long Squawk may take.
const TIME: Duration = Duration::from_secs(10);

/// Squawk's findings on `up`; none when it is not installed (`program` not found), and a
/// note when it fails or answers what cannot be read.
pub(super) async fn lint(program: &Path, up: &str) -> Vec<Finding> {
    let spawned = tokio::process::Command::new(program)
        .args(["--reporter", "json", "--stdin-filepath", "migration.sql", "--exclude", EXCLUDED])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn();
    let mut child = match spawned_or_absent(spawned, program) {
        Some(child) => child,
        None => return Vec::new(),
    };
    let note = |why: String| vec![Finding { rule: "squawk".into(), severity: Severity::Note, why }];
    if let Some(mut stdin) = child.stdin.take() {
        let written = stdin.write_all(up.as_bytes()).await;
        drop(stdin);
        if let Err(e) = written {
            return note(format!("Squawk could not be given the migration: {e}"));
        }
    }
    let output = match tokio::time::timeout(TIME, child.wait_with_output()).await {
        Ok(Ok(output)) => output,
        Ok(Err(e)) => return note(format!("Squawk failed: {e}")),
        Err(_) => return note(format!("Squawk did not answer within {} s", TIME.as_secs())),
    };
    let Ok(found) = serde_json::from_slice::<Vec<serde_json::Value>>(&output.stdout) else {
        let said = String::from_utf8_lossy(&output.stderr);
        return note(format!(
            "Squawk's answer could not be read: {}",
            said.trim().chars().take(300).collect::<String>()
        ));
    };
    found
        .iter()
        .map(|v| {
            let text = |k: &str| v.get(k).and_then(serde_json::Value::as_str).unwrap_or_default().to_string();
            let help = text("help");
            Finding {
                rule: format!("squawk:{}", text("rule_name")),
                severity: Severity::Warning,
                why: if help.is_empty() { text("message") } else { format!("{} {help}", text("message")) },
            }
        })
        .collect()
}

/// The child, or `None` (logged) when Squawk is not installed or cannot start.
fn spawned_or_absent(spawned: std::io::Result<tokio::process::Child>, program: &Path) -> Option<tokio::process::Child> {
    match spawned {
        Ok(child) => Some(child),
        Err(e) => {
            tracing::debug!(program = %program.display(), "Squawk is not run: {e}");
            None
        }
    }
}
