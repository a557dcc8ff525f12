//! The semantic layer's state without loading a model: the vector store's manifest (what the vectors
//! were made with) and the configured embedding model (present? right bytes?).

use std::path::PathBuf;

use brain_store::Home;
use brain_vec::EmbedderSpec;
use brain_vec::fetch::file_sha256;
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
    /// The embedder (`$BRAIN_EMBEDDER`, brain.yaml's `embedder:`) could not be read: why.
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
                location: brain_doc::env::get(brain_doc::env::BRAIN_EMBEDDER)
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
            // A model of the catalog has its weights pinned (docs/vectors.md).
            let card = dir
                .file_name()
                .and_then(|n| brain_vec::catalog::find(&n.to_string_lossy()));
            let weights = dir.join("model.safetensors");
            ModelInfo {
                id,
                backend: "local".into(),
                location: dir.display().to_string(),
                present: Some(present),
                expected_sha256: card.map(|c| c.weights_sha256.to_string()),
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

/// Vectors are configured when `$BRAIN_EMBEDDER` is set, a vector store exists, or the folder of
/// the model in force exists. Otherwise the semantic layer is simply not in use (lexical search
/// works alone).
pub fn configured(home: &Home) -> bool {
    brain_doc::env::get(brain_doc::env::BRAIN_EMBEDDER).is_some()
        || store_dir(home).join("manifest.json").exists()
        || matches!(EmbedderSpec::default_local(&home.models()), EmbedderSpec::Local { dir } if dir.exists())
}

/// A model switch in progress: the store in force was made by `from`, the model in force is `to`,
/// and `vec.next/` holds `done` of its documents ([`brain_vec::switch`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Switch {
    /// The model whose vectors answer searches until the switch completes.
    pub from: String,
    /// The model in force (`brain model use`, `$BRAIN_EMBEDDER`).
    pub to: String,
    /// Documents the next store holds.
    pub done: u64,
    /// The next store's embedding rate, when a run measured one.
    pub rate: Option<brain_vec::store::Rate>,
}

/// The switch in progress, if the store in force was made by another model than the one in force.
pub fn switch(home: &Home, model: &ModelInfo) -> Option<Switch> {
    let in_force = manifest(home).ok().flatten()?;
    if in_force.fingerprint.model == model.id || model.id.is_empty() {
        return None;
    }
    // The store's own model must still be there to answer: else it is no switch, only a store
    // of a model that is gone (the model check says what to fetch).
    if let Some(name) = in_force.fingerprint.model.strip_prefix("local:")
        && !home.models().join(name).join("model.safetensors").is_file()
    {
        return None;
    }
    let next = std::fs::read_to_string(
        brain_vec::switch::next_dir(&store_dir(home)).join("manifest.json"),
    )
    .ok()
    .and_then(|t| serde_json::from_str::<Manifest>(&t).ok())
    .filter(|m| m.fingerprint.model == model.id);
    Some(Switch {
        from: in_force.fingerprint.model,
        to: model.id.clone(),
        done: next.as_ref().map_or(0, |m| m.docs),
        rate: next.and_then(|m| m.rate).or(in_force.rate),
    })
}
