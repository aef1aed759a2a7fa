//! Tool names as providers accept them: `[A-Za-z0-9_-]`, at most 64 characters, unique.

use std::collections::HashMap;

/// The longest tool name any provider accepts (OpenAI's limit).
const MAX_LEN: usize = 64;

/// `name` with every character outside `[A-Za-z0-9_-]` replaced by `_`.
///
/// ```
/// assert_eq!(lucid_mcp::sanitize("get.weather now"), "get_weather_now");
/// ```
pub fn sanitize(name: &str) -> String {
    let s: String =
        name.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' || c == '-' { c } else { '_' }).collect();
    if s.is_empty() { "_".to_string() } else { s }
}

/// An 8-hex-digit FNV-1a hash of `text`: the same on every machine and every run.
fn short_hash(text: &str) -> String {
    let mut h: u32 = 0x811c_9dc5;
    for b in text.bytes() {
        h ^= u32::from(b);
        h = h.wrapping_mul(0x0100_0193);
    }
    format!("{h:08x}")
}

/// `name` cut to fit 64 characters with `_` and the hash of `original` after it.
fn with_hash(name: &str, original: &str) -> String {
    let hash = short_hash(original);
    let keep = MAX_LEN - hash.len() - 1;
    let cut: String = name.chars().take(keep).collect();
    format!("{cut}_{hash}")
}

/// The name the model sees for tool `tool` of server `server`: `{server}__{tool}` (or
/// just `{tool}` without a prefix), sanitised, and when too long, cut with a hash of the
/// original names so that two long names stay apart.
///
/// ```
/// assert_eq!(lucid_mcp::tool_name("everything", "get-sum", true), "everything__get-sum");
/// assert_eq!(lucid_mcp::tool_name("my server", "a.b", false), "a_b");
/// assert_eq!(lucid_mcp::tool_name("s", &"x".repeat(100), true).len(), 64);
/// ```
pub fn tool_name(server: &str, tool: &str, prefix: bool) -> String {
    let name = if prefix { format!("{}__{}", sanitize(server), sanitize(tool)) } else { sanitize(tool) };
    if name.len() <= MAX_LEN { name } else { with_hash(&name, &format!("{server}\u{0}{tool}")) }
}

/// Makes the names in `names` unique, in order: a name seen before gets the hash of its
/// server and original tool name (`key`) appended. Returns the final names.
pub(crate) fn dedupe(names: Vec<(String, String)>) -> Vec<String> {
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut out = Vec::with_capacity(names.len());
    for (name, key) in names {
        let mut final_name = name.clone();
        let mut salt = 0u32;
        while seen.contains_key(&final_name) {
            let original = if salt == 0 { key.clone() } else { format!("{key}\u{0}{salt}") };
            final_name = with_hash(&name, &original);
            salt += 1;
        }
        seen.insert(final_name.clone(), out.len());
        out.push(final_name);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sanitised_names_pass_tool_spec_validation() {
        for (server, tool) in [("a b", "c/d"), ("ünï", "çödé"), ("", ""), ("s", &"y".repeat(200))] {
            let name = tool_name(server, tool, true);
            assert!(lucid::ToolSpec::new(name.clone(), "", serde_json::json!({})).is_ok(), "{name}");
        }
    }

    #[test]
    fn long_names_that_share_a_prefix_stay_distinct() {
        let a = tool_name("s", &format!("{}a", "x".repeat(80)), true);
        let b = tool_name("s", &format!("{}b", "x".repeat(80)), true);
        assert_ne!(a, b);
        assert_eq!(a.len(), 64);
    }

    #[test]
    fn dedupe_keeps_the_first_and_hashes_the_rest_deterministically() {
        let names = vec![("x".to_string(), "s1\0x".to_string()), ("x".to_string(), "s2\0x".to_string())];
        let out = dedupe(names.clone());
        assert_eq!(out[0], "x");
        assert!(out[1].starts_with("x_") && out[1].len() == 10, "{}", out[1]);
        assert_eq!(out, dedupe(names));
    }
}
