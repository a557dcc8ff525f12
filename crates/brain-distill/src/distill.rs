//! `brain distill`: pending sessions → prompts → the user's LLM command (`--jobs` at a time) →
//! validated artifacts written atomically into the distilled collection → queue entries removed →
//! the written artifacts indexed lexically.

use std::path::PathBuf;

use brain_doc::{Doc, ErrorCode};
use brain_lex::{Indexer, SyncError};
use brain_store::partition::{self, Partitioner};
use brain_store::{Config, Home, Lock, LockError};
use serde::Serialize;

use crate::artifact::{self, Stamp};
use crate::prompt::{self, PromptRecord};
use crate::queue::{self, Pending, QueueError};
use crate::template::Template;
use crate::validate::validate;
use brain_exec::{RunError, Runner, run_all};

/// What to run and how.
pub struct Options {
    pub template: Template,
    /// Characters of session body per prompt.
    pub budget: usize,
    pub runner: Runner,
    /// Commands at a time.
    pub jobs: usize,
    /// Stamped as `distilled_by`.
    pub label: String,
    /// Distill at most this many sessions this run.
    pub limit: Option<usize>,
    /// The telemetry surface (`cli`, `cron`, …).
    pub surface: String,
}

/// The run's counts (printed on stderr as one line).
#[derive(Debug, Default, Clone, Serialize)]
pub struct Summary {
    /// Artifacts written.
    pub done: u64,
    /// Sessions whose command failed or whose artifact was invalid (they stay queued).
    pub failed: u64,
    /// Sessions that could not be prompted (unreadable, not a session, empty).
    pub skipped: u64,
    /// Of `failed`: commands killed at the timeout.
    pub timeouts: u64,
    /// Of `failed`: commands the shell could not find (exit 127).
    pub missing_command: u64,
    /// Answers that failed validation once and were asked for again.
    pub retried: u64,
    /// Artifacts added to the lexical index.
    pub indexed: u64,
}

impl Summary {
    /// `3 done / 1 failed / 0 skipped (1 timed out); 3 indexed`.
    pub fn line(&self) -> String {
        let mut s = format!(
            "{} done / {} failed / {} skipped",
            self.done, self.failed, self.skipped
        );
        if self.timeouts > 0 {
            s.push_str(&format!(" ({} timed out)", self.timeouts));
        }
        if self.retried > 0 {
            s.push_str(&format!(
                "; {} retried after an invalid answer",
                self.retried
            ));
        }
        s.push_str(&format!("; {} indexed", self.indexed));
        s
    }

    /// The exit class of a run with failures: a missing command (65) before a timeout (66) before an
    /// unusable answer (64); `None` when nothing failed.
    pub fn failure_code(&self) -> Option<ErrorCode> {
        match () {
            _ if self.failed == 0 => None,
            _ if self.missing_command > 0 => Some(ErrorCode::IndexMissing),
            _ if self.timeouts > 0 => Some(ErrorCode::Timeout),
            _ => Some(ErrorCode::BadQuery),
        }
    }
}

