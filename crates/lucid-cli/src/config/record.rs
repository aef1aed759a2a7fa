//! A provider's record from the configuration file: the fields of `[providers.NAME]` laid
//! over a preset's record, or, for a provider of one's own, over the record of any
//! OpenAI-compatible server renamed NAME. The client then carries that record as it
//! carries a preset's, so a provider defined here behaves exactly as a preset with the
//! same fields (its `content` beside tool calls, quota codes, telemetry name, catalogue
//! rows, embeddings, key variables).

use std::borrow::Cow;

use lucid::model::Provider;
use lucid::model::openai::TOOL_CALL_PLACEHOLDER;
use lucid::model::presets::{ContentPolicy, Embeddings, Hosting, Protocol, QuotaRule, ReasoningEcho};

use super::error::ConfigError;
use super::file::ProviderSection;

/// The record of provider `name`: `preset`'s, or a provider of one's own, with the
/// section's fields laid over it.
pub fn record(name: &str, preset: Option<&Provider>, s: &ProviderSection) -> Result<Provider, ConfigError> {
    let bad = |field: &str, value: &str, expected: &str| {
        ConfigError(format!("[providers.{name}] {field} = {value:?}: use {expected}"))
    };
    let mut r = match preset {
        Some(p) => p.clone(),
        None => {
            let mut own = Provider::compatible().renamed(name);
            // A server known by its URL is asked which models it serves and its window.
            own.hosting = Hosting::Local { detect: false };
            own.notes = String::new();
            own
        }
    };
    if let Some(u) = &s.base_url {
        r.base_url.clone_from(u);
    }
    if let Some(m) = &s.model {
        r.default_model.clone_from(m);
    }
    if let Some(p) = &s.protocol {
        r.protocol = match p.as_str() {
            "chat" => Protocol::OpenAiChat,
            "responses" => Protocol::OpenAiResponses,
            "messages" | "anthropic" => Protocol::Anthropic,
            "generateContent" | "gemini" => Protocol::Gemini,
            other => return Err(bad("protocol", other, "chat, responses, messages or generateContent")),
        };
    }
    if s.key_env.is_some() || s.key_vars.is_some() {
        r.key_vars = s.key_env.iter().chain(s.key_vars.iter().flatten()).cloned().collect();
    }
    if let Some(c) = &s.content {
        r.quirks.content_policy = content(c).ok_or_else(|| bad("content", c, "omit, null, empty or placeholder"))?;
    }
    if let Some(codes) = &s.content_retry_codes {
        r.content_retry.codes.clone_from(codes);
    }
    if let Some(forms) = &s.content_retry {
        r.content_retry.forms = forms
            .iter()
            .map(|f| content(f).ok_or_else(|| bad("content_retry", f, "omit, null, empty or placeholder")))
            .collect::<Result<_, _>>()?;
    }
    if let Some(e) = &s.reasoning_echo {
        r.quirks.reasoning_echo = match e.as_str() {
            "never" => ReasoningEcho::Never,
            "reasoning_content" => ReasoningEcho::CurrentTurn("reasoning_content"),
            "reasoning" => ReasoningEcho::CurrentTurn("reasoning"),
            other => return Err(bad("reasoning_echo", other, "never, reasoning_content or reasoning")),
        };
    }
    if let Some(on) = s.stream_usage {
        r.quirks.stream_usage = on;
    }
    if let Some(f) = &s.max_tokens_field {
        r.quirks.max_tokens_field = match f.as_str() {
            "max_tokens" => "max_tokens",
            "max_completion_tokens" => "max_completion_tokens",
            other => return Err(bad("max_tokens_field", other, "max_tokens or max_completion_tokens")),
        };
    }
    if let Some(on) = s.format_with_tools {
        r.quirks.format_with_tools = on;
    }
    if s.quota_codes.is_some() || s.quota_statuses.is_some() || s.quota_messages.is_some() {
        let codes = s.quota_codes.iter().flatten().map(|c| QuotaRule::Code(Cow::Owned(c.clone())));
        let statuses = s.quota_statuses.iter().flatten().map(|&n| QuotaRule::Status(n));
        let messages = s.quota_messages.iter().flatten().map(|m| QuotaRule::Message(Cow::Owned(m.clone())));
        r.quota = codes.chain(statuses).chain(messages).collect();
    }
    if let Some(t) = &s.telemetry_name {
        r.telemetry_name.clone_from(t);
    }
    if let Some(c) = &s.catalogue {
        r.catalogue.clone_from(c);
    }
    if let Some(m) = &s.embeddings_model {
        let batch = s.embeddings_batch.or(r.embeddings.as_ref().map(|e| e.batch)).unwrap_or(64);
        r.embeddings = Some(Embeddings::new(m.clone(), batch));
    } else if let (Some(b), Some(e)) = (s.embeddings_batch, &mut r.embeddings) {
        e.batch = b;
    }
    if let Some(local) = s.local {
        r.hosting = if local { Hosting::Local { detect: false } } else { Hosting::Hosted };
    }
    Ok(r)
}

