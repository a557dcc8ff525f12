//! The team engine behind the [`Engine`] (docs/team.md): with `--engine`, every list of the plan
//! runs in the engine instead of this home's indexes — the lexical list as the engine's BM25, each
//! vector list as its k-NN over vectors this home's own model made — and the rest of the path is
//! the same: brain's routing, fusion, reranking, memory signals and settling, then hit NDJSON.
//!
//! What the engine cannot know stays local: the query is embedded here; `tag:`, `ref:` and tier
//! filters have no field there and are refused (exit 64) rather than ignored.

use std::sync::OnceLock;

use brain_doc::{Classified, ErrorCode, Hit, HitMemory};
use brain_team::TeamError;
use brain_team::mapping::{self, MAPPING_VERSION, Mapping};
use brain_team::query::{self as tq, Found, Hide};
use brain_vec::Embedder;
use jiff::Zoned;
use serde_json::{Map, Value};

use super::Engine;
use crate::Filters;
use crate::error::{RunError, Unavailable};
use crate::query::Query;

/// A team engine: the client, and what is learned once per process.
pub struct Remote {
    engine: brain_team::Engine,
    /// Only documents of these authors (`--own`: this home's author).
    authors: Vec<String>,
    embedder: OnceLock<Result<Box<dyn Embedder>, Unavailable>>,
    /// The index's schema name (its mapping), read once.
    mapping: OnceLock<Result<String, Unavailable>>,
}

impl From<&TeamError> for Unavailable {
    fn from(e: &TeamError) -> Self {
        Unavailable {
            code: e.code(),
            message: e.to_string(),
            fix: e.fix(),
        }
    }
}

fn unavailable(e: TeamError) -> RunError {
    RunError::Unavailable((&e).into())
}

impl Remote {
    /// Search `engine`; `authors` restricts every list to their documents (empty: the team's).
    pub fn new(engine: brain_team::Engine, authors: Vec<String>) -> Remote {
        Remote {
            engine,
            authors,
            embedder: OnceLock::new(),
            mapping: OnceLock::new(),
        }
    }

    /// The engine's URL and index, for messages.
    pub fn describe(&self) -> String {
        format!("{} (index {})", self.engine.url(), self.engine.index())
    }

    /// The index's mapping name; an index that does not exist is exit 65 with the fix.
    fn mapping(&self) -> Result<&str, RunError> {
        self.mapping
            .get_or_init(|| match mapping::read(&self.engine) {
                Ok(Some(name)) if name.starts_with(&format!("brain-{MAPPING_VERSION}-")) => Ok(name),
                Ok(Some(name)) => Err(Unavailable {
                    code: ErrorCode::IndexMissing,
                    message: format!(
                        "the engine's index `{}` is not a brain index of mapping {MAPPING_VERSION} (its schema is `{}`)",
                        self.engine.index(),
                        name.chars().take(120).collect::<String>()
                    ),
                    fix: "point team.index (or --index) at brain's index".into(),
                }),
                Ok(None) => Err(Unavailable {
                    code: ErrorCode::IndexMissing,
                    message: format!(
                        "the team engine at {} has no index `{}`",
                        self.engine.url(),
                        self.engine.index()
                    ),
                    fix: "send the shared collections first: `teamindex --all` (docs/team.md)".into(),
                }),
                Err(e) => Err((&e).into()),
            })
            .as_deref()
            .map_err(|u| RunError::Unavailable(u.clone()))
    }
}

/// How long one request to the engine may take during a search.
pub const QUERY_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30);

impl Remote {
    /// The engine `arg` names (a URL, or a name in brain.yaml's `team.engines`), with the index,
    /// credentials and author of `config`'s team section; `own` keeps this home's author's
    /// documents only.
    pub fn connect(
        config: Option<&brain_store::Config>,
        arg: Option<&str>,
        own: bool,
    ) -> Result<Remote, RunError> {
        let engine =
            brain_team::home::connect(config, arg, None, QUERY_TIMEOUT).map_err(unavailable)?;
        let authors = if own {
            let team = config.and_then(|c| c.team.as_ref());
            vec![brain_team::record::Who::from_env(team.and_then(|t| t.author.as_deref())).author]
        } else {
            Vec::new()
        };
        Ok(Remote::new(engine, authors))
    }
}

