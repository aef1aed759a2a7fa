//! Structured output: a turn whose answer must be JSON matching a schema, with
//! corrective retries.

use std::future::IntoFuture;
use std::marker::PhantomData;

use futures::future::BoxFuture;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::Session;
use super::stream::Events;
use crate::agent::StopReason;
use crate::error::{Error, Result};
use crate::message::Message;
use crate::model::{ChatOptions, ResponseFormat};

/// The corrective retries of an extraction unless `.retries(n)` says otherwise.
pub const DEFAULT_EXTRACTION_RETRIES: usize = 2;

/// A structured-output turn being set up by [`Session::extract`] or
/// [`Session::extract_json`]; `.await` runs it.
#[must_use = "an extraction does nothing until it is awaited"]
pub struct Extraction<'s, T> {
    session: &'s mut Session,
    prompt: String,
    format: ResponseFormat,
    retries: usize,
    parsed: PhantomData<fn() -> T>,
}

impl<'s, T> Extraction<'s, T> {
    pub(super) fn new(session: &'s mut Session, prompt: String, format: ResponseFormat) -> Self {
        Extraction { session, prompt, format, retries: DEFAULT_EXTRACTION_RETRIES, parsed: PhantomData }
    }

    /// How many times an answer that does not parse or validate is sent back with the
    /// problem before [`Error::Extraction`] (default [`DEFAULT_EXTRACTION_RETRIES`]).
    pub fn retries(mut self, retries: usize) -> Self {
        self.retries = retries;
        self
    }
}

impl<'s, T: DeserializeOwned + 's> IntoFuture for Extraction<'s, T> {
    type Output = Result<T>;
    type IntoFuture = BoxFuture<'s, Result<T>>;

    fn into_future(self) -> Self::IntoFuture {
        let Extraction { session, prompt, format, retries, .. } = self;
        Box::pin(async move {
            let value = session.extract_value(prompt, format, retries).await?;
            // Read from the value in place: no copy of it unless the answer is refused.
            T::deserialize(&value).map_err(|e| Error::Extraction {
                attempts: retries + 1,
                message: e.to_string(),
                answer: value.to_string(),
            })
        })
    }
}

impl Session {
    async fn extract_value(&mut self, mut prompt: String, format: ResponseFormat, retries: usize) -> Result<Value> {
        let schema = match &format {
            ResponseFormat::JsonSchema { schema, .. } => schema.clone(),
            _ => serde_json::json!({"type": "object"}),
        };
        let options = ChatOptions { response_format: Some(format), ..self.agent.config.options.clone() };
        let mut attempt = 0;
        loop {
            let r = self.drive(Some(Message::user(prompt)), false, Events::NONE, Some(&options)).await?;
            if r.stop_reason == StopReason::NeedsInput {
                return Err(Error::NeedsInput { questions: r.questions });
            }
            match crate::structured::parse::<Value>(&r.content, &schema) {
                Ok(v) => return Ok(v),
                Err(_)
                    if let Some(questions) =
                        crate::structured::questions_in(&r.content, self.agent.config.questions.as_ref()) =>
                {
                    return Err(Error::NeedsInput { questions });
                }
                Err(problem) if attempt < retries => {
                    attempt += 1;
                    tracing::debug!(attempt, %problem, "structured answer rejected; asking again");
                    prompt = format!(
                        "Your answer did not match the required JSON schema: {problem}. Answer again with only the JSON value."
                    );
                }
                Err(problem) => {
                    return Err(Error::Extraction { attempts: attempt + 1, message: problem, answer: r.content });
                }
            }
        }
    }
}
