//! One evaluation run: a home (temporary, or `--home DIR` kept between runs), the set indexed as
//! collection `eval` — lexically, and embedded when the mode needs vectors — every judged query
//! ranked in process through the same [`Engine`] `brain ask` uses, metrics averaged over the queries.
//!
//! A kept home makes re-runs cheap: the lexical index is rebuilt only when the corpus changed
//! (its sha256 is stored beside it), and embedding is incremental by content hash, so a second
//! `--mode hybrid` run embeds nothing.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use brain_doc::{Doc, ErrorCode, Source};
use brain_lex::{Indexer, SyncError};
use brain_rank::Engine;
use brain_rank::RunError;
use brain_rank::route::Mode;
use brain_rank::{RankError, Strategy};
use brain_store::Home;
use brain_store::{Collection, Config, ConfigError, Trust};
use brain_vec::{EmbedderSpec, VecError};

use crate::beir::{self, BeirError};
use crate::metrics::{hit_at, mrr_at, ndcg_at, percentile, recall_at};
pub use crate::report::{ClassScore, Latency, QueryOutcome, Report};

/// Name of the collection the set is indexed into.
pub const COLLECTION: &str = "eval";
/// Date given to every corpus document (BEIR documents have none; a fixed date keeps runs identical).
const FIXED_DATE: &str = "2020-01-01T00:00:00Z";
/// Depth of each ranking: enough for Recall@100.
const DEPTH: usize = 100;

