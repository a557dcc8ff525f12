//! The search engine: one handle that answers a plain query or a structured query document in any
//! [`Mode`], and that a long-lived process (the MCP server) keeps open across calls.
//!
//! ```text
//! request (request.rs: parsed once, built by every front door)
//!         ─► plan (plan.rs, pure: auto routes literal → lex, conceptual → hybrid, temporal → window
//!            or recency walk; one ranked list per sub-query with its fusion weight)
//!         ─► run: lexical lists here, vector lists (model load + embed + scan) on a second thread
//!         ─► fuse (RRF, k = 60, original ×2, top-rank bonus) ─► optional rerank ─► min score, limit
//! ```
//!
//! A single list is returned as it is (lexical mode gives exactly what [`Ranker`] gives). The vector
//! side (`engine/vectors.rs`) is opened lazily and only when the plan needs it, so lexical queries
//! never load a model.

use std::sync::OnceLock;

use brain_doc::Classified;
use brain_doc::{ErrorCode, Hit};
use brain_store::{Config, Home};
use brain_vec::EmbedderSpec;
use brain_vec::cross::CrossEncoder;
use brain_vec::search::VecSearch;
use jiff::Zoned;

use crate::error::{RunError, Unavailable};
use crate::fusion;
use crate::plan::{self, Plan};
use crate::query::{Filters, Query};
use crate::rank::{RankOptions, Ranker};
use crate::request::SearchRequest;
use crate::route::Mode;
use crate::strategy::Strategy;

mod remote;
mod vectors;
mod walk;
pub use remote::{Remote, compile as compile_for_engine};
use vectors::LagKey;

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
    /// How the query's words about time were read (auto mode).
    pub time: Option<brain_doc::TimeWindow>,
}

