use lucid::prelude::*;

struct Counter(u64);

#[tools]
impl Counter {
    /// Tools run concurrently, so `&mut self` is refused.
    #[tool]
    fn bump(&mut self) -> u64 {
        self.0 += 1;
        self.0
    }
}

fn main() {}