/// Why an evaluation failed.
#[derive(Debug, thiserror::Error)]
pub enum EvalError {
    #[error(transparent)]
    Beir(#[from] BeirError),
    #[error(transparent)]
    Index(#[from] SyncError),
    #[error(transparent)]
    Rank(#[from] RankError),
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error("temporary home: {0}")]
    Io(#[from] std::io::Error),
    #[error(transparent)]
    Lex(#[from] brain_lex::LexError),
    #[error(transparent)]
    Run(#[from] RunError),
    #[error(transparent)]
    Vec(#[from] VecError),
    #[error(transparent)]
    Team(#[from] brain_team::TeamError),
    #[error("{0}")]
    BadInput(String),
}

impl brain_doc::Classified for EvalError {
    /// The exit-code class: an unreadable set is bad input (64), a lock 70, the rest internal.
    fn code(&self) -> ErrorCode {
        match self {
            EvalError::Beir(_) | EvalError::BadInput(_) => ErrorCode::BadQuery,
            EvalError::Index(e) => e.code(),
            EvalError::Rank(e) => e.code(),
            EvalError::Run(e) => e.code(),
            EvalError::Vec(e) => e.code(),
            EvalError::Team(e) => e.code(),
            EvalError::Config(e) => e.code(),
            EvalError::Lex(e) => e.code(),
            EvalError::Io(_) => ErrorCode::Internal,
        }
    }

    /// The fix of the error inside (a reranker or model to install, a lock to wait for, …).
    fn fix(&self) -> String {
        match self {
            EvalError::Index(e) => e.fix(),
            EvalError::Rank(e) => e.fix(),
            EvalError::Run(e) => e.fix(),
            EvalError::Vec(e) => e.fix(),
            EvalError::Team(e) => e.fix(),
            EvalError::Config(e) => e.fix(),
            EvalError::Lex(e) => e.fix(),
            EvalError::Beir(_) | EvalError::BadInput(_) | EvalError::Io(_) => String::new(),
        }
    }
}

/// What to run.
#[derive(Debug, Clone)]
pub struct EvalOptions {
    /// The BEIR folder.
    pub dir: PathBuf,
    /// The qrels split.
    pub split: String,
    /// Evaluate only the first N judged queries.
    pub max_queries: Option<usize>,
    /// lex, vec, hybrid, or auto (the routing of `brain ask`: with vectors when the embedder is
    /// there).
    pub mode: Mode,
    /// A search_strategy.yaml to evaluate instead of the defaults.
    pub strategy: Option<PathBuf>,
    /// Report each query's outcome ([`Report::per_query`]).
    pub per_query: bool,
    /// Keep the evaluation home here (indexes reused across runs) instead of a temporary folder.
    pub home: Option<PathBuf>,
    /// The embedder, for vec and hybrid ([default: `$BRAIN_EMBEDDER`, else the home's model,
    /// else `$BRAIN_HOME`'s]).
    pub embedder: Option<EmbedderSpec>,
    /// A team engine's URL: the set is sent there by the `teamindex` sink (into an index named
    /// after the corpus) and every query answered through it (docs/team.md).
    pub engine: Option<String>,
    /// Rescore each query's top candidates with the cross-encoder (`--rerank`).
    pub rerank: bool,
}

/// A set's corpus indexed in a home with an engine open on it: what `brain eval` scores once and
/// `brain tune` scores again and again (one index, one model, many strategies).
pub struct Bench {
    pub engine: Engine,
    pub mode: Mode,
    /// Whether vectors are searched.
    pub vectors: bool,
    pub passages: u64,
    pub index_ms: u64,
    pub embedded: usize,
    pub embed_ms: u64,
    /// The engine and index searched, when a team engine answers.
    pub remote: Option<String>,
    /// Whether each query is reranked (`--rerank`).
    pub rerank: bool,
    /// Queries answered in fused order though reranking was asked (over the budget).
    pub not_reranked: std::sync::atomic::AtomicUsize,
    now: jiff::Zoned,
    _tmp: Option<tempfile::TempDir>,
}

impl Bench {
    /// Index `corpus` (the set in `dir`) into `home` (a temporary folder when `None`), embed it when
    /// `mode` needs vectors, and open the engine with `strategy` (a file) or the defaults.
    pub fn open(
        dir: &Path,
        corpus: &[beir::CorpusDoc],
        home: Option<&Path>,
        mode: Mode,
        strategy: Option<&Path>,
        embedder: Option<&EmbedderSpec>,
        progress: &dyn Fn(usize, usize),
    ) -> Result<Bench, EvalError> {
        if mode == Mode::Recent {
            return Err(EvalError::BadInput(
                "evaluate --mode lex, vec, hybrid or auto".into(),
            ));
        }
        let mut tmp = None;
        let root = match home {
            Some(h) => {
                std::fs::create_dir_all(h)?;
                h.to_path_buf()
            }
            None => {
                let t = tempfile::Builder::new().prefix("brain-eval-").tempdir()?;
                let p = t.path().to_path_buf();
                tmp = Some(t);
                p
            }
        };
        let home = Home::at(&root);
        match strategy {
            Some(p) => {
                Strategy::load(p).map_err(|e| EvalError::BadInput(e.to_string()))?;
                std::fs::copy(p, root.join(Strategy::FILE))?;
            }
            None => {
                let _ = std::fs::remove_file(root.join(Strategy::FILE));
            }
        }
        let started = Instant::now();
        let passages = index_lexically(&home, dir, corpus)?;
        let index_ms = started.elapsed().as_millis() as u64;
        let spec = match embedder {
            Some(s) => s.clone(),
            None => EmbedderSpec::from_env(&home.models())?,
        };
        // Auto routes to hybrid where vectors exist: it is evaluated as `brain ask` runs with this
        // embedder — with vectors when the model is there, lexically when it is not.
        let vectors = match mode {
            Mode::Lex => false,
            Mode::Auto => spec.present(),
            _ => true,
        };
        let (mut embedded, mut embed_ms) = (0, 0);
        if vectors {
            let t = Instant::now();
            embedded = embed(&home, &spec, corpus, progress)?;
            embed_ms = t.elapsed().as_millis() as u64;
        }
        let engine = Engine::open_with(&home, spec)?;
        if vectors && engine.remote().is_none() {
            engine.vectors().map_err(RunError::Unavailable)?;
            // Many queries in one process, as in a warm MCP session: queries take the int8 kernel
            // where the CPU has it (what `brain eval` scores is what a long-lived surface serves).
            engine.prepare_vectors();
        }
        Ok(Bench {
            engine,
            mode,
            vectors,
            passages,
            index_ms,
            embedded,
            embed_ms,
            remote: None,
            rerank: false,
            not_reranked: std::sync::atomic::AtomicUsize::new(0),
            // `$BRAIN_NOW` fixes "now" for a set whose questions say "last week".
            now: brain_rank::clock::now(),
            _tmp: tmp,
        })
    }

    /// The corpus ids of the best [`DEPTH`] documents for `text`, and the hits themselves.
    pub fn rank(&self, text: &str, depth: usize) -> Result<Vec<brain_doc::Hit>, EvalError> {
        let req = self
            .engine
            .request(&self.now)
            .plain(&words_only(text))
            .map(|b| {
                b.limit(depth, 1)
                    .mode(self.mode)
                    .rerank(self.rerank)
                    .snippets(false)
                    .build()
            });
        match req.and_then(|req| self.engine.search(&req, &self.now)) {
            Ok(a) => {
                if a.warnings.iter().any(|w| w.starts_with("not reranked")) {
                    self.not_reranked
                        .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                }
                Ok(a.hits)
            }
            // A query with nothing searchable (only stop words) ranks nothing.
            Err(RunError::Query(_)) => Ok(Vec::new()),
            Err(e) => Err(e.into()),
        }
    }
}

/// A hit's corpus id (`4983.md` → `4983`).
pub fn hit_id(h: &brain_doc::Hit) -> String {
    corpus_id(&h.path)
}

/// Index the set in `opts.dir` and score every judged query; `progress(done, total)` follows the
/// embedding of documents.
pub fn evaluate(opts: &EvalOptions, progress: &dyn Fn(usize, usize)) -> Result<Report, EvalError> {
    let set = beir::load(&opts.dir, &opts.split)?;
    let bench = open_bench(opts, &set.corpus, progress)?;
    let n = opts
        .max_queries
        .unwrap_or(usize::MAX)
        .min(set.queries.len());
    let mut all = Sums::default();
    let mut by_class: BTreeMap<String, Sums> = BTreeMap::new();
    let mut times = Vec::with_capacity(n);
    let mut per_query = Vec::new();
    for q in &set.queries[..n] {
        let rels = set.qrels.get(&q.id).cloned().unwrap_or_default();
        let t = Instant::now();
        let hits = bench.rank(&q.text, DEPTH)?;
        times.push(t.elapsed().as_secs_f64() * 1000.0);
        let ranked: Vec<String> = hits.iter().map(hit_id).collect();
        let s = Scores::of(&ranked, &rels);
        all.add(&s);
        if opts.per_query {
            per_query.push(QueryOutcome {
                id: q.id.clone(),
                class: q.metadata.class.clone(),
                first_relevant: ranked
                    .iter()
                    .take(DEPTH)
                    .position(|d| rels.get(d).is_some_and(|g| *g > 0))
                    .map_or(0, |i| i + 1),
                mrr_at_10: round(s.mrr10),
                text: q.text.clone(),
            });
        }
        if let Some(class) = &q.metadata.class {
            by_class.entry(class.clone()).or_default().add(&s);
        }
    }
    times.sort_by(f64::total_cmp);
    let avg = all.average();
    Ok(Report {
        schema: brain_doc::SCHEMA,
        kind: "eval".into(),
        dataset: dataset_name(&opts.dir),
        split: opts.split.clone(),
        docs: set.corpus.len(),
        passages: bench.passages,
        queries: n,
        ndcg_at_10: avg.ndcg10,
        mrr_at_10: avg.mrr10,
        recall_at_5: avg.r5,
        hit_at_5: avg.h5,
        recall_at_10: avg.r10,
        recall_at_100: avg.r100,
        index_ms: bench.index_ms,
        mode: opts.mode.name().into(),
        vectors: bench.vectors,
        embedded: bench.embedded,
        embed_ms: bench.embed_ms,
        per_query,
        classes: by_class
            .into_iter()
            .map(|(class, sums)| (class, sums.class_score()))
            .collect(),
        latency_ms: Latency {
            p50: round(percentile(&times, 50.0)),
            p95: round(percentile(&times, 95.0)),
            p99: round(percentile(&times, 99.0)),
            max: round(times.last().copied().unwrap_or(0.0)),
        },
        engine: bench.remote.clone(),
        reranked: bench.rerank,
        not_reranked: bench
            .not_reranked
            .load(std::sync::atomic::Ordering::Relaxed),
    })
}

/// The set's corpus indexed (and embedded) in the home `opts` names, or sent to its team engine.
fn open_bench(
    opts: &EvalOptions,
    corpus: &[beir::CorpusDoc],
    progress: &dyn Fn(usize, usize),
) -> Result<Bench, EvalError> {
    let mut bench = Bench::open(
        &opts.dir,
        corpus,
        opts.home.as_deref(),
        if opts.engine.is_some() {
            Mode::Lex
        } else {
            opts.mode
        },
        opts.strategy.as_deref(),
        opts.embedder.as_ref(),
        progress,
    )?;
    if let Some(url) = &opts.engine {
        let spec = match &opts.embedder {
            Some(s) => s.clone(),
            None => EmbedderSpec::from_env(&bench.engine.home().models())?,
        };
        bench = bench.through_engine(url, corpus, &spec, progress)?;
        bench.mode = opts.mode;
        bench.vectors = opts.mode != Mode::Lex;
    }
    bench.rerank = opts.rerank;
    // A reranker that is not there fails the run (65, with its fix): scores of the fused order
    // must not pass for reranked ones.
    if opts.rerank && bench.remote.is_none() {
        bench.engine.reranker().map_err(RunError::Unavailable)?;
    }
    Ok(bench)
}

/// One query's scores, or (in [`Sums`]) their sum over many.
#[derive(Debug, Clone, Copy, Default)]
struct Scores {
    ndcg10: f64,
    mrr10: f64,
    r5: f64,
    h5: f64,
    r10: f64,
    r100: f64,
}

impl Scores {
    fn of(ranked: &[String], rels: &std::collections::HashMap<String, u32>) -> Scores {
        Scores {
            ndcg10: ndcg_at(ranked, rels, 10),
            mrr10: mrr_at(ranked, rels, 10),
            r5: recall_at(ranked, rels, 5),
            h5: hit_at(ranked, rels, 5),
            r10: recall_at(ranked, rels, 10),
            r100: recall_at(ranked, rels, 100),
        }
    }
}

/// The scores of some queries, summed, and how many.
#[derive(Debug, Default)]
struct Sums {
    queries: usize,
    sum: Scores,
}

impl Sums {
    fn add(&mut self, s: &Scores) {
        self.queries += 1;
        let t = &mut self.sum;
        t.ndcg10 += s.ndcg10;
        t.mrr10 += s.mrr10;
        t.r5 += s.r5;
        t.h5 += s.h5;
        t.r10 += s.r10;
        t.r100 += s.r100;
    }

    /// The averages, four decimals (0 for no query).
    fn average(&self) -> Scores {
        let k = self.queries.max(1) as f64;
        let t = &self.sum;
        Scores {
            ndcg10: round(t.ndcg10 / k),
            mrr10: round(t.mrr10 / k),
            r5: round(t.r5 / k),
            h5: round(t.h5 / k),
            r10: round(t.r10 / k),
            r100: round(t.r100 / k),
        }
    }

    fn class_score(&self) -> ClassScore {
        let a = self.average();
        ClassScore {
            queries: self.queries,
            ndcg_at_10: a.ndcg10,
            mrr_at_10: a.mrr10,
            recall_at_5: a.r5,
            hit_at_5: a.h5,
        }
    }
}

/// The corpus fingerprint stored beside a kept home's index.
pub(crate) const CORPUS_SHA: &str = "eval-corpus.sha256";

/// Index the corpus lexically unless the home already holds exactly it; the number of passages.
fn index_lexically(
    home: &Home,
    dir: &Path,
    corpus_docs: &[beir::CorpusDoc],
) -> Result<u64, EvalError> {
    let corpus = dir.join("corpus.jsonl");
    let sha = brain_doc::sha256_hex(&std::fs::read(&corpus)?);
    let mark = home.root().join(CORPUS_SHA);
    if std::fs::read_to_string(&mark).is_ok_and(|s| s.trim() == sha)
        && let Ok(lex) = brain_lex::LexIndex::open(home)
    {
        return Ok(lex.reader()?.searcher().num_docs());
    }
    let mut config = Config::load(home)?;
    if config.collection(COLLECTION).is_none() {
        config.add_collection(Collection {
            name: COLLECTION.into(),
            path: format!("corpus/{COLLECTION}"),
            glob: "**/*.md".into(),
            role: "eval".into(),
            trust: Trust::High,
            follow_links: false,
        })?;
        config.save()?;
    }
    let mut indexer = Indexer::open(home, true)?;
    for d in corpus_docs {
        // A BEIR id is not always a safe file name; the document path only has to be unique.
        let _ = indexer.index_doc(&to_doc(d), Some(COLLECTION))?;
    }
    let summary = indexer.finish()?;
    std::fs::write(&mark, sha)?;
    Ok(summary.passages)
}

/// Embed the corpus into the home's vector store (incremental); the documents embedded.
fn embed(
    home: &Home,
    spec: &EmbedderSpec,
    corpus_docs: &[beir::CorpusDoc],
    progress: &dyn Fn(usize, usize),
) -> Result<usize, EvalError> {
    let embedder = brain_vec::backend::open(spec)?;
    let inputs: Vec<brain_vec::index::Input> = corpus_docs
        .iter()
        .map(|d| brain_vec::index::Input::from_doc(to_doc(d)))
        .collect();
    let opts = brain_vec::index::Options {
        prune: true,
        ..Default::default()
    };
    let total = inputs.len();
    let report = brain_vec::index::update(
        &home.vectors(),
        embedder.as_ref(),
        &inputs,
        &opts,
        &|done| progress(done, total),
    )?;
    Ok(report.embedded)
}

/// BEIR queries are text, not our query language: quotes, a leading `-` and `field:` would change
/// their meaning, so they become plain words (the analyzers split at the same characters anyway).
fn words_only(text: &str) -> String {
    text.split_whitespace()
        .map(|w| {
            w.replace(['"', ':'], " ")
                .trim_start_matches('-')
                .to_string()
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The doc record of a corpus document: title as the title, text as the body; a session set's
/// metadata gives its date, end, project, agent and session id.
pub(crate) fn to_doc(d: &beir::CorpusDoc) -> Doc {
    let m = &d.metadata;
    let source = Source {
        kind: if m.session_id.is_some() {
            "session".into()
        } else {
            "eval".into()
        },
        agent: m.agent.clone(),
        file: String::new(),
        lines: None,
        sha256: None,
        parts: vec![],
    };
    let path = format!("{}.md", d.id);
    let mut doc = Doc::new(
        format!("{COLLECTION}/{path}"),
        d.title.clone(),
        m.date.as_deref().unwrap_or(FIXED_DATE),
        source,
    );
    doc.collection = Some(COLLECTION.into());
    doc.path = path;
    doc.body = d.text.clone();
    for (k, v) in [
        ("ended", &m.ended),
        ("project", &m.project),
        ("session_id", &m.session_id),
    ] {
        if let Some(v) = v {
            doc.meta
                .insert(k.into(), serde_json::Value::from(v.clone()));
        }
    }
    doc
}

/// `4983.md` → `4983`.
fn corpus_id(path: &str) -> String {
    path.strip_suffix(".md").unwrap_or(path).to_string()
}

fn dataset_name(dir: &Path) -> String {
    dir.canonicalize()
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| dir.display().to_string())
}

fn round(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0
}
