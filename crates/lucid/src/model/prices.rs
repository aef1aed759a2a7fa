//! What each known model costs, in US dollars per million tokens: input, output, cache
//! read, cache write. One table beside the [catalogue](super::catalogue), matched the same
//! way (the longest prefix of the model's name wins, for the providers a row names); a
//! configuration overrides or adds any model ([`Prices::set`]).
//!
//! The rows are the providers' list prices for the first tier (no batch discount, no
//! long-context surcharge), as published on 2026-11-24: Anthropic's from
//! <https://docs.anthropic.com/en/docs/about-claude/pricing> (cache writes are the
//! 5-minute ones); OpenAI's from its pricing page (<https://platform.openai.com/docs/pricing>)
//! as copies of it agreed; Google's from <https://ai.google.dev/gemini-api/docs/pricing>.
//! A model whose price was not certain has no row or a row without a price, so its cost
//! is *unknown* (`None`), never zero; so is a call whose cached tokens have no known rate.
//!
//! ```
//! use lucid::message::Usage;
//! use lucid::model::prices::{Price, Prices};
//! let prices = Prices::default();
//! let mini = prices.price("openai", "gpt-4o-mini-2024-07-18").unwrap();
//! assert_eq!((mini.input, mini.output), (0.15, 0.60));
//! let used = Usage { input_tokens: 1_000_000, output_tokens: 1_000_000, ..Default::default() };
//! assert_eq!(mini.cost(&used), Some(0.75));
//! assert!(prices.price("ollama", "llama3.2").is_none(), "a local model has no price");
//! let mine = prices.set("ollama:llama3.2", Price::new(0.0, 0.0));
//! assert_eq!(mine.cost("ollama:llama3.2", &used), Some(0.0));
//! ```

use std::collections::BTreeMap;

use crate::message::Usage;

/// A model's price in US dollars per million tokens.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
#[non_exhaustive]
pub struct Price {
    /// Prompt tokens not read from a cache.
    pub input: f64,
    /// Generated tokens (reasoning included).
    pub output: f64,
    /// Prompt tokens read from the provider's cache (`None`: not known).
    #[serde(default)]
    pub cache_read: Option<f64>,
    /// Prompt tokens written to the provider's cache (`None`: not known).
    #[serde(default)]
    pub cache_write: Option<f64>,
}

impl Price {
    /// A price for input and output, cache rates unknown.
    pub fn new(input: f64, output: f64) -> Price {
        Price { input, output, cache_read: None, cache_write: None }
    }

    /// With these cache rates (read, write).
    pub fn with_cache(mut self, read: Option<f64>, write: Option<f64>) -> Price {
        self.cache_read = read;
        self.cache_write = write;
        self
    }

    /// What `usage` costs in dollars; `None` when it holds cached tokens whose rate is not
    /// known.
    ///
    /// ```
    /// use lucid::message::Usage;
    /// use lucid::model::prices::Price;
    /// let sonnet = Price::new(3.0, 15.0).with_cache(Some(0.30), Some(3.75));
    /// let u = Usage { input_tokens: 2_000_000, cache_read_input_tokens: 1_000_000, output_tokens: 0, ..Default::default() };
    /// assert_eq!(sonnet.cost(&u), Some(3.0 + 0.30));
    /// assert_eq!(Price::new(3.0, 15.0).cost(&u), None);
    /// ```
    pub fn cost(&self, u: &Usage) -> Option<f64> {
        let read = u.cached_input_tokens + u.cache_read_input_tokens;
        let written = u.cache_creation_input_tokens;
        let fresh = u.input_tokens.saturating_sub(read + written);
        let mut dollars = fresh as f64 * self.input + u.output_tokens as f64 * self.output;
        if read > 0 {
            dollars += read as f64 * self.cache_read?;
        }
        if written > 0 {
            dollars += written as f64 * self.cache_write?;
        }
        Some(dollars / 1_000_000.0)
    }

    /// What a prompt of `tokens` fresh tokens costs: the estimate of a call about to be made.
    pub fn input_cost(&self, tokens: u64) -> f64 {
        tokens as f64 * self.input / 1_000_000.0
    }
}

/// `(providers, name prefix, price)`: providers `*` or a `|`-separated list of preset
/// names; a `None` price marks a model of a priced family whose own price is not known,
/// so the family's row does not price it.
type Row = (&'static str, &'static str, Option<(f64, f64, Option<f64>, Option<f64>)>);

