//! The search engine: one handle that answers a plain query or a structured query document in any
//! [`Mode`], and that a long-lived process (the MCP server) keeps open across calls.
//!
//! ```text
//! request ─► route (auto: literal → lex, conceptual → hybrid, temporal → window / recency walk)
//!         ─► plan: one ranked list per sub-query (lex: BM25 documents; vec/hyde: cosine documents)
//!         ─► run: lexical lists here, vector lists (model load + embed + scan) on a second thread
//!         ─► fuse (RRF, k = 60, original ×2, top-rank bonus) ─► optional rerank ─► min score, limit
//! ```
//!
//! A single list is returned as it is (lexical mode gives exactly what [`Ranker`] gives). The vector
//! side (`engine/vectors.rs`) is opened lazily and only when the plan needs it, so lexical queries
//! never load a model.

use std::sync::OnceLock;

use brain_doc::{ErrorCode, Hit};
use brain_store::{Config, Home};
use brain_vec::EmbedderSpec;
use brain_vec::cross::CrossEncoder;
use brain_vec::search::VecSearch;
use jiff::Zoned;
use serde_json::{Map, Value};

use crate::querydoc::{QueryDoc, SearchKind, SubQuery};
use crate::rank::{RankOptions, Ranker};
use crate::route::{self, Mode};
use crate::run::{RunError, Unavailable};
use crate::strategy::Strategy;
use crate::{Filters, Query, fusion};

mod vectors;
use vectors::LagKey;

/// One search, however it was asked.
#[derive(Debug, Clone)]
pub struct SearchRequest {
    /// The sub-queries; the first is the original.
    pub doc: QueryDoc,
    /// The request came from a plain query (its doc is the lex + vec pair of `text`): routing and
    /// temporal phrases apply, and the vector text is the query without its syntax.
    pub plain: Option<String>,
    /// Filters for every list (flags, plus `field:value` of lex lines).
    pub filters: Filters,
    /// Documents returned.
    pub limit: usize,
    /// Passages per document.
    pub per_doc: usize,
    /// Drop hits whose normalized score is below this.
    pub min_score: f64,
    pub mode: Mode,
    /// Rerank the fused candidates with the cross-encoder.
    pub rerank: bool,
    /// Compute lexical snippets (and their lines); `brain eval` only needs the order.
    pub snippets: bool,
}

impl SearchRequest {
    /// A plain query in our query language (words, phrases, negation, filters).
    pub fn plain(text: &str, limit: usize, per_doc: usize) -> SearchRequest {
        SearchRequest {
            doc: QueryDoc::plain(text),
            plain: Some(text.trim().to_string()),
            filters: Filters::default(),
            limit,
            per_doc,
            min_score: 0.0,
            mode: Mode::Auto,
            rerank: false,
            snippets: true,
        }
    }

    /// A structured query document.
    pub fn document(doc: QueryDoc, limit: usize, per_doc: usize) -> SearchRequest {
        SearchRequest {
            plain: None,
            ..SearchRequest::plain("", limit, per_doc)
        }
        .with_doc(doc)
    }

    fn with_doc(mut self, doc: QueryDoc) -> Self {
        self.doc = doc;
        self
    }

    /// The request of query text: a structured document when its first line is typed (see
    /// [`QueryDoc::is_document`]), else a plain query. `field:value` filters written in the text (in
    /// any lex line of a document) restrict the whole search.
    pub fn parse(text: &str, now: &Zoned, limit: usize, per_doc: usize) -> Result<Self, RunError> {
        if QueryDoc::is_document(text) {
            return Self::from_doc(QueryDoc::parse(text)?, now, limit, per_doc);
        }
        let mut r = SearchRequest::plain(text, limit, per_doc);
        r.filters = Query::parse(text, now)?.filters;
        Ok(r)
    }

    /// The request of a parsed document, with the filters of its lex lines.
    pub fn from_doc(
        doc: QueryDoc,
        now: &Zoned,
        limit: usize,
        per_doc: usize,
    ) -> Result<Self, RunError> {
        let mut r = SearchRequest::document(doc, limit, per_doc);
        for s in r.doc.searches.iter().filter(|s| s.kind == SearchKind::Lex) {
            r.filters.merge(&Query::parse(&s.text, now)?.filters);
        }
        Ok(r)
    }
}

/// What a search answered.
#[derive(Debug, Clone, Default)]
pub struct Answer {
    pub hits: Vec<Hit>,
    /// The mode the request resolved to.
    pub mode: Option<Mode>,
    /// The lists that ran, as `kind: text` (for `--explain`).
    pub plan: Vec<String>,
    /// Things the user should know (vector lines skipped, vectors lagging, …).
    pub warnings: Vec<String>,
}

