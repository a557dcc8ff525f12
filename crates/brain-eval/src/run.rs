//! One evaluation run: a temporary home, the set indexed as collection `eval`, every judged query
//! ranked in process, metrics averaged over the queries.

use std::path::{Path, PathBuf};
use std::time::Instant;

use brain_doc::{Doc, ErrorCode, Source};
use brain_lex::{Indexer, LexIndex, SyncError};
use brain_rank::{Query, RankError, RankOptions, Ranker};
use brain_store::Home;
use brain_store::{Collection, Config, ConfigError, Trust};
use serde::{Deserialize, Serialize};

use crate::beir::{self, BeirError};
use crate::metrics::{mrr_at, ndcg_at, percentile, recall_at};

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
}

impl EvalError {
    /// The exit-code class: an unreadable set is bad input (64), a lock 70, the rest internal.
    pub fn code(&self) -> ErrorCode {
        match self {
            EvalError::Beir(_) => ErrorCode::BadQuery,
            EvalError::Index(e) => e.code(),
            EvalError::Rank(e) => e.code(),
            _ => ErrorCode::Internal,
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
    /// Ranking options (limit is raised to 100 for Recall@100).
    pub rank: RankOptions,
}

/// Latency percentiles of one in-process query, milliseconds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Latency {
    pub p50: f64,
    pub p95: f64,
    pub p99: f64,
    pub max: f64,
}

/// The result of `brain eval` (its `--json` form).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    pub schema: u32,
    /// Always `"eval"`.
    pub kind: String,
    pub dataset: String,
    pub split: String,
    pub docs: usize,
    pub passages: u64,
    pub queries: usize,
    pub ndcg_at_10: f64,
    pub mrr_at_10: f64,
    pub recall_at_10: f64,
    pub recall_at_100: f64,
    pub index_ms: u64,
    pub latency_ms: Latency,
}

/// Index the set in `opts.dir` into a temporary home and score every judged query.
pub fn evaluate(opts: &EvalOptions) -> Result<Report, EvalError> {
    let set = beir::load(&opts.dir, &opts.split)?;
    let tmp = tempfile::Builder::new().prefix("brain-eval-").tempdir()?;
    let home = Home::at(tmp.path());
    let mut config = Config::load(&home)?;
    config.add_collection(Collection {
        name: COLLECTION.into(),
        path: format!("corpus/{COLLECTION}"),
        glob: "**/*.md".into(),
        role: "eval".into(),
        trust: Trust::High,
    })?;
    config.save()?;

    let started = Instant::now();
    let mut indexer = Indexer::open(&home, true)?;
    for d in &set.corpus {
        // A BEIR id is not always a safe file name; the document path only has to be unique.
        let _ = indexer.index_doc(&to_doc(d), Some(COLLECTION))?;
    }
    let summary = indexer.finish()?;
    let index_ms = started.elapsed().as_millis() as u64;

    let lex = LexIndex::open(&home)?;
    let ranker = Ranker::new(&lex)?;
    let rank_opts = RankOptions {
        limit: DEPTH,
        snippets: false,
        ..opts.rank
    };
    let now = jiff::Timestamp::now();
    let n = opts
        .max_queries
        .unwrap_or(usize::MAX)
        .min(set.queries.len());
    let (mut ndcg, mut mrr, mut r10, mut r100) = (0.0, 0.0, 0.0, 0.0);
    let mut times = Vec::with_capacity(n);
    for q in &set.queries[..n] {
        let rels = set.qrels.get(&q.id).cloned().unwrap_or_default();
        let query = Query {
            terms: q.text.split_whitespace().map(str::to_string).collect(),
            ..Query::default()
        };
        let t = Instant::now();
        let hits = ranker.rank(&query, &rank_opts, now)?;
        times.push(t.elapsed().as_secs_f64() * 1000.0);
        let ranked: Vec<String> = hits.iter().map(|h| corpus_id(&h.path)).collect();
        ndcg += ndcg_at(&ranked, &rels, 10);
        mrr += mrr_at(&ranked, &rels, 10);
        r10 += recall_at(&ranked, &rels, 10);
        r100 += recall_at(&ranked, &rels, 100);
    }
    times.sort_by(f64::total_cmp);
    let avg = |x: f64| if n == 0 { 0.0 } else { round(x / n as f64) };
    Ok(Report {
        schema: brain_doc::SCHEMA,
        kind: "eval".into(),
        dataset: dataset_name(&opts.dir),
        split: opts.split.clone(),
        docs: set.corpus.len(),
        passages: summary.passages,
        queries: n,
        ndcg_at_10: avg(ndcg),
        mrr_at_10: avg(mrr),
        recall_at_10: avg(r10),
        recall_at_100: avg(r100),
        index_ms,
        latency_ms: Latency {
            p50: round(percentile(&times, 50.0)),
            p95: round(percentile(&times, 95.0)),
            p99: round(percentile(&times, 99.0)),
            max: round(times.last().copied().unwrap_or(0.0)),
        },
    })
}

/// The doc record of a corpus document: title as the title, text as the body.
fn to_doc(d: &beir::CorpusDoc) -> Doc {
    let source = Source {
        kind: "eval".into(),
        agent: None,
        file: String::new(),
        lines: None,
        sha256: None,
        parts: vec![],
    };
    let mut doc = Doc::new(d.id.clone(), d.title.clone(), FIXED_DATE, source);
    doc.collection = Some(COLLECTION.into());
    doc.path = format!("{}.md", d.id);
    doc.body = d.text.clone();
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
