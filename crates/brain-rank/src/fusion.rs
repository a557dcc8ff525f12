//! Reciprocal rank fusion (Cormack, Clarke & Büttcher, SIGIR 2009) as QMD applies it: each list adds
//! `weight / (k + rank)` to its documents (rank 1-based), and a document ranked first in any list gets
//! [`TOP_RANK_BONUS`], ranks 2–3 [`NEAR_TOP_BONUS`]. The lexical-only path does not fuse; hybrid search
//! (lexical + vector lists) will.

use crate::strategy::{NEAR_TOP_BONUS, TOP_RANK_BONUS};

/// One ranked list to fuse: document keys best first, and the list's weight.
#[derive(Debug, Clone)]
pub struct RankedList<'a> {
    /// Which retriever produced it (`bm25`, `vec`, `hyde`): becomes a signal name.
    pub name: &'a str,
    pub weight: f64,
    pub keys: Vec<String>,
}

/// A fused document: its key, fused score, and per-list `(name, rank)` for the signals map.
#[derive(Debug, Clone, PartialEq)]
pub struct Fused {
    pub key: String,
    pub score: f64,
    pub ranks: Vec<(String, usize)>,
}

/// Fuse `lists` with constant `k`; best first, ties broken by key for determinism.
pub fn rrf(lists: &[RankedList<'_>], k: f64) -> Vec<Fused> {
    let mut out: Vec<Fused> = Vec::new();
    for list in lists {
        for (i, key) in list.keys.iter().enumerate() {
            let rank = i + 1;
            let bonus = match rank {
                1 => TOP_RANK_BONUS,
                2 | 3 => NEAR_TOP_BONUS,
                _ => 0.0,
            };
            let add = list.weight / (k + rank as f64) + bonus;
            match out.iter_mut().find(|f| &f.key == key) {
                Some(f) => {
                    f.score += add;
                    f.ranks.push((list.name.to_string(), rank));
                }
                None => out.push(Fused {
                    key: key.clone(),
                    score: add,
                    ranks: vec![(list.name.to_string(), rank)],
                }),
            }
        }
    }
    out.sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| a.key.cmp(&b.key)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list<'a>(name: &'a str, weight: f64, keys: &[&str]) -> RankedList<'a> {
        RankedList {
            name,
            weight,
            keys: keys.iter().map(|s| s.to_string()).collect(),
        }
    }

    #[test]
    fn agreement_beats_a_single_first_place() {
        let fused = rrf(
            &[
                list("bm25", 1.0, &["a", "b", "c"]),
                list("vec", 1.0, &["b", "c", "a"]),
            ],
            60.0,
        );
        let keys: Vec<&str> = fused.iter().map(|f| f.key.as_str()).collect();
        assert_eq!(keys, vec!["b", "a", "c"]);
        // b: 1/62 + 0.02 + 1/61 + 0.05
        let b = 1.0 / 62.0 + 0.02 + 1.0 / 61.0 + 0.05;
        assert!((fused[0].score - b).abs() < 1e-12);
        assert_eq!(
            fused[0].ranks,
            vec![("bm25".to_string(), 2), ("vec".to_string(), 1)]
        );
    }

    #[test]
    fn weight_scales_a_list() {
        let fused = rrf(&[list("bm25", 2.0, &["a"]), list("vec", 1.0, &["b"])], 60.0);
        assert_eq!(fused[0].key, "a");
    }
}
