//! The planner's and the team's errors, beside the workflow's
//! ([`WorkflowError`](super::workflow::WorkflowError)). Each converts into
//! [`lucid::Error`](lucid::Error) as [`Error::Orchestration`], which keeps it as its source,
//! so `?` works and a caller can still match on it.
//!
//! ```
//! use lucid_orchestrate::PlanError;
//! let e: lucid::Error = PlanError::Invalid { attempts: 3, problem: "step `b` depends on itself".into() }.into();
//! let plan = std::error::Error::source(&e).and_then(|s| s.downcast_ref::<PlanError>());
//! assert!(matches!(plan, Some(PlanError::Invalid { attempts: 3, .. })));
//! assert_eq!(e.to_string(), "planning failed: the plan is still invalid after 3 tries: step `b` depends on itself");
//! ```

use lucid::error::Error;

/// Why a [`Planner`](super::planner::Planner) run failed (its agents' own failures come
/// back as they are).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PlanError {
    /// The planning agent's plan could not run (a cycle, an unknown dependency, too many
    /// steps), however often it was sent back.
    #[error("planning failed: the plan is still invalid after {attempts} tries: {problem}")]
    Invalid {
        /// Plans asked for.
        attempts: usize,
        /// What is wrong with the last one.
        problem: String,
    },
    /// A step failed and every re-plan allowed was used.
    #[error("planning failed: step `{step}` failed and no re-plans are left ({allowed} allowed): {reason}")]
    StepFailed {
        /// The step.
        step: String,
        /// Re-plans allowed ([`Planner::max_replans`](super::planner::Planner::max_replans)).
        allowed: usize,
        /// Why it failed.
        reason: String,
    },
    /// Every step is done, but the planning agent reached its iteration limit writing the
    /// answer.
    #[error(
        "planning failed: every step is done, but writing the answer reached the planning agent's limit of \
         {iterations} model calls before it finished; raise its max_iterations"
    )]
    AnswerUnfinished {
        /// Model calls made.
        iterations: usize,
    },
    /// Every step is done, but writing the answer stopped for another reason (a hook's
    /// stop, a call cut off by the output limit).
    #[error("planning failed: every step is done, but writing the answer stopped: {why}")]
    AnswerStopped {
        /// Why, as the turn said it.
        why: String,
    },
}

/// A [`Team`](super::team::Team) run went past one of its bounds; the first one reached
/// stops every member.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TeamError {
    /// Delegation would go deeper than allowed.
    #[error(
        "delegation from `{from}` to `{to}` would go {depth} levels deep; the limit is {limit} (raise it with \
         Team::max_depth)"
    )]
    TooDeep {
        /// The delegating member.
        from: String,
        /// The member delegated to.
        to: String,
        /// The depth it would reach.
        depth: usize,
        /// [`Team::max_depth`](super::team::Team::max_depth).
        limit: usize,
    },
    /// The team's budget of model calls is spent.
    #[error("the team's budget of {limit} model calls is spent; raise it with Team::max_model_calls")]
    BudgetSpent {
        /// [`Team::max_model_calls`](super::team::Team::max_model_calls).
        limit: usize,
    },
    /// The members kept handing the conversation to each other.
    #[error("more than {max} hand-offs in a row; the members keep passing the conversation around")]
    TooManyHandoffs {
        /// Hand-offs allowed in a row.
        max: usize,
    },
}

impl From<PlanError> for Error {
    fn from(e: PlanError) -> Self {
        Error::Orchestration { source: Box::new(e) }
    }
}

impl From<TeamError> for Error {
    fn from(e: TeamError) -> Self {
        Error::Orchestration { source: Box::new(e) }
    }
}
