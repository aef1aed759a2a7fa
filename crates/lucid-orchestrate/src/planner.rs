//! The planner: decompose a task into steps, run them, re-plan what failed, synthesise.
//!
//! A planning agent writes a [`Plan`] (steps with dependencies, as validated structured
//! output). An executing agent, with its tools, runs each step in a fresh session as soon
//! as the steps it depends on are done (independent steps at the same time), with their
//! results in its prompt, and reports success or failure as structured output. A failed
//! step sends the planning agent the results so far and the failure, and it plans the
//! remaining work again (a bounded number of times). At the end the planning agent
//! answers the task from all the results.
//!
//! The planning agent keeps one session for the whole run, so each re-plan and the final
//! answer see the plans before them.
//!
//! ```no_run
//! # async fn demo() -> lucid::Result<()> {
//! use lucid_orchestrate::planner::{PlanEvent, Planner};
//! let model = lucid::model::from_env("openai:gpt-4o-mini")?;
//! let planner = lucid::Agent::builder(model.clone()).system("You plan research tasks.").build();
//! let worker = lucid::Agent::builder(model).tool(lucid_tools::calculator).build();
//! let run = Planner::new(&planner, &worker)
//!     .max_replans(2)
//!     .run_with_events("Compare the areas of France and Spain in km².", |e| {
//!         if let PlanEvent::StepFinished { id, success, .. } = e { println!("{id}: {success}") }
//!     })
//!     .await?;
//! println!("{}", run.answer);
//! # Ok(()) }
//! ```

use std::collections::{BTreeMap, HashMap, HashSet};
use std::time::{Duration, Instant};

use futures::StreamExt;
use futures::stream::FuturesUnordered;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::OnEvent;
use crate::errors::PlanError;
use lucid::agent::{Agent, Session, StopReason};
use lucid::error::{Error, Result};
use lucid::message::Usage;

/// A plan: steps with the ids of the steps they need first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Plan {
    /// The steps, in a sensible order.
    pub steps: Vec<PlanStep>,
}

/// One step of a [`Plan`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PlanStep {
    /// A short unique id, such as `s1`.
    pub id: String,
    /// What to do, self-contained: the executor sees only this, the overall task and the
    /// results of the steps it depends on.
    pub task: String,
    /// Ids of the steps whose results this step needs (empty when none).
    pub depends_on: Vec<String>,
}

/// What the executor reports for a step.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct StepReport {
    /// False when the step could not be done.
    success: bool,
    /// What was found or done, or why it failed.
    result: String,
}

/// Whether a request needs a plan: the answer of [`triage`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[non_exhaustive]
pub struct Triage {
    /// True when the request has several parts worth planning; false for one that can be
    /// answered at once.
    pub needs_plan: bool,
    /// What the classification call cost.
    pub usage: Usage,
}

/// The classification's answer on the wire.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct TriageAnswer {
    /// True when the request needs several distinct steps.
    needs_plan: bool,
}

const TRIAGE_PROMPT: &str = "Classify the request below. Answer needs_plan = true only when it asks for \
several distinct pieces of work that build on each other or must be combined (research then compare, \
compute several things then report, change several files); false for a question, a greeting, a single \
lookup, a single calculation or a single edit.\n\nRequest:\n";

/// The hybrid mode's first step (seed 004: simple questions answered at once, complex ones
/// as a checklist): one short structured call, without tools, decides whether `task`
/// needs a plan. Its usage is returned so a caller counts it.
///
/// ```no_run
/// # async fn demo(agent: lucid::Agent) -> lucid::Result<()> {
/// use lucid_orchestrate::planner::{Planner, triage};
/// let task = "Compare the populations of the three largest cities in Japan and chart them.";
/// if triage(&agent, task).await?.needs_plan {
///     let run = Planner::new(&agent, &agent).run(task).await?;
///     println!("{}", run.answer);
/// }
/// # Ok(()) }
/// ```
pub async fn triage(agent: &Agent, task: &str) -> Result<Triage> {
    // The agent's own options (no temperature or length forced: reasoning models refuse
    // the one and spend hidden tokens under the other); the strict schema keeps the answer
    // to a few tokens.
    let classifier = agent.to_builder().tools(lucid::tool::ToolRegistry::new()).memory_off().max_iterations(1).build();
    let mut session = classifier.session();
    let answer = session.extract::<TriageAnswer>(format!("{TRIAGE_PROMPT}{task}")).retries(1).await;
    let usage = session.usage();
    Ok(Triage { needs_plan: answer?.needs_plan, usage })
}