/// Why the run could not start or had to stop.
#[derive(Debug, thiserror::Error)]
pub enum DistillError {
    #[error(transparent)]
    Locked(#[from] LockError),
    #[error("brain.yaml: {0}")]
    Config(#[from] brain_store::ConfigError),
    #[error(transparent)]
    Queue(#[from] QueueError),
    #[error("writing {path}: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("writing the artifact record: {0}")]
    Emit(std::io::Error),
}

impl brain_doc::Classified for DistillError {
    /// The exit class.
    fn code(&self) -> ErrorCode {
        match self {
            DistillError::Locked(e) => e.code(),
            DistillError::Queue(e) => e.code(),
            DistillError::Config(e) => e.code(),
            DistillError::Write { .. } | DistillError::Emit(_) => ErrorCode::Internal,
        }
    }
}

/// A prompted session.
struct Job {
    pending: Pending,
    session: Doc,
    text: String,
    prompt: PromptRecord,
}

/// The sessions `brain distill` would distill now, in order.
pub fn pending(
    home: &Home,
    template: &Template,
    warn: &dyn Fn(String),
) -> Result<Vec<Pending>, DistillError> {
    let config = Config::load(home)?;
    Ok(queue::pending(
        &config,
        &home.distill_queue(),
        template.version(),
        warn,
    )?)
}

/// Distill every pending session. `emit` sees each written artifact (the binary prints it as NDJSON);
/// per-session problems go to `warn` and are counted; `progress(done, total)` is told as each command
/// finishes (the binary draws the bar).
pub fn run(
    home: &Home,
    opts: &Options,
    warn: &dyn Fn(String),
    progress: &dyn Fn(u64, u64),
    emit: &mut dyn FnMut(&Doc) -> std::io::Result<()>,
) -> Result<Summary, DistillError> {
    let started = std::time::Instant::now();
    let _lock = Lock::try_acquire(&home.lock_file("distill"))?;
    let config = Config::load(home)?;
    let partitioner = Partitioner::new(&config)?;
    let queue_file = home.distill_queue();
    let mut todo = queue::pending(&config, &queue_file, opts.template.version(), warn)?;
    if let Some(n) = opts.limit {
        todo.truncate(n);
    }
    let mut summary = Summary::default();
    let mut jobs = Vec::with_capacity(todo.len());
    for p in todo {
        match prepare(p, opts) {
            Ok(job) => jobs.push(job),
            Err(msg) => {
                warn(msg);
                summary.skipped += 1;
            }
        }
    }
    let distilled_at = jiff::Timestamp::now()
        .strftime("%Y-%m-%dT%H:%M:%SZ")
        .to_string();
    let stamp = Stamp {
        prompt_version: opts.template.version(),
        label: &opts.label,
        distilled_at: &distilled_at,
    };
    let mut written: Vec<Doc> = Vec::new();
    let mut fatal: Option<DistillError> = None;
    // An answer that fails validation is asked for once more before the session is reported (the
    // issue's rule: retried once, then reported and left queued).
    let work = |job: Job| {
        let env = [
            ("BRAIN_SESSION_ID", job.prompt.session_id.as_str()),
            ("BRAIN_PROMPT_VERSION", job.prompt.prompt_version.as_str()),
        ];
        let mut out = opts.runner.run(&job.prompt.prompt, &env);
        let mut retried = false;
        if out
            .as_ref()
            .is_ok_and(|o| validate(o, &job.prompt.session_id).is_err())
        {
            retried = true;
            out = opts.runner.run(&job.prompt.prompt, &env);
        }
        (job, out, retried)
    };
    let total = jobs.len() as u64;
    let mut finished = 0;
    progress(0, total);
    run_all(jobs, opts.jobs, work, |(job, out, retried)| {
        finished += 1;
        progress(finished, total);
        summary.retried += u64::from(retried);
        if fatal.is_some() {
            return;
        }
        let id = job.pending.id.clone();
        match finish(job, out, &stamp, &partitioner, &queue_file, emit) {
            Ok(Ok(doc)) => {
                summary.done += 1;
                written.push(doc);
            }
            Ok(Err(problem)) => {
                summary.failed += 1;
                match problem {
                    Problem::Run(e) => {
                        summary.timeouts += u64::from(matches!(e, RunError::Timeout { .. }));
                        summary.missing_command += u64::from(e.is_missing_command());
                        warn(format!("{id}: {e}; left queued"));
                    }
                    Problem::Invalid(msg) => {
                        warn(format!("{id}: invalid artifact: {msg}; left queued"))
                    }
                }
            }
            Err(e) => fatal = Some(e),
        }
    });
    if let Some(e) = fatal {
        return Err(e);
    }
    summary.indexed = index(home, &written, warn);
    let mut row = serde_json::Map::new();
    for (k, v) in [
        ("done", summary.done),
        ("failed", summary.failed),
        ("skipped", summary.skipped),
        ("timeouts", summary.timeouts),
        ("indexed", summary.indexed),
    ] {
        row.insert(k.into(), serde_json::Value::from(v));
    }
    row.insert(
        "latency_ms".into(),
        serde_json::Value::from(started.elapsed().as_millis() as u64),
    );
    let _ = brain_store::telemetry::append(home, &opts.surface, "distill", row);
    Ok(summary)
}

fn prepare(p: Pending, opts: &Options) -> Result<Job, String> {
    let text =
        std::fs::read_to_string(&p.file).map_err(|e| format!("{}: {e}", p.file.display()))?;
    let session = Doc::from_markdown(&text).map_err(|e| format!("{}: {e}", p.file.display()))?;
    let prompt = prompt::build(&session, &opts.template, opts.budget)
        .map_err(|e| format!("{}: {e}", p.file.display()))?;
    Ok(Job {
        pending: p,
        session,
        text,
        prompt,
    })
}

enum Problem {
    Run(RunError),
    Invalid(String),
}

/// Validate, write and dequeue one answer. `Ok(Err(_))` is a per-session failure; `Err(_)` stops the run.
fn finish(
    job: Job,
    out: Result<String, RunError>,
    stamp: &Stamp<'_>,
    partitioner: &Partitioner,
    queue_file: &std::path::Path,
    emit: &mut dyn FnMut(&Doc) -> std::io::Result<()>,
) -> Result<Result<Doc, Problem>, DistillError> {
    let output = match out {
        Ok(o) => o,
        Err(e) => return Ok(Err(Problem::Run(e))),
    };
    let art = match validate(&output, &job.prompt.session_id) {
        Ok(a) => a,
        Err(e) => return Ok(Err(Problem::Invalid(e.to_string()))),
    };
    let mut doc = artifact::to_doc(&job.session, &job.pending.file, &job.text, &art, stamp);
    let placement = match partitioner.place(&mut doc) {
        Ok(p) => p,
        Err(e) => return Ok(Err(Problem::Invalid(e.to_string()))),
    };
    partition::write(&doc, &placement.file).map_err(|source| DistillError::Write {
        path: placement.file.clone(),
        source,
    })?;
    queue::remove(queue_file, &job.pending.id)?;
    emit(&doc).map_err(DistillError::Emit)?;
    Ok(Ok(doc))
}

/// Index the written artifacts in process; a busy or broken index is a warning (the files are on disk
/// and `lexindex --all` picks them up).
pub(crate) fn index(home: &Home, docs: &[Doc], warn: &dyn Fn(String)) -> u64 {
    if docs.is_empty() {
        return 0;
    }
    let fail = |e: SyncError| {
        warn(format!(
            "artifacts written but not indexed ({e}); run `lexindex --all`"
        ))
    };
    let mut indexer = match Indexer::open(home, false) {
        Ok(i) => i,
        Err(e) => {
            fail(e);
            return 0;
        }
    };
    let mut n = 0;
    for d in docs {
        match indexer.index_doc(d, None) {
            Ok(Ok(())) => n += 1,
            Ok(Err(reason)) => warn(reason),
            Err(e) => {
                fail(e);
                return 0;
            }
        }
    }
    match indexer.finish() {
        Ok(_) => n,
        Err(e) => {
            fail(e);
            0
        }
    }
}