fn content(form: &str) -> Option<ContentPolicy> {
    Some(match form {
        "omit" => ContentPolicy::Omit,
        "null" => ContentPolicy::Null,
        "empty" | "" => ContentPolicy::Empty,
        "placeholder" => ContentPolicy::Placeholder(TOOL_CALL_PLACEHOLDER),
        _ => return None,
    })
}

/// The writer of a record as a `[providers.NAME]` section, shared with the integration tests.
#[cfg(test)]
#[path = "../../tests/common/provider_section.rs"]
mod provider_section;

#[cfg(test)]
mod tests {
    use super::*;

    fn section(text: &str) -> ProviderSection {
        toml::from_str(text).unwrap()
    }

    /// Every preset written out as a configuration file's section, without its
    /// `[providers.NAME]` line: the record it gives is the preset's, under the section's name.
    fn as_section(p: &Provider) -> String {
        let text = provider_section::provider_section("own", p, &p.base_url);
        text.split_once('\n').map(|(_, body)| body.to_string()).unwrap()
    }

    #[test]
    fn a_section_with_a_presets_fields_gives_the_presets_record() {
        for p in Provider::all() {
            let mut own = record("own", None, &section(&as_section(p))).unwrap();
            // The rules come back grouped by kind; their order means nothing (any one matches).
            assert!(own.quota.len() == p.quota.len() && p.quota.iter().all(|q| own.quota.contains(q)), "{}", p.name);
            own.quota.clone_from(&p.quota);
            let mut expected = p.renamed("own");
            (expected.telemetry_name, expected.catalogue) = (p.telemetry_name.clone(), p.catalogue.clone());
            // `local = true` says a server on the user's machine, not whether `lucid run`
            // looks for it when no key is set: that is a preset's alone.
            if p.is_local() {
                expected.hosting = Hosting::Local { detect: false };
            }
            expected.notes = String::new();
            assert_eq!(own, expected, "{}", p.name);
        }
    }

    #[test]
    fn a_section_changes_the_fields_it_names_of_a_preset() {
        let zhipu = Provider::find("zhipu").unwrap();
        let r = record("zhipu", Some(zhipu), &section("content = \"null\"\nquota_statuses = [402]\n")).unwrap();
        assert_eq!(r.quirks.content_policy, ContentPolicy::Null);
        assert_eq!(r.quota, [QuotaRule::Status(402)]);
        assert_eq!((r.telemetry_name.as_str(), &r.key_vars), ("zhipu", &zhipu.key_vars));
        let e = record("x", None, &section("content = \"blank\"\n")).unwrap_err();
        assert!(e.0.contains("[providers.x] content = \"blank\""), "{}", e.0);
    }
}
