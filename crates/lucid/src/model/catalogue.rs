//! What each known model can hold: its context window and its longest answer, in tokens.
//!
//! One table, one row per model family: adding a model is adding a row. A row matches a
//! model name that starts with its prefix (the longest matching prefix wins), for the
//! providers it names (`*` for any, since the same model is served by several). The
//! agent keeps every request within the window (see
//! [`AgentBuilder::context_window`](crate::AgentBuilder::context_window)); local servers
//! are asked instead ([`crate::model::probe`]).
//!
//! ```
//! use lucid::model::catalogue::lookup;
//! let l = lookup("openai", "gpt-4o-mini-2024-07-18").unwrap();
//! assert_eq!((l.context_window, l.max_output), (128_000, 16_384));
//! assert!(lookup("openai", "a-model-nobody-knows").is_none());
//! ```

/// A model's limits, in tokens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ModelLimits {
    /// Everything one request may hold: the prompt and the answer.
    pub context_window: u32,
    /// The longest answer the model writes.
    pub max_output: u32,
}

/// `(providers, name prefix, context window, longest answer)`. Providers: `*` for any, or
/// a `|`-separated list of preset names.
const MODELS: &[(&str, &str, u32, u32)] = &[
    // OpenAI.
    ("*", "gpt-3.5-turbo", 16_385, 4_096),
    ("*", "gpt-4-turbo", 128_000, 4_096),
    ("*", "gpt-4o", 128_000, 16_384),
    ("*", "chatgpt-4o", 128_000, 16_384),
    ("*", "gpt-4.1", 1_047_576, 32_768),
    ("*", "gpt-4.5", 128_000, 16_384),
    ("*", "gpt-5", 400_000, 128_000),
    ("*", "gpt-oss", 131_072, 32_768),
    ("*", "o1", 200_000, 100_000),
    ("*", "o1-mini", 128_000, 65_536),
    ("*", "o3", 200_000, 100_000),
    ("*", "o3-mini", 200_000, 100_000),
    ("*", "o4-mini", 200_000, 100_000),
    // Anthropic.
    ("*", "claude-3-haiku", 200_000, 4_096),
    ("*", "claude-3-opus", 200_000, 4_096),
    ("*", "claude-3-5", 200_000, 8_192),
    ("*", "claude-3-7-sonnet", 200_000, 64_000),
    ("*", "claude-sonnet-4", 200_000, 64_000),
    ("*", "claude-opus-4", 200_000, 32_000),
    ("*", "claude-haiku-4", 200_000, 64_000),
    // Gemini.
    ("*", "gemini-1.5-pro", 2_097_152, 8_192),
    ("*", "gemini-1.5-flash", 1_048_576, 8_192),
    ("*", "gemini-2.0-flash", 1_048_576, 8_192),
    ("*", "gemini-2.5-pro", 1_048_576, 65_536),
    ("*", "gemini-2.5-flash", 1_048_576, 65_536),
    ("*", "gemini-3", 1_048_576, 65_536),
    // Zhipu GLM.
    ("*", "glm-4-plus", 128_000, 4_096),
    ("*", "glm-4-air", 128_000, 4_096),
    ("*", "glm-4-flash", 128_000, 4_096),
    ("*", "glm-4-long", 1_000_000, 4_096),
    ("*", "glm-4.5", 128_000, 96_000),
    ("*", "glm-4.6", 200_000, 128_000),
    ("*", "glm-z1", 32_000, 16_000),
    // Qwen (DashScope).
    ("*", "qwen-max", 32_768, 8_192),
    ("*", "qwen-plus", 131_072, 8_192),
    ("*", "qwen-turbo", 1_000_000, 8_192),
    ("*", "qwen-long", 10_000_000, 8_192),
    ("*", "qwen3-coder-plus", 1_000_000, 65_536),
    ("*", "qwen3-max", 262_144, 65_536),
    ("*", "qwen2.5", 32_768, 8_192),
    ("*", "qwen3", 131_072, 32_768),
    // DeepSeek.
    ("*", "deepseek-chat", 128_000, 8_192),
    ("*", "deepseek-reasoner", 128_000, 65_536),
    // Llama and Mixtral as Groq and OpenRouter serve them.
    ("groq|openrouter", "llama-3.1-8b-instant", 131_072, 131_072),
    ("groq|openrouter", "llama-3.3-70b-versatile", 131_072, 32_768),
    ("groq|openrouter", "meta-llama/llama-3", 131_072, 16_384),
    ("groq|openrouter", "mixtral-8x7b", 32_768, 32_768),
];