/// Candidates per list before fusion (our choice, 2026-11-22: QMD fuses 30–40 per list; fusion depth
/// bounds how far down a list a document can come from).
pub const FUSION_DEPTH: usize = 40;

/// The open handles. Lexical index at [`Engine::open`]; vector store and model when first needed.
pub struct Engine {
    home: Home,
    strategy: Strategy,
    config: Option<Config>,
    lex: Result<Ranker, Unavailable>,
    spec: Result<EmbedderSpec, String>,
    vec: OnceLock<Result<VecSearch, Unavailable>>,
    reranker: OnceLock<Result<CrossEncoder, Unavailable>>,
    /// The last [`Engine::vector_lag`] answer and what it was computed from (store generation,
    /// registry file stats): a warm session asks the registry again only when one of them changed.
    lag: std::sync::Mutex<Option<(LagKey, Option<String>)>>,
}

impl Engine {
    /// Open the engine of `home` (strategy file, config, lexical index). A missing lexical index is
    /// not an error until a lexical list is asked for.
    pub fn open(home: &Home) -> Result<Engine, RunError> {
        let spec = EmbedderSpec::from_env(&home.models()).map_err(|e| e.to_string());
        Self::build(home, spec)
    }

    /// [`Engine::open`] with an explicit embedder instead of `$BRAIN_EMBEDDER` / the home's model.
    pub fn open_with(home: &Home, spec: EmbedderSpec) -> Result<Engine, RunError> {
        Self::build(home, Ok(spec))
    }

    fn build(home: &Home, spec: Result<EmbedderSpec, String>) -> Result<Engine, RunError> {
        let strategy = Strategy::load(&home.root().join(Strategy::FILE))?;
        Ok(Engine {
            home: home.clone(),
            strategy,
            config: Config::load(home).ok(),
            lex: Ranker::open(home).map_err(|e| Unavailable {
                code: e.code(),
                message: e.to_string(),
                fix: e.fix().into(),
            }),
            spec,
            vec: OnceLock::new(),
            reranker: OnceLock::new(),
            lag: std::sync::Mutex::new(None),
        })
    }

    /// The home this engine searches.
    pub fn home(&self) -> &Home {
        &self.home
    }

    /// The cross-encoder, loaded on first use.
    pub fn reranker(&self) -> Result<&CrossEncoder, Unavailable> {
        self.reranker
            .get_or_init(|| {
                let dir = crate::rerank::model_dir(self);
                CrossEncoder::load(&dir, self.strategy.rerank.max_tokens)
                    .map_err(|e| crate::rerank::missing(&dir, e.to_string()))
            })
            .as_ref()
            .map_err(Clone::clone)
    }

    /// The strategy in force.
    pub fn strategy(&self) -> &Strategy {
        &self.strategy
    }

    /// The lexical ranker, or why there is none.
    pub fn ranker(&self) -> Result<&Ranker, RunError> {
        self.lex
            .as_ref()
            .map_err(|u| RunError::Unavailable(u.clone()))
    }

