//! One search, however it was asked, and the one builder every front door uses
//! ([`crate::Engine::request`]): `rank` and `brain ask` ([`crate::args::RankArgs::request`]), the MCP
//! `query` tool, `brain eval`, `brain tune`, `brain context`, `brain browse`'s search. Each front
//! door is a thin adapter that hands its own arguments to [`RequestBuilder`]; what it does not say
//! (`limit`, `per_doc`) comes from the strategy.
//!
//! The request is resolved once: every lexical line is lexed and parsed once, here, and the plan,
//! the lexical lists, the snippets and the zero-hit relaxation reuse those tokens (a plain `brain
//! ask` was parsed 3 times, 5 on a zero-hit retry, before issue 39).

use jiff::Zoned;

use crate::dedup::Collapse;
use crate::error::RunError;
use crate::query::{Edge, Filters, Query, parse_time};
use crate::querydoc::{QueryDoc, SearchKind};
use crate::route::Mode;
use crate::strategy::Strategy;

/// One sub-query of a request: its kind, its text, and for a lexical line its parse.
#[derive(Debug, Clone)]
pub struct Line {
    pub kind: SearchKind,
    pub text: String,
    /// The parsed query of a `lex` line (`None` for `vec` / `hyde`, whose text is embedded as is).
    pub query: Option<Query>,
}

impl Line {
    /// A sub-query of `kind`; a lexical one is parsed at `now`.
    pub fn new(kind: SearchKind, text: &str, now: &Zoned) -> Result<Line, RunError> {
        let text = text.trim().to_string();
        let query = match kind {
            SearchKind::Lex => Some(Query::parse(&text, now)?),
            _ => None,
        };
        Ok(Line { kind, text, query })
    }
}

pub use crate::query::Plain;

/// One search, ready to plan.
#[derive(Debug, Clone)]
pub struct SearchRequest {
    /// The query as the user wrote it, when it was a plain query: routing and temporal phrases apply
    /// to it, and it becomes a lex + vec pair (both weighted as the original).
    pub plain: Option<Plain>,
    /// The sub-queries of a query document (the first is the original), or — after a plain query —
    /// the lines added to it (`--hyde`, expansions).
    pub lines: Vec<Line>,
    /// Background that disambiguates: steers the reranker, is not searched itself.
    pub intent: Option<String>,
    /// Filters for every list (flags, plus the `field:value` terms of the lexical lines).
    pub filters: Filters,
    /// Documents returned.
    pub limit: usize,
    /// Passages per document.
    pub per_doc: usize,
    /// Drop hits whose match strength ([`crate::strength`]) is below this.
    pub min_score: f64,
    /// An answer of weak matches alone is no answer ([`crate::strength::WEAK`]): what a person or
    /// an agent asking without `--min-score` gets. Evaluation and context assembly keep every hit.
    pub hold_weak: bool,
    pub mode: Mode,
    /// Rerank the fused candidates with the cross-encoder.
    pub rerank: bool,
    /// Compute lexical snippets (and their lines); `brain eval` only needs the order.
    pub snippets: bool,
    /// Whether near-duplicates are folded into the best of them (`brain ask`; off elsewhere).
    pub collapse: Collapse,
    /// What building the request left out (words past the cap), for the answer's warnings.
    pub warnings: Vec<String>,
}

impl SearchRequest {
    /// A builder of a request at time `now` (relative times, `since:7d`, are read against it),
    /// its defaults (`limit`, `per_doc`) taken from `strategy`: every front door gets what `brain
    /// tune` wrote unless its caller says otherwise ([`Engine::request`](crate::Engine::request)
    /// is this with the engine's strategy).
    pub fn builder<'a>(now: &'a Zoned, strategy: &Strategy) -> RequestBuilder<'a> {
        RequestBuilder {
            now,
            req: SearchRequest {
                plain: None,
                lines: Vec::new(),
                intent: None,
                filters: Filters::default(),
                limit: strategy.limit.max(1),
                per_doc: strategy.per_doc.max(1),
                min_score: 0.0,
                hold_weak: false,
                mode: Mode::Auto,
                rerank: false,
                snippets: true,
                collapse: Collapse::Off,
                warnings: Vec::new(),
            },
        }
    }

    /// The original query's text: the plain query, else the first sub-query (what query expansion
    /// and labels use).
    pub fn original_text(&self) -> &str {
        match &self.plain {
            Some(p) => &p.text,
            None => self.lines.first().map_or("", |l| l.text.as_str()),
        }
    }
}