impl Engine {
    /// The engine of `home`, answering from the team engine `team` names (a URL or a name in
    /// `team.engines`) when it names one; with `own`, only the documents this home sent.
    pub fn open_team(
        home: &brain_store::Home,
        team: Option<&str>,
        own: bool,
    ) -> Result<Engine, RunError> {
        let engine = Engine::open(home)?;
        match team {
            None => Ok(engine),
            Some(arg) => {
                let remote = Remote::connect(engine.config(), Some(arg), own)?;
                Ok(engine.with_remote(remote))
            }
        }
    }

    /// Answer every search from `remote` instead of this home's indexes.
    pub fn with_remote(mut self, remote: Remote) -> Engine {
        self.remote = Some(remote);
        self
    }

    /// The team engine searched, if any.
    pub fn remote(&self) -> Option<&Remote> {
        self.remote.as_ref()
    }

    /// The embedder of the query vectors (this home's model in force), opened once.
    fn remote_embedder<'a>(&self, r: &'a Remote) -> Result<&'a dyn Embedder, RunError> {
        r.embedder
            .get_or_init(|| match &self.spec {
                Ok(spec) => brain_vec::backend::open(spec).map_err(|e| (&e).into()),
                Err(m) => Err(Unavailable {
                    code: ErrorCode::BadQuery,
                    message: m.clone(),
                    fix: "fix $BRAIN_EMBEDDER".into(),
                }),
            })
            .as_ref()
            .map(AsRef::as_ref)
            .map_err(|u| RunError::Unavailable(u.clone()))
    }

    /// One lexical list from the engine: `query` with the plan's filters, `depth` documents;
    /// with `snippets`, each hit shows the line of its passage that holds the query's words.
    pub(super) fn remote_lex(
        &self,
        r: &Remote,
        query: &Query,
        filters: &Filters,
        depth: usize,
        now: &Zoned,
        snippets: bool,
    ) -> Result<Vec<(Hit, String)>, RunError> {
        r.mapping()?;
        let params = compile(query, filters, &r.authors, depth, now)?;
        let answer = r.engine.select(&params).map_err(unavailable)?;
        let mut merged = query.filters.clone();
        merged.merge(filters);
        let filter = remote_filter(&merged, &r.authors, now)?;
        let found = current(r, tq::found(&answer), &filter)?;
        let mut out = hits(found, "bm25", now, |s| s);
        // The engine's BM25 does not read across queries, nor against this home's: each hit's
        // share of the query's words in its passage (the engine's lexical records are this
        // home's passages), weighted as this home's index weighs them (the `match` signal a
        // local hit carries), puts its strength on the local scale. A member without a local
        // index (who only asks the engine) weighs them by the engine's own statistics.
        let lq = crate::rank::lex_query(query, now.timestamp());
        let empty;
        let weighed = match self.ranker() {
            Ok(ranker) => Some((ranker.searcher(), ranker.searcher().term_weights(&lq))),
            Err(_) => {
                empty = brain_lex::search::Searcher::empty().ok();
                empty.as_ref().map(|s| (s, engine_weights(r, s, &lq)))
            }
        };
        let Some((searcher, weights)) = weighed else {
            return Ok(out);
        };
        for (h, body) in &mut out {
            if !weights.is_empty() {
                let held = searcher.coverage(&weights, &h.title, body);
                h.signals.insert(
                    crate::strength::MATCH.into(),
                    Value::from((held * 10_000.0).round() / 10_000.0),
                );
            }
            // The passage's line that holds the query's words, as a local hit shows it.
            if snippets {
                let s = searcher.snippet_of(body, h.line, &lq);
                if !s.text.is_empty() {
                    h.line = s.line;
                    h.snippet = s.text;
                }
            }
        }
        Ok(out)
    }

    /// The vector lists of `plan` from the engine: each text embedded here (one call), each
    /// searched by the engine's k-NN within the filters.
    #[allow(clippy::type_complexity)]
    pub(super) fn remote_vectors(
        &self,
        r: &Remote,
        plan: &[(usize, &str)],
        filters: &Filters,
        depth: usize,
        now: &Zoned,
    ) -> Result<Vec<(usize, Vec<(Hit, String)>)>, RunError> {
        let name = r.mapping()?.to_string();
        let embedder = self.remote_embedder(r)?;
        let mine = Mapping::new(&embedder.model_id(), embedder.dims()).name();
        if name != mine {
            return Err(unavailable(TeamError::Mapping(format!(
                "the engine's index `{}` holds vectors of `{name}`, and this home's model makes `{mine}`",
                r.engine.index()
            ))));
        }
        let texts: Vec<&str> = plan.iter().map(|(_, t)| *t).collect();
        let vectors = embedder
            .embed_queries(&texts)
            .map_err(|e| RunError::Unavailable((&e).into()))?;
        let filter = remote_filter(filters, &r.authors, now)?;
        let mut out = Vec::new();
        for ((i, _), v) in plan.iter().zip(vectors) {
            let answer = r
                .engine
                .select(&tq::vector(&v, &filter, depth))
                .map_err(unavailable)?;
            let found = current(r, tq::found(&answer), &filter)?;
            // The engine scores cosine similarity as (1 + cos) / 2; brain's signals carry the cosine.
            out.push((*i, hits(found, "vec", now, |s| 2.0 * s - 1.0)));
        }
        Ok(out)
    }

    /// The newest documents within `filters` (the recency walk), from the engine.
    pub(super) fn remote_latest(
        &self,
        r: &Remote,
        filters: &Filters,
        limit: usize,
        now: &Zoned,
    ) -> Result<Vec<Hit>, RunError> {
        r.mapping()?;
        let filter = remote_filter(filters, &r.authors, now)?;
        let answer = r
            .engine
            .select(&tq::recent(&filter, limit))
            .map_err(unavailable)?;
        Ok(hits(tq::found(&answer), "recent", now, |s| s)
            .into_iter()
            .map(|(h, _)| h)
            .collect())
    }
}

