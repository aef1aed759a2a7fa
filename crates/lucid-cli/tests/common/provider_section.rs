//! A provider's record written out as a configuration file's `[providers.NAME]` section:
//! shared by the integration tests (through `common`) and the unit tests of
//! `src/config/record.rs` (through a `#[path]`), so both read the one writer.

/// `[providers.NAME]` with every field of `p`'s record written out, at `base_url`: a
/// provider of one's own that is the preset in all but its name.
pub fn provider_section(name: &str, p: &lucid::model::Provider, base_url: &str) -> String {
    use lucid::model::Protocol;
    use lucid::model::presets::{ContentPolicy, QuotaRule, ReasoningEcho};
    let form = |c: &ContentPolicy| match c {
        ContentPolicy::Omit => "omit",
        ContentPolicy::Null => "null",
        ContentPolicy::Empty => "empty",
        _ => "placeholder",
    };
    let protocol = match p.protocol {
        Protocol::OpenAiChat => "chat",
        Protocol::OpenAiResponses => "responses",
        Protocol::Anthropic => "messages",
        _ => "generateContent",
    };
    let list = |v: Vec<String>| format!("{v:?}");
    let (mut codes, mut statuses, mut messages) = (Vec::new(), Vec::new(), Vec::new());
    for q in &p.quota {
        match q {
            QuotaRule::Code(c) => codes.push(c.to_string()),
            QuotaRule::Status(s) => statuses.push(*s),
            QuotaRule::Message(m) => messages.push(m.to_string()),
            other => panic!("a quota rule this helper does not write: {other:?}"),
        }
    }
    let reasoning = match p.quirks.reasoning_echo {
        ReasoningEcho::CurrentTurn(f) => f,
        _ => "never",
    };
    let mut s = format!(
        "[providers.{name:?}]\nbase_url = {base_url:?}\nprotocol = {protocol:?}\nkey_vars = {}\nmodel = {:?}\n\
         content = {:?}\ncontent_retry_codes = {}\ncontent_retry = {}\nreasoning_echo = {reasoning:?}\n\
         stream_usage = {}\nmax_tokens_field = {:?}\nformat_with_tools = {}\nquota_codes = {}\n\
         quota_statuses = {statuses:?}\nquota_messages = {}\ntelemetry_name = {:?}\ncatalogue = {:?}\nlocal = {}\n",
        list(p.key_vars.to_vec()),
        p.default_model,
        form(&p.quirks.content_policy),
        list(p.content_retry.codes.clone()),
        list(p.content_retry.forms.iter().map(|f| form(f).to_string()).collect()),
        p.quirks.stream_usage,
        p.quirks.max_tokens_field,
        p.quirks.format_with_tools,
        list(codes),
        list(messages),
        p.telemetry_name,
        p.catalogue,
        p.is_local(),
    );
    if let Some(e) = &p.embeddings {
        s.push_str(&format!("embeddings_model = {:?}\nembeddings_batch = {}\n", e.default_model, e.batch));
    }
    s
}