    /// Answer `req` at time `now`.
    pub fn search(&self, req: &SearchRequest, now: &Zoned) -> Result<Answer, RunError> {
        let mut ans = Answer::default();
        let mut filters = req.filters.clone();
        let mut doc = req.doc.clone();
        let mut mode = req.mode;

        // Routing of a plain query: temporal phrase → window; literal → lex; conceptual → hybrid.
        if let Some(text) = &req.plain {
            let mut text = text.clone();
            if mode == Mode::Auto
                && filters.since.is_none()
                && filters.until.is_none()
                && let Some(t) = route::temporal(&text, now)
            {
                filters.since = Some(t.since);
                filters.until = Some(t.until);
                ans.warnings.push(format!(
                    "read `{}` as a date window ({} to {})",
                    t.phrase,
                    t.since.to_zoned(now.time_zone().clone()).date(),
                    t.until.to_zoned(now.time_zone().clone()).date()
                ));
                if route::only_filler(&t.rest) {
                    mode = Mode::Recent;
                }
                text = t.rest;
            }
            if mode == Mode::Auto {
                mode = if route::is_literal(&text) || !self.vectors_available() {
                    Mode::Lex
                } else {
                    Mode::Hybrid
                };
            }
            if mode != Mode::Recent {
                let q = Query::parse(&text, now)?;
                let vec_text = q.positive_text();
                doc = QueryDoc {
                    searches: vec![
                        SubQuery::new(SearchKind::Lex, text.clone()),
                        SubQuery::new(SearchKind::Vec, vec_text),
                    ],
                    intent: req.doc.intent.clone(),
                };
                // Extra sub-queries the caller added (--hyde, expansions) come after the pair.
                doc.searches
                    .extend(req.doc.searches.iter().skip(2).cloned());
            }
        }
        if mode == Mode::Recent {
            ans.mode = Some(Mode::Recent);
            ans.plan.push("recent: newest first".into());
            ans.hits = self
                .ranker()?
                .latest(&filters, req.limit, now.timestamp())?;
            return Ok(ans);
        }
        let has_vec = doc.searches.iter().any(|s| s.kind.is_vector());
        let has_lex = doc.searches.iter().any(|s| s.kind == SearchKind::Lex);
        mode = match mode {
            Mode::Auto if has_vec && self.vectors_available() => Mode::Hybrid,
            Mode::Auto if has_vec && has_lex => {
                ans.warnings.push(
                    "vector sub-queries skipped: no vector index or model (run `vecindex --all`, `brain model fetch`)".into(),
                );
                Mode::Lex
            }
            Mode::Auto if has_vec => Mode::Vec, // fails below with the reason
            Mode::Auto => Mode::Lex,
            m => m,
        };
        if matches!(mode, Mode::Vec | Mode::Hybrid) {
            self.vectors().map_err(RunError::Unavailable)?;
        }
        let keep = |k: SearchKind| match mode {
            Mode::Lex => k == SearchKind::Lex,
            Mode::Vec => k.is_vector(),
            _ => true,
        };
        let dropped = doc.searches.iter().filter(|s| !keep(s.kind)).count();
        // (In auto mode the reason was given above.)
        if dropped > 0 && req.plain.is_none() && req.mode != Mode::Auto {
            ans.warnings.push(format!(
                "{dropped} sub-quer{} skipped in {} mode",
                if dropped == 1 { "y" } else { "ies" },
                mode.name()
            ));
        }
        // The original's lists weigh double: the first sub-query, and for a plain query both halves
        // of its lex + vec pair.
        let originals = if req.plain.is_some() { 2 } else { 1 };
        let plan: Vec<(SubQuery, f64)> = doc
            .searches
            .iter()
            .enumerate()
            .filter(|(_, s)| keep(s.kind) && !s.text.trim().is_empty())
            .map(|(i, s)| {
                let w = if i < originals {
                    self.strategy.fusion.original_weight
                } else {
                    1.0
                };
                (s.clone(), w)
            })
            .collect();
        if plan.is_empty() {
            return Err(crate::QueryError::Empty.into());
        }
        ans.mode = Some(mode);
        ans.plan = plan
            .iter()
            .map(|(s, w)| format!("{}: {} (weight {w})", s.kind.name(), s.text))
            .collect();
        let lists = self.run_lists(&plan, &filters, req, now, plan.len() > 1 || req.rerank)?;
        let mut hits = if lists.len() == 1 && !req.rerank {
            let mut hits = lists.first().map(|l| l.hits.clone()).unwrap_or_default();
            normalize(&mut hits);
            hits
        } else {
            fusion::fuse_hits(&lists, &self.strategy.fusion, req.per_doc)
        };
        if req.rerank {
            hits = crate::rerank::rerank(self, &doc, &lists, hits, &mut ans.warnings)?;
        }
        if matches!(mode, Mode::Vec | Mode::Hybrid)
            && let Some(w) = self.vector_lag()
        {
            ans.warnings.push(w);
        }
        hits.retain(|h| h.score >= req.min_score);
        fusion::truncate_docs(&mut hits, req.limit);
        self.fill_snippets(&mut hits, &lists, now)?;
        ans.hits = hits;
        Ok(ans)
    }

    /// Snippets for the hits that came from lexical lists ranked without them: a fused list takes
    /// `FUSION_DEPTH` candidates per list, and snippets (tokenizing every line of a passage) were
    /// 37 % of a warm 40-deep lexical list — only the `limit` winners need one.
    fn fill_snippets(
        &self,
        hits: &mut [Hit],
        lists: &[fusion::HitList],
        now: &Zoned,
    ) -> Result<(), RunError> {
        for h in hits.iter_mut().filter(|h| h.snippet.is_empty()) {
            let found = lists.iter().find_map(|l| {
                let text = l.unsnipped.as_ref()?;
                let j = l
                    .hits
                    .iter()
                    .position(|x| x.uri == h.uri && x.line == h.line)?;
                Some((text, l.texts.get(j)?))
            });
            if let Some((text, body)) = found {
                self.ranker()?
                    .fill_snippet(h, body, &Query::parse(text, now)?);
            }
        }
        Ok(())
    }