/// Anthropic's first-party API. Cache writes are 1.25 × input (5 minutes), reads 0.1 ×.
const ANTHROPIC: &str = "anthropic";
/// OpenAI's own API (OpenAI writes to its cache at no extra charge and never reports it).
const OPENAI: &str = "openai|openai-responses";
/// Google's Gemini API.
const GEMINI: &str = "gemini";

const PRICES: &[Row] = &[
    // Anthropic.
    (ANTHROPIC, "claude-3-haiku", Some((0.25, 1.25, Some(0.03), Some(0.30)))),
    (ANTHROPIC, "claude-3-opus", Some((15.0, 75.0, Some(1.50), Some(18.75)))),
    (ANTHROPIC, "claude-3-5-haiku", Some((0.80, 4.0, Some(0.08), Some(1.0)))),
    (ANTHROPIC, "claude-3-5-sonnet", Some((3.0, 15.0, Some(0.30), Some(3.75)))),
    (ANTHROPIC, "claude-3-7-sonnet", Some((3.0, 15.0, Some(0.30), Some(3.75)))),
    (ANTHROPIC, "claude-sonnet-4", Some((3.0, 15.0, Some(0.30), Some(3.75)))),
    (ANTHROPIC, "claude-opus-4", Some((15.0, 75.0, Some(1.50), Some(18.75)))),
    (ANTHROPIC, "claude-opus-4-5", Some((5.0, 25.0, Some(0.50), Some(6.25)))),
    (ANTHROPIC, "claude-haiku-4-5", Some((1.0, 5.0, Some(0.10), Some(1.25)))),
    // OpenAI.
    (OPENAI, "gpt-3.5-turbo", Some((0.50, 1.50, None, None))),
    (OPENAI, "gpt-4-turbo", Some((10.0, 30.0, None, None))),
    (OPENAI, "gpt-4o", Some((2.50, 10.0, Some(1.25), None))),
    (OPENAI, "gpt-4o-mini", Some((0.15, 0.60, Some(0.075), None))),
    (OPENAI, "gpt-4o-audio", None),
    (OPENAI, "gpt-4o-realtime", None),
    (OPENAI, "gpt-4.1", Some((2.0, 8.0, Some(0.50), None))),
    (OPENAI, "gpt-4.1-mini", Some((0.40, 1.60, Some(0.10), None))),
    (OPENAI, "gpt-4.1-nano", Some((0.10, 0.40, Some(0.025), None))),
    (OPENAI, "gpt-5", Some((1.25, 10.0, Some(0.125), None))),
    (OPENAI, "gpt-5-mini", Some((0.25, 2.0, Some(0.025), None))),
    (OPENAI, "gpt-5-nano", Some((0.05, 0.40, Some(0.005), None))),
    // Later GPT-5 releases and the Pro models are priced differently.
    (OPENAI, "gpt-5.", None),
    (OPENAI, "gpt-5-pro", None),
    (OPENAI, "o1", Some((15.0, 60.0, Some(7.50), None))),
    (OPENAI, "o1-mini", Some((1.10, 4.40, Some(0.55), None))),
    (OPENAI, "o1-pro", None),
    (OPENAI, "o3", Some((2.0, 8.0, None, None))),
    (OPENAI, "o3-mini", Some((1.10, 4.40, None, None))),
    (OPENAI, "o3-pro", None),
    (OPENAI, "o3-deep-research", None),
    (OPENAI, "o4-mini", Some((1.10, 4.40, Some(0.275), None))),
    (OPENAI, "o4-mini-deep-research", None),
    // Gemini (2.5 Pro's price changes past 200k prompt tokens: left out).
    (GEMINI, "gemini-2.0-flash", Some((0.10, 0.40, None, None))),
    (GEMINI, "gemini-2.0-flash-lite", None),
    (GEMINI, "gemini-2.5-flash", Some((0.30, 2.50, None, None))),
    (GEMINI, "gemini-2.5-flash-lite", None),
    (GEMINI, "gemini-2.5-flash-image", None),
];

/// The price of `model` served by `provider` in the built-in table, when it is known.
pub fn lookup(provider: &str, model: &str) -> Option<Price> {
    let model = model.trim().to_ascii_lowercase();
    let mut best: Option<(usize, Option<Price>)> = None;
    for &(providers, prefix, price) in PRICES {
        let serves = providers == "*" || providers.split('|').any(|p| p == provider);
        if serves && model.starts_with(prefix) && best.is_none_or(|(len, _)| prefix.len() > len) {
            let price = price.map(|(i, o, r, w)| Price::new(i, o).with_cache(r, w));
            best = Some((prefix.len(), price));
        }
    }
    best.and_then(|(_, price)| price)
}

