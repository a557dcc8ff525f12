//! `brain tune` (issue #24, seed 004's self-optimizing loop, built on judgments): evaluate →
//! propose → keep or revert → record, on a train part, accepted on a dev part.
//!
//! * [`judge`] — the judged queries: a BEIR set's split cut into train and dev (never `test`),
//!   or the user's own clicks;
//! * [`objective`] — nDCG@k (default), MRR@k, Recall@k, or seed 004's proxy;
//! * [`propose`] — a deterministic coordinate search over the knob registry, or an LLM command;
//! * [`log`] — `tune-log.jsonl`, one line per experiment and a summary per run;
//! * [`report`] — the experiment table and the before/after per class.
//!
//! A proposal is kept only when dev rises by more than `min_gain` and train does not drop; the run
//! stops after `patience` reverts in a row, `iterations`, `minutes`, or when the search has nothing
//! left. Every kept strategy is written at once (atomically; the file before the run is kept as
//! `<file>.prev`), so an interrupted run leaves the last kept strategy in place. Trials share one
//! index and one model: only the strategy changes between them (no knob needs a re-index).

pub mod judge;
pub mod log;
pub mod objective;
pub mod propose;
pub mod report;
mod target;

use target::{Target, open_target};

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::time::Instant;

use serde_json::Value;

use brain_doc::ErrorCode;
use brain_rank::route::Mode;
use brain_rank::{Strategy, knobs};
use brain_store::Home;
use brain_vec::EmbedderSpec;

use crate::bench::EvalError;
use judge::JudgeError;
use log::{Experiment, PartScore, Summary};
use objective::Objective;
use propose::{Proposal, Proposer};

/// Where the judged queries come from.
#[derive(Debug, Clone)]
pub enum Source {
    /// A BEIR set and the split to tune on.
    Beir { dir: PathBuf, split: String },
    /// The clicks of the home's usage log, over the home's own index.
    Usage,
}

/// What to run.
#[derive(Debug, Clone)]
pub struct TuneOptions {
    pub source: Source,
    pub objective: Objective,
    pub mode: Mode,
    pub seed: u64,
    pub iterations: usize,
    pub minutes: Option<f64>,
    pub min_gain: f64,
    pub patience: usize,
    /// Knobs to search (empty: the default groups of the mode, [`knobs::default_groups`]).
    pub knobs: Vec<String>,
    /// An LLM command instead of the coordinate search.
    pub proposer: Option<brain_exec::Runner>,
    /// Evaluate the set's `test` split once at the end, before and after.
    pub final_test: bool,
    /// Where the tuned strategy is written (default `$BRAIN_HOME/search_strategy.yaml`).
    pub output: Option<PathBuf>,
    /// Keep the BEIR set's index here between runs (else a temporary folder).
    pub eval_home: Option<PathBuf>,
    pub embedder: Option<EmbedderSpec>,
}

