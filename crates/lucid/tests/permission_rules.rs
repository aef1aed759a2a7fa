//! Permission rules by argument in the agent's loop, with the real `shell` tool: what a
//! rule allows runs, a compound command is asked about (and refused), and the rule that
//! decided is named in the text the model reads.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use futures::FutureExt;
use futures::future::BoxFuture;
use lucid::model::OpenAiCompatible;
use lucid::tool::permission::{Approval, Approver, Permission, PermissionPolicy, Rule};
use lucid::{Agent, ToolCall};
use lucid_mock::{MockServer, Reply, text_completion, tool_call_completion};

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("lucid-rules-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Says no, noting each command and the rule that asked.
#[derive(Default)]
struct Declines(Mutex<Vec<(String, Option<String>)>>);

impl Approver for Declines {
    fn approve<'a>(&'a self, _call: &'a ToolCall) -> BoxFuture<'a, Approval> {
        async { unreachable!("the policy names the rule") }.boxed()
    }
    fn approve_asked<'a>(&'a self, call: &'a ToolCall, rule: Option<&'a Rule>) -> BoxFuture<'a, Approval> {
        let args: serde_json::Value = serde_json::from_str(&call.arguments).unwrap();
        let command = args["command"].as_str().unwrap().to_string();
        self.0.lock().unwrap().push((command, rule.map(|r| r.to_string())));
        async { Approval::No }.boxed()
    }
}

#[tokio::test]
async fn a_rule_allows_cargo_test_and_every_other_command_is_asked() {
    let root = temp_dir("cargo-test");
    let commands = [
        "cargo test --help",
        "cargo test --help; touch pwned1",
        "cargo test --help && touch pwned2",
        "cargo test --help $(touch pwned3)",
        "cargo test --help `touch pwned4`",
        "cargo test --help\ntouch pwned5",
        "touch pwned6",
        "rm -rf src",
    ];
    let mut replies: Vec<Reply> = commands
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let args = serde_json::json!({ "command": c }).to_string();
            Reply::json(200, &tool_call_completion(&[(&format!("c{i}"), "shell", args.as_str())]))
        })
        .collect();
    replies.push(Reply::json(200, &text_completion("done")));
    let server = MockServer::sequence(replies).await;
    let declines = Arc::new(Declines::default());
    let policy = PermissionPolicy::allow_all()
        .set("shell", Permission::Ask)
        .rule(Rule::parse(Permission::Allow, "shell(cargo test*)").unwrap())
        .rule(Rule::parse(Permission::Deny, "shell(rm *)").unwrap())
        .approver(declines.clone());
    let agent = Agent::builder(Arc::new(OpenAiCompatible::new(&server.url(), None, "m").unwrap()))
        .tool(lucid_sandbox::Shell::new(&root))
        .permissions(policy)
        .max_iterations(20)
        .build();
    let r = agent.session().run("test it").await.unwrap();
    assert_eq!(r.tool_calls.len(), commands.len());

    let first = &r.tool_calls[0];
    assert!(!first.is_error, "{first:?}");
    assert!(first.output.as_deref().unwrap().contains("cargo test"), "cargo's help ran: {first:?}");
    for c in &r.tool_calls[1..7] {
        let out = c.output.as_deref().unwrap();
        assert!(c.is_error && out.contains("The user declined"), "{c:?}");
        assert!(out.contains("(permission policy: ask)"), "{out}");
    }
    let denied = r.tool_calls[7].output.as_deref().unwrap();
    assert!(denied.contains("not allowed here (permission rule: deny shell(rm *))"), "{denied}");
    // Asked for each compound command and `touch`, never for `rm` (denied by its rule).
    let asked = declines.0.lock().unwrap().clone();
    assert_eq!(asked.iter().map(|(c, _)| c.as_str()).collect::<Vec<_>>(), &commands[1..7]);
    assert!(asked.iter().all(|(_, rule)| rule.is_none()), "the tool's own permission asked: {asked:?}");
    for n in 1..=6 {
        assert!(!root.join(format!("pwned{n}")).exists(), "pwned{n} was created");
    }
    // The model read the named rule.
    let last = server.requests().last().unwrap().json();
    assert!(last.to_string().contains("permission rule: deny shell(rm *)"), "{last}");
}

#[tokio::test]
async fn an_ask_rule_is_named_to_the_approver() {
    let root = temp_dir("ask-rule");
    let args = serde_json::json!({ "command": "git push origin main" }).to_string();
    let server = MockServer::sequence(vec![
        Reply::json(200, &tool_call_completion(&[("c0", "shell", args.as_str())])),
        Reply::json(200, &text_completion("done")),
    ])
    .await;
    let declines = Arc::new(Declines::default());
    let policy = PermissionPolicy::allow_all()
        .rule(Rule::parse(Permission::Ask, "shell(git push:*)").unwrap())
        .approver(declines.clone());
    let agent = Agent::builder(Arc::new(OpenAiCompatible::new(&server.url(), None, "m").unwrap()))
        .tool(lucid_sandbox::Shell::new(&root))
        .permissions(policy)
        .build();
    let r = agent.session().run("push").await.unwrap();
    let out = r.tool_calls[0].output.as_deref().unwrap();
    assert!(out.contains("The user declined") && out.contains("(permission rule: ask shell(git push:*))"), "{out}");
    assert_eq!(
        declines.0.lock().unwrap().clone(),
        [("git push origin main".to_string(), Some("ask shell(git push:*)".to_string()))]
    );
}
