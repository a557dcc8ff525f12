//! The one place the `query` tool meets the search engine.
//!
//! Today this is the lexical [`brain_rank::Ranker`]: `lex` sub-queries (and the plain `query`
//! string) are ranked with BM25; several `lex` sub-queries are fused with reciprocal rank fusion,
//! the first weighted up as QMD does. `vec` and `hyde` sub-queries need the hybrid engine and are
//! refused with an `index_missing` record until it lands; switching to it changes this file only.

use brain_doc::{ErrorCode, ErrorRecord, Hit};
use brain_rank::fusion::{RankedList, rrf};
use brain_rank::query::{Edge, parse_time};
use brain_rank::strategy::ORIGINAL_QUERY_WEIGHT;
use brain_rank::{Query, RankOptions};
use jiff::Zoned;
use serde::Deserialize;

use crate::handles::Handles;

/// The kind of a sub-query (QMD's `type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SubKind {
    /// BM25 keywords, `"phrases"`, `-negation`, `field:value` filters.
    Lex,
    /// A natural-language question for semantic search.
    Vec,
    /// A hypothetical answer passage for semantic search.
    Hyde,
}

/// One typed sub-query.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct SubQuery {
    #[serde(rename = "type")]
    pub kind: SubKind,
    pub query: String,
}

/// A search as the `query` tool asks for it.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchSpec {
    /// Typed sub-queries; the first carries the most weight.
    pub searches: Vec<SubQuery>,
    /// Background that disambiguates (used by the hybrid engine; the lexical path ignores it).
    pub intent: Option<String>,
    /// Only these collections (any of); empty = all.
    pub collections: Vec<String>,
    /// Only documents dated since (`7d`, `2026-04-01`, RFC 3339, …).
    pub since: Option<String>,
    /// Documents returned.
    pub limit: usize,
    /// Drop hits scoring below this (scores are normalized to [0, 1]).
    pub min_score: f64,
}

/// Run `spec` at time `now`.
pub fn search(h: &mut Handles, spec: &SearchSpec, now: &Zoned) -> Result<Vec<Hit>, ErrorRecord> {
    if let Some(s) = spec.searches.iter().find(|s| s.kind != SubKind::Lex) {
        let kind = if s.kind == SubKind::Vec {
            "vec"
        } else {
            "hyde"
        };
        return Err(ErrorRecord::new(
            ErrorCode::IndexMissing,
            format!("`{kind}` searches need vector search, which this server does not offer yet"),
            "use {type: \"lex\"} sub-queries or the plain `query` string",
        ));
    }
    let bad = |e: brain_rank::QueryError| {
        ErrorRecord::new(
            ErrorCode::BadQuery,
            format!("bad query: {e}"),
            "quote phrases with \"…\", -word excludes (docs/query.md)",
        )
    };
    let since = spec
        .since
        .as_deref()
        .map(|s| parse_time(s, now, Edge::Start))
        .transpose()
        .map_err(bad)?;
    let mut queries = Vec::new();
    for s in &spec.searches {
        let mut q = Query::parse(&s.query, now).map_err(bad)?;
        q.filters
            .collections
            .extend(spec.collections.iter().cloned());
        if since.is_some() {
            q.filters.since = since;
        }
        queries.push(q);
    }
    let opts = RankOptions {
        limit: spec.limit.max(1),
        per_doc: 1,
        boosts: h.strategy()?.boosts(),
        snippets: true,
    };
    let k = h.strategy()?.rrf_k;
    let ranker = h.ranker()?;
    let rank = |q: &Query| {
        ranker
            .rank(q, &opts, now.timestamp())
            .map_err(|e| ErrorRecord::new(e.code(), e.to_string(), e.fix()))
    };
    let mut hits = match queries.as_slice() {
        [one] => rank(one)?,
        many => {
            let lists: Vec<Vec<Hit>> = many.iter().map(rank).collect::<Result<_, _>>()?;
            fuse(lists, k, opts.limit)
        }
    };
    hits.retain(|h| h.score >= spec.min_score);
    Ok(hits)
}

/// Reciprocal rank fusion of lexical lists (the first weighted up), keyed by URI; each document keeps
/// its best passage, scores renormalized so the best is 1.
fn fuse(lists: Vec<Vec<Hit>>, k: f64, limit: usize) -> Vec<Hit> {
    let ranked: Vec<RankedList<'_>> = lists
        .iter()
        .enumerate()
        .map(|(i, l)| RankedList {
            name: "bm25",
            weight: if i == 0 { ORIGINAL_QUERY_WEIGHT } else { 1.0 },
            keys: l.iter().map(|h| h.uri.clone()).collect(),
        })
        .collect();
    let fused = rrf(&ranked, k);
    let top = fused.first().map_or(1.0, |f| f.score);
    fused
        .into_iter()
        .take(limit)
        .enumerate()
        .filter_map(|(i, f)| {
            let mut hit = lists.iter().flatten().find(|h| h.uri == f.key)?.clone();
            hit.rank = i as u32 + 1;
            hit.score = ((f.score / top) * 10_000.0).round() / 10_000.0;
            hit.signals.insert(
                "rrf".into(),
                ((f.score * 10_000.0).round() / 10_000.0).into(),
            );
            Some(hit)
        })
        .collect()
}
