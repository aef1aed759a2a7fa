use lucid::prelude::*;

/// Arguments come from JSON, so they must be owned.
#[tool]
fn echo(text: &str) -> String {
    text.to_string()
}

fn main() {}
