//! The current date and time, in any IANA time zone.

use jiff::Timestamp;

use lucid::tool;
use lucid::tool::ToolError;

/// Returns the current date and time (RFC 3339, with the weekday) in a time zone.
#[tool]
pub fn current_time(
    /// An IANA time zone such as "Europe/Paris" or "America/New_York"; UTC when omitted.
    timezone: Option<String>,
) -> Result<String, ToolError> {
    let name = timezone.as_deref().map(str::trim).filter(|s| !s.is_empty()).unwrap_or("UTC");
    at(name, Timestamp::now())
}

/// `instant` in the zone `name`, as `current_time` answers.
fn at(name: &str, instant: Timestamp) -> Result<String, ToolError> {
    at_in(jiff::tz::db(), name, instant)
}

/// [`at`], with the zones of `db`.
fn at_in(db: &jiff::tz::TimeZoneDatabase, name: &str, instant: Timestamp) -> Result<String, ToolError> {
    let tz = match db.get(name) {
        Ok(tz) => tz,
        Err(_) if name.eq_ignore_ascii_case("UTC") => jiff::tz::TimeZone::UTC,
        Err(_) if db.is_definitively_empty() => {
            return Err(ToolError::new(format!(
                "no time zone database on this system to find `{name}` in (install the `tzdata` package, or \
                 build Lucid with its `tzdb-bundled` feature); UTC works without one"
            )));
        }
        Err(_) => {
            return Err(ToolError::new(format!("unknown time zone `{name}`; use an IANA name such as Europe/Paris")));
        }
    };
    let shown = tz.iana_name().unwrap_or(name).to_owned();
    let local = instant.to_zoned(tz);
    Ok(format!("{} ({shown}, {})", local.strftime("%Y-%m-%dT%H:%M:%S%:z"), local.strftime("%A")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn instant(s: &str) -> Timestamp {
        s.parse().unwrap()
    }

    #[test]
    fn formats_rfc3339_with_zone_and_weekday() {
        let t = instant("2024-07-01T12:34:56.789Z");
        assert_eq!(at("UTC", t).unwrap(), "2024-07-01T12:34:56+00:00 (UTC, Monday)");
        assert_eq!(at("Europe/Paris", t).unwrap(), "2024-07-01T14:34:56+02:00 (Europe/Paris, Monday)");
        assert_eq!(at("America/New_York", t).unwrap(), "2024-07-01T08:34:56-04:00 (America/New_York, Monday)");
        assert_eq!(at("Asia/Kolkata", t).unwrap(), "2024-07-01T18:04:56+05:30 (Asia/Kolkata, Monday)");
        // Winter time, and a day boundary crossed backwards.
        let t = instant("2024-01-01T03:00:00Z");
        assert_eq!(at("America/New_York", t).unwrap(), "2023-12-31T22:00:00-05:00 (America/New_York, Sunday)");
        // Links keep the name asked for.
        assert_eq!(at("US/Eastern", t).unwrap(), "2023-12-31T22:00:00-05:00 (US/Eastern, Sunday)");
    }

    #[test]
    fn utc_needs_no_database_and_a_missing_one_says_what_to_install() {
        let t = instant("2024-07-01T12:34:56Z");
        let none = jiff::tz::TimeZoneDatabase::none();
        assert_eq!(at_in(&none, "utc", t).unwrap(), "2024-07-01T12:34:56+00:00 (UTC, Monday)");
        let err = at_in(&none, "Europe/Paris", t).unwrap_err().to_string();
        assert!(err.contains("no time zone database") && err.contains("tzdata"), "{err}");
    }

    #[test]
    fn unknown_zone_is_a_tool_error() {
        let err = at("Mars/Olympus_Mons", Timestamp::UNIX_EPOCH).unwrap_err();
        assert!(err.to_string().contains("unknown time zone `Mars/Olympus_Mons`"), "{err}");
    }
}
