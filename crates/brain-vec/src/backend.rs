//! Building the embedder a spec names: the local BERT model or an HTTP backend (OpenAI-compatible,
//! Ollama). Apart from `embed.rs` (the trait and the spec), so the backends import the trait and
//! nothing imports them back.

use crate::VecError;
use crate::bert::Bert;
use crate::embed::{Embedder, EmbedderSpec};
use crate::http::{Api, Http};

/// Build the embedder a spec names. A local model that is absent fails here, at once, with
/// [`VecError::ModelMissing`].
pub fn open(spec: &EmbedderSpec) -> Result<Box<dyn Embedder>, VecError> {
    Ok(match spec {
        EmbedderSpec::Local { dir } => Box::new(Bert::load(dir)?),
        EmbedderSpec::OpenAi {
            base,
            model,
            timeout,
        } => Box::new(Http::new(Api::OpenAi, base, model, *timeout)?),
        EmbedderSpec::Ollama {
            base,
            model,
            timeout,
        } => Box::new(Http::new(Api::Ollama, base, model, *timeout)?),
    })
}
