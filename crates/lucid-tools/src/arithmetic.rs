//! Arithmetic with a real parser: no code is evaluated.

use lucid::tool;
use lucid::tool::ToolError;

/// Evaluates an arithmetic expression: + - * / % ^ ** (power), parentheses, unary minus,
/// decimals. Example: "(2 + 3) * 4 ^ 0.5".
#[tool]
pub fn calculator(
    /// The expression to evaluate, e.g. "(2 + 3) * 4".
    expression: String,
) -> Result<String, ToolError> {
    evaluate(&expression).map(format_number)
}

fn format_number(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 { format!("{}", x as i64) } else { format!("{x}") }
}

/// Evaluates an expression the way the `calculator` tool does.
///
/// ```
/// use lucid_tools::evaluate;
/// assert_eq!(evaluate("2 + 3 * 4").unwrap(), 14.0);
/// assert_eq!(evaluate("-2 ^ 2").unwrap(), -4.0);
/// assert_eq!(evaluate("2 ** 3 ** 2").unwrap(), 512.0);
/// assert!(evaluate("1 / 0").is_err());
/// ```
pub fn evaluate(expression: &str) -> Result<f64, ToolError> {
    let mut p = Parser { src: expression.as_bytes(), pos: 0 };
    let value = p.expr()?;
    p.skip_ws();
    if p.pos < p.src.len() {
        return Err(p.unexpected());
    }
    if !value.is_finite() {
        return Err(ToolError::new("the result is not a finite number"));
    }
    Ok(value)
}

struct Parser<'a> {
    src: &'a [u8],
    pos: usize,
}

impl Parser<'_> {
    fn skip_ws(&mut self) {
        while self.pos < self.src.len() && self.src[self.pos].is_ascii_whitespace() {
            self.pos += 1;
        }
    }

    fn peek(&mut self) -> Option<u8> {
        self.skip_ws();
        self.src.get(self.pos).copied()
    }

    fn eat(&mut self, token: &str) -> bool {
        self.skip_ws();
        if self.src[self.pos..].starts_with(token.as_bytes()) {
            self.pos += token.len();
            true
        } else {
            false
        }
    }

    fn unexpected(&self) -> ToolError {
        match self.src.get(self.pos) {
            Some(_) => {
                let rest = String::from_utf8_lossy(&self.src[self.pos..]);
                let c = rest.chars().next().unwrap_or('?');
                ToolError::new(format!("unexpected `{c}` at position {}", self.pos + 1))
            }
            None => ToolError::new("the expression ended too early"),
        }
    }

    fn expr(&mut self) -> Result<f64, ToolError> {
        let mut acc = self.term()?;
        loop {
            if self.eat("+") {
                acc += self.term()?;
            } else if self.eat("-") {
                acc -= self.term()?;
            } else {
                return Ok(acc);
            }
        }
    }

    fn term(&mut self) -> Result<f64, ToolError> {
        let mut acc = self.unary()?;
        loop {
            if self.peek() == Some(b'*') && self.src.get(self.pos + 1) != Some(&b'*') {
                self.pos += 1;
                acc *= self.unary()?;
            } else if self.eat("/") {
                let d = self.unary()?;
                if d == 0.0 {
                    return Err(ToolError::new("division by zero"));
                }
                acc /= d;
            } else if self.eat("%") {
                let d = self.unary()?;
                if d == 0.0 {
                    return Err(ToolError::new("modulo by zero"));
                }
                acc %= d;
            } else {
                return Ok(acc);
            }
        }
    }

    fn unary(&mut self) -> Result<f64, ToolError> {
        if self.eat("-") {
            return Ok(-self.unary()?);
        }
        if self.eat("+") {
            return self.unary();
        }
        self.power()
    }

    fn power(&mut self) -> Result<f64, ToolError> {
        let base = self.primary()?;
        if self.eat("**") || self.eat("^") {
            let exp = self.unary()?;
            return Ok(base.powf(exp));
        }
        Ok(base)
    }

    fn primary(&mut self) -> Result<f64, ToolError> {
        if self.eat("(") {
            let v = self.expr()?;
            if !self.eat(")") {
                return Err(match self.peek() {
                    Some(_) => self.unexpected(),
                    None => ToolError::new("missing `)`"),
                });
            }
            return Ok(v);
        }
        self.skip_ws();
        let start = self.pos;
        while self.pos < self.src.len() && (self.src[self.pos].is_ascii_digit() || self.src[self.pos] == b'.') {
            self.pos += 1;
        }
        if self.pos < self.src.len() && matches!(self.src[self.pos], b'e' | b'E') {
            let mut end = self.pos + 1;
            if matches!(self.src.get(end), Some(b'+' | b'-')) {
                end += 1;
            }
            if self.src.get(end).is_some_and(u8::is_ascii_digit) && self.pos > start {
                self.pos = end;
                while self.pos < self.src.len() && self.src[self.pos].is_ascii_digit() {
                    self.pos += 1;
                }
            }
        }
        if start == self.pos {
            return Err(self.unexpected());
        }
        let text = std::str::from_utf8(&self.src[start..self.pos]).unwrap_or("");
        text.parse::<f64>().map_err(|_| ToolError::new(format!("`{text}` is not a number")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn precedence_and_associativity() {
        for (src, want) in [
            ("1 - 2 - 3", -4.0),
            ("2 * (3 + 4)", 14.0),
            ("7 % 4", 3.0),
            ("2 ^ -1", 0.5),
            ("(-2) ^ 2", 4.0),
            (".5 + 1.25", 1.75),
            ("1e3 / 4", 250.0),
            ("--3", 3.0),
        ] {
            assert_eq!(evaluate(src).unwrap(), want, "{src}");
        }
    }

    #[test]
    fn errors_say_where() {
        assert_eq!(evaluate("2 + x").unwrap_err().to_string(), "unexpected `x` at position 5");
        assert_eq!(evaluate("(1 + 2").unwrap_err().to_string(), "missing `)`");
        assert_eq!(evaluate("3 % 0").unwrap_err().to_string(), "modulo by zero");
        assert_eq!(evaluate("").unwrap_err().to_string(), "the expression ended too early");
        assert!(evaluate("__import__('os')").is_err());
    }

    #[test]
    fn integers_print_without_fraction() {
        assert_eq!(format_number(5.0), "5");
        assert_eq!(format_number(2.5), "2.5");
    }
}
