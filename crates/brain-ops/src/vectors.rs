//! The semantic layer's state without loading a model: the vector store's manifest (what the vectors
//! were made with) and the configured embedding model (present? right bytes?).

use std::path::PathBuf;

use brain_store::Home;
use brain_vec::EmbedderSpec;
use brain_vec::embed::DEFAULT_MODEL;
use brain_vec::fetch::{MODEL_SHA256, file_sha256};
use brain_vec::store::Manifest;
use serde::{Deserialize, Serialize};

/// The vector store folder of `home`.
pub fn store_dir(home: &Home) -> PathBuf {
    home.vectors()
}

/// The store's manifest: `Ok(None)` when there is no store, `Err(reason)` when it is unreadable.
pub fn manifest(home: &Home) -> Result<Option<Manifest>, String> {
    let path = store_dir(home).join("manifest.json");
    match std::fs::read_to_string(&path) {
        Ok(text) => serde_json::from_str(&text)
            .map(Some)
            .map_err(|e| format!("{}: {e}", path.display())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(format!("{}: {e}", path.display())),
    }
}

/// The embedding model `vecindex` would use ($BRAIN_EMBEDDER, else the default local model).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelInfo {
    /// Model id as the vector store records it (`local:all-MiniLM-L6-v2`, `ollama:nomic-embed-text`).
    pub id: String,
    /// `local`, `openai` or `ollama`.
    pub backend: String,
    /// The model folder (local backend), or the server URL.
    pub location: String,
    /// Whether the folder holds config.json, tokenizer.json and model.safetensors; null for a server.
    pub present: Option<bool>,
    /// The pinned sha256 of model.safetensors, where one is pinned (the default model, docs/vectors.md).
    pub expected_sha256: Option<String>,
    /// The actual sha256 of model.safetensors, when it was computed.
    pub sha256: Option<String>,
    /// `$BRAIN_EMBEDDER` could not be parsed: why.
    pub error: Option<String>,
}

impl ModelInfo {
    /// Whether the weights are known to be the pinned ones (`None`: nothing pinned or not computed).
    pub fn hash_ok(&self) -> Option<bool> {
        match (&self.expected_sha256, &self.sha256) {
            (Some(want), Some(got)) => Some(want == got),
            _ => None,
        }
    }
}

/// The configured model; with `hash`, the sha256 of its weights is computed (~0.2 s for 90 MB).
pub fn model(home: &Home, hash: bool) -> ModelInfo {
    let spec = match EmbedderSpec::from_env(&home.models()) {
        Ok(s) => s,
        Err(e) => {
            return ModelInfo {
                id: String::new(),
                backend: String::new(),
                location: brain_doc::env::get("BRAIN_EMBEDDER")
                    .unwrap_or_default()
                    .to_string(),
                present: None,
                expected_sha256: None,
                sha256: None,
                error: Some(e.to_string()),
            };
        }
    };
    let id = spec.model_id();
    match spec {
        EmbedderSpec::Local { dir } => {
            let present = ["config.json", "tokenizer.json", "model.safetensors"]
                .iter()
                .all(|f| dir.join(f).is_file());
            let pinned = dir.file_name().is_some_and(|n| n == DEFAULT_MODEL);
            let weights = dir.join("model.safetensors");
            ModelInfo {
                id,
                backend: "local".into(),
                location: dir.display().to_string(),
                present: Some(present),
                expected_sha256: pinned.then(|| MODEL_SHA256.to_string()),
                sha256: (hash && weights.is_file())
                    .then(|| file_sha256(&weights).ok())
                    .flatten(),
                error: None,
            }
        }
        EmbedderSpec::OpenAi { base, .. } | EmbedderSpec::Ollama { base, .. } => ModelInfo {
            backend: id.split(':').next().unwrap_or_default().to_string(),
            id,
            location: base,
            present: None,
            expected_sha256: None,
            sha256: None,
            error: None,
        },
    }
}

/// Vectors are configured when `$BRAIN_EMBEDDER` is set, a vector store exists, or the default model
/// folder exists. Otherwise the semantic layer is simply not in use (lexical search works alone).
pub fn configured(home: &Home) -> bool {
    brain_doc::env::get("BRAIN_EMBEDDER").is_some()
        || store_dir(home).join("manifest.json").exists()
        || home.models().join(DEFAULT_MODEL).exists()
}
