//! What a trial maximizes: a judged metric, or seed 004's proxy for a set without judgments.

use std::collections::HashMap;

use brain_doc::Hit;

use crate::metrics::{mrr_at, ndcg_at, recall_at};

/// An objective.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Objective {
    Ndcg(usize),
    Mrr(usize),
    Recall(usize),
    /// Seed 004's `0.5 · precision + 0.3 · recall proxy + 0.2 · diversity`: precision is the mean
    /// normalized score of the top 6 hits, the recall proxy reaches 1 at 3 hits, diversity is the
    /// share of the home's collections the top 6 come from. It needs no judgments — and rewards
    /// being confident, not being right: prefer a judged metric whenever there are judgments.
    Seed004,
}

/// Hits seed 004's precision and diversity look at.
const SEED004_TOP: usize = 6;
/// Hits at which seed 004's recall proxy is full.
const SEED004_ENOUGH: usize = 3;

impl std::str::FromStr for Objective {
    type Err = String;

    /// `ndcg@10` (default), `mrr@10`, `recall@K`, `seed004`.
    fn from_str(s: &str) -> Result<Self, String> {
        let s = s.trim().to_lowercase();
        if s == "seed004" {
            return Ok(Objective::Seed004);
        }
        let bad = || {
            format!("objective `{s}`: one of ndcg@K, mrr@K, recall@K (K from 1 to 1000), seed004")
        };
        let (name, k) = s.split_once('@').ok_or_else(bad)?;
        let k: usize = k.parse().map_err(|_| bad())?;
        if !(1..=1000).contains(&k) {
            return Err(bad());
        }
        match name {
            "ndcg" => Ok(Objective::Ndcg(k)),
            "mrr" => Ok(Objective::Mrr(k)),
            "recall" => Ok(Objective::Recall(k)),
            _ => Err(bad()),
        }
    }
}

impl std::fmt::Display for Objective {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Objective::Ndcg(k) => write!(f, "ndcg@{k}"),
            Objective::Mrr(k) => write!(f, "mrr@{k}"),
            Objective::Recall(k) => write!(f, "recall@{k}"),
            Objective::Seed004 => write!(f, "seed004"),
        }
    }
}

impl Objective {
    /// How deep a ranking it reads.
    pub fn depth(&self) -> usize {
        match self {
            Objective::Ndcg(k) | Objective::Mrr(k) | Objective::Recall(k) => *k,
            Objective::Seed004 => SEED004_TOP,
        }
    }

    /// Whether it needs judgments.
    pub fn judged(&self) -> bool {
        *self != Objective::Seed004
    }

    /// One query's score: `ids` are the hits' ids as the judgments name documents, `rels` its
    /// judgments, `collections` how many collections the searched home has.
    pub fn score(
        &self,
        hits: &[Hit],
        ids: &[String],
        rels: &HashMap<String, u32>,
        collections: usize,
    ) -> f64 {
        match *self {
            Objective::Ndcg(k) => ndcg_at(ids, rels, k),
            Objective::Mrr(k) => mrr_at(ids, rels, k),
            Objective::Recall(k) => recall_at(ids, rels, k),
            Objective::Seed004 => {
                let top: Vec<&Hit> = hits.iter().take(SEED004_TOP).collect();
                let precision = if top.is_empty() {
                    0.0
                } else {
                    top.iter().map(|h| h.score.clamp(0.0, 1.0)).sum::<f64>() / top.len() as f64
                };
                let recall = (hits.len() as f64 / SEED004_ENOUGH as f64).min(1.0);
                let mut seen: Vec<&str> = top.iter().map(|h| h.collection.as_str()).collect();
                seen.sort_unstable();
                seen.dedup();
                let diversity = seen.len() as f64 / collections.max(1) as f64;
                0.5 * precision + 0.3 * recall + 0.2 * diversity.min(1.0)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn objectives_parse_and_refuse_what_they_are_not() {
        assert_eq!("ndcg@10".parse(), Ok(Objective::Ndcg(10)));
        assert_eq!("MRR@10".parse(), Ok(Objective::Mrr(10)));
        assert_eq!("recall@100".parse(), Ok(Objective::Recall(100)));
        assert_eq!("seed004".parse(), Ok(Objective::Seed004));
        for bad in ["ndcg", "ndcg@0", "map@10", "recall@x", "ndcg@5000"] {
            assert!(bad.parse::<Objective>().is_err(), "{bad}");
        }
        assert_eq!(Objective::Recall(100).to_string(), "recall@100");
    }
}
