//! What `brain tune` searches: a BEIR set's bench, or the home itself; and how a strategy scores
//! on a part of the judged queries.

use std::collections::{BTreeMap, HashMap};

use rayon::prelude::*;

use brain_doc::Hit;
use brain_rank::route::Mode;
use brain_rank::{Engine, Strategy};
use brain_store::Home;

use super::judge::{self, Parts, Query};
use super::log::PartScore;
use super::objective::Objective;
use super::{Source, TuneError, TuneOptions, round};
use crate::bench::{Bench, EvalError};

/// What is searched: a BEIR set's bench, or the home itself.
pub(super) enum Target {
    Beir(Bench),
    Live {
        engine: Engine,
        now: jiff::Zoned,
        mode: Mode,
        collections: usize,
    },
}

impl Target {
    pub(super) fn engine_mut(&mut self) -> &mut Engine {
        match self {
            Target::Beir(b) => &mut b.engine,
            Target::Live { engine, .. } => engine,
        }
    }

    fn collections(&self) -> usize {
        match self {
            Target::Beir(_) => 1,
            Target::Live { collections, .. } => *collections,
        }
    }

    /// The hits of `text`, and their ids as the judgments name documents.
    fn rank(&self, text: &str, depth: usize) -> Result<(Vec<Hit>, Vec<String>), TuneError> {
        match self {
            Target::Beir(b) => {
                let hits = b.rank(text, depth)?;
                let ids = hits.iter().map(crate::bench::hit_id).collect();
                Ok((hits, ids))
            }
            Target::Live {
                engine, now, mode, ..
            } => {
                let req = engine
                    .request(now)
                    .plain(text)
                    .map(|b| b.limit(depth, 1).mode(*mode).snippets(false).build());
                let hits = match req.and_then(|r| engine.search(&r, now)) {
                    Ok(a) => a.hits,
                    Err(brain_rank::RunError::Query(_)) => Vec::new(),
                    Err(e) => return Err(EvalError::from(e).into()),
                };
                let ids = hits.iter().map(|h| h.docid.clone()).collect();
                Ok((hits, ids))
            }
        }
    }

    /// `queries` scored under the engine's strategy, in parallel, whole and by class.
    pub(super) fn score(
        &self,
        queries: &[Query],
        qrels: &HashMap<String, HashMap<String, u32>>,
        objective: Objective,
    ) -> Result<PartScore, TuneError> {
        let empty = HashMap::new();
        let scores: Vec<(f64, Option<String>)> = queries
            .par_iter()
            .map(|q| {
                let (hits, ids) = self.rank(&q.text, objective.depth())?;
                let rels = qrels.get(&q.id).unwrap_or(&empty);
                let s = objective.score(&hits, &ids, rels, self.collections());
                Ok((s, q.class.clone()))
            })
            .collect::<Result<_, TuneError>>()?;
        let mut by_class: BTreeMap<String, (f64, usize)> = BTreeMap::new();
        for (s, c) in &scores {
            if let Some(c) = c {
                let e = by_class.entry(c.clone()).or_default();
                e.0 += s;
                e.1 += 1;
            }
        }
        let n = scores.len().max(1) as f64;
        Ok(PartScore {
            score: round(scores.iter().map(|(s, _)| s).sum::<f64>() / n),
            queries: scores.len(),
            classes: by_class
                .into_iter()
                .map(|(c, (s, k))| (c, round(s / k.max(1) as f64)))
                .collect(),
        })
    }

    /// The held-out queries scored under the strategy the run started from and the one it ends
    /// with.
    pub(super) fn before_after(
        &mut self,
        queries: &[Query],
        qrels: &HashMap<String, HashMap<String, u32>>,
        objective: Objective,
        start: &Strategy,
        best: &Strategy,
    ) -> Result<(PartScore, PartScore), TuneError> {
        self.engine_mut().set_strategy(start.clone());
        let before = self.score(queries, qrels, objective)?;
        self.engine_mut().set_strategy(best.clone());
        let after = self.score(queries, qrels, objective)?;
        Ok((before, after))
    }
}

/// The target, the train/dev parts, the set's name, and the test queries with their judgments
/// when `--final-test` asks for them.
#[allow(clippy::type_complexity)]
pub(super) fn open_target(
    home: &Home,
    opts: &TuneOptions,
) -> Result<
    (
        Target,
        Parts,
        String,
        Option<(Vec<Query>, HashMap<String, HashMap<String, u32>>)>,
    ),
    TuneError,
> {
    match &opts.source {
        Source::Beir { dir, split } => {
            let test = if opts.final_test {
                let set = crate::beir::load(dir, "test")
                    .map_err(|e| TuneError::BadInput(format!("--final-test: {e}")))?;
                Some((
                    set.queries.iter().map(Query::from).collect(),
                    set.qrels.into_iter().collect(),
                ))
            } else {
                None
            };
            let (corpus, parts) = judge::beir_parts(dir, split, opts.seed)?;
            let bench = Bench::open(
                dir,
                &corpus,
                opts.eval_home.as_deref(),
                opts.mode,
                None,
                opts.embedder.as_ref(),
                &|_, _| {},
            )?;
            let name = dir
                .canonicalize()
                .ok()
                .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
                .unwrap_or_else(|| dir.display().to_string());
            Ok((
                Target::Beir(bench),
                parts,
                format!("{name} ({split})"),
                test,
            ))
        }
        Source::Usage => {
            if opts.final_test {
                return Err(TuneError::BadInput(
                    "--final-test needs a BEIR set with a test split (--set DIR)".into(),
                ));
            }
            let parts = judge::usage_parts(home, opts.seed)?;
            let engine = match &opts.embedder {
                Some(s) => Engine::open_with(home, s.clone()),
                None => Engine::open(home),
            }
            .map_err(EvalError::from)?;
            let collections = brain_store::Config::load(home)
                .map(|c| c.collections.len())
                .unwrap_or(1);
            Ok((
                Target::Live {
                    engine,
                    now: brain_rank::clock::now(),
                    mode: opts.mode,
                    collections,
                },
                parts,
                "usage".into(),
                None,
            ))
        }
    }
}
