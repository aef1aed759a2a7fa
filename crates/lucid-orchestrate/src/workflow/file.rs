//! Workflows written in TOML or YAML.
//!
//! ```toml
//! name = "brief"
//!
//! [inputs.topic]
//! description = "What the brief is about"
//!
//! [inputs.audience]
//! default = "engineers"
//!
//! [agents.writer]
//! model = "openai:gpt-4o-mini"   # optional: the command line's model otherwise
//! system = "You write short, exact prose."
//! tools = ["calculator"]
//! temperature = 0.3              # optional, as are max_tokens and max_iterations
//! max_tokens = 800
//!
//! [[steps]]
//! name = "outline"
//! agent = "writer"
//! prompt = "Outline a brief on {{ input.topic }} for {{ input.audience }}."
//! retries = 1
//! timeout_secs = 60
//!
//! [[steps]]
//! name = "facts"
//! parallel = [
//!   { name = "history", agent = "writer", prompt = "Three facts on the history of {{ input.topic }}." },
//!   { name = "today", agent = "writer", prompt = "Three facts on {{ input.topic }} today." },
//! ]
//!
//! [[steps]]
//! name = "draft"
//! [steps.loop]
//! max = 3
//! until = { path = "review", contains = "APPROVED" }
//! steps = [
//!   { name = "text", agent = "writer", prompt = "Write the brief from {{ outline }} and {{ facts }}." },
//!   { name = "review", agent = "writer", prompt = "Review: {{ text }}. Say APPROVED if it is good." },
//! ]
//!
//! [[steps]]
//! name = "per_source"
//! [steps.foreach]
//! over = "input.sources"   # a list: an input, or a step's output (a JSON array)
//! concurrency = 2          # items at a time (default 1)
//! steps = [
//!   { name = "gist", agent = "writer", prompt = "One line on {{ per_source.item }} (source {{ per_source.index }})." },
//! ]
//! ```
//!
//! A step is exactly one of: `agent` + `prompt` (optionally `output_schema`, a JSON
//! Schema the answer must match), `tool` + `args`, `value`, `sequence`, `parallel`,
//! `branch` (`if`, `then`, `else`), `loop` (`max`, `until`, `steps`) or `foreach`
//! (`over`, `steps`, optionally `concurrency`; the output is the list of each item's last
//! output, see [`Step::foreach`]). A condition is
//! `{ path = "…", equals = … }`, `{ path = "…", contains = "…" }` or `{ path = "…" }`
//! (set and not empty), with `not = true` to invert it.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use serde::Deserialize;
use serde_json::Value;

use super::{Condition, Step, Workflow, WorkflowError};
use lucid::Agent;
use lucid::model::{ChatModel, ChatOptions, ResponseFormat};
use lucid::tool::ToolRegistry;
use lucid::tool::permission::PermissionPolicy;

