//! Judges that take their time: the [`Judge`] trait (the dataset's judges and judges
//! written in Rust), the [`JudgeEnv`] they run in (where models come from, what they
//! cost), and the [`JudgeError`] of a judge that could not judge.

use std::collections::HashMap;
use std::sync::{Arc, LazyLock, Mutex};

use futures::future::BoxFuture;
use lucid::model::ChatModel;
use lucid::model::prices::Prices;

use super::{Answer, JudgeSpec, Verdict, command, llm};

/// A judge: a dataset's ([`JudgeSpec`]) or one written in Rust. It may take its time (run
/// a command, ask a model); `None` means it has nothing to say of this answer.
///
/// ```
/// use futures::future::BoxFuture;
/// use lucid_eval::{Answer, Judge, JudgeEnv, JudgeError, Verdict};
///
/// /// Passes short answers.
/// struct Short(usize);
///
/// impl Judge for Short {
///     fn name(&self) -> String {
///         "Short".into()
///     }
///     fn judge<'a>(&'a self, answer: &'a Answer<'a>, _: &'a JudgeEnv<'a>) -> BoxFuture<'a, Result<Option<Verdict>, JudgeError>> {
///         let len = answer.output.as_str().map_or(0, str::len);
///         Box::pin(async move { Ok(Some(Verdict::new("Short", len <= self.0))) })
///     }
/// }
///
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// let models = lucid_eval::FromEnv::new();
/// let env = JudgeEnv::new(&models);
/// let output = serde_json::json!("ok");
/// let verdict = Short(10).judge(&Answer::new(&output), &env).await?.unwrap();
/// assert!(verdict.passed);
/// # Ok::<(), JudgeError>(()) }).unwrap();
/// ```
pub trait Judge: Send + Sync {
    /// The judge's name, as verdicts and reports give it.
    fn name(&self) -> String;

    /// The verdict on an answer, `None` when the judge has nothing to say; an error when it
    /// could not judge (its model could not be reached, its command could not start).
    fn judge<'a>(
        &'a self,
        answer: &'a Answer<'a>,
        env: &'a JudgeEnv<'a>,
    ) -> BoxFuture<'a, Result<Option<Verdict>, JudgeError>>;
}

/// Where judges get what they need: the models an LLM judge names, and the prices that
/// cost their calls.
///
/// ```
/// let models = lucid_eval::FromEnv::new().default_model("openai:gpt-4o-mini");
/// let prices = lucid::model::prices::Prices::default();
/// let env = lucid_eval::JudgeEnv::new(&models).prices(&prices);
/// # let _ = env;
/// ```
#[derive(Clone, Copy)]
#[non_exhaustive]
pub struct JudgeEnv<'a> {
    /// The models judges ask.
    pub models: &'a dyn JudgeModels,
    /// The prices of their calls (the built-in table unless set).
    pub prices: &'a Prices,
}

static BUILT_IN_PRICES: LazyLock<Prices> = LazyLock::new(Prices::default);

impl<'a> JudgeEnv<'a> {
    /// Judges that take their models from `models`, priced by the built-in table.
    pub fn new(models: &'a dyn JudgeModels) -> Self {
        JudgeEnv { models, prices: &BUILT_IN_PRICES }
    }

    /// With these prices.
    pub fn prices(self, prices: &'a Prices) -> Self {
        JudgeEnv { prices, ..self }
    }
}

impl std::fmt::Debug for JudgeEnv<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JudgeEnv").field("prices", self.prices).finish_non_exhaustive()
    }
}

/// The models an LLM judge may ask, by the name a dataset gives (`provider:model`), or the
/// default one for `None`. A closure of that shape is one.
///
/// ```
/// use std::sync::Arc;
/// use lucid::model::{ChatModel, ScriptedModel};
/// use lucid_eval::JudgeModels;
/// let scripted = ScriptedModel::new();
/// let models = move |_: Option<&str>| -> Result<Arc<dyn ChatModel>, String> { Ok(Arc::new(scripted.clone())) };
/// assert_eq!(models.model(None).unwrap().provider(), "scripted");
/// ```
pub trait JudgeModels: Send + Sync {
    /// The model named `name` (`None`: the default one), or why there is none.
    fn model(&self, name: Option<&str>) -> Result<Arc<dyn ChatModel>, String>;
}

impl<F> JudgeModels for F
where
    F: Fn(Option<&str>) -> Result<Arc<dyn ChatModel>, String> + Send + Sync,
{
    fn model(&self, name: Option<&str>) -> Result<Arc<dyn ChatModel>, String> {
        self(name)
    }
}

/// Models made by [`lucid::model::from_env`] from their `provider:model` names, keys read
/// from the providers' environment variables; each made once and shared.
///
/// ```
/// use lucid_eval::JudgeModels;
/// let models = lucid_eval::FromEnv::new();
/// assert!(models.model(None).err().unwrap().contains("no model"));
/// assert!(models.model(Some("nowhere:x")).err().unwrap().contains("unknown provider"));
/// ```
#[derive(Default)]
pub struct FromEnv {
    default: Option<String>,
    made: Mutex<HashMap<String, Arc<dyn ChatModel>>>,
}