/// The limits of `model` served by `provider`, when the catalogue knows it. A provider's
/// own name (`openai/gpt-4o` on OpenRouter) is looked up without its vendor prefix too.
pub fn lookup(provider: &str, model: &str) -> Option<ModelLimits> {
    let model = model.trim().to_ascii_lowercase();
    let bare = model.rsplit('/').next().unwrap_or(&model).to_string();
    let mut best: Option<(usize, ModelLimits)> = None;
    for &(providers, prefix, context_window, max_output) in MODELS {
        let serves = providers == "*" || providers.split('|').any(|p| p == provider);
        let matches = model.starts_with(prefix) || bare.starts_with(prefix);
        if serves && matches && best.is_none_or(|(len, _)| prefix.len() > len) {
            best = Some((prefix.len(), ModelLimits { context_window, max_output }));
        }
    }
    best.map(|(_, limits)| limits)
}

/// How many tokens a request may hold so the answer still fits: the window less the
/// answer's reservation (`max_tokens` when set, else the model's longest answer, never
/// more than a quarter of the window) less the tool schemas.
///
/// ```
/// use lucid::model::catalogue::{ModelLimits, request_budget};
/// let gpt = ModelLimits { context_window: 128_000, max_output: 16_384 };
/// assert_eq!(request_budget(gpt, None, 2_000), 128_000 - 16_384 - 2_000);
/// assert_eq!(request_budget(gpt, Some(1_000), 2_000), 125_000);
/// ```
pub fn request_budget(limits: ModelLimits, max_tokens: Option<u32>, tool_tokens: usize) -> usize {
    let window = limits.context_window as usize;
    let reserve = match max_tokens {
        Some(n) => n as usize,
        None => (limits.max_output as usize).min(window / 4),
    };
    window.saturating_sub(reserve).saturating_sub(tool_tokens).max(window / 8)
}

#[cfg(test)]
mod tests {
    use crate::model::catalogue::*;

    #[test]
    fn the_longest_prefix_wins_and_vendor_prefixes_are_ignored() {
        assert_eq!(lookup("openai", "o3-mini").unwrap().max_output, 100_000);
        assert_eq!(lookup("openai", "o1-mini-2024-09-12").unwrap().context_window, 128_000);
        assert_eq!(lookup("openrouter", "anthropic/claude-sonnet-4.5").unwrap().max_output, 64_000);
        assert_eq!(lookup("groq", "llama-3.3-70b-versatile").unwrap().context_window, 131_072);
        assert!(lookup("ollama", "llama-3.3-70b-versatile").is_none(), "a local server is asked, not guessed");
        assert_eq!(lookup("zhipu", "GLM-4.6").unwrap().context_window, 200_000);
    }

    #[test]
    fn every_row_is_sane() {
        for &(_, prefix, window, out) in MODELS {
            assert!(out <= window && window >= 4_096, "{prefix}");
            assert_eq!(prefix, prefix.to_ascii_lowercase(), "prefixes are lower case");
        }
    }

    #[test]
    fn a_budget_never_falls_below_an_eighth_of_the_window() {
        let tiny = ModelLimits { context_window: 4_000, max_output: 4_000 };
        assert_eq!(request_budget(tiny, None, 100), 4_000 - 1_000 - 100);
        assert_eq!(request_budget(tiny, Some(3_900), 500), 500);
    }
}