/// How one step went.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct StepOutcome {
    /// The step's id.
    pub id: String,
    /// The step's task.
    pub task: String,
    /// Whether it succeeded.
    pub success: bool,
    /// Its result, or why it failed.
    pub result: String,
    /// The executor's model usage for this step.
    pub usage: Usage,
    /// How long it took.
    #[serde(rename = "duration_ms", serialize_with = "lucid::duration_ms::millis")]
    pub duration: Duration,
}

/// The outcome of a planned run.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct PlanRun {
    /// The answer to the task.
    pub answer: String,
    /// The first plan, then each re-plan.
    pub plans: Vec<Plan>,
    /// Every step run, in the order they finished (failed ones included).
    pub steps: Vec<StepOutcome>,
    /// Model usage of planning, executing and the answer together.
    pub usage: Usage,
}

/// What happens during a planned run.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
#[non_exhaustive]
pub enum PlanEvent {
    /// A plan was made (revision 0) or remade (1, 2…).
    Planned {
        /// Which plan.
        revision: usize,
        /// The plan.
        plan: Plan,
    },
    /// A step starts.
    StepStarted {
        /// Its id.
        id: String,
        /// Its task.
        task: String,
    },
    /// A step ended.
    StepFinished {
        /// Its id.
        id: String,
        /// Whether it succeeded.
        success: bool,
        /// Its result, or why it failed.
        result: String,
        /// How long it took.
        #[serde(rename = "duration_ms", serialize_with = "lucid::duration_ms::millis")]
        duration: Duration,
    },
    /// A step failed; the rest is being planned again.
    Replanning {
        /// The failed step.
        failed: String,
        /// Why it failed.
        reason: String,
    },
    /// All steps are done; the answer is being written.
    Synthesizing,
}

/// Plans, executes and answers. See the [module docs](self).
#[derive(Debug, Clone)]
pub struct Planner {
    planner: Agent,
    executor: Agent,
    max_replans: usize,
    max_steps: usize,
    concurrency: usize,
}

impl Planner {
    /// A planner: `planner` makes the plans and the answer, `executor` (with its tools)
    /// runs the steps. They may be the same agent.
    pub fn new(planner: &Agent, executor: &Agent) -> Self {
        Planner { planner: planner.clone(), executor: executor.clone(), max_replans: 2, max_steps: 12, concurrency: 4 }
    }

    /// How many times a failure may send the rest back for planning (default 2).
    pub fn max_replans(mut self, n: usize) -> Self {
        self.max_replans = n;
        self
    }

    /// The most steps one plan may have (default 12).
    pub fn max_steps(mut self, n: usize) -> Self {
        self.max_steps = n.max(1);
        self
    }

    /// How many steps run at once (default 4).
    pub fn concurrency(mut self, n: usize) -> Self {
        self.concurrency = n.max(1);
        self
    }

    /// Plans and runs `task`.
    pub async fn run(&self, task: &str) -> Result<PlanRun> {
        self.run_with_events(task, |_| {}).await
    }

    /// Plans and runs `task`, handing every [`PlanEvent`] to `on_event`.
    pub async fn run_with_events(&self, task: &str, on_event: impl OnEvent<PlanEvent>) -> Result<PlanRun> {
        let mut planning = self.planner.session();
        let mut plans = Vec::new();
        let mut outcomes: Vec<StepOutcome> = Vec::new();
        let mut done: BTreeMap<String, StepOutcome> = BTreeMap::new();
        let mut exec_usage = Usage::default();
        let first = format!(
            "Make a plan for this task:\n\n{task}\n\n\
             Split it into at most {} steps another agent can each do on its own with its tools. \
             Give each step a short unique id and list in depends_on the ids of the steps whose \
             results it needs; steps without dependencies between them run at the same time.",
            self.max_steps
        );
        let mut plan = self.make_plan(&mut planning, first, &done).await?;
        on_event(PlanEvent::Planned { revision: 0, plan: plan.clone() });
        plans.push(plan.clone());
        loop {
            let failure = self.execute(task, &plan, &mut done, &mut outcomes, &mut exec_usage, &on_event).await;
            let Some((failed, reason)) = failure else { break };
            if plans.len() > self.max_replans {
                return Err(PlanError::StepFailed { step: failed, allowed: self.max_replans, reason }.into());
            }
            on_event(PlanEvent::Replanning { failed: failed.clone(), reason: reason.clone() });
            let replan = format!(
                "Step `{failed}` failed: {reason}\n\nDone so far:\n{}\n\
                 Plan the remaining work again, another way. Use new ids; depends_on may name \
                 the finished steps above.",
                results_text(done.values())
            );
            plan = self.make_plan(&mut planning, replan, &done).await?;
            on_event(PlanEvent::Planned { revision: plans.len(), plan: plan.clone() });
            plans.push(plan.clone());
        }
        on_event(PlanEvent::Synthesizing);
        let ask = format!(
            "Every step is done. Results:\n{}\nNow answer the original task in full:\n\n{task}",
            results_text(done.values())
        );
        let answer = planning.run(ask).await?;
        // An answer that did not finish is not an answer: say why instead of returning
        // whatever text there was (often none).
        match answer.stop_reason {
            StopReason::Completed => {}
            StopReason::NeedsInput => return Err(Error::NeedsInput { questions: answer.questions }),
            StopReason::Cancelled => return Err(Error::Cancelled),
            StopReason::MaxIterations => {
                return Err(PlanError::AnswerUnfinished { iterations: answer.iterations }.into());
            }
            other => {
                let why = answer.stop_message.unwrap_or_else(|| other.as_str().to_string());
                return Err(PlanError::AnswerStopped { why }.into());
            }
        }
        let mut usage = planning.usage();
        usage += exec_usage;
        Ok(PlanRun { answer: answer.content, plans, steps: outcomes, usage })
    }

