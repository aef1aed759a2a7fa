//! `#[tool]` and `#[tools]`: what they derive, and what they refuse to compile.

use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};

use lucid::prelude::*;
use lucid::tool::ToolRegistry;
use serde_json::json;

/// A point on a map.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Point {
    /// latitude in degrees
    lat: f64,
    lon: f64,
}

/// Distance from the origin, in degrees.
///
/// Second paragraph of the description.
#[tool]
async fn distance(
    /// where to measure to
    to: Point,
    /// round to this many decimals
    digits: Option<u8>,
    ctx: ToolContext,
) -> Result<f64, ToolError> {
    let _ = ctx.call_id;
    let d = (to.lat * to.lat + to.lon * to.lon).sqrt();
    let f = 10f64.powi(i32::from(digits.unwrap_or(2)));
    Ok((d * f).round() / f)
}

#[tool(name = "shout", description = "Upper-cases text.")]
fn loud(text: String) -> String {
    text.to_uppercase()
}

#[derive(Default)]
struct Account {
    balance: AtomicI64,
}

#[tools]
impl Account {
    /// Deposits money and returns the new balance.
    #[tool]
    async fn deposit(
        &self,
        /// amount in cents
        cents: i64,
    ) -> Result<i64, ToolError> {
        if cents <= 0 {
            return Err(ToolError::new("the amount must be positive"));
        }
        Ok(self.balance.fetch_add(cents, Ordering::SeqCst) + cents)
    }

    /// The current balance.
    #[tool(idempotent)]
    fn balance(&self) -> i64 {
        self.balance.load(Ordering::SeqCst)
    }

    /// Not a tool: no #[tool] attribute.
    #[allow(dead_code)]
    fn audit(&self) -> bool {
        true
    }
}

/// Says the text back.
#[tool(idempotent, name = "echo_back")]
fn echo(text: String) -> String {
    text
}

#[test]
fn idempotent_marks_functions_and_methods_and_nothing_else() {
    assert!(echo.idempotent() && !loud.idempotent() && !distance.idempotent());
    let mut tools = ToolRegistry::new();
    tools.add(echo);
    tools.add(loud);
    tools.add_set(Arc::new(Account::default()));
    let marked: Vec<bool> =
        ["echo_back", "shout", "deposit", "balance", "unknown"].into_iter().map(|n| tools.is_idempotent(n)).collect();
    assert_eq!(marked, [true, false, false, true, false]);
    tools.add(lucid::tool::Idempotent(loud));
    assert!(tools.is_idempotent("shout"), "the wrapper marks a tool made without the attribute");
}

#[test]
fn tool_derives_name_description_and_schema() {
    let spec = distance.spec();
    assert_eq!(spec.name(), "distance");
    assert_eq!(spec.description(), "Distance from the origin, in degrees.\n\nSecond paragraph of the description.");
    let p = spec.parameters();
    assert_eq!(p["type"], "object");
    assert_eq!(p["required"], json!(["to"]), "Option<T> is not required, ToolContext is not an argument");
    assert_eq!(p["properties"]["digits"]["description"], "round to this many decimals");
    assert_eq!(p["additionalProperties"], false);
    assert!(p["properties"].get("ctx").is_none());
    let point = &p["$defs"]["Point"];
    assert_eq!(point["properties"]["lat"]["description"], "latitude in degrees");
    assert_eq!(loud.spec().name(), "shout");
    assert_eq!(loud.spec().description(), "Upper-cases text.");
    assert_eq!(loud::call("hi".into()), "HI");
}

#[tokio::test]
async fn tools_are_validated_then_called() {
    let mut reg = ToolRegistry::new();
    reg.add(distance);
    let call = |args| lucid::ToolCall::new("c", "distance", args);
    let ok = reg.execute(&call(json!({"to": {"lat": 3.0, "lon": 4.0}})), ToolContext::default(), None).await;
    assert_eq!((ok.content.as_str(), ok.is_error), ("5.0", false));
    let bad = reg.execute(&call(json!({"to": {"lat": "north"}, "digits": 300})), ToolContext::default(), None).await;
    assert!(bad.is_error);
    assert!(bad.content.contains("`to.lat`: expected number, got string \"north\""), "{}", bad.content);
    assert!(bad.content.contains("missing required property `lon`"), "{}", bad.content);
    assert!(bad.content.contains("`digits`: must be at most 255"), "{}", bad.content);
    let extra =
        reg.execute(&call(json!({"to": {"lat": 0, "lon": 0}, "units": "km"})), ToolContext::default(), None).await;
    assert!(extra.content.contains("unknown property `units`"), "{}", extra.content);
}

#[tokio::test]
async fn tools_methods_share_state() {
    let account = Arc::new(Account::default());
    let mut reg = ToolRegistry::new();
    reg.add_set(account.clone());
    let names: Vec<&str> = reg.specs().iter().map(|s| s.name()).collect();
    assert_eq!(names, ["deposit", "balance"]);
    assert_eq!(reg.specs()[0].parameters()["properties"]["cents"]["description"], "amount in cents");
    let dep =
        reg.execute(&lucid::ToolCall::new("1", "deposit", json!({"cents": 250})), ToolContext::default(), None).await;
    assert_eq!(dep.content, "250");
    let neg =
        reg.execute(&lucid::ToolCall::new("2", "deposit", json!({"cents": -1})), ToolContext::default(), None).await;
    assert_eq!((neg.content.as_str(), neg.is_error), ("Error: the amount must be positive", true));
    let bal = reg.execute(&lucid::ToolCall::new("3", "balance", json!({})), ToolContext::default(), None).await;
    assert_eq!(bal.content, "250");
    assert_eq!(account.balance.load(Ordering::SeqCst), 250);
    assert_eq!(
        reg.specs()[1].parameters(),
        &json!({"type": "object", "properties": {}, "additionalProperties": false})
    );
}

#[test]
fn invalid_tools_do_not_compile() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