/// The engine's parameters of the lexical list of `query` within `filters` (and `authors`'
/// documents, when any are named), `depth` documents deep.
pub fn compile(
    query: &Query,
    filters: &Filters,
    authors: &[String],
    depth: usize,
    now: &Zoned,
) -> Result<Vec<(String, String)>, RunError> {
    let mut q = query.clone();
    q.filters.merge(filters);
    let search = tq::Search {
        words: q.terms.clone(),
        phrases: q.phrases.clone(),
        exclude: q.exclude.clone(),
        filter: remote_filter(&q.filters, authors, now)?,
    };
    Ok(tq::lexical(&search, depth))
}

/// `found` without the records a later active record of the same `key` supersedes (seed 002:
/// the newest record of a subject is the current one) — one request for the keys of the page;
/// everything when the lifecycle hides nothing (`--include-superseded`).
fn current(r: &Remote, found: Vec<Found>, filter: &tq::Filter) -> Result<Vec<Found>, RunError> {
    let Some(hide) = filter.hide else {
        return Ok(found);
    };
    let mut keys: Vec<String> = found.iter().filter_map(|f| f.key.clone()).collect();
    keys.sort();
    keys.dedup();
    if keys.is_empty() {
        return Ok(found);
    }
    let answer = r
        .engine
        .select(&tq::newest_of_keys(&keys, hide))
        .map_err(unavailable)?;
    let newest = tq::newest(&answer);
    Ok(found
        .into_iter()
        .filter(|f| {
            let (Some(key), Some(date)) = (&f.key, &f.date) else {
                return true;
            };
            match newest.get(key) {
                Some((id, newer)) => id == &f.doc_id || newer <= date,
                None => true,
            }
        })
        .collect())
}

