//! Optional cross-encoder reranking (`--rerank`): the top fused candidates are rescored by a
//! sequence-classification BERT reading `(query, passage)` together, and the relevance is blended
//! with the fused rank, QMD-style: `score = w(r) / r + (1 − w(r)) × relevance`, where `r` is the fused
//! rank and `w` the retrieval weight of `rerank.blend` (0.75 for ranks 1–3, 0.60 to 10, 0.40 beyond).
//! Candidates past `rerank.depth` keep their order after the reranked ones.
//!
//! The model folder is `$BRAIN_RERANKER`, else `rerank.model` of `search_strategy.yaml`, else
//! `$BRAIN_HOME/models/reranker`. Off by default: on a CPU it costs about a second for 20 candidates.

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
        .unwrap_or_else(|| home.models().join("reranker"))
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
    let mut docs = docs;
    let texts: Vec<String> = docs[..depth]
        .iter()
        .map(|d| passage_text(lists, &d[0]))
        .collect();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    // Scored a few at a time, so a reranker slower than its budget is stopped between batches.
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
    let rest = docs.split_off(depth);
    let mut scored: Vec<(f64, Vec<Hit>)> = docs
        .into_iter()
        .zip(&relevance)
        .enumerate()
        .map(|(i, (mut d, &p))| {
            let r = i + 1;
            let wr = w.retrieval_weight(r);
            let blended = wr / r as f64 + (1.0 - wr) * f64::from(p);
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
    // Past the reranked depth: after every reranked document, in fused order.
    for d in rest {
        for mut h in d {
            h.score = h.score.min(floor);
            h.rank = out.len() as u32 + 1;
            out.push(h);
        }
    }
    Ok(out)
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

/// Passages the cross-encoder scores per call (the budget is checked between calls).
const RERANK_BATCH: usize = 8;

/// The error of a missing reranker.
pub fn missing(dir: &std::path::Path, reason: String) -> Unavailable {
    Unavailable {
        code: ErrorCode::ModelMissing,
        message: format!("reranker unavailable at {}: {reason}", dir.display()),
        fix: "put a cross-encoder folder (config.json, tokenizer.json, model.safetensors — e.g. cross-encoder/ms-marco-MiniLM-L-6-v2) at $BRAIN_HOME/models/reranker, or set $BRAIN_RERANKER".into(),
    }
}

fn round(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0
}
