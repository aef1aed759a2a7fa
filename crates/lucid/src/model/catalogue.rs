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

use crate::content::PartKind;
use crate::message::Message;
use crate::model::error::ModelError;

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

/// The kinds of content parts a model takes besides text (plain-text documents are
/// always taken: every wire has a form for them).
///
/// ```
/// use lucid::content::PartKind;
/// use lucid::model::catalogue::{Capabilities, capabilities};
/// let gpt = capabilities("openai", "gpt-4o-mini").unwrap();
/// assert!(gpt.accepts(PartKind::Image) && !gpt.accepts(PartKind::Audio));
/// assert!(!capabilities("deepseek", "deepseek-chat").unwrap().accepts(PartKind::Image));
/// assert!(capabilities("ollama", "my-own-model").is_none(), "unknown: not guessed");
/// assert!(Capabilities::parse("image,pdf").unwrap().accepts(PartKind::Pdf));
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Capabilities {
    /// Images (PNG, JPEG, GIF, WebP).
    pub image: bool,
    /// PDF documents.
    pub pdf: bool,
    /// Audio.
    pub audio: bool,
}

impl Capabilities {
    /// Text only.
    pub const TEXT: Capabilities = Capabilities { image: false, pdf: false, audio: false };
    /// Images.
    pub const IMAGE: Capabilities = Capabilities { image: true, pdf: false, audio: false };
    /// Images and PDFs.
    pub const IMAGE_PDF: Capabilities = Capabilities { image: true, pdf: true, audio: false };
    /// Images, PDFs and audio.
    pub const ALL: Capabilities = Capabilities { image: true, pdf: true, audio: true };

    /// Whether a part of this kind can be sent.
    pub fn accepts(self, kind: PartKind) -> bool {
        match kind {
            PartKind::Image => self.image,
            PartKind::Pdf => self.pdf,
            PartKind::Audio => self.audio,
            _ => true,
        }
    }

    /// Reads a setting: kinds separated by commas (`image`, `pdf`, `audio`), `text` or
    /// `none` for text only, `all` for every kind.
    pub fn parse(s: &str) -> Result<Self, String> {
        let mut c = Capabilities::TEXT;
        for k in s.split(',').map(str::trim).filter(|k| !k.is_empty()) {
            match k {
                "image" | "images" => c.image = true,
                "pdf" => c.pdf = true,
                "audio" => c.audio = true,
                "all" => c = Capabilities::ALL,
                "text" | "none" => {}
                other => return Err(format!("unknown content kind `{other}` (image, pdf, audio, all, text)")),
            }
        }
        Ok(c)
    }
}