/// The built-in prices with a configuration's own laid over them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Prices {
    /// By `provider:model` or by `model` (any provider).
    own: BTreeMap<String, Price>,
}

impl Prices {
    /// Sets the price of a model, named `provider:model` or `model` (for any provider);
    /// it wins over the built-in table.
    pub fn set(mut self, model: impl Into<String>, price: Price) -> Self {
        self.own.insert(model.into(), price);
        self
    }

    /// The price of `model` served by `provider`: the configuration's, else the table's.
    pub fn price(&self, provider: &str, model: &str) -> Option<Price> {
        self.own
            .get(&format!("{provider}:{model}"))
            .or_else(|| self.own.get(model))
            .copied()
            .or_else(|| lookup(provider, model))
    }

    /// The price of `model`'s default model: the configuration's (by its provider's name),
    /// else the table's row for its record's [catalogue name](crate::model::ChatModel::catalogue_name).
    ///
    /// ```
    /// use lucid::model::{Provider, prices::Prices};
    /// let mut own = Provider::find("openai").unwrap().renamed("work");
    /// own.catalogue = "openai".into();
    /// let model = own.client().key("k").model("gpt-4o-mini").build()?;
    /// assert_eq!(Prices::default().price_for(&*model), Prices::default().price("openai", "gpt-4o-mini"));
    /// # Ok::<(), lucid::Error>(())
    /// ```
    pub fn price_for(&self, model: &dyn crate::model::ChatModel) -> Option<Price> {
        let (provider, name) = (model.provider(), model.model_name());
        self.own
            .get(&format!("{provider}:{name}"))
            .or_else(|| self.own.get(name))
            .copied()
            .or_else(|| lookup(model.catalogue_name(), name))
    }

    /// The price of a model named `provider:model` (as [`AgentResult::model`](crate::AgentResult::model)
    /// names it).
    pub fn price_of(&self, label: &str) -> Option<Price> {
        let (provider, model) = label.split_once(':').unwrap_or(("", label));
        self.price(provider, model)
    }

    /// What `usage` of the model `label` (`provider:model`) cost; `None` when unknown.
    pub fn cost(&self, label: &str, usage: &Usage) -> Option<f64> {
        if *usage == Usage::default() {
            return Some(0.0);
        }
        self.price_of(label)?.cost(usage)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_longest_prefix_wins_and_unpriced_rows_stop_their_family() {
        assert_eq!(lookup("openai", "gpt-4o-2024-08-06").unwrap().input, 2.50);
        assert_eq!(lookup("openai", "gpt-4o-mini").unwrap().input, 0.15);
        assert_eq!(lookup("anthropic", "claude-opus-4-1-20250805").unwrap().output, 75.0);
        assert_eq!(lookup("anthropic", "claude-opus-4-5-20251101").unwrap().output, 25.0);
        assert!(lookup("openai", "gpt-5.1").is_none(), "a later release is not priced as gpt-5");
        assert!(lookup("openai", "gpt-4o-audio-preview").is_none());
        assert!(lookup("openrouter", "gpt-4o").is_none(), "a reseller's prices are its own");
        assert!(lookup("anthropic", "claude-haiku-4-6").is_none());
    }

    #[test]
    fn cached_tokens_are_priced_at_their_rate_or_make_the_cost_unknown() {
        let p = lookup("openai", "gpt-4o-mini").unwrap();
        let u =
            Usage { input_tokens: 2_000_000, cached_input_tokens: 1_000_000, output_tokens: 0, ..Default::default() };
        assert!((p.cost(&u).unwrap() - (0.15 + 0.075)).abs() < 1e-12);
        let o3 = lookup("openai", "o3").unwrap();
        assert_eq!(o3.cost(&u), None);
        assert_eq!(Prices::default().cost("openai:o3", &Usage::default()), Some(0.0), "nothing used costs nothing");
    }

    #[test]
    fn every_row_is_sane() {
        for &(_, prefix, price) in PRICES {
            assert_eq!(prefix, prefix.to_ascii_lowercase(), "prefixes are lower case");
            if let Some((i, o, r, w)) = price {
                assert!(i > 0.0 && o >= i && r.is_none_or(|r| r < i) && w.is_none_or(|w| w >= i), "{prefix}");
            }
        }
    }
}
