//! What `brain eval` reports: the scores of a run over a set, per query and per class of query.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// Latency percentiles of one in-process query, milliseconds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Latency {
    pub p50: f64,
    pub p95: f64,
    pub p99: f64,
    pub max: f64,
}

/// The result of `brain eval` (its `--json` form).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    pub schema: u32,
    /// Always `"eval"`.
    pub kind: String,
    pub dataset: String,
    pub split: String,
    pub docs: usize,
    pub passages: u64,
    pub queries: usize,
    pub ndcg_at_10: f64,
    pub mrr_at_10: f64,
    #[serde(default)]
    pub recall_at_5: f64,
    /// The share of queries with a relevant document in the top 5.
    #[serde(default)]
    pub hit_at_5: f64,
    pub recall_at_10: f64,
    pub recall_at_100: f64,
    pub index_ms: u64,
    /// The search mode evaluated.
    pub mode: String,
    /// Whether vectors were searched (vec, hybrid, and auto with a model).
    #[serde(default)]
    pub vectors: bool,
    /// Documents embedded by this run (0 when the kept home's vectors were current), and how long
    /// embedding took.
    pub embedded: usize,
    pub embed_ms: u64,
    /// Each query's outcome, in set order (`brain eval --per-query`; empty otherwise).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub per_query: Vec<QueryOutcome>,
    /// Scores per query class, when the set's queries carry `metadata.class`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub classes: BTreeMap<String, ClassScore>,
    pub latency_ms: Latency,
    /// The team engine and index the queries went to (`--engine`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub engine: Option<String>,
    /// Whether each query was reranked by the cross-encoder (`--rerank`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub reranked: bool,
    /// Queries answered in fused order though reranking was asked (the reranker over
    /// `rerank.budget_ms`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub not_reranked: usize,
    /// Evidence in context at each budget, for sets whose questions carry evidence text.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub evidence: Vec<crate::evidence::EvidenceScore>,
    /// Documents whose id could not be a file name, so never in a block.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub evidence_docs_unwritten: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// How one query fared: the rank of its first relevant document (0: none in the top 100), and its
/// reciprocal rank at 10.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QueryOutcome {
    pub id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub class: Option<String>,
    pub first_relevant: usize,
    pub mrr_at_10: f64,
    /// The smallest budget evaluated whose block holds all of the question's evidence text
    /// ([`crate::evidence`]); 0: no block held it; absent: the question has no evidence.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evidence_at: Option<usize>,
    pub text: String,
}

/// The scores of one class of queries.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ClassScore {
    pub queries: usize,
    pub ndcg_at_10: f64,
    pub mrr_at_10: f64,
    pub recall_at_5: f64,
    #[serde(default)]
    pub hit_at_5: f64,
}