/// Why a run could not go on.
#[derive(Debug, thiserror::Error)]
pub enum TuneError {
    #[error(transparent)]
    Judge(#[from] JudgeError),
    #[error(transparent)]
    Eval(#[from] EvalError),
    #[error("{0}")]
    BadInput(String),
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

impl brain_doc::Classified for TuneError {
    /// The exit-code class.
    fn code(&self) -> ErrorCode {
        match self {
            TuneError::Judge(JudgeError::TooFew { .. }) => ErrorCode::NoResults,
            TuneError::Judge(_) | TuneError::BadInput(_) => ErrorCode::BadQuery,
            TuneError::Eval(e) => e.code(),
            TuneError::Io { .. } => ErrorCode::Internal,
        }
    }
}

fn round(x: f64) -> f64 {
    (x * 1_000_000.0).round() / 1_000_000.0
}

/// A stable id of a run: what it tunes on and with.
fn run_id(opts: &TuneOptions, set: &str, start: &Strategy, keys: &[String]) -> String {
    let what = format!(
        "{set}|{:?}|{}|{}|{}|{}|{}",
        opts.source,
        opts.objective,
        opts.mode.name(),
        opts.seed,
        knobs::minimal_yaml(start),
        keys.join(",")
    );
    format!("t{}", &brain_doc::sha256_hex(what.as_bytes())[..10])
}

/// The knobs searched: `opts.knobs`, or the numeric knobs of the mode's default groups.
pub fn searched_knobs(opts: &TuneOptions) -> Result<Vec<String>, TuneError> {
    if !opts.knobs.is_empty() {
        for k in &opts.knobs {
            if knobs::find(k).is_none() {
                return Err(TuneError::BadInput(format!(
                    "--knobs: unknown knob `{k}` (`brain strategy show` lists them)"
                )));
            }
        }
        return Ok(opts.knobs.clone());
    }
    let groups = knobs::default_groups(opts.mode);
    Ok(knobs::KNOBS
        .iter()
        .filter(|k| groups.contains(&k.group))
        .filter(|k| matches!(k.kind, knobs::Kind::Float | knobs::Kind::Int))
        .filter(|k| !k.key.ends_with(".*") && k.key != "pool.widen")
        .map(|k| k.key.to_string())
        .collect())
}

/// What a run reports as it goes.
pub trait Watch {
    fn experiment(&self, e: &Experiment, of: usize);
}

/// The best strategy so far and its scores.
struct Best {
    strategy: Strategy,
    train: PartScore,
    dev: PartScore,
}

/// How the loop ended: experiments run, kept, and why it stopped.
struct Ended {
    done: usize,
    kept: usize,
    stopped: &'static str,
}

/// What every experiment of one run shares.
struct Run<'a> {
    home: &'a Home,
    opts: &'a TuneOptions,
    id: &'a str,
    /// Where a kept strategy is written.
    output: &'a std::path::Path,
    started: Instant,
    watch: &'a dyn Watch,
}

/// Score a strategy on the train and dev parts.
type Measure<'a> = dyn Fn(&mut Target, &Strategy) -> Result<(PartScore, PartScore), TuneError> + 'a;

/// Run the loop for the home `home` (its strategy is the start and, unless `opts.output` says
/// otherwise, where the tuned one goes).
pub fn tune(
    home: &Home,
    opts: &TuneOptions,
    watch: &dyn Watch,
) -> Result<(Summary, Vec<Experiment>), TuneError> {
    let started = Instant::now();
    let output = opts
        .output
        .clone()
        .unwrap_or_else(|| home.root().join(Strategy::FILE));
    let start = Strategy::load(&home.root().join(Strategy::FILE))
        .map_err(|e| TuneError::BadInput(e.to_string()))?;
    let keys = searched_knobs(opts)?;
    let (mut target, parts, set_name, test) = open_target(home, opts)?;
    let run = run_id(opts, &set_name, &start, &keys);
    let qrels: HashMap<String, HashMap<String, u32>> = parts.qrels.clone().into_iter().collect();
    let measure = |target: &mut Target, s: &Strategy| {
        target.engine_mut().set_strategy(s.clone());
        Ok((
            target.score(&parts.train, &qrels, opts.objective)?,
            target.score(&parts.dev, &qrels, opts.objective)?,
        ))
    };
    let t = Instant::now();
    let (train0, dev0) = measure(&mut target, &start)?;
    let mut history: Vec<Experiment> = Vec::new();
    let baseline = Experiment {
        decision: "baseline".into(),
        ts: log::now(),
        duration_ms: t.elapsed().as_millis() as u64,
        ..experiment(&run, 0, "the strategy as it is", (&train0, &dev0))
    };
    record(home, &baseline, watch, opts.iterations, &mut history)?;
    let mut best = Best {
        strategy: start.clone(),
        train: train0.clone(),
        dev: dev0.clone(),
    };
    let mut proposer = proposer_of(opts, &keys)?;
    let each = Run {
        home,
        opts,
        id: &run,
        output: &output,
        started,
        watch,
    };
    let ended = experiments(
        &each,
        (&mut target, &measure),
        proposer.as_mut(),
        &mut best,
        &mut history,
    )?;
    let test = match test {
        Some((queries, qrels)) => {
            Some(target.before_after(&queries, &qrels, opts.objective, &start, &best.strategy)?)
        }
        None => None,
    };
    let summary = Summary {
        kind: "tune_summary".into(),
        run,
        set: set_name,
        objective: opts.objective.to_string(),
        mode: opts.mode.name().into(),
        seed: opts.seed,
        parts: parts.how.clone(),
        iterations: ended.done,
        kept: ended.kept,
        stopped: ended.stopped.into(),
        before: [("train".to_string(), train0), ("dev".to_string(), dev0)].into(),
        moved: moved(&start, &best.strategy),
        after: [
            ("train".to_string(), best.train),
            ("dev".to_string(), best.dev),
        ]
        .into(),
        test,
        // Relative to the home when inside it: the same run in another home logs the same line.
        strategy: (ended.kept > 0).then(|| {
            output
                .strip_prefix(home.root())
                .unwrap_or(&output)
                .display()
                .to_string()
        }),
        ts: log::now(),
        duration_ms: started.elapsed().as_millis() as u64,
    };
    log::append(home, &summary).map_err(|source| TuneError::Io {
        path: home.root().join(log::FILE),
        source,
    })?;
    Ok((summary, history))
}

/// The proposer of the run: the command `opts.proposer` names, else the coordinate search.
fn proposer_of(opts: &TuneOptions, keys: &[String]) -> Result<Box<dyn Proposer>, TuneError> {
    Ok(match &opts.proposer {
        Some(r) => Box::new(propose::Command {
            runner: r.clone(),
            keys: keys.to_vec(),
        }),
        None => Box::new(propose::Coordinate::new(keys, opts.seed).map_err(TuneError::BadInput)?),
    })
}

/// The knobs the run moved: (before, after) of each.
fn moved(start: &Strategy, best: &Strategy) -> BTreeMap<String, (Value, Value)> {
    knobs::diff(best)
        .into_iter()
        .filter_map(|(key, _, after)| {
            let before = knobs::get(start, &key).unwrap_or(Value::Null);
            (before != after).then_some((key, (before, after)))
        })
        .collect()
}

/// The experiments of the loop, until `opts.iterations`, `opts.minutes`, the proposer's end or
/// `opts.patience` reverts in a row: each proposal applied to the best, measured, kept (written
/// to `output`) when dev gains more than `opts.min_gain` without train losing, recorded.
fn experiments(
    each: &Run<'_>,
    (target, measure): (&mut Target, &Measure<'_>),
    proposer: &mut dyn Proposer,
    best: &mut Best,
    history: &mut Vec<Experiment>,
) -> Result<Ended, TuneError> {
    let Run {
        home,
        opts,
        id: run,
        output,
        started,
        watch,
    } = *each;
    let (mut kept, mut reverts, mut done) = (0, 0, 0);
    while done < opts.iterations {
        if opts
            .minutes
            .is_some_and(|m| started.elapsed().as_secs_f64() >= m * 60.0)
        {
            return Ok(Ended {
                done,
                kept,
                stopped: "minutes",
            });
        }
        let t = Instant::now();
        let proposal = match proposer.next(&best.strategy, history) {
            Ok(Some(p)) => p,
            Ok(None) => {
                return Ok(Ended {
                    done,
                    kept,
                    stopped: "exhausted",
                });
            }
            Err(reason) => Proposal {
                changes: Vec::new(),
                hypothesis: format!("the proposer failed: {reason}"),
            },
        };
        done += 1;
        let mut e = experiment(run, done, &proposal.hypothesis, (&best.train, &best.dev));
        match apply(&best.strategy, &proposal) {
            Err(reason) => e.reason = Some(reason),
            Ok((candidate, changes)) => {
                e.changes = changes;
                let (train, dev) = measure(target, &candidate)?;
                e.train = train.score;
                e.dev = dev.score;
                e.delta = round(dev.score - best.dev.score);
                let keep = e.delta > opts.min_gain && train.score >= best.train.score;
                e.decision = if keep { "keep" } else { "revert" }.into();
                if keep {
                    write_strategy(output, &candidate, kept == 0)?;
                    *best = Best {
                        strategy: candidate,
                        train,
                        dev,
                    };
                    kept += 1;
                }
            }
        }
        let keep = e.decision == "keep";
        proposer.feedback(keep);
        reverts = if keep { 0 } else { reverts + 1 };
        e.ts = log::now();
        e.duration_ms = t.elapsed().as_millis() as u64;
        record(home, &e, watch, opts.iterations, history)?;
        if reverts >= opts.patience {
            return Ok(Ended {
                done,
                kept,
                stopped: "patience",
            });
        }
    }
    Ok(Ended {
        done,
        kept,
        stopped: "iterations",
    })
}

/// Experiment `iteration` of `run` testing `hypothesis`, at the scores so far, not yet decided
/// (`rejected` until measured).
fn experiment(
    run: &str,
    iteration: usize,
    hypothesis: &str,
    (train, dev): (&PartScore, &PartScore),
) -> Experiment {
    Experiment {
        kind: "tune_experiment".into(),
        run: run.to_string(),
        iteration,
        changes: BTreeMap::new(),
        hypothesis: hypothesis.to_string(),
        train: train.score,
        dev: dev.score,
        delta: 0.0,
        decision: "rejected".into(),
        reason: None,
        ts: String::new(),
        duration_ms: 0,
    }
}

fn record(
    home: &Home,
    e: &Experiment,
    watch: &dyn Watch,
    of: usize,
    history: &mut Vec<Experiment>,
) -> Result<(), TuneError> {
    log::append(home, e).map_err(|source| TuneError::Io {
        path: home.root().join(log::FILE),
        source,
    })?;
    watch.experiment(e, of);
    history.push(e.clone());
    Ok(())
}

/// `proposal` applied to `s`, every change checked against the registry; the changes as
/// knob → (old, new).
#[allow(clippy::type_complexity)]
fn apply(
    s: &Strategy,
    proposal: &Proposal,
) -> Result<(Strategy, BTreeMap<String, (Value, Value)>), String> {
    if proposal.changes.is_empty() {
        return Err(proposal.hypothesis.clone());
    }
    let mut out = s.clone();
    let mut changes = BTreeMap::new();
    for (key, value) in &proposal.changes {
        let old = knobs::get(&out, key).unwrap_or(Value::Null);
        out = knobs::set(&out, key, value.clone()).map_err(|e| e.to_string())?;
        let new = knobs::get(&out, key).unwrap_or(Value::Null);
        changes.insert(key.clone(), (old, new));
    }
    if changes.values().all(|(a, b)| a == b) {
        return Err("the proposal changes nothing".into());
    }
    Ok((out, changes))
}

/// Write `s` to `path` atomically (only what differs from the defaults); before the first write of
/// a run, keep the file as it was in `<path>.prev`.
fn write_strategy(path: &std::path::Path, s: &Strategy, first: bool) -> Result<(), TuneError> {
    let io = |source| TuneError::Io {
        path: path.to_path_buf(),
        source,
    };
    if first {
        let mut prev = path.as_os_str().to_owned();
        prev.push(".prev");
        let old = std::fs::read(path)
            .unwrap_or_else(|_| b"# no strategy file before `brain tune`: the defaults\n".to_vec());
        brain_doc::atomic::write(std::path::Path::new(&prev), &old).map_err(io)?;
    }
    brain_doc::atomic::write(path, knobs::minimal_yaml(s).as_bytes()).map_err(io)
}
