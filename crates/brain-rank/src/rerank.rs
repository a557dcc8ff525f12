//! Optional cross-encoder reranking (`--rerank`): the top fused candidates are rescored by a
//! sequence-classification BERT reading `(query, passage)` together, and its order is fused with the
//! fused one by rank, `1/(k + fused rank) + weight/(k + reranked rank)` (`rerank.k` 10,
//! `rerank.weight` 0.5), or with `rerank.blend` steps given, QMD's score blend
//! `w(r) / r + (1 − w(r)) × relevance` ([`RerankWeights::blended`]). Candidates past `rerank.depth`
//! keep their order after the reranked ones.
//!
//! The model folder is `$BRAIN_RERANKER`, else `rerank.model` of `search_strategy.yaml`, else
//! `$BRAIN_HOME/models/reranker` (a cross-encoder of the user's own) when it is there, else the one
//! brain ships, `$BRAIN_HOME/models/ms-marco-MiniLM-L-12-v2` (`brain model fetch reranker`).

use std::path::PathBuf;

use brain_doc::Classified;
use brain_doc::{ErrorCode, Hit};

use brain_store::Home;
use brain_vec::cross::CrossEncoder;

use crate::error::{RunError, Unavailable};
use crate::fusion::{HitList, signal};
use crate::strategy::{RerankWeights, Strategy};

/// The reranker folder of `home` under `strategy` (see the module docs).
pub fn model_dir(home: &Home, strategy: &Strategy) -> PathBuf {
    brain_doc::env::os(brain_doc::env::BRAIN_RERANKER)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| strategy.rerank.model.as_ref().map(PathBuf::from))
        .unwrap_or_else(|| {
            let own = home.models().join("reranker");
            if own.is_dir() {
                own
            } else {
                home.models().join(brain_vec::catalog::RERANKER)
            }
        })
}

/// `req`, planned as `plan`, as it is reranked: with `--rerank` set when `rerank.conceptual` is on
/// and it is a conceptual query of auto mode (plain words: not literal, not a recency walk).
pub fn as_asked<'r>(
    w: &RerankWeights,
    req: &'r crate::request::SearchRequest,
    plan: &crate::plan::Plan,
) -> std::borrow::Cow<'r, crate::request::SearchRequest> {
    use crate::route::Mode;
    let conceptual = plan.mode != Mode::Recent && !crate::route::is_literal(&plan.original);
    if w.conceptual && !req.rerank && req.mode == Mode::Auto && conceptual {
        std::borrow::Cow::Owned(crate::request::SearchRequest {
            rerank: true,
            ..req.clone()
        })
    } else {
        std::borrow::Cow::Borrowed(req)
    }
}

/// What the reranker reads as the query: the original sub-query, after the intent when there is one.
pub fn query_text(original: &str, intent: Option<&str>) -> String {
    match intent {
        Some(i) => format!("{i}\n{original}"),
        None => original.to_string(),
    }
}

/// Rerank `hits` (fused, best first) of the lists they came from with `model`, reading `query`.
pub fn rerank(
    model: &CrossEncoder,
    w: &RerankWeights,
    query: &str,
    lists: &[HitList],
    hits: Vec<Hit>,
) -> Result<Vec<Hit>, RunError> {
    // Documents in fused order, each with its hits (consecutive) and the text of its first one.
    let mut docs: Vec<Vec<Hit>> = Vec::new();
    for h in hits {
        match docs.last_mut() {
            Some(d) if d[0].uri == h.uri => d.push(h),
            _ => docs.push(vec![h]),
        }
    }
    let depth = w.depth.min(docs.len());
    let texts: Vec<String> = docs[..depth]
        .iter()
        .map(|d| passage_text(lists, &d[0]))
        .collect();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    // Scored a few at a time, so a reranker slower than its budget is stopped between batches.
    let _t = brain_doc::timings::span("rerank.score");
    let start = std::time::Instant::now();
    let budget = std::time::Duration::from_millis(w.budget_ms);
    let mut relevance = Vec::with_capacity(refs.len());
    for batch in refs.chunks(RERANK_BATCH) {
        if start.elapsed() > budget {
            return Err(RunError::Unavailable(Unavailable {
                code: ErrorCode::Timeout,
                message: format!(
                    "the reranker took more than its {} ms budget (rerank.budget_ms)",
                    w.budget_ms
                ),
                fix: "raise rerank.budget_ms in search_strategy.yaml, or lower rerank.depth".into(),
            }));
        }
        relevance.extend(model.scores(query, batch).map_err(|e| {
            RunError::Unavailable(Unavailable {
                code: e.code(),
                message: format!("reranking failed: {e}"),
                fix: e.fix(),
            })
        })?);
    }
    Ok(reordered(docs, &relevance, w))
}

