//! `brain status` and the MCP `status` tool: the short runtime truth, from the registry and three small
//! files (the vector store's manifest, the model folder listing, the distillation queue). No corpus
//! walk, no model load, no hashing: milliseconds on a small home, ~0.1 s with 100k documents.

use brain_store::{Config, Home};
use serde::{Deserialize, Serialize};

use crate::{OpsError, vectors};
use brain_store::{CollectionCounts, Registry};

/// The short form of [`crate::Explain`]. Field by field in docs/FORMATS.md.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Status {
    /// Record version (1).
    pub schema: u32,
    /// Always `"status"`.
    pub kind: String,
    /// `$BRAIN_HOME`.
    pub home: String,
    /// Collections declared in brain.yaml (and any the registry still holds), in name order.
    pub collections: Vec<CollectionStatus>,
    /// Documents in the lexical index, all collections.
    pub docs: u64,
    /// Whether a lexical index exists (`index/lex`).
    pub lexical_index: bool,
    /// Whether a vector store exists (`index/vec`).
    pub vector_store: bool,
    /// Indexed documents without up-to-date vectors (the slow clock's lag), all collections.
    pub need_embeddings: u64,
    /// Projected seconds to embed the backlog at the rate the last `vecindex` run measured
    /// (absent when there is no backlog or no measured rate).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub drain_secs: Option<f64>,
    /// Sessions waiting in the distillation queue (`pending_distill.txt`): the other slow-clock lag.
    pub distill_pending: u64,
    /// The embedding model `vecindex` would use.
    pub model: ModelStatus,
    /// A model switch in progress: searches use `from`'s vectors until `to`'s are complete.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub switch: Option<vectors::Switch>,
    /// Newest lexical or vector update (RFC 3339, UTC), or null when nothing was indexed.
    pub last_update: Option<String>,
    /// brain.yaml does not parse: why (defaults are shown meanwhile).
    pub config_error: Option<String>,
    /// Indexed records by decay tier now (seed 001: hot ≤ 7 days since created or read, warm
    /// 8–30, cold beyond; five reads warm a record by one tier).
    #[serde(default)]
    pub tiers: brain_store::access::TierCounts,
}

/// One collection in [`Status`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CollectionStatus {
    /// Collection name.
    pub name: String,
    /// Retrieval role from brain.yaml (empty when not declared there).
    pub role: String,
    /// Documents in the lexical index.
    pub docs: u64,
    /// Last lexical update of one of its documents (RFC 3339), or null.
    pub last_indexed: Option<String>,
    /// Its documents without up-to-date vectors.
    pub need_embeddings: u64,
}

/// The model part of [`Status`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelStatus {
    /// Model id (`local:all-MiniLM-L6-v2`, …).
    pub id: String,
    /// Local model folder present with its files; null for a server backend.
    pub present: Option<bool>,
}

/// Non-empty lines of the distillation queue (a small file of session ids).
pub(crate) fn queue_len(home: &Home) -> u64 {
    std::fs::read_to_string(home.distill_queue()).map_or(0, |t| {
        t.lines().filter(|l| !l.trim().is_empty()).count() as u64
    })
}

/// The config of `home`, or the defaults and why the file did not parse.
pub(crate) fn config_or_defaults(home: &Home) -> (Config, Option<String>) {
    match Config::load(home) {
        Ok(c) => (c, None),
        Err(e) => (Config::defaults(home), Some(e.to_string())),
    }
}

/// The collections of `config` merged with the registry's counts, in name order.
pub(crate) fn merged(
    config: &Config,
    counts: Vec<CollectionCounts>,
) -> Vec<(String, String, CollectionCounts)> {
    let mut out: Vec<(String, String, CollectionCounts)> = config
        .collections
        .iter()
        .map(|c| {
            let n = counts
                .iter()
                .find(|n| n.collection == c.name)
                .cloned()
                .unwrap_or_default();
            (c.name.clone(), c.role.clone(), n)
        })
        .collect();
    for n in counts {
        if config.collection(&n.collection).is_none() {
            out.push((n.collection.clone(), String::new(), n));
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// The runtime truth, short: collections with counts, last update, embedding backlog, model presence.
pub fn status(home: &Home) -> Result<Status, OpsError> {
    let (config, config_error) = config_or_defaults(home);
    let manifest = vectors::manifest(home).ok().flatten();
    let model = vectors::model(home, false);
    // Vectors made with another model than the configured one are all stale.
    let fp = manifest
        .as_ref()
        .filter(|m| m.fingerprint.model == model.id)
        .map(|m| m.fingerprint.id());
    let counts = match Registry::open_existing(home)? {
        Some(r) => r.counts(fp.as_deref())?,
        None => Vec::new(),
    };
    let merged = merged(&config, counts);
    let last = merged
        .iter()
        .flat_map(|(_, _, n)| [n.last_lex, n.last_vec])
        .flatten()
        .max();
    let collections: Vec<CollectionStatus> = merged
        .into_iter()
        .map(|(name, role, n)| CollectionStatus {
            name,
            role,
            docs: n.docs,
            last_indexed: n.last_lex.map(rfc3339),
            need_embeddings: n.need_embeddings(),
        })
        .collect();
    let mut need_embeddings: u64 = collections.iter().map(|c| c.need_embeddings).sum();
    let switch = vectors::switch(home, &model);
    let drain_secs = match &switch {
        // Every document needs the new model's vectors, less those the next store holds; drained
        // at the next store's measured rate (the old model's until one is measured).
        Some(s) => {
            need_embeddings = need_embeddings.saturating_sub(s.done);
            s.rate
                .as_ref()
                .filter(|_| need_embeddings > 0)
                .map(|r| r.drain_secs(need_embeddings))
        }
        None => manifest
            .as_ref()
            .filter(|m| m.fingerprint.model == model.id && need_embeddings > 0)
            .and_then(|m| m.rate.as_ref())
            .map(|r| r.drain_secs(need_embeddings)),
    };
    Ok(Status {
        schema: 1,
        kind: "status".into(),
        home: home.root().display().to_string(),
        docs: collections.iter().map(|c| c.docs).sum(),
        need_embeddings,
        drain_secs,
        collections,
        lexical_index: brain_lex::LexIndex::dir(home).join("meta.json").is_file(),
        vector_store: manifest.is_some(),
        distill_pending: queue_len(home),
        model: ModelStatus {
            id: model.id,
            present: model.present,
        },
        switch,
        last_update: last.map(rfc3339),
        config_error,
        tiers: brain_store::access::TierCounts::of(&brain_store::access::tiers(
            home,
            brain_store::clock::now().as_second(),
        )?),
    })
}

/// Unix seconds → RFC 3339 (UTC).
pub fn rfc3339(secs: i64) -> String {
    brain_lex::format_secs(secs)
}
