use lucid::prelude::*;

#[tool]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

struct Shop;

#[tools]
impl Shop {
    /// Has one.
    #[tool]
    fn open(&self) -> bool {
        true
    }

    #[tool(name = "close_shop")]
    fn close(&self) -> bool {
        false
    }
}

fn main() {}