/// `docs` (fused order, each a document's hits) reordered by the blend of the fused order and the
/// reranker's `relevance` of the first `relevance.len()`; the rest after them in fused order.
fn reordered(mut docs: Vec<Vec<Hit>>, relevance: &[f32], w: &RerankWeights) -> Vec<Hit> {
    let rest = docs.split_off(relevance.len().min(docs.len()));
    // The reranker's own order (ties in fused order).
    let mut by_relevance: Vec<usize> = (0..relevance.len()).collect();
    by_relevance.sort_by(|&a, &b| relevance[b].total_cmp(&relevance[a]));
    let mut reranked = vec![0; relevance.len()];
    for (place, &i) in by_relevance.iter().enumerate() {
        reranked[i] = place + 1;
    }
    let mut scored: Vec<(f64, Vec<Hit>)> = docs
        .into_iter()
        .zip(relevance)
        .enumerate()
        .map(|(i, (mut d, &p))| {
            let blended = w.blended(i + 1, reranked[i], f64::from(p));
            for h in &mut d {
                signal(&mut h.signals, "rerank", f64::from(p));
                signal(&mut h.signals, "blended", blended);
            }
            (blended, d)
        })
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0));
    let top = scored
        .first()
        .map_or(1.0, |(s, _)| *s)
        .max(f64::MIN_POSITIVE);
    let mut out: Vec<Hit> = Vec::new();
    let mut floor = 1.0f64;
    for (s, d) in scored {
        let first = d[0].score.max(f64::MIN_POSITIVE);
        for mut h in d {
            let rel = (h.score / first).min(1.0);
            h.score = round(s / top * rel);
            floor = floor.min(h.score);
            h.rank = out.len() as u32 + 1;
            out.push(h);
        }
    }
    // Past the reranked depth: after every reranked document, in fused order — their fused scores
    // scaled under the last reranked one's (not all set to it: the ties broken later would reorder
    // them, and a document the fused list ranked 11th could fall to the 100th place).
    let rest_top = rest
        .first()
        .and_then(|d| d.first())
        .map_or(1.0, |h| h.score)
        .max(f64::MIN_POSITIVE);
    for d in rest {
        for mut h in d {
            h.score = floor * REST_SHARE * (h.score / rest_top).min(1.0);
            h.rank = out.len() as u32 + 1;
            out.push(h);
        }
    }
    out
}

/// The full passage or chunk text behind a hit (the snippet when the lists do not have it).
fn passage_text(lists: &[HitList], h: &Hit) -> String {
    for l in lists {
        if let Some(i) = l
            .hits
            .iter()
            .position(|x| x.uri == h.uri && x.line == h.line)
            && let Some(t) = l.texts.get(i)
        {
            return t.clone();
        }
    }
    h.snippet.clone()
}

/// The share of the last reranked document's score the first document past the depth keeps.
const REST_SHARE: f64 = 0.99;

/// Passages the cross-encoder scores per call (the budget is checked between calls).
const RERANK_BATCH: usize = 8;

/// The error of a missing reranker.
pub fn missing(dir: &std::path::Path, reason: String) -> Unavailable {
    Unavailable {
        code: ErrorCode::ModelMissing,
        message: format!("reranker unavailable at {}: {reason}", dir.display()),
        fix: "brain model fetch reranker (or put a cross-encoder folder — config.json, tokenizer.json, model.safetensors — at $BRAIN_HOME/models/reranker, or set $BRAIN_RERANKER)".into(),
    }
}

fn round(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(uri: &str, score: f64) -> Vec<Hit> {
        vec![Hit {
            score,
            ..crate::test_hit(uri)
        }]
    }

    #[test]
    fn the_reranked_lead_and_the_fused_tail_keep_strict_scores() {
        let docs = vec![
            doc("a", 1.0),
            doc("b", 0.99),
            doc("c", 0.98),
            doc("d", 0.97),
            doc("e", 0.5),
        ];
        // The reranker puts b first (weighed enough to move it): b then a, and past the depth c, d,
        // e as fused — each below the last reranked one and below the one before it (equal scores
        // would be ties that the tie-breaking after reorders).
        let w = RerankWeights {
            weight: 2.0,
            ..RerankWeights::default()
        };
        let out = reordered(docs, &[0.1, 0.9], &w);
        let uris: Vec<&str> = out.iter().map(|h| h.uri.as_str()).collect();
        assert_eq!(uris, ["b", "a", "c", "d", "e"]);
        assert!(out.windows(2).all(|w| w[0].score > w[1].score), "{out:?}");
        assert!(out.iter().all(|h| (0.0..=1.0).contains(&h.score)));
        assert_eq!(
            out.iter().map(|h| h.rank).collect::<Vec<_>>(),
            [1, 2, 3, 4, 5]
        );
        assert!(out[..2].iter().all(|h| h.signals.contains_key("rerank")));
        assert!(out[2..].iter().all(|h| !h.signals.contains_key("rerank")));
    }
}
