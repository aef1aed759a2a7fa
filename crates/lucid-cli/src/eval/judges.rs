//! The models of a dataset's LLM judges, resolved as `lucid run` resolves a model (any
//! provider, a configuration's own, or the in-process engine) before the run starts; a judge
//! that names none grades with the agent's own model.

use std::collections::HashMap;
use std::sync::Arc;

use lucid::model::ChatModel;
use lucid_eval::{Dataset, JudgeModels, JudgeSpec};

use crate::args::ModelArgs;
use crate::config::file::FileConfig;
use crate::config::{self, ConfigError, ModelConfig};

/// The judges' models by the name their dataset gives (`None`: the agent's own).
pub struct Resolved(HashMap<Option<String>, Arc<dyn ChatModel>>);

impl JudgeModels for Resolved {
    fn model(&self, name: Option<&str>) -> Result<Arc<dyn ChatModel>, String> {
        self.0.get(&name.map(str::to_string)).cloned().ok_or_else(|| match name {
            Some(n) => format!("the judge's model `{n}` was not resolved before the run"),
            None => "no model for the judge".to_string(),
        })
    }
}

/// Resolves every model the dataset's `LLMJudge`s name (`provider:model`, or a provider
/// alone), and the agent's own for those that name none.
pub async fn resolve(dataset: &Dataset, own: &ModelConfig, file: &FileConfig) -> anyhow::Result<Resolved> {
    let mut models: HashMap<Option<String>, Arc<dyn ChatModel>> = HashMap::new();
    let specs = dataset.cases.iter().flat_map(|c| &c.evaluators).chain(&dataset.evaluators);
    for spec in specs {
        let JudgeSpec::LlmJudge { model, .. } = spec else { continue };
        if models.contains_key(model) {
            continue;
        }
        let built = match model {
            None => own.build()?,
            Some(name) => {
                let (provider, model_name) = match name.split_once(':') {
                    Some((p, m)) => (p.to_string(), Some(m.to_string())),
                    None => (name.clone(), None),
                };
                let args = ModelArgs { provider: Some(provider), model: model_name, ..ModelArgs::default() };
                let cfg = config::resolve(&args, &file.settings)
                    .await
                    .map_err(|e| ConfigError(format!("the LLM judge's model `{name}`: {e}")))?;
                cfg.build()?
            }
        };
        models.insert(model.clone(), built);
    }
    Ok(Resolved(models))
}
