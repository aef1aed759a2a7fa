//! The command-line types of agents by name (`lucid agents …`) and of agents that work
//! target by target (`--coverage`…), apart from `args` so they depend on clap alone.

use clap::{Args, Subcommand};

/// `lucid agents …`.
#[derive(Debug, Subcommand)]
pub enum AgentsAction {
    /// The agents `--agent NAME` can run: the configuration's `[agents.NAME]`, the user's
    /// agent files and the shipped ones, each with where it comes from.
    List,
    /// An agent's settings, and the file it comes from.
    Show {
        /// The agent's name.
        name: String,
    },
    /// Write an editable copy of a shipped agent into the user's agents folder
    /// (`~/.config/lucid/agents/NAME.toml`); it then shadows the shipped one.
    Init {
        /// The shipped agent's name.
        name: String,
        /// Replace the file if it exists.
        #[arg(long)]
        force: bool,
    },
}

/// The flags of an agent that works target by target.
#[derive(Debug, Args, Clone, Default)]
pub struct TargetArgs {
    /// Stop once the line coverage of every source file under PATH (imported by a test or
    /// not, test files left out) reaches PCT (an agent working target by target, such as
    /// `unit-tests`; default: its file's `goal`, else 80). Exit code 0 only when the goal is
    /// reached with no test failing; 3 when `--max-targets` or `--budget-tokens` stopped
    /// the run first; 1 when tests still fail, the goal is missed with no target left, or
    /// coverage could not be measured.
    #[arg(long, value_name = "PCT")]
    pub coverage: Option<f64>,
    /// The most targets worked on (default: the agent file's, else 20).
    #[arg(long, value_name = "N")]
    pub max_targets: Option<usize>,
    /// The most repairs (test runs after the first) per target (default: the agent
    /// file's, else 3).
    #[arg(long, value_name = "N")]
    pub max_repairs: Option<usize>,
    /// Stop before a target once the model calls have used N tokens in all.
    #[arg(long, value_name = "N")]
    pub budget_tokens: Option<u64>,
}
