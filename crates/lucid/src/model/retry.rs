//! The one retry policy (DESIGN promise 6).
//!
//! Rate limits (429), overload and server errors (5xx, 529) and connection failures are
//! retried with full-jitter exponential backoff; when the provider says how long to wait
//! (`retry-after-ms`, `Retry-After` in seconds or as an HTTP date, `x-ratelimit-reset-*`,
//! or a body field such as Gemini's `retryDelay`), that wait is honoured. Exhausted quota
//! and other 4xx errors are not retried. Streams are never retried once the answer has
//! begun: that decision lives in the transport, which only calls this before a body.

use std::time::{Duration, SystemTime};

use reqwest::header::HeaderMap;

/// How many times and how long to retry.
///
/// ```
/// use std::time::Duration;
/// use lucid::model::retry::RetryPolicy;
/// let p = RetryPolicy::default();
/// // A provider-requested wait is used as given (plus up to 10% jitter).
/// let d = p.delay(0, Some(Duration::from_secs(2)));
/// assert!(d >= Duration::from_secs(2) && d <= Duration::from_millis(2200));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Retries after the first attempt (0 disables retrying).
    pub max_retries: u32,
    /// Backoff ceiling of the first retry; doubles each retry.
    pub initial_backoff: Duration,
    /// Upper bound of the computed backoff.
    pub max_backoff: Duration,
    /// A provider asking to wait longer than this is not retried: the error is returned.
    pub max_wait: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_retries: 3,
            initial_backoff: Duration::from_millis(500),
            max_backoff: Duration::from_secs(20),
            max_wait: Duration::from_secs(60),
        }
    }
}

impl RetryPolicy {
    /// No retries at all.
    pub fn none() -> Self {
        RetryPolicy { max_retries: 0, ..Default::default() }
    }

    /// The wait before retry number `attempt` (0-based).
    pub fn delay(&self, attempt: u32, asked: Option<Duration>) -> Duration {
        if let Some(asked) = asked {
            let jitter = asked.mul_f64(fastrand::f64() * 0.1);
            return asked + jitter;
        }
        let ceiling = self.initial_backoff.saturating_mul(1u32 << attempt.min(16)).min(self.max_backoff);
        ceiling.mul_f64(fastrand::f64())
    }
}

/// The wait a response's headers ask for, if any.
///
/// ```
/// use reqwest::header::{HeaderMap, HeaderValue};
/// use std::time::{Duration, SystemTime};
/// let mut h = HeaderMap::new();
/// h.insert("x-ratelimit-reset-tokens", HeaderValue::from_static("6m0s"));
/// h.insert("x-ratelimit-reset-requests", HeaderValue::from_static("1.5s"));
/// assert_eq!(lucid::model::retry::retry_after(&h, SystemTime::now()), Some(Duration::from_secs(360)));
/// ```
pub fn retry_after(headers: &HeaderMap, now: SystemTime) -> Option<Duration> {
    let get = |name: &str| headers.get(name).and_then(|v| v.to_str().ok()).map(str::trim);
    if let Some(ms) = get("retry-after-ms").and_then(|v| v.parse::<f64>().ok()) {
        return Some(Duration::from_secs_f64(ms.max(0.0) / 1000.0));
    }
    if let Some(v) = get("retry-after") {
        if let Ok(secs) = v.parse::<f64>() {
            return Some(Duration::from_secs_f64(secs.max(0.0)));
        }
        if let Ok(at) = httpdate::parse_http_date(v) {
            return Some(at.duration_since(now).unwrap_or(Duration::ZERO));
        }
    }
    ["x-ratelimit-reset-requests", "x-ratelimit-reset-tokens", "x-ratelimit-reset"]
        .into_iter()
        .filter_map(|n| get(n).and_then(parse_go_duration))
        .max()
}

/// Parses durations as OpenAI sends them in `x-ratelimit-reset-*`: `20ms`, `1.5s`,
/// `6m0s`, `1h2m3s`, or a bare number of seconds.
///
/// ```
/// use std::time::Duration;
/// use lucid::model::retry::parse_go_duration;
/// assert_eq!(parse_go_duration("1h2m3.5s"), Some(Duration::from_secs_f64(3723.5)));
/// assert_eq!(parse_go_duration("20ms"), Some(Duration::from_millis(20)));
/// assert_eq!(parse_go_duration("soon"), None);
/// ```
pub fn parse_go_duration(s: &str) -> Option<Duration> {
    if let Ok(secs) = s.parse::<f64>() {
        return (secs >= 0.0).then(|| Duration::from_secs_f64(secs));
    }
    let mut total = 0f64;
    let mut rest = s;
    if rest.is_empty() {
        return None;
    }
    while !rest.is_empty() {
        let num_end = rest.find(|c: char| !(c.is_ascii_digit() || c == '.'))?;
        let value: f64 = rest[..num_end].parse().ok()?;
        rest = &rest[num_end..];
        let unit_end = rest.find(|c: char| c.is_ascii_digit() || c == '.').unwrap_or(rest.len());
        let scale = match &rest[..unit_end] {
            "h" => 3600.0,
            "m" => 60.0,
            "s" => 1.0,
            "ms" => 0.001,
            "us" | "µs" => 0.000_001,
            "ns" => 0.000_000_001,
            _ => return None,
        };
        total += value * scale;
        rest = &rest[unit_end..];
    }
    Some(Duration::from_secs_f64(total))
}

/// Parses a google.rpc `retryDelay` such as `"26s"` or `"0.5s"`.
pub fn parse_proto_duration(s: &str) -> Option<Duration> {
    s.strip_suffix('s').and_then(|n| n.parse::<f64>().ok()).filter(|n| *n >= 0.0).map(Duration::from_secs_f64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::HeaderValue;

    #[test]
    fn retry_after_http_date_is_relative_to_now() {
        let now = httpdate::parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT").unwrap();
        let mut h = HeaderMap::new();
        h.insert("retry-after", HeaderValue::from_static("Sun, 06 Nov 1994 08:49:40 GMT"));
        assert_eq!(retry_after(&h, now), Some(Duration::from_secs(3)));
    }

    #[test]
    fn retry_after_ms_wins_over_seconds() {
        let mut h = HeaderMap::new();
        h.insert("retry-after", HeaderValue::from_static("7"));
        h.insert("retry-after-ms", HeaderValue::from_static("250"));
        assert_eq!(retry_after(&h, SystemTime::now()), Some(Duration::from_millis(250)));
    }

    #[test]
    fn backoff_grows_but_stays_under_the_cap() {
        let p = RetryPolicy::default();
        for attempt in 0..20 {
            assert!(p.delay(attempt, None) <= p.max_backoff);
        }
    }
}
