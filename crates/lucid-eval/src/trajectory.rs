//! Scoring the tool calls an agent made against the calls expected: exactly, in order, in
//! any order, or with F1 partial credit for each call's name and arguments.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One tool call: made by the agent, or expected of it. An expected call's `arguments`
/// are the ones that must match (others the agent gave are free); none means any.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Call {
    /// The tool's name.
    pub name: String,
    /// Its arguments (an object).
    #[serde(default)]
    pub arguments: Option<Value>,
}

impl Call {
    /// A call of `name` with `arguments`.
    pub fn new(name: impl Into<String>, arguments: Value) -> Self {
        Call { name: name.into(), arguments: Some(arguments) }
    }
}

/// How the calls made are held against the calls expected.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Match {
    /// The same calls, in the same order, no more.
    Exact,
    /// The expected calls, in their order, others allowed between them.
    InOrder,
    /// The expected calls, in any order, others allowed.
    #[default]
    AnyOrder,
    /// F1 of precision and recall, a call counted half for its name and half for the
    /// share of its expected arguments given.
    F1,
}

/// The credit a made call earns for an expected one: 0 for another tool; else half for the
/// name and half for the share of expected arguments it gives as expected.
fn credit(made: &Call, expected: &Call) -> f64 {
    if made.name != expected.name {
        return 0.0;
    }
    let Some(Value::Object(want)) = &expected.arguments else { return 1.0 };
    if want.is_empty() {
        return 1.0;
    }
    let given = match &made.arguments {
        Some(Value::Object(m)) => want.iter().filter(|(k, v)| m.get(*k) == Some(v)).count(),
        _ => 0,
    };
    0.5 + 0.5 * given as f64 / want.len() as f64
}

/// The score in [0, 1] of `made` against `expected`, and a reason when it is not 1.
pub(crate) fn score(made: &[Call], expected: &[Call], how: Match) -> (f64, Option<String>) {
    let full = |m: &Call, e: &Call| credit(m, e) >= 1.0;
    match how {
        Match::Exact => {
            let ok = made.len() == expected.len() && made.iter().zip(expected).all(|(m, e)| full(m, e));
            let why = format!("the calls made ({}) are not the calls expected ({})", names(made), names(expected));
            (if ok { 1.0 } else { 0.0 }, (!ok).then_some(why))
        }
        Match::InOrder => {
            let mut rest = made.iter();
            let missing = expected.iter().find(|e| !rest.any(|m| full(m, e)));
            let why =
                missing.map(|e| format!("`{}` was not called as expected, in order, in ({})", e.name, names(made)));
            (if why.is_none() { 1.0 } else { 0.0 }, why)
        }
        Match::AnyOrder => {
            let mut used = vec![false; made.len()];
            for e in expected {
                match (0..made.len()).find(|&i| !used[i] && full(&made[i], e)) {
                    Some(i) => used[i] = true,
                    None => {
                        return (0.0, Some(format!("`{}` was not called as expected in ({})", e.name, names(made))));
                    }
                }
            }
            (1.0, None)
        }
        Match::F1 => {
            if made.is_empty() && expected.is_empty() {
                return (1.0, None);
            }
            // Greedy pairing, best credit first.
            let mut pairs: Vec<(f64, usize, usize)> = Vec::new();
            for (i, m) in made.iter().enumerate() {
                for (j, e) in expected.iter().enumerate() {
                    let c = credit(m, e);
                    if c > 0.0 {
                        pairs.push((c, i, j));
                    }
                }
            }
            pairs.sort_by(|a, b| b.0.total_cmp(&a.0));
            let (mut made_used, mut expected_used) = (vec![false; made.len()], vec![false; expected.len()]);
            let mut earned = 0.0;
            for (c, i, j) in pairs {
                if !made_used[i] && !expected_used[j] {
                    (made_used[i], expected_used[j]) = (true, true);
                    earned += c;
                }
            }
            let precision = if made.is_empty() { 0.0 } else { earned / made.len() as f64 };
            let recall = if expected.is_empty() { 0.0 } else { earned / expected.len() as f64 };
            let f1 = if precision + recall == 0.0 { 0.0 } else { 2.0 * precision * recall / (precision + recall) };
            let why = (f1 < 1.0)
                .then(|| format!("precision {precision:.2}, recall {recall:.2} of the calls ({})", names(made)));
            (f1, why)
        }
    }
}

fn names(calls: &[Call]) -> String {
    if calls.is_empty() {
        return "none".into();
    }
    calls.iter().map(|c| c.name.as_str()).collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn call(name: &str, args: Value) -> Call {
        Call::new(name, args)
    }

    #[test]
    fn each_way_of_matching() {
        let made =
            [call("search", json!({"q": "rust", "n": 5})), call("read", json!({"id": 1})), call("add", json!({}))];
        let expected = [call("read", json!({"id": 1})), call("search", json!({"q": "rust"}))];
        assert_eq!(score(&made, &expected, Match::AnyOrder).0, 1.0, "extra arguments and calls are free");
        assert_eq!(score(&made, &expected, Match::InOrder).0, 0.0, "read came after search");
        assert_eq!(score(&made[..2], &[expected[1].clone(), expected[0].clone()], Match::InOrder).0, 1.0);
        assert_eq!(score(&made, &expected, Match::Exact).0, 0.0);
        assert_eq!(score(&made[..2], &made[..2], Match::Exact).0, 1.0);
        // F1: 2 of 3 made calls match fully, both expected found: p = 2/3, r = 1.
        let (f1, why) = score(&made, &expected, Match::F1);
        assert!((f1 - 0.8).abs() < 1e-9, "{f1}");
        assert!(why.unwrap().contains("precision 0.67"));
        // Half credit for the name, a quarter for one of two arguments.
        let (f1, _) = score(
            &[call("search", json!({"q": "go", "n": 5}))],
            &[call("search", json!({"q": "rust", "n": 5}))],
            Match::F1,
        );
        assert!((f1 - 0.75).abs() < 1e-9, "{f1}");
        assert_eq!(score(&[], &[], Match::F1).0, 1.0);
        assert_eq!(score(&[], &expected, Match::F1).0, 0.0);
    }
}
