//! Sessions as units (issue 41): a document scored by its best passage plus a bounded share of
//! its next matching passages, so a session holding the answer in two places outranks one whose
//! single passage scores a little higher (`pool.session_*`, docs/query.md).

use brain_lex::search::{Boosts, DocAddress, DocKeys, LexQuery, Passage, SearchError, Searcher};

use crate::strategy::PoolWeights;

/// Per folded group, the scores of its document's next `pool.session_passages` matching passages
/// after those read — all of the document's passages, not only those the candidate pool held, so
/// the answer does not depend on the pool ([`Searcher::passages_of`]; one search restricted to
/// the groups' documents).
pub(crate) fn further_passages(
    searcher: &Searcher,
    lq: &LexQuery,
    boosts: &Boosts,
    pool: &PoolWeights,
    keys: &DocKeys,
    folded: &[Vec<(f32, DocAddress)>],
    groups: &[Vec<(f32, Passage)>],
) -> Result<Vec<Vec<f32>>, SearchError> {
    let n = pool.session_passages;
    if pool.session_share <= 0.0 || n == 0 {
        return Ok(vec![Vec::new(); groups.len()]);
    }
    let ids: Vec<&str> = groups
        .iter()
        .filter_map(|ps| ps.first().map(|(_, p)| p.id.as_str()))
        .collect();
    let found = searcher.passages_of(lq, boosts, &ids)?;
    let group_keys: Vec<_> = folded
        .iter()
        .map(|ps| ps.first().map(|(_, a)| keys.of(*a)))
        .collect();
    let mut more: Vec<Vec<f32>> = vec![Vec::new(); groups.len()];
    let mut seen = vec![0usize; groups.len()];
    for (score, addr) in found {
        let k = Some(keys.of(addr));
        if let Some(i) = group_keys.iter().position(|g| *g == k) {
            // The first passages of a document are those already read (the best ones).
            seen[i] += 1;
            if seen[i] > groups[i].len() && more[i].len() < n {
                more[i].push(score);
            }
        }
    }
    Ok(more)
}

/// A document's score as a session: its best passage's, plus `session_share` of each further
/// passage's (the first `session_passages`, best first, each weighed a share of the one before),
/// at most `session_cap` of the best.
pub(crate) fn session_score(
    best: f64,
    further: impl Iterator<Item = f64>,
    pool: &PoolWeights,
) -> f64 {
    if pool.session_share <= 0.0 {
        return best;
    }
    let mut further: Vec<f64> = further.collect();
    further.sort_by(|a, b| b.total_cmp(a));
    let mut w = pool.session_share;
    let mut add = 0.0;
    for s in further.into_iter().take(pool.session_passages) {
        add += w * s;
        w *= pool.session_share;
    }
    best + add.min(pool.session_cap * best)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_is_scored_by_its_best_passage_and_a_bounded_share_of_the_next() {
        // The default, measured setting.
        let pool = PoolWeights::default();
        assert_eq!(pool.session_share, 0.5);
        let score = |best: f64, more: &[f64]| session_score(best, more.iter().copied(), &pool);
        // The answer in two places beats one passage that scores a little higher alone.
        assert!(score(10.0, &[9.0]) > score(12.0, &[]));
        // Further passages count best first, each a share of the one before, and at most two.
        assert_eq!(score(10.0, &[2.0, 4.0]), 10.0 + 0.5 * 4.0 + 0.25 * 2.0);
        assert_eq!(score(10.0, &[1.0, 1.0, 1.0, 1.0]), 10.0 + 0.5 + 0.25);
        // A word repeated in fifty passages gains at most half the best passage's score.
        assert_eq!(score(10.0, &[10.0; 50]), 15.0);
        assert!(score(10.0, &[10.0; 50]) < score(16.0, &[]));
        // Off: the best passage alone, as before.
        let off = PoolWeights {
            session_share: 0.0,
            ..pool
        };
        assert_eq!(session_score(10.0, [9.0].into_iter(), &off), 10.0);
    }
}
