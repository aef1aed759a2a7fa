//! Long-term memory: embeddings, vector indexes and [`ConversationMemory`].
//!
//! [`ConversationMemory`] works without any of the rest: old turns are summarised and the
//! newest summaries recalled. An [`Embedder`] turns text into vectors ([`OpenAiEmbedder`], [`GeminiEmbedder`], and a
//! local BERT-family model with the `local-embeddings` feature); a [`VectorIndex`] keeps
//! them and finds the nearest (`lucid_sqlite::SqliteVectorIndex`, and
//! `lucid_postgres::PgVectorIndex` with pgvector). [`ConversationMemory`] joins them to a session: a short-term window,
//! summaries of the oldest turns when the context fills, and recall of the summaries most
//! relevant to each new message.
//!
//! With the `test-kit` feature, [`test_kit`] runs the conformance suite of [`VectorIndex`]
//! for indexes written outside this crate.
//!
//! Where sessions themselves are kept is [`crate::store`]; this module keeps no session.

mod conversation;
mod embed;
#[cfg(feature = "local-embeddings")]
mod local;
mod provider;
#[cfg(feature = "test-kit")]
pub mod test_kit;
mod vector;

pub use conversation::{
    Compaction, ConversationMemory, DEFAULT_MAX_CONTEXT_TOKENS, MemoryConfig, RECALL_HEADER, Summary, TOPIC_BREAK,
};
pub(crate) use conversation::{Env, SessionMemory};
pub use embed::{Embedder, GeminiEmbedder, IntoEmbedder, OpenAiEmbedder, normalize};
#[cfg(feature = "local-embeddings")]
pub use local::LocalEmbedder;
pub use provider::{default_embedding_model, provider_embedder};
pub use vector::{IntoVectorIndex, MemoryFilter, MemoryHit, MemoryRecord, VectorIndex, dot, top_k};
