//! The one place the `query` tool meets the search engine ([`brain_rank::Engine`], kept open
//! by [`Handles`]): a plain `query` string is a plain query (routed as `brain ask` routes it: literal →
//! BM25, conceptual → hybrid when vectors exist), `searches` are a structured query document
//! (`lex`, `vec`, `hyde`; the first weighs double in fusion).

use brain_doc::ErrorRecord;
use brain_rank::RunError;
use brain_rank::querydoc::{QueryDoc, SearchKind, SubQuery as DocLine};
use jiff::Zoned;
use serde::Deserialize;

use crate::handles::Handles;

/// A typed sub-query.
#[derive(Debug, Clone, PartialEq, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SubQuery {
    /// lex: keywords; vec: a question; hyde: an imagined answer
    #[serde(rename = "type")]
    #[schemars(schema_with = "search_kind_schema")]
    pub kind: SearchKind,
    #[schemars(length(min = 1))]
    pub query: String,
}

/// The `type` of a sub-query: the names [`SearchKind`] parses.
fn search_kind_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let names: Vec<&str> = [SearchKind::Lex, SearchKind::Vec, SearchKind::Hyde]
        .iter()
        .map(|k| k.name())
        .collect();
    schemars::json_schema!({"type": "string", "enum": names})
}

/// A search as the `query` tool asks for it.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchSpec {
    /// A plain query string, or
    pub plain: Option<String>,
    /// typed sub-queries; the first carries the most weight.
    pub searches: Vec<SubQuery>,
    /// Background that disambiguates: steers the reranker and expansion, is not searched itself.
    pub intent: Option<String>,
    /// Only these collections (any of); empty = all.
    pub collections: Vec<String>,
    /// Only documents dated since (`7d`, `2026-04-01`, RFC 3339, …).
    pub since: Option<String>,
    /// Documents returned; the strategy's `limit` when not given (what `brain tune` learned reaches
    /// agents as it reaches `brain ask`).
    pub limit: Option<usize>,
    /// Drop hits whose match strength is below this; without it an answer of weak matches alone
    /// is no results.
    pub min_score: Option<f64>,
    /// Rerank with the cross-encoder.
    pub rerank: bool,
    /// A team engine, by its name in brain.yaml's `team.engines`, instead of this home.
    pub engine: Option<String>,
}

/// The label of a search (its plain query or first sub-query), for summaries.
impl SearchSpec {
    pub fn label(&self) -> &str {
        self.plain
            .as_deref()
            .or_else(|| self.searches.first().map(|s| s.query.as_str()))
            .unwrap_or("")
    }
}

fn record(e: RunError) -> ErrorRecord {
    ErrorRecord::of(&e)
}

/// Run `spec` at time `now`: the engine's answer (hits, warnings, how time words were read).
pub fn search(
    h: &mut Handles,
    spec: &SearchSpec,
    now: &Zoned,
) -> Result<brain_rank::Answer, ErrorRecord> {
    let engine = match &spec.engine {
        Some(name) => h.team_engine(name)?,
        None => h.engine()?,
    };
    let builder = engine.request(now);
    let builder = match &spec.plain {
        Some(q) => builder.text(q),
        None => builder.document(QueryDoc {
            searches: spec
                .searches
                .iter()
                .map(|s| DocLine::new(s.kind, s.query.trim()))
                .collect(),
            intent: None,
        }),
    }
    .and_then(|b| b.since(spec.since.as_deref()))
    .map_err(record)?;
    let req = builder
        .intent(spec.intent.clone())
        .scope(&spec.collections, &[], &[])
        .limit_or_strategy(spec.limit, None)
        .min_score(spec.min_score)
        .rerank(spec.rerank)
        .build();
    engine.search(&req, now).map_err(record)
}
