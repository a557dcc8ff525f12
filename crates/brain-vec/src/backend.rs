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
            key_env,
        } => Box::new(Http::new(
            Api::OpenAi,
            base,
            model,
            *timeout,
            key(key_env)?,
        )?),
        EmbedderSpec::Ollama {
            base,
            model,
            timeout,
            key_env,
        } => Box::new(Http::new(
            Api::Ollama,
            base,
            model,
            *timeout,
            key(key_env)?,
        )?),
    })
}

/// The key in the variable `key_env` names; a named variable that is unset is refused (a server
/// that needs a key would answer 401 to every batch).
fn key(key_env: &Option<String>) -> Result<Option<String>, VecError> {
    match key_env {
        None => Ok(None),
        Some(name) => brain_doc::env::named(name).map(Some).ok_or_else(|| {
            // A name that does not look like one may be a key pasted in its place: not repeated.
            let conventional = name.len() <= 32
                && name
                    .chars()
                    .all(|c| c == '_' || c.is_ascii_uppercase() || c.is_ascii_digit());
            let shown = if conventional {
                format!("${name}")
            } else {
                "a variable".to_string()
            };
            VecError::BadInput(format!(
                "brain.yaml's embedder.key_env names {shown}, which is not set: export it (the server's key) or remove key_env (it holds the variable's name, never the key)"
            ))
        }),
    }
}
