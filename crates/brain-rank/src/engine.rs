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

use std::borrow::Cow;
use std::sync::OnceLock;

use brain_doc::{Classified, Hit};
use brain_store::{Config, Home};
use brain_vec::EmbedderSpec;
use brain_vec::cross::CrossEncoder;
use brain_vec::search::VecSearch;
use jiff::Zoned;

use crate::dedup::Collapse;
use crate::error::{RunError, Unavailable};
use crate::fusion;
use crate::plan::tries::{self, Short, Try};
use crate::plan::{self, Plan};
use crate::rank::Ranker;
use crate::request::SearchRequest;
use crate::route::Mode;
use crate::strategy::Strategy;

mod lists;
mod remote;
mod settle;
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

/// A request resolved against the home and planned: what every try of it runs.
struct Planned<'r> {
    req: Cow<'r, SearchRequest>,
    plan: Plan,
}

/// How deep one attempt searches: the documents it settles to, and the places it fetches beyond
/// them (a session refill's).
#[derive(Debug, Clone, Copy)]
struct Depth {
    limit: usize,
    extra: usize,
}

impl Depth {
    fn of(limit: usize) -> Depth {
        Depth { limit, extra: 0 }
    }
}

/// What one try answered, and how it came up short.
struct Attempt {
    answer: Answer,
    short: Short,
    /// Near-duplicates collapsed.
    dropped: usize,
}

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
    /// The last query texts embedded and their vectors: a search's later tries (a deeper refill,
    /// relaxed words) and a session's repeated question embed nothing again.
    embedded: std::sync::Mutex<Option<(Vec<String>, Vec<Vec<f32>>)>>,
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
            embedded: std::sync::Mutex::new(None),
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
                let _t = brain_doc::timings::span("rerank.load");
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

    /// Answer `req` at time `now`. The planner lists the tries once ([`tries::tries`]: the request
    /// as asked, a deeper refill when repeated sessions or collapsed near-duplicates emptied
    /// places, the relaxed words when nothing matched); this one loop runs each that the attempt
    /// before it calls for, and the last attempt run answers. An attempt plans its request
    /// ([`crate::plan::plan`]), runs its lists, fuses, reranks, settles the hits to the limit and
    /// collapses near-duplicates when asked.
    ///
    /// In auto mode a "quoted phrase" or a -negation is a strong hint, not a requirement: when the
    /// answer is empty because of them, the words are searched without quotes and exclusions, with
    /// a warning.
    pub fn search(&self, req: &SearchRequest, now: &Zoned) -> Result<Answer, RunError> {
        let tries = tries::tries(req);
        let mut planned: Option<Planned<'_>> = None;
        let mut best: Option<Attempt> = None;
        let mut relaxed: Option<String> = None;
        let mut short = Short::No;
        let mut depth = Depth::of(req.limit);
        for (i, &t) in tries.iter().enumerate() {
            let found = best.as_ref().is_some_and(|a| !a.answer.hits.is_empty());
            if !t.runs_after(short, found) {
                continue;
            }
            let mut what = None;
            match t {
                Try::Asked => planned = Some(self.prepare(Cow::Borrowed(req), now)?),
                Try::Relaxed => {
                    let Some((r, w)) = relax(req, now) else { break };
                    planned = Some(self.prepare(Cow::Owned(r), now)?);
                    depth = Depth::of(req.limit);
                    what = Some(w);
                }
                Try::Sessions => {
                    if let Short::Sessions(moved) = short {
                        depth.extra += 2 * moved;
                    }
                }
                Try::Duplicates => depth = Depth::of(tries::deeper_limit(req.limit)),
            }
            let Some(p) = &planned else { break };
            let refill = tries.get(i + 1) == Some(&Try::Sessions);
            let attempt = self.attempt(p, depth, req.limit, refill, now)?;
            short = attempt.short;
            // A relaxed search that found nothing leaves the answer as asked.
            if t == Try::Relaxed && attempt.answer.hits.is_empty() {
                break;
            }
            if what.is_some() {
                relaxed = what;
            }
            best = Some(attempt);
        }
        let Some(Attempt {
            mut answer,
            dropped,
            ..
        }) = best
        else {
            return Ok(Answer::default());
        };
        if let Some(what) = relaxed {
            answer.warnings.insert(
                0,
                format!("nothing matched {what}: searched the words without it instead"),
            );
        }
        if req.collapse == Collapse::Said && !self.has_stored_vectors() {
            answer.warnings.push(crate::dedup::WORDS_ONLY.to_string());
        }
        if dropped > 0 {
            answer.warnings.push(format!(
                "{dropped} near-duplicate hit(s) collapsed into the one above them"
            ));
        }
        Ok(answer)
    }

    /// `req` resolved against the home ([`Engine::resolve`]), planned, and with the reranker on
    /// when the strategy reranks what the plan reads as conceptual.
    fn prepare<'r>(
        &self,
        req: Cow<'r, SearchRequest>,
        now: &Zoned,
    ) -> Result<Planned<'r>, RunError> {
        let req = match self.resolve(&req, now)? {
            Some(resolved) => Cow::Owned(resolved),
            None => req,
        };
        let t_plan = brain_doc::timings::span("plan");
        let plan = plan::plan(
            &req,
            now,
            &|| self.vectors_available(),
            &|| self.known(),
            &self.strategy,
        )?;
        drop(t_plan);
        let req = match crate::rerank::as_asked(&self.strategy.rerank, &req, &plan) {
            Cow::Owned(reranked) => Cow::Owned(reranked),
            Cow::Borrowed(_) => req,
        };
        Ok(Planned { req, plan })
    }

    /// One search of the loop: the planned request run `depth` deep, its hits settled to
    /// `depth.limit` documents and, when the request collapses near-duplicates, cut to `want`.
    /// With `refill`, a single list that lost places to repeated sessions stops before settling
    /// ([`Short::Sessions`]: the next try runs deeper).
    fn attempt(
        &self,
        p: &Planned<'_>,
        depth: Depth,
        want: usize,
        refill: bool,
        now: &Zoned,
    ) -> Result<Attempt, RunError> {
        let (req, plan) = (&*p.req, &p.plan);
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
        let mut hits = if plan.mode == Mode::Recent {
            let hits = self.walk(plan, depth.limit, now)?;
            ans.warnings.extend(walk::empty_window(plan, &hits, true));
            hits
        } else {
            match self.ranked_and_settled(p, depth, refill, now, &mut ans.warnings)? {
                Ok(hits) => hits,
                Err(moved) => {
                    return Ok(Attempt {
                        answer: ans,
                        short: Short::Sessions(moved),
                        dropped: 0,
                    });
                }
            }
        };
        self.mark_trust(&mut hits);
        let (mut short, mut dropped) = (Short::No, 0);
        if req.collapse != Collapse::Off {
            let full = settle::distinct_docs(&hits) >= want;
            (hits, dropped) = self.collapse(hits, want);
            if dropped > 0 && full {
                short = Short::Duplicates;
            }
        }
        ans.hits = hits;
        Ok(Attempt {
            answer: ans,
            short,
            dropped,
        })
    }

    /// The plan's lists run, fused, reranked and settled to `depth.limit` documents, with their
    /// snippets; or, with `refill`, how many places a single list lost to repeated sessions.
    fn ranked_and_settled(
        &self,
        p: &Planned<'_>,
        depth: Depth,
        refill: bool,
        now: &Zoned,
        warnings: &mut Vec<String>,
    ) -> Result<Result<Vec<Hit>, usize>, RunError> {
        let (req, plan) = (&*p.req, &p.plan);
        // Vectors alone: nothing to do while the model loads, so an unusable model fails first.
        // Hybrid: the lexical lists run while it loads (run_lists), and its failure comes from there.
        if plan.mode == Mode::Vec && self.remote.is_none() {
            self.vectors().map_err(RunError::Unavailable)?;
        }
        let fusing = plan.lists.len() > 1 || req.rerank;
        let base = if fusing {
            self.strategy.fusion.depth.max(1).max(depth.limit)
        } else {
            depth.limit
        };
        let (lists, mut hits, unreranked) =
            self.ranked(plan, req, now, fusing, base + depth.extra)?;
        // A single list fetched `limit` deep has nothing to fill the places of the documents
        // that repeat a session: the next try fetches once more, as deep as they were many.
        let moved = fusion::repeated_sessions(&hits, self.strategy.per_session).len();
        if !fusing && moved > 0 && refill {
            return Ok(Err(moved));
        }
        warnings.extend(unreranked);
        if matches!(plan.mode, Mode::Vec | Mode::Hybrid)
            && self.remote.is_none()
            && let Some(w) = {
                let _t = brain_doc::timings::span("backlog");
                self.vector_lag()
            }
        {
            warnings.push(w);
        }
        self.settle(&mut hits, req, depth.limit, plan, now, warnings);
        {
            let _t = brain_doc::timings::span("snippets");
            self.fill_snippets(&mut hits, plan, &lists)?;
        }
        warnings.extend(walk::empty_window(plan, &hits, false));
        Ok(Ok(hits))
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
                crate::entity::resolve_projects(
                    &req.filters.projects,
                    &self.known().projects,
                    &self.merged_projects(),
                );
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

    /// Every project of the index (`meta.project` values), sorted.
    pub fn projects(&self) -> Vec<String> {
        self.known().projects
    }

    /// The projects the user merged or renamed (brain.yaml's `projects: merge:`, from → into);
    /// none when the section does not check (doctor's `config` check names why).
    pub fn merged_projects(&self) -> Vec<(String, String)> {
        self.config
            .as_ref()
            .and_then(|c| c.projects.as_ref())
            .filter(|p| p.check().is_ok())
            .map(brain_store::ProjectsSection::pairs)
            .unwrap_or_default()
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
}

/// `req` with its plain query relaxed ([`crate::query::Plain::relaxed`]: phrases as words, no
/// exclusions), and what was relaxed; `None` when there is nothing to relax.
fn relax(req: &SearchRequest, now: &Zoned) -> Option<(SearchRequest, String)> {
    let (plain, what) = req.plain.as_ref()?.relaxed(now)?;
    let mut relaxed = req.clone();
    relaxed.plain = Some(plain);
    Some((relaxed, what))
}