/// A workflow as written in a file, before its agents and tools are resolved.
///
/// ```
/// let file = lucid_orchestrate::workflow::WorkflowFile::parse_toml(r#"
///     name = "hello"
///     [inputs.who]
///     [[steps]]
///     name = "greet"
///     value = "hello"
/// "#).unwrap();
/// let flow = file.build(&|_| unreachable!("no agents"), &lucid::tool::ToolRegistry::new()).unwrap();
/// assert_eq!(flow.input_names().collect::<Vec<_>>(), ["who"]);
/// ```
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorkflowFile {
    /// The workflow's name.
    pub name: String,
    /// What it does.
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    inputs: BTreeMap<String, InputSpec>,
    #[serde(default)]
    agents: BTreeMap<String, AgentSpec>,
    steps: Vec<StepSpec>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct InputSpec {
    #[serde(default)]
    #[allow(dead_code, reason = "documentation for readers of the file")]
    description: Option<String>,
    #[serde(default)]
    default: Option<Value>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct AgentSpec {
    #[serde(default)]
    model: Option<String>,
    #[serde(default)]
    system: Option<String>,
    #[serde(default)]
    tools: Vec<String>,
    #[serde(default)]
    max_iterations: Option<usize>,
    #[serde(default)]
    temperature: Option<f64>,
    #[serde(default)]
    max_tokens: Option<u32>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct StepSpec {
    name: String,
    #[serde(default)]
    agent: Option<String>,
    #[serde(default)]
    prompt: Option<String>,
    #[serde(default)]
    output_schema: Option<Value>,
    #[serde(default)]
    tool: Option<String>,
    #[serde(default)]
    args: Option<Value>,
    #[serde(default)]
    value: Option<Value>,
    #[serde(default)]
    sequence: Option<Vec<StepSpec>>,
    #[serde(default)]
    parallel: Option<Vec<StepSpec>>,
    #[serde(default)]
    branch: Option<BranchSpec>,
    #[serde(default, rename = "loop")]
    repeat: Option<LoopSpec>,
    #[serde(default)]
    foreach: Option<ForEachSpec>,
    #[serde(default)]
    retries: usize,
    #[serde(default)]
    retry_delay_secs: Option<f64>,
    #[serde(default)]
    timeout_secs: Option<f64>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct BranchSpec {
    #[serde(rename = "if")]
    condition: ConditionSpec,
    then: Vec<StepSpec>,
    #[serde(default, rename = "else")]
    otherwise: Vec<StepSpec>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct LoopSpec {
    max: usize,
    until: ConditionSpec,
    steps: Vec<StepSpec>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct ForEachSpec {
    over: String,
    #[serde(default)]
    concurrency: Option<usize>,
    steps: Vec<StepSpec>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct ConditionSpec {
    path: String,
    #[serde(default)]
    equals: Option<Value>,
    #[serde(default)]
    contains: Option<String>,
    #[serde(default)]
    not: bool,
}

impl ConditionSpec {
    fn build(&self) -> Result<Condition, WorkflowError> {
        let c = match (&self.equals, &self.contains) {
            (Some(_), Some(_)) => {
                return Err(WorkflowError::Invalid(format!(
                    "the condition on `{}` has both `equals` and `contains`",
                    self.path
                )));
            }
            (Some(v), None) => Condition::equals(&self.path, v.clone()),
            (None, Some(t)) => Condition::contains(&self.path, t),
            (None, None) => Condition::truthy(&self.path),
        };
        Ok(if self.not { !c } else { c })
    }
}

/// Chooses the model for an agent of a workflow file: its `model` (`provider:model`), or
/// `None` for the caller's default.
pub type ModelResolver<'a> = &'a dyn Fn(Option<&str>) -> lucid::Result<Arc<dyn ChatModel>>;

impl WorkflowFile {
    /// Parses TOML.
    pub fn parse_toml(text: &str) -> Result<Self, WorkflowError> {
        toml::from_str(text).map_err(|e| WorkflowError::Invalid(e.to_string()))
    }

    /// Parses YAML.
    ///
    /// ```
    /// let file = lucid_orchestrate::workflow::WorkflowFile::parse_yaml("
    /// name: twice
    /// steps:
    ///   - name: a
    ///     value: 1
    ///   - name: check
    ///     branch:
    ///       if: { path: a, equals: 1 }
    ///       then: [{ name: yes, value: true }]
    /// ").unwrap();
    /// assert_eq!(file.name, "twice");
    /// ```
    pub fn parse_yaml(text: &str) -> Result<Self, WorkflowError> {
        serde_norway::from_str(text).map_err(|e| WorkflowError::Invalid(e.to_string()))
    }

    /// Reads a `.toml`, `.yaml` or `.yml` file.
    pub fn from_path(path: &Path) -> Result<Self, WorkflowError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| WorkflowError::Invalid(format!("cannot read {}: {e}", path.display())))?;
        let located = |e: WorkflowError| WorkflowError::Invalid(format!("{}: {e}", path.display()));
        match path.extension().and_then(|e| e.to_str()) {
            Some("yaml" | "yml") => Self::parse_yaml(&text).map_err(located),
            Some("toml") => Self::parse_toml(&text).map_err(located),
            _ => Err(WorkflowError::Invalid(format!("{}: use a .toml, .yaml or .yml file", path.display()))),
        }
    }

    /// Whether some agent (declared without `model`, or a prompt step naming no agent)
    /// needs the caller's default model.
    pub fn needs_default_model(&self) -> bool {
        fn prompt_without_agent(steps: &[StepSpec]) -> bool {
            steps.iter().any(|s| {
                (s.prompt.is_some() && s.agent.is_none())
                    || [&s.sequence, &s.parallel].into_iter().flatten().any(|c| prompt_without_agent(c))
                    || s.branch
                        .as_ref()
                        .is_some_and(|b| prompt_without_agent(&b.then) || prompt_without_agent(&b.otherwise))
                    || s.repeat.as_ref().is_some_and(|l| prompt_without_agent(&l.steps))
                    || s.foreach.as_ref().is_some_and(|f| prompt_without_agent(&f.steps))
            })
        }
        self.agents.values().any(|a| a.model.is_none()) || prompt_without_agent(&self.steps)
    }

    /// Resolves agents (their models through `models`, their tools and tool steps'
    /// tools by name from `tools`) and builds the workflow.
    pub fn build(&self, models: ModelResolver<'_>, tools: &ToolRegistry) -> Result<Workflow, WorkflowError> {
        self.build_inner(models, tools, None)
    }

    /// [`WorkflowFile::build`] with a permission policy: each agent checks its calls
    /// against it (an agent step then waits for approval when the policy
    /// [defers its asks](lucid::tool::permission::PermissionPolicy::defer_asks), see
    /// [`PausedWorkflow`](super::PausedWorkflow)), and each tool step's tool is
    /// [guarded](PermissionPolicy::guard) by it (nobody can answer an `ask` there: it
    /// refuses). `tools` are given unguarded.
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// use lucid::prelude::*;
    /// use lucid::tool::permission::{Permission, PermissionPolicy};
    ///
    /// /// Deletes everything.
    /// #[tool]
    /// fn wipe() -> String { "wiped".into() }
    ///
    /// let file = lucid_orchestrate::workflow::WorkflowFile::parse_toml(r#"
    ///     name = "cleanup"
    ///     [[steps]]
    ///     name = "all"
    ///     tool = "wipe"
    /// "#).unwrap();
    /// let mut tools = lucid::tool::ToolRegistry::new();
    /// tools.add(wipe);
    /// let policy = PermissionPolicy::allow_all().set("wipe", Permission::Ask).defer_asks(true);
    /// let flow = file.build_with_policy(&|_| unreachable!("no agents"), &tools, &policy).unwrap();
    /// let err = flow.run(serde_json::json!({})).await.unwrap_err();
    /// assert!(err.to_string().contains("needs the user's approval"), "{err}");
    /// # });
    /// ```
    pub fn build_with_policy(
        &self,
        models: ModelResolver<'_>,
        tools: &ToolRegistry,
        policy: &PermissionPolicy,
    ) -> Result<Workflow, WorkflowError> {
        self.build_inner(models, tools, Some(policy))
    }

    fn build_inner(
        &self,
        models: ModelResolver<'_>,
        tools: &ToolRegistry,
        policy: Option<&PermissionPolicy>,
    ) -> Result<Workflow, WorkflowError> {
        let mut agents = BTreeMap::new();
        for (name, spec) in &self.agents {
            let model =
                models(spec.model.as_deref()).map_err(|e| WorkflowError::Invalid(format!("agent `{name}`: {e}")))?;
            let mut b = Agent::builder(model);
            if let Some(s) = &spec.system {
                b = b.system(s);
            }
            for t in &spec.tools {
                let tool = tools.get(t).ok_or_else(|| unknown_tool(t, tools))?;
                b = b.tool_arc(Arc::clone(tool));
            }
            if let Some(n) = spec.max_iterations {
                b = b.max_iterations(n);
            }
            if let Some(p) = policy {
                b = b.permissions(p.clone());
            }
            if spec.temperature.is_some() || spec.max_tokens.is_some() {
                b = b.options(ChatOptions {
                    temperature: spec.temperature,
                    max_tokens: spec.max_tokens,
                    ..ChatOptions::default()
                });
            }
            agents.insert(name.clone(), b.build());
        }
        let mut flow = Workflow::new(&self.name);
        for (name, input) in &self.inputs {
            flow = match &input.default {
                Some(d) => flow.input_default(name, d.clone()),
                None => flow.input(name),
            };
        }
        let mut ctx = Resolve { agents: &agents, tools, models, policy, default_agent: None };
        for spec in &self.steps {
            flow = flow.step(ctx.step(spec)?);
        }
        flow.validate()?;
        Ok(flow)
    }
}

fn unknown_tool(name: &str, tools: &ToolRegistry) -> WorkflowError {
    let known: Vec<&str> = tools.specs().iter().map(|s| s.name()).collect();
    WorkflowError::Invalid(format!("unknown tool `{name}` (available: {})", known.join(", ")))
}

struct Resolve<'a> {
    agents: &'a BTreeMap<String, Agent>,
    tools: &'a ToolRegistry,
    models: ModelResolver<'a>,
    /// The agents' policy, which guards tool steps.
    policy: Option<&'a PermissionPolicy>,
    /// An agent with the default model and no prompt, for agent steps naming no agent;
    /// made when the first one needs it.
    default_agent: Option<Agent>,
}

impl Resolve<'_> {
    fn steps(&mut self, specs: &[StepSpec]) -> Result<Vec<Step>, WorkflowError> {
        specs.iter().map(|s| self.step(s)).collect()
    }

    fn step(&mut self, spec: &StepSpec) -> Result<Step, WorkflowError> {
        let name = spec.name.as_str();
        let kinds = [
            spec.prompt.is_some(),
            spec.tool.is_some(),
            spec.value.is_some(),
            spec.sequence.is_some(),
            spec.parallel.is_some(),
            spec.branch.is_some(),
            spec.repeat.is_some(),
            spec.foreach.is_some(),
        ];
        if kinds.iter().filter(|k| **k).count() != 1 {
            return Err(WorkflowError::Invalid(format!(
                "step `{name}` must have exactly one of: prompt (with agent), tool, value, sequence, parallel, branch, loop, foreach"
            )));
        }
        let invalid = |m: String| WorkflowError::Invalid(format!("step `{name}`: {m}"));
        let mut step = if let Some(prompt) = &spec.prompt {
            let agent = match &spec.agent {
                Some(a) => self.agents.get(a).cloned().ok_or_else(|| {
                    invalid(format!("unknown agent `{a}` (declared: {:?})", self.agents.keys().collect::<Vec<_>>()))
                })?,
                None => self.default_agent()?,
            };
            let mut step = Step::agent(name, &agent, prompt);
            if let Some(schema) = &spec.output_schema {
                let format = ResponseFormat::JsonSchema {
                    name: format!("{name}_output"),
                    schema: schema.clone(),
                    strict: false,
                };
                step = step.output_format(format);
            }
            step
        } else if let Some(t) = &spec.tool {
            let tool = self.tools.get(t).ok_or_else(|| unknown_tool(t, self.tools))?;
            let tool = match self.policy {
                Some(p) => p.guard(Arc::clone(tool)),
                None => Arc::clone(tool),
            };
            Step::tool(name, tool, spec.args.clone().unwrap_or(Value::Object(Default::default())))
        } else if let Some(v) = &spec.value {
            Step::value(name, v.clone())
        } else if let Some(s) = &spec.sequence {
            Step::sequence(name, self.steps(s)?)
        } else if let Some(p) = &spec.parallel {
            Step::parallel(name, self.steps(p)?)
        } else if let Some(b) = &spec.branch {
            Step::branch(name, b.condition.build()?, self.steps(&b.then)?, self.steps(&b.otherwise)?)
        } else if let Some(l) = &spec.repeat {
            Step::repeat(name, self.steps(&l.steps)?, l.until.build()?, l.max)
        } else if let Some(f) = &spec.foreach {
            if f.concurrency == Some(0) {
                return Err(invalid("`concurrency` must be at least 1".into()));
            }
            Step::foreach(name, &f.over, self.steps(&f.steps)?).concurrency(f.concurrency.unwrap_or(1))
        } else {
            unreachable!("exactly one kind was checked above")
        };
        if spec.agent.is_some() && spec.prompt.is_none() {
            return Err(invalid("`agent` needs a `prompt`".into()));
        }
        step = step.retries(spec.retries);
        if let Some(d) = spec.retry_delay_secs {
            step = step.retry_delay(seconds(d).map_err(invalid)?);
        }
        if let Some(t) = spec.timeout_secs {
            step = step.timeout(seconds(t).map_err(invalid)?);
        }
        Ok(step)
    }

    fn default_agent(&mut self) -> Result<Agent, WorkflowError> {
        if let Some(a) = self.default_agent.as_ref() {
            return Ok(a.clone());
        }
        let model = (self.models)(None).map_err(|e| WorkflowError::Invalid(format!("default model: {e}")))?;
        let mut b = Agent::builder(model);
        if let Some(p) = self.policy {
            b = b.permissions(p.clone());
        }
        Ok(self.default_agent.insert(b.build()).clone())
    }
}

fn seconds(s: f64) -> Result<Duration, String> {
    Duration::try_from_secs_f64(s).map_err(|_| format!("{s} is not a number of seconds"))
}
