//! The usual subject: a Lucid agent, built afresh for each attempt, given the case's
//! inputs as its prompt.

use futures::FutureExt;
use futures::future::BoxFuture;
use lucid::agent::budget::Budget;
use lucid::{AgentBuilder, StopReason};
use serde_json::Value;

use super::{Outcome, Subject, Trial};
use crate::trajectory::Call;

/// Runs an agent on each case: `make` builds it for the attempt (pointing its provider at
/// [`Trial::base_url`] when a cassette is in use), the runner attaches the case's budget,
/// and the case's inputs are the prompt (text as it is; other JSON as its text).
///
/// ```
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// use lucid::model::ScriptedModel;
/// use lucid_eval::run::{AgentSubject, Runner};
/// let model = ScriptedModel::new().text("4");
/// let subject = AgentSubject::new(move |_trial| Ok(lucid::Agent::builder(model.clone())));
/// let dataset = lucid_eval::Dataset::from_yaml(
///     "cases: [{inputs: 'What is 2 + 2?', expected_output: '4'}]\nevaluators: [EqualsExpected]",
///     "sums.yaml",
/// ).unwrap();
/// let report = Runner::new().run(&dataset, &subject).await;
/// assert_eq!(report.summary.passed, 1);
/// # });
/// ```
pub struct AgentSubject<F> {
    make: F,
}

impl<F> AgentSubject<F>
where
    F: Fn(&Trial<'_>) -> Result<AgentBuilder, String> + Send + Sync,
{
    /// A subject whose agent `make` builds for each attempt.
    pub fn new(make: F) -> Self {
        AgentSubject { make }
    }
}

impl<F> std::fmt::Debug for AgentSubject<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("AgentSubject")
    }
}

impl<F> Subject for AgentSubject<F>
where
    F: Fn(&Trial<'_>) -> Result<AgentBuilder, String> + Send + Sync,
{
    fn run<'a>(&'a self, trial: &'a Trial<'a>) -> BoxFuture<'a, Result<Outcome, String>> {
        async move { run_agent((self.make)(trial)?, trial).await }.boxed()
    }
}

/// Runs the agent `builder` makes on a case attempt: attaches the attempt's budget, gives
/// the case's inputs as the prompt (text as it is; other JSON as its text) and reads the
/// outcome from the run's result. What [`AgentSubject`] does, for a subject that builds
/// its agent some other way (asynchronously, from a configuration).
pub async fn run_agent(mut builder: AgentBuilder, trial: &Trial<'_>) -> Result<Outcome, String> {
    let budget = Budget::default().run(trial.limits);
    if !budget.is_unlimited() {
        builder = builder.budget(budget);
    }
    let agent = builder.build();
    let prompt = match &trial.case.inputs {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let result = agent.run(prompt).await.map_err(|e| e.to_string())?;
    let over_budget = (result.stop_reason == StopReason::BudgetExceeded)
        .then(|| result.stop_message.clone().unwrap_or_else(|| "the case's budget was spent".into()));
    Ok(Outcome {
        output: Value::String(result.content),
        calls: result.tool_calls.into_iter().map(|c| Call::new(c.name, c.arguments)).collect(),
        tokens: result.usage.input_tokens + result.usage.output_tokens,
        model_calls: result.iterations as u64,
        cost_usd: result.cost_usd,
        over_budget,
        workdir: None,
    })
}