impl FromEnv {
    /// Models by name, with no default: a judge must name its model.
    pub fn new() -> Self {
        FromEnv::default()
    }

    /// With the model (`provider:model`) judges get when they name none.
    pub fn default_model(self, spec: impl Into<String>) -> Self {
        FromEnv { default: Some(spec.into()), ..self }
    }
}

impl std::fmt::Debug for FromEnv {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FromEnv").field("default", &self.default).finish_non_exhaustive()
    }
}

impl JudgeModels for FromEnv {
    fn model(&self, name: Option<&str>) -> Result<Arc<dyn ChatModel>, String> {
        let spec = name
            .or(self.default.as_deref())
            .ok_or("the judge names no model and no default judge model is set: give it `model: provider:model`")?;
        let mut made = self.made.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(model) = made.get(spec) {
            return Ok(Arc::clone(model));
        }
        let model = lucid::model::from_env(spec).map_err(|e| e.to_string())?;
        made.insert(spec.to_string(), Arc::clone(&model));
        Ok(model)
    }
}

/// A judge that could not judge (a failed verdict is not an error).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum JudgeError {
    /// The judge's model could not be had.
    #[error("the judge `{judge}` has no model: {message}")]
    NoModel {
        /// The judge.
        judge: String,
        /// Why.
        message: String,
    },
    /// The judge's model call failed.
    #[error("the judge `{judge}` could not ask its model: {source}")]
    Model {
        /// The judge.
        judge: String,
        /// What the model call said.
        #[source]
        source: lucid::model::ModelError,
    },
    /// The judge's command could not start.
    #[error("the judge `{judge}` could not start `{command}`: {source}")]
    Command {
        /// The judge.
        judge: String,
        /// The command.
        command: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A judge written in Rust failed.
    #[error("the judge `{judge}` failed: {message}")]
    Failed {
        /// The judge.
        judge: String,
        /// Why.
        message: String,
    },
}

impl Judge for JudgeSpec {
    fn name(&self) -> String {
        JudgeSpec::name(self).to_string()
    }

    fn judge<'a>(
        &'a self,
        answer: &'a Answer<'a>,
        env: &'a JudgeEnv<'a>,
    ) -> BoxFuture<'a, Result<Option<Verdict>, JudgeError>> {
        match self {
            JudgeSpec::Command { run, timeout } => {
                Box::pin(
                    async move { command::judge(run, *timeout, answer.workdir, answer.dataset_dir).await.map(Some) },
                )
            }
            JudgeSpec::LlmJudge { rubric, model, include_input, include_expected_output } => {
                let ask = llm::Ask {
                    rubric,
                    model: model.as_deref(),
                    include_input: *include_input,
                    include_expected_output: *include_expected_output,
                };
                Box::pin(async move { ask.judge(answer, env).await.map(Some) })
            }
            _ => Box::pin(std::future::ready(Ok(JudgeSpec::judge(self, answer)))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A judge written in Rust: passes answers of at most its number of bytes.
    struct Short(usize);

    impl Judge for Short {
        fn name(&self) -> String {
            "Short".into()
        }

        fn judge<'a>(
            &'a self,
            answer: &'a Answer<'a>,
            _: &'a JudgeEnv<'a>,
        ) -> BoxFuture<'a, Result<Option<Verdict>, JudgeError>> {
            let len = answer.output.as_str().map_or(0, str::len);
            Box::pin(async move { Ok(Some(Verdict::new(self.name(), len <= self.0))) })
        }
    }

    #[tokio::test]
    async fn dataset_judges_and_rust_judges_run_side_by_side() {
        let judges: Vec<Box<dyn Judge>> = vec![
            Box::new(serde_norway::from_str::<JudgeSpec>("Contains: lo").unwrap()),
            Box::new(Short(3)),
            Box::new(JudgeSpec::EqualsExpected),
        ];
        let models = FromEnv::new();
        let env = JudgeEnv::new(&models);
        let output = json!("hello");
        let answer = Answer::new(&output);
        let mut said = Vec::new();
        for judge in &judges {
            said.push((judge.name(), judge.judge(&answer, &env).await.unwrap().map(|v| v.passed)));
        }
        let names = |n: &str| n.to_string();
        assert_eq!(
            said,
            [(names("Contains"), Some(true)), (names("Short"), Some(false)), (names("EqualsExpected"), None)]
        );
    }

    #[test]
    fn models_from_the_environment_are_made_once() {
        // A local provider needs no key.
        let models = FromEnv::new().default_model("ollama:llama3.2");
        let (a, b) = (models.model(None).unwrap(), models.model(Some("ollama:llama3.2")).unwrap());
        assert!(Arc::ptr_eq(&a, &b));
        assert_eq!(a.model_name(), "llama3.2");
    }
}
