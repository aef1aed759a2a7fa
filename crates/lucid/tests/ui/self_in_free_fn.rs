use lucid::prelude::*;

struct S;

impl S {
    /// `#[tool]` is for free functions; use `#[tools]` on the impl block.
    #[tool]
    fn method(&self, x: i64) -> i64 {
        x
    }
}

fn main() {}
