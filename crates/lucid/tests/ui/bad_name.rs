use lucid::prelude::*;

/// Spaces are not allowed in tool names.
#[tool(name = "get weather")]
fn weather(city: String) -> String {
    city
}

fn main() {}