pub use crate::strategy::{FUSION_DEPTH, WALK_DEPTH_PER_HIT};

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
    /// Whether [`Engine::prepare_vectors`] ran.
    prepared: std::sync::Once,
    /// A team engine that answers instead of this home's indexes (`--engine`; docs/team.md).
    remote: Option<Remote>,
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
        let _t = brain_doc::timings::span("engine.open");
        let strategy = Strategy::load(&home.root().join(Strategy::FILE))?;
        Ok(Engine {
            home: home.clone(),
            strategy,
            config: Config::load(home).ok(),
            lex: Ranker::open(home).map_err(|e| Unavailable {
                code: e.code(),
                message: e.to_string(),
                fix: e.fix(),
            }),
            spec,
            vec: OnceLock::new(),
            reranker: OnceLock::new(),
            lag: std::sync::Mutex::new(None),
            prepared: std::sync::Once::new(),
            remote: None,
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
                let dir = crate::rerank::model_dir(&self.home, &self.strategy);
                CrossEncoder::load(&dir, self.strategy.rerank.max_tokens)
                    .map_err(|e| crate::rerank::missing(&dir, e.to_string()))
            })
            .as_ref()
            .map_err(Clone::clone)
    }

    /// A request builder at `now` whose defaults are this engine's strategy: how every front door
    /// that holds an engine starts a search.
    pub fn request<'a>(&self, now: &'a Zoned) -> crate::request::RequestBuilder<'a> {
        SearchRequest::builder(now, &self.strategy)
    }

    /// The brain.yaml read when the engine opened (`None` when it could not be read).
    pub fn config(&self) -> Option<&Config> {
        self.config.as_ref()
    }

    /// The strategy in force.
    pub fn strategy(&self) -> &Strategy {
        &self.strategy
    }

    /// Search with `strategy` from now on (`brain tune`: one engine, its index and model loaded
    /// once, many strategies tried). Nothing a strategy changes is cached by the engine.
    pub fn set_strategy(&mut self, strategy: Strategy) {
        self.strategy = strategy;
    }

    /// The lexical ranker, or why there is none.
    pub fn ranker(&self) -> Result<&Ranker, RunError> {
        self.lex
            .as_ref()
            .map_err(|u| RunError::Unavailable(u.clone()))
    }

    /// Answer `req` at time `now`: plan it ([`crate::plan::plan`]), run its lists, fuse, rerank,
    /// cut to the limit, and give the winners their snippets.
    ///
    /// In auto mode a "quoted phrase" or a -negation is a strong hint, not a requirement: when the
    /// answer is empty because of them, the words are searched without quotes and exclusions, with
    /// a warning.
    pub fn search(&self, req: &SearchRequest, now: &Zoned) -> Result<Answer, RunError> {
        let ans = self.search_strict(req, now)?;
        if ans.hits.is_empty()
            && req.mode == Mode::Auto
            && let Some((relaxed, what)) = relax(req, now)
        {
            let mut again = self.search_strict(&relaxed, now)?;
            if !again.hits.is_empty() {
                again.warnings.insert(
                    0,
                    format!("nothing matched {what}: searched the words without it instead"),
                );
                return Ok(again);
            }
        }
        Ok(ans)
    }

    fn search_strict(&self, req: &SearchRequest, now: &Zoned) -> Result<Answer, RunError> {
        let resolved = self.resolve(req, now)?;
        let req = resolved.as_ref().unwrap_or(req);
        let t_plan = brain_doc::timings::span("plan");
        let plan = plan::plan(
            req,
            now,
            &|| self.vectors_available(),
            &|| self.known(),
            &self.strategy,
        )?;
        drop(t_plan);
        let asked = crate::rerank::as_asked(&self.strategy.rerank, req, &plan);
        let req = &*asked;
        let mut ans = Answer {
            hits: Vec::new(),
            mode: Some(plan.mode),
            plan: plan.describe(),
            warnings: plan.warnings.clone(),
            time: plan.when.as_ref().map(crate::when::When::wire),
        };
        if self.lex.is_ok() && brain_lex::LexIndex::building(&self.home) {
            ans.warnings.push(
                "an index rebuild is under way (or was interrupted): answers come from the previous index until it completes"
                    .into(),
            );
        }
        if plan.mode == Mode::Recent {
            ans.hits = self.walk(&plan, req.limit, now)?;
            ans.warnings
                .extend(walk::empty_window(&plan, &ans.hits, true));
            self.mark_trust(&mut ans.hits);
            return Ok(ans);
        }
        // Vectors alone: nothing to do while the model loads, so an unusable model fails first.
        // Hybrid: the lexical lists run while it loads (run_lists), and its failure comes from there.
        if plan.mode == Mode::Vec && self.remote.is_none() {
            self.vectors().map_err(RunError::Unavailable)?;
        }
        let fusing = plan.lists.len() > 1 || req.rerank;
        let depth = if fusing {
            self.strategy.fusion.depth.max(1).max(req.limit)
        } else {
            req.limit
        };
        let (mut lists, mut hits, mut unreranked) = self.ranked(&plan, req, now, fusing, depth)?;
        // A single list fetched `limit` deep has nothing to fill the places of the documents
        // that repeat a session: fetch once more, as deep as they were many.
        let moved = fusion::repeated_sessions(&hits, self.strategy.per_session).len();
        if !fusing && moved > 0 {
            (lists, hits, unreranked) = self.ranked(&plan, req, now, fusing, depth + 2 * moved)?;
        }
        ans.warnings.extend(unreranked);
        if matches!(plan.mode, Mode::Vec | Mode::Hybrid)
            && self.remote.is_none()
            && let Some(w) = {
                let _t = brain_doc::timings::span("backlog");
                self.vector_lag()
            }
        {
            ans.warnings.push(w);
        }
        self.settle(&mut hits, req, &plan, now, &mut ans.warnings);
        {
            let _t = brain_doc::timings::span("snippets");
            self.fill_snippets(&mut hits, &plan, &lists)?;
        }
        self.mark_trust(&mut hits);
        ans.warnings.extend(walk::empty_window(&plan, &hits, false));
        ans.hits = hits;
        Ok(ans)
    }

    /// The request as the index reads it: project names resolved to the working directories the
    /// index holds, a tier read into its ids (one registry read, only when asked for); `None` when
    /// nothing needed resolving. A collection that does not exist is a typo, not an empty answer
    /// (exit 64, not 67).
    fn resolve(&self, req: &SearchRequest, now: &Zoned) -> Result<Option<SearchRequest>, RunError> {
        // A team engine holds other homes' projects and collections: names go as written.
        if self.remote.is_some() {
            return Ok(None);
        }
        let mut resolved: Option<SearchRequest> = None;
        if !req.filters.projects.is_empty() {
            resolved.get_or_insert_with(|| req.clone()).filters.projects =
                crate::entity::resolve_projects(&req.filters.projects, &self.known().projects);
        }
        if !req.filters.tiers.is_empty() && req.filters.tier_filter.is_none() {
            let f = brain_store::access::tier_filter(
                &self.home,
                &req.filters.tiers,
                now.timestamp().as_second(),
            )
            .map_err(|e| {
                RunError::Unavailable(crate::error::Unavailable {
                    code: brain_doc::ErrorCode::Internal,
                    message: e.to_string(),
                    fix: "brain doctor".into(),
                })
            })?;
            resolved
                .get_or_insert_with(|| req.clone())
                .filters
                .tier_filter = Some(std::sync::Arc::new(f));
        }
        if let Some(config) = &self.config
            && let Err(brain_store::ConfigError::Unknown(name)) =
                config.check_collections(&req.filters.collections)
        {
            return Err(RunError::UnknownCollection {
                name,
                known: config.names(),
            });
        }
        Ok(resolved)
    }

    /// The ranked hits as the answer keeps them: one session spread out, each hit's strength,
    /// `--min-score` applied, cut to `limit` documents, and an answer that holds nothing of a
    /// plain query held back (only a plain query's words say what was asked: sub-queries —
    /// `--hyde`, a query document, expansions — searched for more than its words).
    fn settle(
        &self,
        hits: &mut Vec<Hit>,
        req: &SearchRequest,
        plan: &Plan,
        now: &Zoned,
        warnings: &mut Vec<String>,
    ) {
        fusion::spread_sessions(hits, self.strategy.per_session);
        crate::strength::apply(hits, self.cosine_scale());
        hits.retain(|h| crate::strength::clears(h, req.min_score));
        fusion::truncate_docs(hits, req.limit);
        if req.hold_weak
            && req.lines.is_empty()
            && let Some(w) = crate::strength::hold_back(hits, || self.unknown_words(plan, now))
        {
            warnings.push(w);
        }
    }

    /// The plan's lists run `depth` deep, and their hits fused (or the one list's, normalized),
    /// reranked, and boosted by the named projects and the time window, ties broken.
    fn ranked(
        &self,
        plan: &Plan,
        req: &SearchRequest,
        now: &Zoned,
        fusing: bool,
        depth: usize,
    ) -> Result<(Vec<fusion::HitList>, Vec<Hit>, Option<String>), RunError> {
        let lists = self.run_lists(plan, req, now, fusing, depth)?;
        let mut unreranked = None;
        let _t = brain_doc::timings::span("fusion");
        let mut hits = if lists.len() == 1 && !req.rerank {
            let mut hits = lists.first().map(|l| l.hits.clone()).unwrap_or_default();
            normalize(&mut hits);
            hits
        } else {
            fusion::fuse_hits(&lists, &self.strategy.fusion, req.per_doc)
        };
        if req.rerank {
            // Absent, broken or slower than its budget: the fused order answers, and says so.
            let query = crate::rerank::query_text(&plan.original, req.intent.as_deref());
            let reranked = self
                .reranker()
                .map_err(RunError::Unavailable)
                .and_then(|m| {
                    crate::rerank::rerank(m, &self.strategy.rerank, &query, &lists, hits.clone())
                });
            match reranked {
                Ok(h) => hits = h,
                Err(RunError::Unavailable(u)) => {
                    unreranked = Some(format!(
                        "not reranked: {} (fix: {}); the fused order answers",
                        u.message, u.fix
                    ));
                }
                Err(e) => return Err(e),
            }
        }
        crate::entity::apply(&mut hits, &plan.named, &self.strategy.entity);
        if let Some(w) = &plan.when {
            crate::when::score::apply(&mut hits, w, &self.strategy.time);
        }
        // Memory signals reorder near-ties; a literal query ranks by relevance alone.
        let literal = crate::route::is_literal(&plan.original);
        if !literal {
            // Read per search (a small file of the records ever read): a long-lived server sees a
            // fold at once.
            let rehearsal = brain_store::access::Rehearsal::load(&self.home);
            let role_of = |c: &str| {
                self.config
                    .as_ref()
                    .and_then(|cfg| cfg.collection(c))
                    .map(|c| c.role.clone())
            };
            crate::memory::apply(&mut hits, &self.strategy.memory, &rehearsal, &role_of);
        }
        fusion::break_ties(&mut hits);
        Ok((lists, hits, unreranked))
    }

    /// The words of the plan's lexical query the index has never seen (a short query's only;
    /// none without a lexical list or index).
    fn unknown_words(&self, plan: &Plan, now: &Zoned) -> Vec<String> {
        if self.remote.is_some() {
            return Vec::new();
        }
        let (Ok(r), Some(q)) = (
            self.ranker(),
            plan.lists.iter().find_map(|l| l.query.as_ref()),
        ) else {
            return Vec::new();
        };
        r.searcher()
            .term_weights(&crate::rank::lex_query(q, now.timestamp()))
            .unknown()
    }

    /// Every project of the index (`meta.project` values), sorted.
    pub fn projects(&self) -> Vec<String> {
        self.known().projects
    }

    /// The projects and agents of the lexical index (none without one).
    fn known(&self) -> plan::Known {
        let Ok(r) = self.ranker() else {
            return plan::Known::default();
        };
        // The entities a query may name by an alias: the index's small file (a stat without one).
        let entities = brain_graph::Entities::cached(&self.home);
        plan::Known {
            projects: r.searcher().projects().unwrap_or_default(),
            agents: r.searcher().agents().unwrap_or_default(),
            entities,
        }
    }

    /// Mark the hits of low-trust collections (`trust: low`), which every agent-facing surface
    /// fences.
    fn mark_trust(&self, hits: &mut [Hit]) {
        if let Some(config) = &self.config {
            for h in hits.iter_mut() {
                h.untrusted = config.is_low_trust(&h.collection);
            }
        }
        // A team engine's text was written on other machines, by other people's agents: it
        // reaches an agent fenced, as low-trust text does.
        if self.remote.is_some() {
            for h in hits {
                h.untrusted = true;
            }
        }
    }

    /// Snippets for the hits that came from lexical lists ranked without them: a fused list takes
    /// `FUSION_DEPTH` candidates per list, and snippets (tokenizing every line of a passage) were
    /// 37 % of a warm 40-deep lexical list — only the `limit` winners need one.
    fn fill_snippets(
        &self,
        hits: &mut [Hit],
        plan: &Plan,
        lists: &[fusion::HitList],
    ) -> Result<(), RunError> {
        for h in hits.iter_mut().filter(|h| h.snippet.is_empty()) {
            let found = lists.iter().zip(&plan.lists).find_map(|(l, p)| {
                if !l.unsnipped {
                    return None;
                }
                let j = l
                    .hits
                    .iter()
                    .position(|x| x.uri == h.uri && x.line == h.line)?;
                Some((p.query.as_ref()?, l.texts.get(j)?))
            });
            if let Some((query, body)) = found {
                self.ranker()?.fill_snippet(h, body, query);
            }
        }
        Ok(())
    }

    /// Run every planned list: lexical ones here, vector ones (model load, one embedding call for all
    /// their texts, one scan each) on a scoped thread at the same time. The lists come back in plan
    /// order, one per planned list.
    fn run_lists(
        &self,
        plan: &Plan,
        req: &SearchRequest,
        now: &Zoned,
        fusing: bool,
        depth: usize,
    ) -> Result<Vec<fusion::HitList>, RunError> {
        let vec_plan: Vec<(usize, &str)> = plan
            .lists
            .iter()
            .enumerate()
            .filter(|(_, l)| l.kind.is_vector())
            .map(|(i, l)| (i, l.text.as_str()))
            .collect();
        let lex_lists = || -> Vec<(usize, Result<Vec<(Hit, String)>, RunError>)> {
            plan.lists
                .iter()
                .enumerate()
                .filter_map(|(i, l)| Some((i, l.query.as_ref()?)))
                .map(|(i, q)| {
                    let _t = brain_doc::timings::span("lex.list");
                    (i, self.lex_list(q, &plan.filters, depth, req, now, !fusing))
                })
                .collect()
        };
        let vec_lists = || {
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| match &self.remote {
                Some(r) => self.remote_vectors(r, &vec_plan, &plan.filters, depth, now),
                None => self.vector_lists(&vec_plan, &plan.filters, depth, now),
            }))
            .unwrap_or_else(|_| {
                Err(RunError::Unavailable(Unavailable {
                    code: ErrorCode::Internal,
                    message: "the vector search panicked".into(),
                    fix: String::new(),
                }))
            })
        };
        let (lex_results, vec_results) = if vec_plan.is_empty() {
            (lex_lists(), None)
        } else if matches!(self.vec.get(), Some(Ok(_))) {
            // Warm (model and store open): both sides are CPU work; as tasks of the one pool they
            // share its two workers instead of a third thread preempting the scan's.
            let (lex, vec) = rayon::join(lex_lists, vec_lists);
            (lex, Some(vec))
        } else {
            // Fresh: the vector side blocks on loading the model and the store; the lexical lists
            // and the backlog count run meanwhile on this thread.
            std::thread::scope(|scope| {
                let vec_job = scope.spawn(vec_lists);
                let lex = lex_lists();
                // The embedding backlog (a registry count) while the query is embedded and
                // scanned: waits for the model to open, then runs beside the vector thread's
                // work; the warning later reads the cached answer.
                {
                    let _t = brain_doc::timings::span("backlog");
                    let _ = self.vector_lag();
                }
                let vec = vec_job.join().unwrap_or_else(|_| {
                    Err(RunError::Unavailable(Unavailable {
                        code: ErrorCode::Internal,
                        message: "the vector search thread panicked".into(),
                        fix: String::new(),
                    }))
                });
                (lex, Some(vec))
            })
        };
        let mut lists: Vec<Option<fusion::HitList>> = plan.lists.iter().map(|_| None).collect();
        for (i, r) in lex_results {
            let (hits, texts) = r?.into_iter().unzip();
            let mut list =
                fusion::HitList::new(plan.lists[i].name, plan.lists[i].weight, hits, texts);
            list.share = plan.lists[i].share;
            list.unsnipped = fusing && req.snippets;
            lists[i] = Some(list);
        }
        if let Some(r) = vec_results {
            for (i, hits_texts) in r? {
                let (hits, texts) = hits_texts.into_iter().unzip();
                let l = &plan.lists[i];
                let mut list = fusion::HitList::new(l.kind.name(), l.weight, hits, texts);
                list.share = l.share;
                lists[i] = Some(list);
            }
        }
        Ok(lists.into_iter().flatten().collect())
    }

    /// One lexical list: the sub-query's parse with the plan's filters added. Without `snippets`,
    /// hits carry their passage's first line and no snippet (see [`Engine::fill_snippets`]).
    fn lex_list(
        &self,
        query: &Query,
        filters: &Filters,
        depth: usize,
        req: &SearchRequest,
        now: &Zoned,
        snippets: bool,
    ) -> Result<Vec<(Hit, String)>, RunError> {
        if let Some(r) = &self.remote {
            return self.remote_lex(r, query, filters, depth, now);
        }
        let mut q = query.clone();
        q.filters.merge(filters);
        let opts = RankOptions {
            limit: depth,
            per_doc: req.per_doc,
            boosts: self.strategy.boosts(),
            snippets: req.snippets && snippets,
            pool: self.strategy.pool,
        };
        Ok(self.ranker()?.rank_with_text(&q, &opts, now.timestamp())?)
    }
}

/// `req` with its plain query relaxed ([`crate::query::Plain::relaxed`]: phrases as words, no
/// exclusions), and what was relaxed; `None` when there is nothing to relax.
fn relax(req: &SearchRequest, now: &Zoned) -> Option<(SearchRequest, String)> {
    let (plain, what) = req.plain.as_ref()?.relaxed(now)?;
    let mut relaxed = req.clone();
    relaxed.plain = Some(plain);
    Some((relaxed, what))
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
