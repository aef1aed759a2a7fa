//! One case attempt's tape: the exchanges recorded, or the ones to replay and how far the
//! replay got. No I/O here: the server feeds it requests.

use serde_json::Value;

use super::Exchange;

/// A tape being recorded or replayed.
#[derive(Debug, Default)]
pub(super) struct Tape {
    /// What to replay, in order (`None` when recording).
    pub(super) recorded: Option<Vec<Exchange>>,
    /// The exchanges that happened (recorded, or replayed as they matched).
    pub(super) taken: Vec<Exchange>,
    /// The first request that did not match, and how.
    pub(super) mismatch: Option<String>,
}

impl Tape {
    /// The recorded answer to this request, or why there is none (and the tape keeps that).
    pub(super) fn replay(&mut self, method: &str, path: &str, request: &Value) -> Result<Exchange, String> {
        if let Some(m) = &self.mismatch {
            return Err(format!("an earlier request of this case did not match its cassette: {m}"));
        }
        let recorded = self.recorded.as_deref().unwrap_or_default();
        let n = self.taken.len();
        let why = match recorded.get(n) {
            None => Some(format!(
                "request {} ({method} {path}) is not on the cassette, which has {} exchange{}",
                n + 1,
                recorded.len(),
                if recorded.len() == 1 { "" } else { "s" }
            )),
            Some(e) if e.method != method || e.path != path => {
                Some(format!("request {} goes to {method} {path}; the cassette has {} {}", n + 1, e.method, e.path))
            }
            Some(e) => first_difference(&e.request, request, String::new())
                .map(|d| format!("request {} to {path} differs from the cassette's at {d}", n + 1)),
        };
        match why {
            Some(why) => {
                self.mismatch = Some(why.clone());
                Err(why)
            }
            None => {
                let e = recorded[n].clone();
                self.taken.push(e.clone());
                Ok(e)
            }
        }
    }

    /// Why the tape does not match once the attempt is over: a request that differed, or
    /// recorded exchanges the run never asked for.
    pub(super) fn verdict(&self) -> Option<String> {
        if let Some(m) = &self.mismatch {
            return Some(m.clone());
        }
        let recorded = self.recorded.as_ref()?.len();
        (self.taken.len() < recorded).then(|| {
            format!(
                "the run made {} request{} and the cassette has {recorded}: the agent stopped earlier than when it was recorded",
                self.taken.len(),
                if self.taken.len() == 1 { "" } else { "s" }
            )
        })
    }
}

/// Where two JSON values first differ, as a JSON pointer with both sides shortened
/// (`None` when they are equal).
pub(super) fn first_difference(recorded: &Value, now: &Value, at: String) -> Option<String> {
    match (recorded, now) {
        (Value::Object(a), Value::Object(b)) => {
            let mut keys: Vec<&String> = a.keys().chain(b.keys()).collect();
            keys.sort();
            keys.dedup();
            keys.into_iter().find_map(|k| {
                let here = format!("{at}/{}", k.replace('~', "~0").replace('/', "~1"));
                match (a.get(k), b.get(k)) {
                    (Some(x), Some(y)) => first_difference(x, y, here),
                    (Some(x), None) => Some(format!("{here}: recorded {}, now absent", short(x))),
                    (None, Some(y)) => Some(format!("{here}: absent when recorded, now {}", short(y))),
                    (None, None) => None,
                }
            })
        }
        (Value::Array(a), Value::Array(b)) => {
            let common =
                a.iter().zip(b).enumerate().find_map(|(i, (x, y))| first_difference(x, y, format!("{at}/{i}")));
            common.or_else(|| {
                (a.len() != b.len()).then(|| {
                    format!("{}: {} items recorded, {} now", if at.is_empty() { "/" } else { &at }, a.len(), b.len())
                })
            })
        }
        // Numbers compare by value (1 and 1.0 are the same number in JSON).
        (Value::Number(a), Value::Number(b)) if a.as_f64() == b.as_f64() => None,
        (a, b) if a == b => None,
        (a, b) => Some(format!("{}: recorded {}, now {}", if at.is_empty() { "/" } else { &at }, short(a), short(b))),
    }
}

/// A value's JSON, cut to 120 characters.
fn short(v: &Value) -> String {
    let s = v.to_string();
    match s.char_indices().nth(120) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn exchange(body: Value) -> Exchange {
        Exchange {
            method: "POST".into(),
            path: "/chat/completions".into(),
            request: body,
            status: 200,
            content_type: None,
            response: "{}".into(),
        }
    }

    #[test]
    fn differences_are_named_by_their_json_pointer() {
        let a = json!({"model": "m", "messages": [{"role": "user", "content": "hi"}], "n": 1});
        assert_eq!(first_difference(&a, &a.clone(), String::new()), None);
        assert_eq!(first_difference(&json!({"n": 1}), &json!({"n": 1.0}), String::new()), None);
        let b = json!({"model": "m", "messages": [{"role": "user", "content": "hello"}], "n": 1});
        assert_eq!(
            first_difference(&a, &b, String::new()).unwrap(),
            "/messages/0/content: recorded \"hi\", now \"hello\""
        );
        let c = json!({"model": "m", "messages": [{"role": "user", "content": "hi"}, {"role": "user", "content": "x"}], "n": 1});
        assert_eq!(first_difference(&a, &c, String::new()).unwrap(), "/messages: 1 items recorded, 2 now");
        assert_eq!(
            first_difference(&json!({"a/b": 1}), &json!({}), String::new()).unwrap(),
            "/a~1b: recorded 1, now absent"
        );
        let long = json!("x".repeat(500));
        assert!(first_difference(&long, &json!(1), String::new()).unwrap().ends_with("…, now 1"));
    }

    #[test]
    fn a_replay_answers_in_order_and_stops_at_the_first_mismatch() {
        let mut tape =
            Tape { recorded: Some(vec![exchange(json!({"q": 1})), exchange(json!({"q": 2}))]), ..Tape::default() };
        assert!(tape.replay("POST", "/chat/completions", &json!({"q": 1})).is_ok());
        assert_eq!(
            tape.verdict().unwrap(),
            "the run made 1 request and the cassette has 2: the agent stopped earlier than when it was recorded"
        );
        let why = tape.replay("POST", "/chat/completions", &json!({"q": 3})).unwrap_err();
        assert_eq!(why, "request 2 to /chat/completions differs from the cassette's at /q: recorded 2, now 3");
        // Later requests are refused with the first mismatch, which stays the verdict.
        assert!(tape.replay("POST", "/chat/completions", &json!({"q": 2})).unwrap_err().contains("earlier request"));
        assert_eq!(tape.verdict().unwrap(), why);
    }

    #[test]
    fn a_request_past_the_end_or_to_another_path_is_a_mismatch() {
        let mut tape = Tape { recorded: Some(vec![exchange(json!({}))]), ..Tape::default() };
        let why = tape.replay("POST", "/messages", &json!({})).unwrap_err();
        assert_eq!(why, "request 1 goes to POST /messages; the cassette has POST /chat/completions");
        let mut tape = Tape { recorded: Some(vec![]), ..Tape::default() };
        let why = tape.replay("POST", "/chat/completions", &json!({})).unwrap_err();
        assert_eq!(why, "request 1 (POST /chat/completions) is not on the cassette, which has 0 exchanges");
        let done = Tape { recorded: Some(vec![]), ..Tape::default() };
        assert_eq!(done.verdict(), None);
    }
}