    /// Run every planned list: lexical ones here, vector ones (model load, one embedding call for all
    /// their texts, one scan each) on a scoped thread at the same time.
    fn run_lists(
        &self,
        plan: &[(SubQuery, f64)],
        filters: &Filters,
        req: &SearchRequest,
        now: &Zoned,
        fusing: bool,
    ) -> Result<Vec<fusion::HitList>, RunError> {
        let depth = if fusing {
            FUSION_DEPTH.max(req.limit)
        } else {
            req.limit
        };
        let vec_plan: Vec<(usize, &SubQuery)> = plan
            .iter()
            .enumerate()
            .filter(|(_, (s, _))| s.kind.is_vector())
            .map(|(i, (s, _))| (i, s))
            .collect();
        let (lex_results, vec_results) = std::thread::scope(|scope| {
            let vec_job = (!vec_plan.is_empty())
                .then(|| scope.spawn(|| self.vector_lists(&vec_plan, filters, depth, now)));
            let lex: Vec<(usize, Result<Vec<(Hit, String)>, RunError>)> = plan
                .iter()
                .enumerate()
                .filter(|(_, (s, _))| s.kind == SearchKind::Lex)
                .map(|(i, (s, _))| (i, self.lex_list(&s.text, filters, depth, req, now, !fusing)))
                .collect();
            let vec = vec_job.map(|j| {
                j.join().unwrap_or_else(|_| {
                    Err(RunError::Unavailable(Unavailable {
                        code: ErrorCode::Internal,
                        message: "the vector search thread panicked".into(),
                        fix: String::new(),
                    }))
                })
            });
            (lex, vec)
        });
        let mut lists: Vec<Option<fusion::HitList>> = (0..plan.len()).map(|_| None).collect();
        for (i, r) in lex_results {
            let (hits, texts) = r?.into_iter().unzip();
            let mut list = fusion::HitList::new("lex", plan[i].1, hits, texts);
            if fusing && req.snippets {
                list.unsnipped = Some(plan[i].0.text.clone());
            }
            lists[i] = Some(list);
        }
        if let Some(r) = vec_results {
            for (i, hits_texts) in r? {
                let (hits, texts) = hits_texts.into_iter().unzip();
                let (s, w) = &plan[i];
                lists[i] = Some(fusion::HitList::new(s.kind.name(), *w, hits, texts));
            }
        }
        Ok(lists.into_iter().flatten().collect())
    }

    /// One lexical list. Filters of the sub-query's own `field:value` terms are added to `filters`.
    /// Without `snippets`, hits carry their passage's first line and no snippet (see
    /// [`Engine::fill_snippets`]).
    fn lex_list(
        &self,
        text: &str,
        filters: &Filters,
        depth: usize,
        req: &SearchRequest,
        now: &Zoned,
        snippets: bool,
    ) -> Result<Vec<(Hit, String)>, RunError> {
        let mut q = Query::parse(text, now)?;
        q.filters.merge(filters);
        let opts = RankOptions {
            limit: depth,
            per_doc: req.per_doc,
            boosts: self.strategy.boosts(),
            snippets: req.snippets && snippets,
        };
        Ok(self.ranker()?.rank_with_text(&q, &opts, now.timestamp())?)
    }
}

impl Query {
    /// The query's positive words and phrases as plain text (what the vector side embeds).
    pub fn positive_text(&self) -> String {
        self.terms
            .iter()
            .chain(&self.phrases)
            .cloned()
            .collect::<Vec<_>>()
            .join(" ")
    }
}

impl Filters {
    /// Add `other`'s restrictions to these (lists are unioned; a bound is kept when already set).
    pub fn merge(&mut self, other: &Filters) {
        let add = |a: &mut Vec<String>, b: &[String]| {
            for x in b {
                if !a.contains(x) {
                    a.push(x.clone());
                }
            }
        };
        add(&mut self.collections, &other.collections);
        add(&mut self.projects, &other.projects);
        add(&mut self.agents, &other.agents);
        self.since = self.since.or(other.since);
        self.until = self.until.or(other.until);
    }
}

/// Scale scores so the best hit is 1 and none is below 0 (a lexical list already is; cosines are
/// not).
fn normalize(hits: &mut [Hit]) {
    let top = hits.first().map_or(1.0, |h| h.score);
    if top > 0.0 && (top - 1.0).abs() > f64::EPSILON {
        for h in hits.iter_mut() {
            h.score = ((h.score / top).max(0.0) * 10_000.0).round() / 10_000.0;
        }
    }
}

/// Signals object helper: insert `key: value` rounded to four decimals.
pub(crate) fn signal(map: &mut Map<String, Value>, key: &str, value: f64) {
    map.insert(
        key.into(),
        Value::from((value * 10_000.0).round() / 10_000.0),
    );
}
