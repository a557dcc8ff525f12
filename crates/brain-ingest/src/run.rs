//! The `jsonl2md` stage: discover sessions, convert them in parallel, write documents in input order,
//! keep the incremental state and the distillation queue.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use brain_doc::Doc;
use rayon::prelude::*;

use crate::convert::{self, Outcome, Status};
use crate::discover::{self, SessionFiles};
use crate::state::{self, State};

/// How sessions are converted and where documents go.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Files or folders to read.
    pub inputs: Vec<PathBuf>,
    /// Write `<out_dir>/<id>.md` files instead of NDJSON on stdout.
    pub out_dir: Option<PathBuf>,
    /// Only sessions changed since they were last written (needs `state`).
    pub only_new: bool,
    /// The incremental state file.
    pub state: Option<PathBuf>,
    /// Append the ids of written documents to this queue file.
    pub queue: Option<PathBuf>,
    /// Redact secrets (on by default).
    pub redact: bool,
}

/// Counts for the end-of-run summary.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Summary {
    /// Sessions found (main files).
    pub sessions: u64,
    /// Documents written.
    pub documents: u64,
    /// Sessions with nothing said.
    pub empty: u64,
    /// Files with only summary lines.
    pub summary_only: u64,
    /// Files that are not transcripts.
    pub not_sessions: u64,
    /// Sessions skipped for `brain:do-not-index`.
    pub do_not_index: u64,
    /// Sessions skipped by `--new` as unchanged.
    pub unchanged: u64,
    /// Files that could not be read.
    pub unreadable: u64,
    /// Malformed lines skipped.
    pub malformed_lines: u64,
    /// Secrets redacted.
    pub redactions: u64,
    /// Ids appended to the queue.
    pub queued: u64,
    /// Bytes read.
    pub bytes: u64,
}

