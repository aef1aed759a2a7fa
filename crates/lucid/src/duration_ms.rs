//! Durations in JSON as milliseconds (`duration_ms` fields), for every result type.

use std::time::Duration;

/// A duration as a float number of milliseconds.
pub(crate) fn millis<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64(d.as_secs_f64() * 1000.0)
}

/// [`millis`], or `null` for none.
pub(crate) fn optional_millis<S: serde::Serializer>(d: &Option<Duration>, s: S) -> Result<S::Ok, S::Error> {
    match d {
        Some(d) => millis(d, s),
        None => s.serialize_none(),
    }
}
