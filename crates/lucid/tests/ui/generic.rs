use lucid::prelude::*;

/// A generic tool has no schema.
#[tool]
fn identity<T: serde::Serialize>(value: T) -> T {
    value
}

fn main() {}