    /// Asks for a plan until one is valid (twice more at most), in the planning session.
    async fn make_plan(
        &self,
        session: &mut Session,
        mut prompt: String,
        done: &BTreeMap<String, StepOutcome>,
    ) -> Result<Plan> {
        let mut attempt = 0;
        loop {
            let plan: Plan = session.extract(prompt).await?;
            match validate_plan(&plan, done, self.max_steps) {
                Ok(()) => return Ok(plan),
                Err(problem) if attempt < 2 => {
                    attempt += 1;
                    tracing::debug!(%problem, "plan rejected; asking again");
                    prompt = format!("That plan cannot run: {problem}. Send a corrected plan.");
                }
                Err(problem) => return Err(PlanError::Invalid { attempts: attempt + 1, problem }.into()),
            }
        }
    }

    /// Runs the plan's steps as their dependencies finish. Returns the first failure.
    async fn execute(
        &self,
        task: &str,
        plan: &Plan,
        done: &mut BTreeMap<String, StepOutcome>,
        outcomes: &mut Vec<StepOutcome>,
        usage: &mut Usage,
        on_event: &(dyn Fn(PlanEvent) + Send + Sync),
    ) -> Option<(String, String)> {
        let mut started: HashSet<&str> = HashSet::new();
        let mut running = FuturesUnordered::new();
        let mut failure = None;
        loop {
            if failure.is_none() {
                for step in &plan.steps {
                    if running.len() >= self.concurrency {
                        break;
                    }
                    let ready = step.depends_on.iter().all(|d| done.contains_key(d));
                    if ready && !started.contains(step.id.as_str()) {
                        started.insert(&step.id);
                        on_event(PlanEvent::StepStarted { id: step.id.clone(), task: step.task.clone() });
                        let prompt = step_prompt(task, step, done);
                        running.push(self.run_step(step, prompt));
                    }
                }
            }
            let Some(outcome) = running.next().await else { break };
            on_event(PlanEvent::StepFinished {
                id: outcome.id.clone(),
                success: outcome.success,
                result: outcome.result.clone(),
                duration: outcome.duration,
            });
            *usage += outcome.usage;
            outcomes.push(outcome.clone());
            if outcome.success {
                done.insert(outcome.id.clone(), outcome);
            } else if failure.is_none() {
                failure = Some((outcome.id, outcome.result));
            }
        }
        failure
    }

    async fn run_step(&self, step: &PlanStep, prompt: String) -> StepOutcome {
        let started = Instant::now();
        let mut session = self.executor.session();
        let (success, result) = match session.extract::<StepReport>(prompt).await {
            Ok(r) => (r.success, r.result),
            Err(e) => (false, e.to_string()),
        };
        StepOutcome {
            id: step.id.clone(),
            task: step.task.clone(),
            success,
            result,
            usage: session.usage(),
            duration: started.elapsed(),
        }
    }
}

fn step_prompt(task: &str, step: &PlanStep, done: &BTreeMap<String, StepOutcome>) -> String {
    let mut p =
        format!("You are doing one step of a larger task.\n\nThe larger task: {task}\n\nYour step: {}\n", step.task);
    if !step.depends_on.is_empty() {
        p.push_str("\nResults of the steps it builds on:\n");
        p.push_str(&results_text(step.depends_on.iter().filter_map(|d| done.get(d))));
    }
    p.push_str(
        "\nDo this step only, using your tools as needed. Then report: success (false if you \
         could not do it) and result (what you found or did, or why it failed).",
    );
    p
}

fn results_text<'a>(steps: impl Iterator<Item = &'a StepOutcome>) -> String {
    let mut s = String::new();
    for o in steps {
        s.push_str(&format!("- {} ({}): {}\n", o.id, o.task, o.result));
    }
    if s.is_empty() {
        s.push_str("(nothing yet)\n");
    }
    s
}

