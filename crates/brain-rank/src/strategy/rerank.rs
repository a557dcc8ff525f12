//! The reranker's part of the strategy (`rerank:` in `search_strategy.yaml`): how many candidates it
//! rescores, within what budget, and how its order is blended with the fused one.

use serde::{Deserialize, Serialize};

/// The reranker's time per query ([`RerankWeights::budget_ms`]).
pub const RERANK_BUDGET_MS: u64 = 2_000;
/// Candidates the cross-encoder rescores (QMD reranks its top 30–40 chunks). 10, measured with the
/// shipped ms-marco-MiniLM-L-12-v2 (issue 56, 2026-11-28): a fresh reranked SciFact query p50 456 ms
/// against 805 ms at 20 (AMD EPYC, 2 cores), and nDCG@10 no lower — the cross-encoder alone ranks
/// SciFact below the hybrid list, so deeper reranking lets it undo more of the list than it mends.
pub const RERANK_DEPTH: usize = 10;
/// The reranker's rank fusion (issue 56, measured with the shipped ms-marco-MiniLM-L-12-v2 on
/// SciFact's 300 test queries over the hybrid top 10 with bge-small-en-v1.5): k 10 and weight 0.5
/// gave nDCG@10 0.7248 against QMD's score blend 0.7169 and the fused order 0.7162; every k of
/// 5–20 with a weight of 0.3–0.5 scored 0.721–0.725 (scores of onnxruntime on the same file).
pub const RERANK_K: f64 = 10.0;
pub const RERANK_WEIGHT: f64 = 0.5;

/// How the cross-encoder's order is blended with the fused one: by default a rank fusion,
/// `1/(k + fused rank) + weight/(k + reranked rank)`, which lets the reranker move any candidate
/// but not overrule the fused list alone; with `blend` steps given, QMD's score blend instead.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RerankWeights {
    /// Fused candidates rescored.
    pub depth: usize,
    /// Longest `[CLS] query [SEP] passage [SEP]` input, in tokens.
    pub max_tokens: usize,
    /// Milliseconds the reranker may take for one query (our choice, issue 41): past it the
    /// query answers in fused order and says so.
    pub budget_ms: u64,
    /// The cross-encoder folder (default `$BRAIN_HOME/models/reranker` when there is one, else
    /// `$BRAIN_HOME/models/ms-marco-MiniLM-L-12-v2`; `$BRAIN_RERANKER` wins).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The rank fusion's k: larger, the two orders' first places count less against the rest.
    pub k: f64,
    /// The reranker's order's weight in the rank fusion (the fused order's is 1).
    pub weight: f64,
    /// `[up_to_rank, retrieval_weight]` steps of QMD's score blend, used instead of the rank
    /// fusion when given: a candidate at fused rank r takes the first step with r ≤ up_to_rank;
    /// its score is `w / r + (1 - w) × relevance` (QMD: ranks 1–3 0.75, 4–10 0.60, beyond 0.40).
    pub blend: Vec<(usize, f64)>,
    /// Rerank every conceptual query of auto mode (plain words, not a recency walk), as if it had
    /// `--rerank` (off by default: it costs a forward pass per candidate; issue 56).
    #[serde(default)]
    pub conceptual: bool,
}

impl Default for RerankWeights {
    fn default() -> Self {
        RerankWeights {
            depth: RERANK_DEPTH,
            max_tokens: brain_vec::cross::DEFAULT_MAX_TOKENS,
            budget_ms: RERANK_BUDGET_MS,
            model: None,
            k: RERANK_K,
            weight: RERANK_WEIGHT,
            blend: Vec::new(),
            conceptual: false,
        }
    }
}

impl RerankWeights {
    /// The blended score of the candidate at fused rank `r` that the reranker ranks `reranked`
    /// with relevance `relevance` (ranks 1-based).
    pub fn blended(&self, r: usize, reranked: usize, relevance: f64) -> f64 {
        if self.blend.is_empty() {
            1.0 / (self.k + r as f64) + self.weight / (self.k + reranked as f64)
        } else {
            let w = self.retrieval_weight(r);
            w / r as f64 + (1.0 - w) * relevance
        }
    }

    /// The retrieval weight at fused rank `r` (1-based) of the `blend` steps.
    pub fn retrieval_weight(&self, r: usize) -> f64 {
        self.blend
            .iter()
            .find(|(upto, _)| r <= *upto)
            .or(self.blend.last())
            .map_or(0.5, |(_, w)| *w)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rank_fusion_lets_the_reranker_move_a_candidate_but_not_overrule_alone() {
        let w = RerankWeights::default();
        // Fused 3rd, reranked 1st, passes fused 1st reranked 10th …
        assert!(w.blended(3, 1, 0.9) > w.blended(1, 10, 0.1));
        // … but fused 2nd reranked 1st does not pass fused 1st reranked 2nd.
        assert!(w.blended(1, 2, 0.8) > w.blended(2, 1, 0.9));
        // With steps given, QMD's score blend: 0.75/1 + 0.25 × 0.2.
        let qmd = RerankWeights {
            blend: vec![(3, 0.75), (usize::MAX, 0.4)],
            ..RerankWeights::default()
        };
        assert!((qmd.blended(1, 5, 0.2) - 0.8).abs() < 1e-12);
    }
}