/// Builds a [`SearchRequest`]; see the module docs.
pub struct RequestBuilder<'a> {
    now: &'a Zoned,
    req: SearchRequest,
}

impl RequestBuilder<'_> {
    /// Query text: a structured document when its first line is typed ([`QueryDoc::is_document`]),
    /// else a plain query. `field:value` filters written in it restrict the whole search.
    pub fn text(self, text: &str) -> Result<Self, RunError> {
        if QueryDoc::is_document(text) {
            return self.document(QueryDoc::parse(text)?);
        }
        self.plain(text)
    }

    /// A plain query, whatever its first line looks like.
    pub fn plain(mut self, text: &str) -> Result<Self, RunError> {
        // Filters alone are a request too (auto and recent modes walk them by recency; the
        // planner refuses them in the other modes).
        let plain = Plain::parse(text, self.now)?;
        if !plain.query.only_filters() {
            plain.query.check()?;
        }
        self.req.filters.merge(&plain.query.filters);
        self.note_dropped(&plain.query);
        self.req.plain = Some(plain);
        Ok(self)
    }

    /// A parsed query document; the filters of its lex lines restrict the whole search, and its
    /// intent is the request's.
    pub fn document(mut self, doc: QueryDoc) -> Result<Self, RunError> {
        if doc.intent.is_some() {
            self.req.intent = doc.intent;
        }
        for s in doc.searches {
            self = self.line(s.kind, &s.text)?;
        }
        Ok(self)
    }

    /// One more sub-query (`--hyde`, an expansion, a document line); a lexical one's filters join
    /// the request's.
    pub fn line(mut self, kind: SearchKind, text: &str) -> Result<Self, RunError> {
        self.add_line(kind, text)?;
        Ok(self)
    }

    /// [`RequestBuilder::line`] in place: on an error the builder is unchanged, for a caller that
    /// skips a line it cannot parse (query expansion: it may only ever add recall).
    pub fn add_line(&mut self, kind: SearchKind, text: &str) -> Result<(), RunError> {
        let line = Line::new(kind, text, self.now)?;
        if let Some(q) = &line.query {
            self.req.filters.merge(&q.filters);
            self.note_dropped(q);
        }
        self.req.lines.push(line);
        Ok(())
    }

    /// Warn when a parse left words out past [`crate::query::MAX_TERMS`].
    fn note_dropped(&mut self, q: &Query) {
        if q.dropped > 0 {
            self.req.warnings.push(format!(
                "{} distinct words, phrases or exclusions left out: a query searches with at most {}",
                q.dropped,
                crate::query::MAX_TERMS
            ));
        }
    }

    /// The intent so far.
    pub fn intent_text(&self) -> Option<&str> {
        self.req.intent.as_deref()
    }

    /// The original query's text so far (see [`SearchRequest::original_text`]).
    pub fn original_text(&self) -> &str {
        self.req.original_text()
    }

    /// The intent, when given (a document's own intent is kept otherwise).
    pub fn intent(mut self, intent: Option<String>) -> Self {
        if intent.is_some() {
            self.req.intent = intent;
        }
        self
    }

    /// Only documents of these collections, projects and agents (each list: any of).
    pub fn scope(mut self, collections: &[String], projects: &[String], agents: &[String]) -> Self {
        self.req.filters.merge(&Filters {
            collections: collections.to_vec(),
            projects: projects.to_vec(),
            agents: agents.to_vec(),
            ..Filters::default()
        });
        self
    }

    /// Only records of these memory types and tags (each list: any of).
    pub fn kinds(mut self, types: &[String], tags: &[String]) -> Self {
        self.req.filters.merge(&Filters {
            types: types.iter().map(|t| t.to_lowercase()).collect(),
            tags: tags
                .iter()
                .map(|t| t.trim_start_matches('#').to_lowercase())
                .collect(),
            ..Filters::default()
        });
        self
    }

    /// Only records in these decay tiers (`hot`, `warm`, `cold`; any of). A word that is not a
    /// tier is a bad query.
    pub fn tiers(mut self, tiers: &[String]) -> Result<Self, RunError> {
        for t in tiers {
            self.req.filters.add("tier", t, self.now)?;
        }
        Ok(self)
    }

    /// Which records count as current: all of them (`include_superseded`), or those current at
    /// `as_of` (a time spec: `2026-03-01`, `3mo`, RFC 3339; default now).
    pub fn lifecycle(
        mut self,
        include_superseded: bool,
        as_of: Option<&str>,
    ) -> Result<Self, RunError> {
        self.req.filters.include_superseded |= include_superseded;
        if let Some(s) = as_of {
            self.req.filters.as_of = Some(parse_time(s, self.now, Edge::End)?);
        }
        Ok(self)
    }

    /// Only documents dated since `spec` (`7d`, `2026-04-01`, RFC 3339, …); replaces a `since:`
    /// of the text.
    pub fn since(mut self, spec: Option<&str>) -> Result<Self, RunError> {
        if let Some(s) = spec {
            self.req.filters.since = Some(parse_time(s, self.now, Edge::Start)?);
        }
        Ok(self)
    }

    /// Only documents dated until `spec`; replaces an `until:` of the text.
    pub fn until(mut self, spec: Option<&str>) -> Result<Self, RunError> {
        if let Some(s) = spec {
            self.req.filters.until = Some(parse_time(s, self.now, Edge::End)?);
        }
        Ok(self)
    }

    /// Documents returned (at least 1) and passages per document (at least 1).
    pub fn limit(mut self, limit: usize, per_doc: usize) -> Self {
        self.req.limit = limit.max(1);
        self.req.per_doc = per_doc.max(1);
        self
    }

    /// Documents returned and passages per document where the caller was told (a flag, a tool
    /// argument); the strategy's otherwise.
    pub fn limit_or_strategy(mut self, limit: Option<usize>, per_doc: Option<usize>) -> Self {
        if let Some(n) = limit {
            self.req.limit = n.max(1);
        }
        if let Some(n) = per_doc {
            self.req.per_doc = n.max(1);
        }
        self
    }

    /// Drop hits whose match strength is below `min`; without one (`None`), an answer of weak
    /// matches alone is held back as no results.
    pub fn min_score(mut self, min: Option<f64>) -> Self {
        self.req.min_score = min.unwrap_or(0.0);
        self.req.hold_weak = min.is_none();
        self
    }

    pub fn mode(mut self, mode: Mode) -> Self {
        self.req.mode = mode;
        self
    }

    pub fn rerank(mut self, rerank: bool) -> Self {
        self.req.rerank = rerank;
        self
    }

    /// Whether hits get snippets (`brain eval` needs only the order).
    pub fn snippets(mut self, snippets: bool) -> Self {
        self.req.snippets = snippets;
        self
    }

    /// Whether near-duplicates are collapsed ([`Collapse`]).
    pub fn collapse(mut self, collapse: Collapse) -> Self {
        self.req.collapse = collapse;
        self
    }

    pub fn build(self) -> SearchRequest {
        self.req
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn now() -> Zoned {
        "2026-04-10T12:00:00+00:00[UTC]".parse().expect("now")
    }

    #[test]
    fn a_plain_query_is_parsed_once_and_its_filters_restrict_the_search() {
        let now = now();
        let r = SearchRequest::builder(&now, &Strategy::default())
            .text("lock contention collection:notes -tantivy")
            .expect("text")
            .build();
        let p = r.plain.expect("plain");
        assert_eq!(p.query.terms, ["lock", "contention"]);
        assert_eq!(r.filters.collections, ["notes"]);
        assert!(r.lines.is_empty());
    }

    #[test]
    fn a_document_keeps_its_lines_and_merges_the_filters_of_its_lex_lines() {
        let now = now();
        let r = SearchRequest::builder(&now, &Strategy::default())
            .text("lex: parse_config project:brain\nvec: why does config fail\nintent: the cli")
            .expect("doc")
            .build();
        assert!(r.plain.is_none());
        assert_eq!(r.lines.len(), 2);
        assert!(r.lines[0].query.is_some() && r.lines[1].query.is_none());
        assert_eq!(r.filters.projects, ["brain"]);
        assert_eq!(r.intent.as_deref(), Some("the cli"));
        assert_eq!(r.original_text(), "parse_config project:brain");
    }

    #[test]
    fn flags_join_the_filters_and_a_bad_time_is_a_query_error() {
        let now = now();
        let r = SearchRequest::builder(&now, &Strategy::default())
            .plain("x")
            .expect("plain")
            .scope(&["notes".into()], &[], &["codex".into()])
            .since(Some("7d"))
            .expect("since")
            .limit(0, 0)
            .build();
        assert_eq!(r.filters.collections, ["notes"]);
        assert_eq!(r.filters.agents, ["codex"]);
        assert!(r.filters.since.is_some());
        assert_eq!((r.limit, r.per_doc), (1, 1));
        let bad = SearchRequest::builder(&now, &Strategy::default()).since(Some("last tuesday"));
        assert!(matches!(bad, Err(RunError::Query(_))));
    }
}
