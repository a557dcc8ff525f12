//! Ranking metrics over one query's ranked doc ids and its judgments, averaged by the caller.

use std::collections::HashMap;

/// nDCG@k with linear gain (trec_eval's `ndcg_cut`, which BEIR reports): DCG = Σ rel_i / log2(i + 1)
/// over ranks i = 1..k, divided by the DCG of the ideal ordering. 0 when nothing is relevant.
pub fn ndcg_at(ranked: &[String], rels: &HashMap<String, u32>, k: usize) -> f64 {
    let dcg: f64 = ranked
        .iter()
        .take(k)
        .enumerate()
        .map(|(i, d)| f64::from(rels.get(d).copied().unwrap_or(0)) / ((i + 2) as f64).log2())
        .sum();
    let mut ideal: Vec<u32> = rels.values().copied().collect();
    ideal.sort_unstable_by(|a, b| b.cmp(a));
    let idcg: f64 = ideal
        .iter()
        .take(k)
        .enumerate()
        .map(|(i, r)| f64::from(*r) / ((i + 2) as f64).log2())
        .sum();
    if idcg > 0.0 { dcg / idcg } else { 0.0 }
}

/// Reciprocal rank of the first relevant doc within the top k, else 0.
pub fn mrr_at(ranked: &[String], rels: &HashMap<String, u32>, k: usize) -> f64 {
    ranked
        .iter()
        .take(k)
        .position(|d| rels.contains_key(d))
        .map_or(0.0, |i| 1.0 / (i + 1) as f64)
}

/// Fraction of the relevant docs found in the top k (0 when nothing is relevant).
pub fn recall_at(ranked: &[String], rels: &HashMap<String, u32>, k: usize) -> f64 {
    if rels.is_empty() {
        return 0.0;
    }
    let found = ranked
        .iter()
        .take(k)
        .filter(|d| rels.contains_key(*d))
        .count();
    found as f64 / rels.len() as f64
}

/// 1 when a relevant doc is in the top k, else 0: averaged, the share of queries answered there
/// (hit@k; Recall@k asks for every relevant doc).
pub fn hit_at(ranked: &[String], rels: &HashMap<String, u32>, k: usize) -> f64 {
    if ranked.iter().take(k).any(|d| rels.contains_key(d)) {
        1.0
    } else {
        0.0
    }
}

/// The p-th percentile (0–100) of `sorted` by nearest rank; 0 for an empty slice.
pub fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    fn rels(v: &[(&str, u32)]) -> HashMap<String, u32> {
        v.iter().map(|(d, r)| (d.to_string(), *r)).collect()
    }

    #[test]
    fn ndcg_by_hand() {
        // relevant d1 at rank 2, d2 at rank 4; two relevant in total.
        let r = rels(&[("d1", 1), ("d2", 1)]);
        let got = ndcg_at(&ids(&["x", "d1", "y", "d2"]), &r, 10);
        let dcg = 1.0 / 3f64.log2() + 1.0 / 5f64.log2();
        let idcg = 1.0 + 1.0 / 3f64.log2();
        assert!((got - dcg / idcg).abs() < 1e-12, "{got}");
        assert!((ndcg_at(&ids(&["d1", "d2"]), &r, 10) - 1.0).abs() < 1e-12);
        assert_eq!(ndcg_at(&ids(&["x", "d1"]), &r, 1), 0.0, "cut at k");
    }

    #[test]
    fn graded_ndcg_prefers_the_higher_grade_first() {
        let r = rels(&[("a", 2), ("b", 1)]);
        assert!(ndcg_at(&ids(&["a", "b"]), &r, 10) > ndcg_at(&ids(&["b", "a"]), &r, 10));
    }

    #[test]
    fn mrr_recall_and_hit_by_hand() {
        let r = rels(&[("d1", 1), ("d2", 1), ("d3", 1)]);
        let ranked = ids(&["x", "y", "d2", "d1"]);
        assert_eq!(mrr_at(&ranked, &r, 10), 1.0 / 3.0);
        assert_eq!(mrr_at(&ranked, &r, 2), 0.0);
        assert!((recall_at(&ranked, &r, 10) - 2.0 / 3.0).abs() < 1e-12);
        assert!((recall_at(&ranked, &r, 3) - 1.0 / 3.0).abs() < 1e-12);
        assert_eq!(hit_at(&ranked, &r, 3), 1.0, "d2 at 3");
        assert_eq!(hit_at(&ranked, &r, 2), 0.0, "nothing relevant in the top 2");
        assert_eq!(hit_at(&ranked, &HashMap::new(), 10), 0.0);
    }

    #[test]
    fn percentiles_by_nearest_rank() {
        let v: Vec<f64> = (1..=100).map(f64::from).collect();
        assert_eq!(percentile(&v, 50.0), 50.0);
        assert_eq!(percentile(&v, 95.0), 95.0);
        assert_eq!(percentile(&v, 100.0), 100.0);
        assert_eq!(percentile(&[], 50.0), 0.0);
    }
}
