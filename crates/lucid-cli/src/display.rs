//! Text shown on the terminal by `lucid run` and `lucid chat`.

/// `s` on one line (runs of whitespace, newlines included, become one space), cut to `n`
/// characters with an ellipsis.
pub fn truncate(s: &str, n: usize) -> String {
    let one_line = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.chars().count() > n { format!("{}…", one_line.chars().take(n).collect::<String>()) } else { one_line }
}

#[cfg(test)]
mod tests {
    #[test]
    fn one_line_cut_with_an_ellipsis() {
        assert_eq!(super::truncate("a\r\n  b\tc", 10), "a b c");
        assert_eq!(super::truncate("abcdef", 3), "abc…");
    }
}