/// Checks a plan: steps present and few enough, ids unique and new, dependencies known,
/// no cycle.
pub fn validate_plan(
    plan: &Plan,
    done: &BTreeMap<String, StepOutcome>,
    max_steps: usize,
) -> std::result::Result<(), String> {
    if plan.steps.is_empty() {
        return Err("it has no steps".into());
    }
    if plan.steps.len() > max_steps {
        return Err(format!("it has {} steps; the most allowed is {max_steps}", plan.steps.len()));
    }
    let mut ids: HashMap<&str, &PlanStep> = HashMap::new();
    for s in &plan.steps {
        if s.id.trim().is_empty() {
            return Err("a step has an empty id".into());
        }
        if done.contains_key(&s.id) {
            return Err(format!("the id `{}` belongs to a finished step; use a new one", s.id));
        }
        if ids.insert(&s.id, s).is_some() {
            return Err(format!("two steps have the id `{}`", s.id));
        }
    }
    for s in &plan.steps {
        for d in &s.depends_on {
            if d == &s.id {
                return Err(format!("step `{}` depends on itself", s.id));
            }
            if !ids.contains_key(d.as_str()) && !done.contains_key(d) {
                return Err(format!("step `{}` depends on `{d}`, which is not a step", s.id));
            }
        }
    }
    // Kahn's algorithm: whatever cannot be ordered is on a cycle.
    let mut indegree: HashMap<&str, usize> = plan
        .steps
        .iter()
        .map(|s| (s.id.as_str(), s.depends_on.iter().filter(|d| ids.contains_key(d.as_str())).count()))
        .collect();
    let mut ready: Vec<&str> = indegree.iter().filter(|(_, n)| **n == 0).map(|(id, _)| *id).collect();
    let mut ordered = 0;
    while let Some(id) = ready.pop() {
        ordered += 1;
        for s in &plan.steps {
            if s.depends_on.iter().any(|d| d == id)
                && let Some(n) = indegree.get_mut(s.id.as_str())
            {
                *n -= 1;
                if *n == 0 {
                    ready.push(&s.id);
                }
            }
        }
    }
    if ordered < plan.steps.len() {
        let mut cyclic: Vec<&str> = indegree.iter().filter(|(_, n)| **n > 0).map(|(id, _)| *id).collect();
        cyclic.sort_unstable();
        return Err(format!("the steps {} depend on each other in a cycle", cyclic.join(", ")));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(id: &str, deps: &[&str]) -> PlanStep {
        PlanStep { id: id.into(), task: format!("do {id}"), depends_on: deps.iter().map(|d| d.to_string()).collect() }
    }

    #[test]
    fn plans_are_checked_for_cycles_unknown_and_duplicate_ids() {
        let none = BTreeMap::new();
        let ok = Plan { steps: vec![step("a", &[]), step("b", &["a"]), step("c", &["a", "b"])] };
        assert_eq!(validate_plan(&ok, &none, 10), Ok(()));
        let cycle = Plan { steps: vec![step("a", &["c"]), step("b", &["a"]), step("c", &["b"]), step("d", &[])] };
        assert_eq!(validate_plan(&cycle, &none, 10).unwrap_err(), "the steps a, b, c depend on each other in a cycle");
        let unknown = Plan { steps: vec![step("a", &["z"])] };
        assert!(validate_plan(&unknown, &none, 10).unwrap_err().contains("`z`, which is not a step"));
        let dup = Plan { steps: vec![step("a", &[]), step("a", &[])] };
        assert!(validate_plan(&dup, &none, 10).unwrap_err().contains("two steps have the id `a`"));
        assert!(validate_plan(&ok, &none, 2).unwrap_err().contains("most allowed is 2"));
        assert!(validate_plan(&Plan { steps: vec![] }, &none, 2).is_err());
    }

    #[test]
    fn a_replan_may_build_on_finished_steps_but_not_reuse_their_ids() {
        let mut done = BTreeMap::new();
        let finished = StepOutcome {
            id: "a".into(),
            task: "t".into(),
            success: true,
            result: "r".into(),
            usage: Usage::default(),
            duration: Duration::ZERO,
        };
        done.insert("a".to_string(), finished);
        assert_eq!(validate_plan(&Plan { steps: vec![step("b", &["a"])] }, &done, 5), Ok(()));
        assert!(validate_plan(&Plan { steps: vec![step("a", &[])] }, &done, 5).unwrap_err().contains("finished step"));
    }

    #[test]
    fn the_plan_schema_is_strict() {
        let lucid::model::ResponseFormat::JsonSchema { strict, .. } = lucid::structured::response_format::<Plan>()
        else {
            unreachable!()
        };
        assert!(strict, "OpenAI strict mode needs every object closed and every property required");
    }
}
