//! One evaluation run: a home (temporary, or `--home DIR` kept between runs) with the set indexed
//! as collection `eval` ([`crate::bench`]), every judged query ranked in process through the same
//! engine `brain ask` uses, metrics averaged over the queries; evidence in context for the questions
//! that carry it ([`crate::evidence`]).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use brain_rank::RunError;
use brain_rank::route::Mode;
use brain_vec::EmbedderSpec;

use crate::beir;
pub use crate::bench::{Bench, EvalError, hit_id};
use crate::evidence::{self, Assemble};
use crate::metrics::{hit_at, mrr_at, ndcg_at, percentile, recall_at};
pub use crate::report::{ClassScore, Latency, QueryOutcome, Report};

/// Depth of each ranking: enough for Recall@100.
const DEPTH: usize = 100;

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
    /// The token budgets evidence in context is measured at ([`crate::evidence::budgets`]).
    pub evidence_budgets: Vec<usize>,
}

/// Index the set in `opts.dir` and score every judged query; `progress(done, total)` follows the
/// embedding of documents. With `assemble`, the questions that carry evidence text are also
/// scored by whether it reaches the block an agent receives ([`crate::evidence`]).
pub fn evaluate(
    opts: &EvalOptions,
    progress: &dyn Fn(usize, usize),
    assemble: Option<&dyn Assemble>,
) -> Result<Report, EvalError> {
    let set = beir::load(&opts.dir, &opts.split)?;
    let bench = open_bench(opts, &set.corpus, progress)?;
    let n = opts
        .max_queries
        .unwrap_or(usize::MAX)
        .min(set.queries.len());
    let mut evidence = evidence::Run::open(
        &bench,
        assemble,
        &set.queries[..n],
        &set.corpus,
        &opts.evidence_budgets,
    )?;
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
        if let Some(class) = &q.metadata.class {
            by_class.entry(class.clone()).or_default().add(&s);
        }
        let judged = rels
            .iter()
            .filter(|(_, g)| **g > 0)
            .map(|(d, _)| d.as_str())
            .collect();
        let evidence_at = evidence.score(&bench, q, &judged)?;
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
                evidence_at,
                text: q.text.clone(),
            });
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
        evidence: evidence.scores(),
        evidence_docs_unwritten: evidence.unwritten,
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

fn dataset_name(dir: &Path) -> String {
    dir.canonicalize()
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| dir.display().to_string())
}

fn round(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0
}