/// Where documents go.
pub enum Sink<'a> {
    /// NDJSON lines.
    Ndjson(&'a mut dyn Write),
    /// Markdown files in a folder.
    Dir(&'a Path),
}

/// Sessions converted per parallel batch: enough to keep every core busy, few enough that memory stays
/// bounded by a handful of sessions rather than the corpus.
const BATCH: usize = 32;

/// Run the stage over files. `warn` receives every per-record problem (file:line: reason).
pub fn run(
    opts: &Options,
    sink: &mut Sink<'_>,
    warn: &(dyn Fn(String) + Sync),
) -> Result<Summary, RunError> {
    let (sessions, errors) = discover::discover(&opts.inputs);
    let mut sum = Summary {
        sessions: sessions.len() as u64,
        ..Summary::default()
    };
    for (p, e) in errors {
        sum.unreadable += 1;
        warn(format!("{}: {e}", p.display()));
    }
    let mut state = match (&opts.state, opts.only_new) {
        (Some(p), _) => Some(State::load(p)?),
        (None, true) => return Err(RunError::NoState),
        (None, false) => None,
    };
    // --new: skip sessions whose files' stats are unchanged without reading them.
    let mut todo: Vec<(SessionFiles, Vec<state::FileStat>)> = Vec::with_capacity(sessions.len());
    let all_stats: Vec<Vec<state::FileStat>> = sessions
        .par_iter()
        .map(|s| state::stat_all(s).unwrap_or_default())
        .collect();
    for (s, stats) in sessions.into_iter().zip(all_stats) {
        let out_missing = opts.out_dir.as_ref().is_some_and(|d| {
            state
                .as_ref()
                .and_then(|st| st.sessions.get(&s.main.display().to_string()))
                .is_some_and(|e| !d.join(format!("{}.md", e.id)).exists())
        });
        if opts.only_new
            && !out_missing
            && state.as_ref().is_some_and(|st| st.stats_match(&s, &stats))
        {
            sum.unchanged += 1;
            continue;
        }
        todo.push((s, stats));
    }
    let mut queued_ids = Vec::new();
    let state_dirty = !todo.is_empty() || !opts.state.as_ref().is_some_and(|p| p.exists());
    for batch in todo.chunks(BATCH) {
        let outcomes: Vec<Outcome> = batch
            .par_iter()
            .map(|(s, _)| convert::convert(s, opts.redact))
            .collect();
        for ((files, stats), o) in batch.iter().zip(outcomes) {
            sum.bytes += o.bytes;
            for (file, issue) in &o.issues {
                sum.malformed_lines += 1;
                warn(format!("{file}:{}: {}", issue.line, issue.reason));
            }
            if let Some(why) = o.status.skipped_because() {
                warn(format!("{}: skipped: {why}", files.main.display()));
            }
            let unchanged = opts.only_new
                && state.as_ref().and_then(|st| st.fingerprint(files))
                    == Some(o.fingerprint.as_str());
            match o.status {
                Status::Doc(doc) => {
                    if let Some(st) = state.as_mut() {
                        st.record(files, stats.clone(), o.fingerprint.clone(), doc.id.clone());
                    }
                    if unchanged
                        && opts
                            .out_dir
                            .as_ref()
                            .is_none_or(|d| d.join(&doc.path).exists())
                    {
                        sum.unchanged += 1;
                        continue;
                    }
                    sum.redactions += doc
                        .meta
                        .get("redactions")
                        .and_then(serde_json::Value::as_u64)
                        .unwrap_or(0);
                    write_doc(sink, &doc)?;
                    sum.documents += 1;
                    queued_ids.push(doc.id.clone());
                }
                Status::Empty => sum.empty += 1,
                Status::SummaryOnly => sum.summary_only += 1,
                Status::NotASession => sum.not_sessions += 1,
                Status::DoNotIndex => sum.do_not_index += 1,
                Status::Unreadable(e) => {
                    sum.unreadable += 1;
                    warn(e);
                }
            }
        }
    }
    if let Sink::Ndjson(out) = sink {
        out.flush().map_err(RunError::Write)?;
    }
    if let (Some(st), Some(p)) = (&state, &opts.state)
        && state_dirty
    {
        st.save(p)?;
    }
    if let Some(q) = &opts.queue {
        sum.queued = state::enqueue(q, &queued_ids)? as u64;
    }
    Ok(sum)
}

/// Convert one session read from a stream (stdin). `name` appears in provenance and messages.
pub fn run_bytes(
    bytes: &[u8],
    name: &str,
    opts: &Options,
    sink: &mut Sink<'_>,
    warn: &dyn Fn(String),
) -> Result<Summary, RunError> {
    let mut sum = Summary {
        sessions: 1,
        bytes: bytes.len() as u64,
        ..Summary::default()
    };
    let o = convert::convert_bytes(
        bytes,
        &brain_doc::sha256_hex(bytes),
        name,
        None,
        &[],
        opts.redact,
    );
    for (file, issue) in &o.issues {
        sum.malformed_lines += 1;
        warn(format!("{file}:{}: {}", issue.line, issue.reason));
    }
    if let Some(why) = o.status.skipped_because() {
        warn(format!("{name}: skipped: {why}"));
    }
    match o.status {
        Status::Doc(doc) => {
            sum.redactions += doc
                .meta
                .get("redactions")
                .and_then(serde_json::Value::as_u64)
                .unwrap_or(0);
            write_doc(sink, &doc)?;
            sum.documents = 1;
            if let Some(q) = &opts.queue {
                sum.queued = state::enqueue(q, std::slice::from_ref(&doc.id))? as u64;
            }
        }
        Status::Empty => sum.empty = 1,
        Status::SummaryOnly => sum.summary_only = 1,
        Status::NotASession => sum.not_sessions = 1,
        Status::DoNotIndex => sum.do_not_index = 1,
        Status::Unreadable(e) => {
            sum.unreadable = 1;
            warn(e);
        }
    }
    if let Sink::Ndjson(out) = sink {
        out.flush().map_err(RunError::Write)?;
    }
    Ok(sum)
}

fn write_doc(sink: &mut Sink<'_>, doc: &Doc) -> Result<(), RunError> {
    match sink {
        Sink::Ndjson(out) => brain_doc::ndjson::write_line(out, doc).map_err(RunError::Write),
        Sink::Dir(dir) => {
            let path = dir.join(&doc.path);
            brain_doc::atomic::write(&path, doc.to_markdown().as_bytes()).map_err(RunError::Write)
        }
    }
}

/// Why a run stopped (per-record problems never stop it).
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error("--new needs a state file (--state FILE, or BRAIN_HOME to hold one)")]
    NoState,
    #[error(transparent)]
    State(#[from] state::StateError),
    #[error(transparent)]
    Queue(#[from] state::QueueError),
    #[error("writing output: {0}")]
    Write(std::io::Error),
}

impl Summary {
    /// The one-line summary printed on stderr.
    pub fn line(&self, elapsed: std::time::Duration) -> String {
        let secs = elapsed.as_secs_f64();
        let mb = self.bytes as f64 / 1e6;
        let rate = if secs > 0.0 { mb / secs } else { 0.0 };
        format!(
            "{} sessions → {} documents ({} unchanged, {} empty, {} summary-only, {} not transcripts, {} do-not-index, {} unreadable); {} malformed lines skipped; {} secrets redacted; {} queued; {:.2} MB in {:.3} s ({:.0} MB/s)",
            self.sessions,
            self.documents,
            self.unchanged,
            self.empty,
            self.summary_only,
            self.not_sessions,
            self.do_not_index,
            self.unreadable,
            self.malformed_lines,
            self.redactions,
            self.queued,
            mb,
            secs,
            rate
        )
    }
}

/// Start a timer (kept here so the binary stays thin).
pub fn now() -> Instant {
    Instant::now()
}
