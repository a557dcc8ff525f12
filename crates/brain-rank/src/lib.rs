//! Queries and ranking for `rank`, `brain ask` and `brain eval`.
//!
//! * [`query`] — the query language (words, `"phrases"`, `-negation`, `field:value`, `since:7d`);
//! * [`request`] — one search and the one builder every front door (CLI, MCP, eval) uses; queries
//!   are parsed once, there;
//! * [`plan`] — routing as a pure function: mode, filters, the lists to run and their weights;
//! * [`Engine`] — runs a plan: lexical and vector lists, fusion, rerank, snippets;
//! * [`RunError`] — why a search failed, with its exit code and fix; [`clock`] — "now";
//! * [`Ranker`] — lexical ranking: BM25 passages from `brain-lex`, folded into documents (`--per-doc N`
//!   passages each), scores normalized to [0, 1], every hit carrying its signals;
//! * [`strategy`] — every tuning constant with its source, overridable by `search_strategy.yaml`;
//! * [`fusion`] — reciprocal rank fusion, for combining the lexical list with the vector list;
//! * [`args`] — the clap arguments `rank` and `brain ask` share.

pub mod args;
pub mod clock;
pub mod dedup;
pub mod engine;
pub mod entity;
mod error;
pub mod expand;
pub mod fusion;
pub mod handles;
pub mod knobs;
pub mod memory;
pub mod plan;
pub mod query;
pub mod querydoc;
mod rank;
pub mod recent;
pub mod request;
pub mod rerank;
pub mod route;
pub mod run;
mod sessions;
pub mod strategy;
pub mod strength;
pub mod when;

/// A plain hit of `uri` (score 1, rank 0, no session) for unit tests to shape.
#[cfg(test)]
pub(crate) fn test_hit(uri: &str) -> brain_doc::Hit {
    brain_doc::Hit {
        schema: brain_doc::SCHEMA,
        kind: "hit".into(),
        rank: 0,
        score: 1.0,
        strength: None,
        uri: uri.into(),
        docid: brain_doc::docid(uri),
        collection: "c".into(),
        path: uri.into(),
        file: None,
        title: String::new(),
        date: String::new(),
        age_days: 0,
        started: None,
        ended: None,
        session_id: None,
        project: None,
        agent: None,
        line: 1,
        snippet: String::new(),
        signals: serde_json::Map::new(),
        untrusted: false,
        memory: None,
        anchor: None,
        link: None,
    }
}

pub use engine::{Answer, Engine};
pub use error::{RunError, Unavailable};
pub use query::{Filters, Query, QueryError};
pub use rank::{RankError, RankOptions, Ranker, age_days};
pub use request::SearchRequest;
pub use strategy::Strategy;