/// brain's filters as the engine's; those it has no field for are refused.
fn remote_filter(f: &Filters, authors: &[String], now: &Zoned) -> Result<tq::Filter, RunError> {
    let refuse = |what: &str| {
        Err(RunError::BadInput(format!(
            "{what} filters are not available against a team engine (docs/team.md)"
        )))
    };
    if !f.tags.is_empty() {
        return refuse("tag:");
    }
    if !f.refs.is_empty() {
        return refuse("ref:");
    }
    if !f.tiers.is_empty() || f.tier_filter.is_some() {
        return refuse("tier");
    }
    let at = f.as_of.unwrap_or_else(|| now.timestamp()).as_second();
    Ok(tq::Filter {
        collections: f.collections.clone(),
        projects: f.projects.clone(),
        agents: f.agents.clone(),
        types: f.types.clone(),
        authors: authors.to_vec(),
        since: f.since.map(|t| t.as_second()),
        until: f.until.map(|t| t.as_second()),
        hide: (!f.include_superseded).then_some(Hide {
            at,
            as_of: f.as_of.is_some(),
        }),
        guaranteed: f.guaranteed.clone(),
    })
}

/// The engine's passages as hits, ranked in the engine's order; `signal` names the score.
/// The weights of `lq`'s words by the engine's statistics (its lexical passages, and those
/// holding each term): one request. When it fails, every word weighs the same (`searcher` is an
/// empty index), as the list itself was answered.
fn engine_weights(
    r: &Remote,
    searcher: &brain_lex::search::Searcher,
    lq: &brain_lex::search::LexQuery,
) -> brain_lex::search::TermWeights {
    let terms = searcher.query_terms(lq);
    match r.engine.select(&tq::term_counts(&terms)) {
        Ok(answer) => {
            let (n, df) = tq::counted(&answer, &terms);
            let df = |t: &str| {
                terms
                    .iter()
                    .position(|x| x == t)
                    .and_then(|i| df.get(i).copied())
                    .unwrap_or(0)
            };
            searcher.term_weights_by(lq, n, &df)
        }
        Err(_) => searcher.term_weights(lq),
    }
}

fn hits(
    found: Vec<Found>,
    signal: &str,
    now: &Zoned,
    score: impl Fn(f64) -> f64,
) -> Vec<(Hit, String)> {
    let tz = now.time_zone().clone();
    found
        .into_iter()
        .enumerate()
        .map(|(rank, f)| {
            let s = score(f.score);
            let mut signals = Map::new();
            signals.insert(
                signal.into(),
                Value::from((s * 10_000.0).round() / 10_000.0),
            );
            for (k, v) in [("author", &f.author), ("machine", &f.machine)] {
                if let Some(v) = v {
                    signals.insert(k.into(), Value::from(v.clone()));
                }
            }
            let date = f
                .date
                .as_deref()
                .and_then(|d| d.parse::<jiff::Timestamp>().ok());
            let memory = memory(&f);
            let hit = Hit {
                schema: brain_doc::SCHEMA,
                kind: "hit".into(),
                rank: rank as u32 + 1,
                score: s,
                strength: None,
                uri: format!("brain://{}", f.doc_id),
                docid: brain_doc::docid(&f.doc_id),
                collection: f.collection.clone(),
                path: f.path.clone(),
                file: None,
                title: f.title.clone(),
                date: date.map(|d| d.to_string()).unwrap_or_default(),
                age_days: date.map_or(0, |d| crate::rank::age_days(d, now.timestamp(), &tz)),
                started: date.map(|d| d.to_string()),
                ended: None,
                session_id: None,
                project: f.project.clone(),
                agent: f.agent.clone(),
                line: f.line,
                snippet: brain_vec::search::snippet(&f.body),
                signals,
                untrusted: false,
                memory,
                anchor: None,
                link: None,
            };
            (hit, f.body)
        })
        .collect()
}

/// The memory fields of a passage, when it has any.
fn memory(f: &Found) -> Option<HitMemory> {
    let any = f.kind.is_some()
        || f.importance.is_some()
        || f.key.is_some()
        || f.pinned == Some(true)
        || f.expires.is_some();
    any.then(|| HitMemory {
        kind: f.kind.clone(),
        importance: f
            .importance
            .unwrap_or(brain_doc::memory::DEFAULT_IMPORTANCE),
        confidence: f.confidence.unwrap_or(1.0),
        pinned: f.pinned.unwrap_or(false),
        key: f.key.clone(),
        occurred_at: f.occurred.clone(),
        expires_at: f.expires.clone(),
        state: f.status.clone().unwrap_or_else(|| "active".into()),
        superseded_by: None,
    })
}
