//! JSON values seen as Python sees them once pydantic-evals has read a dataset: `==`,
//! `in`, `str()`, `repr()` and type names, so the shared judges give its verdicts and its
//! reasons.

use serde_json::Value;

/// Equality as Python's `==` on JSON values: numbers by value (`1 == 1.0`), and a bool
/// as the int it is (`True == 1`).
pub(crate) fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x == y || x.as_f64().zip(y.as_f64()).is_some_and(|(x, y)| x == y),
        (Value::Bool(x), Value::Number(n)) | (Value::Number(n), Value::Bool(x)) => {
            n.as_f64() == Some(if *x { 1.0 } else { 0.0 })
        }
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same(x, y)),
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

/// pydantic-evals' `Contains`: the reason it fails, `None` when it passes.
pub(crate) fn contains(output: &Value, value: &Value, case_sensitive: bool, as_strings: bool) -> Option<String> {
    if as_strings || (output.is_string() && value.is_string()) {
        let (mut out, mut want) = (py_str(output), py_str(value));
        if !case_sensitive {
            (out, want) = (out.to_lowercase(), want.to_lowercase());
        }
        return (!out.contains(&want)).then(|| {
            format!(
                "Output string {} does not contain expected string {}",
                truncated(&py_repr(&Value::String(out)), 100),
                truncated(&py_repr(&Value::String(want)), 100)
            )
        });
    }
    match (output, value) {
        (Value::Object(out), Value::Object(want)) => want.iter().find_map(|(k, v)| {
            let key = truncated(&py_repr(&Value::String(k.clone())), 30);
            match out.get(k) {
                None => Some(format!("Output does not contain expected key {key}")),
                Some(o) if !same(o, v) => Some(format!(
                    "Output has different value for key {key}: {} != {}",
                    truncated(&py_repr(o), 100),
                    truncated(&py_repr(v), 100)
                )),
                Some(_) => None,
            }
        }),
        (Value::Object(_), Value::Array(_)) => Some("Containment check failed: unhashable type: 'list'".into()),
        (Value::Object(out), _) => {
            let is_key = value.as_str().is_some_and(|k| out.contains_key(k));
            (!is_key).then(|| {
                format!("Output {} does not contain provided value as a key", truncated(&py_repr(output), 200))
            })
        }
        (Value::Array(items), _) => (!items.iter().any(|i| same(i, value)))
            .then(|| format!("Output {} does not contain provided value", truncated(&py_repr(output), 200))),
        (Value::String(_), _) => Some(format!(
            "Containment check failed: 'in <string>' requires string as left operand, not {}",
            python_type(value)
        )),
        _ => Some(format!("Containment check failed: argument of type '{}' is not iterable", python_type(output))),
    }
}

/// The Python type name of a JSON value, as pydantic-evals would see it.
pub(crate) fn python_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "NoneType",
        Value::Bool(_) => "bool",
        Value::Number(n) if n.is_f64() => "float",
        Value::Number(_) => "int",
        Value::String(_) => "str",
        Value::Array(_) => "list",
        Value::Object(_) => "dict",
    }
}

/// Whether a value is an instance of the type named, as Python's `isinstance` on its type's
/// ancestry: a bool is an int, and everything is an object.
pub(crate) fn is_instance(v: &Value, type_name: &str) -> bool {
    let of = python_type(v);
    of == type_name || (of == "bool" && type_name == "int") || type_name == "object"
}

/// Python's `str()` of a value: text as it is, anything else as its `repr()`.
pub(crate) fn py_str(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => py_repr(other),
    }
}

/// Python's `repr()` of a value (`{'a': [1, 2.5, True, None]}`).
pub(crate) fn py_repr(v: &Value) -> String {
    match v {
        Value::Null => "None".into(),
        Value::Bool(true) => "True".into(),
        Value::Bool(false) => "False".into(),
        Value::Number(n) if n.is_f64() => match n.as_f64() {
            Some(f) if f.is_finite() && f == f.trunc() && f.abs() < 1e16 => format!("{f:.1}"),
            _ => n.to_string(),
        },
        Value::Number(n) => n.to_string(),
        Value::String(s) => {
            // Single quotes, unless the text holds one and no double quote.
            let quote = if s.contains('\'') && !s.contains('"') { '"' } else { '\'' };
            let mut out = String::with_capacity(s.len() + 2);
            out.push(quote);
            for c in s.chars() {
                match c {
                    '\\' => out.push_str("\\\\"),
                    '\n' => out.push_str("\\n"),
                    '\r' => out.push_str("\\r"),
                    '\t' => out.push_str("\\t"),
                    c if c == quote => {
                        out.push('\\');
                        out.push(c);
                    }
                    c => out.push(c),
                }
            }
            out.push(quote);
            out
        }
        Value::Array(items) => format!("[{}]", items.iter().map(py_repr).collect::<Vec<_>>().join(", ")),
        Value::Object(m) => format!(
            "{{{}}}",
            m.iter()
                .map(|(k, v)| format!("{}: {}", py_repr(&Value::String(k.clone())), py_repr(v)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// pydantic-evals' `_truncated_repr`: past `max` characters, the first and last halves
/// around `...`.
pub(crate) fn truncated(repr: &str, max: usize) -> String {
    let count = repr.chars().count();
    if count <= max {
        return repr.to_string();
    }
    let head: String = repr.chars().take(max / 2).collect();
    let tail: String = repr.chars().skip(count - max / 2).collect();
    format!("{head}...{tail}")
}

/// The output as text: a string as it is, anything else as JSON.
pub(crate) fn as_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// A number, or text that reads as one.
pub(crate) fn number(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn values_are_written_as_python_writes_them() {
        // Keys in sorted order: a map keeps either order, by serde_json's features in the build.
        let v = json!({"a": [1, 2.5, 3.0, true, null], "b": "it's", "it's": "say \"hi\""});
        assert_eq!(py_repr(&v), r#"{'a': [1, 2.5, 3.0, True, None], 'b': "it's", "it's": 'say "hi"'}"#);
        assert_eq!(py_repr(&json!("it's \"x\"\n")), r#"'it\'s "x"\n'"#, "both quotes");
        assert_eq!(py_str(&json!("x")), "x");
        assert_eq!(py_str(&json!([1, "x"])), "[1, 'x']");
        assert_eq!(truncated("abcdefghij", 6), "abc...hij");
        assert_eq!(truncated("abc", 6), "abc");
    }

    #[test]
    fn python_equality_and_types() {
        assert!(same(&json!(true), &json!(1)) && same(&json!(0.0), &json!(false)));
        assert!(!same(&json!(true), &json!("true")));
        assert!(is_instance(&json!(true), "int") && is_instance(&json!([1]), "object"));
        assert!(!is_instance(&json!(1), "bool"));
    }

    #[test]
    fn containment_fails_as_python_does() {
        assert_eq!(
            contains(&json!(null), &json!("x"), true, false).as_deref(),
            Some("Containment check failed: argument of type 'NoneType' is not iterable")
        );
        assert_eq!(
            contains(&json!("abc"), &json!(1), true, false).as_deref(),
            Some("Containment check failed: 'in <string>' requires string as left operand, not int")
        );
        assert_eq!(
            contains(&json!({"a": 1}), &json!({"a": 2}), true, false).as_deref(),
            Some("Output has different value for key 'a': 1 != 2")
        );
        assert_eq!(contains(&json!([1, 2]), &json!("1, 2"), true, true), None, "str() of a list");
        assert!(contains(&json!({"a": 1}), &json!([1]), true, false).unwrap().contains("unhashable"));
    }
}