/// `(providers, name prefix, what it takes)`: the longest matching prefix wins, as in the
/// limits table. From the providers' model pages (vision, PDF and audio input).
const KINDS: &[(&str, &str, Capabilities)] = &[
    ("*", "gpt-3.5-turbo", Capabilities::TEXT),
    ("*", "gpt-4-turbo", Capabilities::IMAGE),
    ("*", "gpt-4o", Capabilities::IMAGE_PDF),
    ("*", "gpt-4o-audio", Capabilities { image: false, pdf: false, audio: true }),
    ("*", "gpt-4o-mini-audio", Capabilities { image: false, pdf: false, audio: true }),
    ("*", "chatgpt-4o", Capabilities::IMAGE_PDF),
    ("*", "gpt-4.1", Capabilities::IMAGE_PDF),
    ("*", "gpt-4.5", Capabilities::IMAGE_PDF),
    ("*", "gpt-5", Capabilities::IMAGE_PDF),
    ("*", "gpt-oss", Capabilities::TEXT),
    ("*", "o1", Capabilities::IMAGE_PDF),
    ("*", "o1-mini", Capabilities::TEXT),
    ("*", "o3", Capabilities::IMAGE_PDF),
    ("*", "o3-mini", Capabilities::TEXT),
    ("*", "o4-mini", Capabilities::IMAGE_PDF),
    ("*", "claude-3", Capabilities::IMAGE),
    ("*", "claude-3-5", Capabilities::IMAGE_PDF),
    ("*", "claude-3-7", Capabilities::IMAGE_PDF),
    ("*", "claude-sonnet-4", Capabilities::IMAGE_PDF),
    ("*", "claude-opus-4", Capabilities::IMAGE_PDF),
    ("*", "claude-haiku-4", Capabilities::IMAGE_PDF),
    ("*", "gemini", Capabilities::ALL),
    ("*", "glm-4", Capabilities::TEXT),
    ("*", "glm-4v", Capabilities::IMAGE),
    ("*", "glm-4.1v", Capabilities::IMAGE),
    ("*", "glm-4.5v", Capabilities::IMAGE),
    ("*", "glm-4.6v", Capabilities::IMAGE),
    ("*", "glm-z1", Capabilities::TEXT),
    ("*", "qwen", Capabilities::TEXT),
    ("*", "qwen-vl", Capabilities::IMAGE),
    ("*", "qwen2.5-vl", Capabilities::IMAGE),
    ("*", "qwen3-vl", Capabilities::IMAGE),
    ("*", "qwen-audio", Capabilities { image: false, pdf: false, audio: true }),
    ("*", "deepseek-chat", Capabilities::TEXT),
    ("*", "deepseek-reasoner", Capabilities::TEXT),
    ("groq|openrouter", "llama-3.1-8b-instant", Capabilities::TEXT),
    ("groq|openrouter", "llama-3.3-70b-versatile", Capabilities::TEXT),
    ("groq|openrouter", "mixtral-8x7b", Capabilities::TEXT),
];

/// What `model` served by `provider` takes besides text, when the catalogue knows it
/// (`None`: unknown, nothing is refused before sending; set it with
/// [`ModelBuilder::accepts`](crate::model::ModelBuilder::accepts)).
pub fn capabilities(provider: &str, model: &str) -> Option<Capabilities> {
    let model = model.trim().to_ascii_lowercase();
    let bare = model.rsplit('/').next().unwrap_or(&model).to_string();
    let mut best: Option<(usize, Capabilities)> = None;
    for &(providers, prefix, caps) in KINDS {
        let serves = providers == "*" || providers.split('|').any(|p| p == provider);
        let matches = model.starts_with(prefix) || bare.starts_with(prefix);
        if serves && matches && best.is_none_or(|(len, _)| prefix.len() > len) {
            best = Some((prefix.len(), caps));
        }
    }
    best.map(|(_, c)| c)
}

/// Refuses, before anything is sent, a request with a part `caps` does not take: the
/// error names the model and the kind.
pub fn check_parts(
    provider: &str,
    model: &str,
    caps: Option<Capabilities>,
    messages: &[Message],
) -> Result<(), ModelError> {
    let Some(caps) = caps else { return Ok(()) };
    for m in messages {
        if let Some(p) = m.attachments().find(|p| !caps.accepts(p.kind())) {
            return Err(ModelError::Unsupported {
                provider: provider.to_string(),
                model: model.to_string(),
                kind: p.kind(),
            });
        }
    }
    Ok(())
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
    fn capabilities_follow_the_longest_prefix() {
        assert_eq!(
            capabilities("openai", "gpt-4o-audio-preview"),
            Some(Capabilities { audio: true, ..Capabilities::TEXT })
        );
        assert_eq!(capabilities("zhipu", "glm-4.6v"), Some(Capabilities::IMAGE));
        assert_eq!(capabilities("zhipu", "glm-4.6"), Some(Capabilities::TEXT));
        assert_eq!(capabilities("openrouter", "anthropic/claude-sonnet-4.5"), Some(Capabilities::IMAGE_PDF));
        assert_eq!(capabilities("llamacpp", "whatever.gguf"), None);
        for &(_, prefix, _) in KINDS {
            assert_eq!(prefix, prefix.to_ascii_lowercase(), "prefixes are lower case");
        }
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
