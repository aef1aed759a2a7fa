//! Durations in JSON as milliseconds (`duration_ms` fields), for every result type: the
//! serializers Lucid's own results use, for result types written outside the crate to
//! read the same.
//!
//! ```
//! use std::time::Duration;
//! #[derive(serde::Serialize)]
//! struct Step {
//!     #[serde(serialize_with = "lucid::duration_ms::millis")]
//!     duration_ms: Duration,
//! }
//! let json = serde_json::to_value(Step { duration_ms: Duration::from_micros(1500) }).unwrap();
//! assert_eq!(json["duration_ms"], 1.5);
//! ```

use std::time::Duration;

/// A duration as a float number of milliseconds.
pub fn millis<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64(d.as_secs_f64() * 1000.0)
}

/// [`millis`], or `null` for none.
pub fn optional_millis<S: serde::Serializer>(d: &Option<Duration>, s: S) -> Result<S::Ok, S::Error> {
    match d {
        Some(d) => millis(d, s),
        None => s.serialize_none(),
    }
}
