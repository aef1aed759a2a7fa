//! The current date and time, in any IANA time zone.

use chrono::Utc;
use chrono_tz::Tz;

use crate::tool::ToolError;
use lucid_macros::tool;

/// Returns the current date and time (RFC 3339, with the weekday) in a time zone.
#[tool]
pub fn current_time(
    /// An IANA time zone such as "Europe/Paris" or "America/New_York"; UTC when omitted.
    timezone: Option<String>,
) -> Result<String, ToolError> {
    let name = timezone.as_deref().map(str::trim).filter(|s| !s.is_empty()).unwrap_or("UTC");
    let tz: Tz = name
        .parse()
        .map_err(|_| ToolError::new(format!("unknown time zone `{name}`; use an IANA name such as Europe/Paris")))?;
    let now = Utc::now().with_timezone(&tz);
    Ok(format!("{} ({}, {})", now.to_rfc3339_opts(chrono::SecondsFormat::Secs, false), tz.name(), now.format("%A")))
}
