//! The limits and grants of the configuration and the flags, resolved: permission rules,
//! run and session budgets, model prices.

use serde::Deserialize;

use std::collections::BTreeMap;

use super::ConfigError;
use crate::args::McpArgs;

/// `[prices.NAME]`: a model's price in US dollars per million tokens.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PriceSection {
    /// Prompt tokens not read from a cache.
    pub input: f64,
    /// Generated tokens.
    pub output: f64,
    /// Prompt tokens read from the cache (unset: unknown, and a call reading the cache has
    /// an unknown cost).
    pub cache_read: Option<f64>,
    /// Prompt tokens written to the cache.
    pub cache_write: Option<f64>,
}

/// The configuration's prices, checked.
pub(super) fn prices(
    configured: &BTreeMap<String, PriceSection>,
) -> Result<Vec<(String, lucid::model::prices::Price)>, ConfigError> {
    configured
        .iter()
        .map(|(name, p)| {
            let fine = [Some(p.input), Some(p.output), p.cache_read, p.cache_write]
                .iter()
                .flatten()
                .all(|n| n.is_finite() && *n >= 0.0);
            if !fine {
                return Err(ConfigError(format!(
                    "[prices.{name:?}]: prices are dollars per million tokens, 0 or more"
                )));
            }
            Ok((
                name.clone(),
                lucid::model::prices::Price::new(p.input, p.output).with_cache(p.cache_read, p.cache_write),
            ))
        })
        .collect()
}

/// Limits, checked; `key` prefixes the names in a message (`session_`).
pub(super) fn limits(
    cost: Option<f64>,
    calls: Option<u64>,
    tokens: Option<u64>,
    key: &str,
) -> Result<lucid::agent::budget::Limits, ConfigError> {
    let mut l = lucid::agent::budget::Limits::default();
    if let Some(c) = cost {
        if !(c.is_finite() && c >= 0.0) {
            return Err(ConfigError(format!("{key}max_cost must be a number of dollars, 0 or more")));
        }
        l = l.max_cost(c);
    }
    if let Some(n) = calls {
        l = l.max_model_calls(n);
    }
    if let Some(n) = tokens {
        l = l.max_total_tokens(n);
    }
    Ok(l)
}

/// The permission rules of the flags, then of the file, each checked.
pub(super) fn rules(
    flags: &McpArgs,
    allow: Option<&Vec<String>>,
    ask: Option<&Vec<String>>,
    deny: Option<&Vec<String>>,
) -> Result<Vec<lucid::tool::permission::Rule>, ConfigError> {
    use lucid::tool::permission::{Permission, Rule};
    let none = Vec::new();
    let sources = [
        (Permission::Deny, &flags.deny, deny.unwrap_or(&none)),
        (Permission::Ask, &flags.ask, ask.unwrap_or(&none)),
        (Permission::Allow, &flags.allow, allow.unwrap_or(&none)),
    ];
    let mut out = Vec::new();
    for (permission, flags, configured) in sources {
        for text in flags.iter().chain(configured) {
            out.push(Rule::parse(permission, text).map_err(|e| ConfigError(e.to_string()))?);
        }
    }
    Ok(out)
}
