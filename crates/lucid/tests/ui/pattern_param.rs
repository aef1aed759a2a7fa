use lucid::prelude::*;

/// Parameters need names: they become the schema's properties.
#[tool]
fn sum((a, b): (i64, i64)) -> i64 {
    a + b
}

fn main() {}
