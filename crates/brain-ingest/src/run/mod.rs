//! The `jsonl2md` stage: discover sessions, convert them in parallel, write documents in input order,
//! keep the incremental state and the distillation queue.

use std::collections::HashSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use brain_doc::Doc;
use rayon::prelude::*;

use crate::convert::{self, Outcome, Status};
use crate::discover::{self, SessionFiles};
use crate::state::{self, State};

mod stores;

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
    /// What `brain forget --purge` removed: a document of a purged session is left out (counted
    /// in [`Summary::purged`]), however its transcript grew since.
    pub purged: brain_store::purged::Purged,
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
    /// Sessions not written because another store of the run holds the same session: a Cursor
    /// transcript of a session a database holds (the lossy copy), OpenCode's old tree of a session
    /// its database holds.
    pub held_elsewhere: u64,
    /// Documents left out because their session was purged (`brain forget --purge`).
    pub purged: u64,
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
    let found = discover::discover_all(&opts.inputs);
    let state = match (&opts.state, opts.only_new) {
        (Some(p), _) => Some(State::load(p)?),
        (None, true) => return Err(RunError::NoState),
        (None, false) => None,
    };
    let mut pass = Pass {
        opts,
        sink,
        warn,
        state,
        sum: Summary {
            sessions: found.sessions.len() as u64,
            ..Summary::default()
        },
        held: HashSet::new(),
        queued: Vec::new(),
    };
    for (p, e) in found.errors {
        pass.sum.unreadable += 1;
        warn(format!("{}: {e}", p.display()));
    }
    let todo = pass.changed(found.sessions);
    // Stores of many conversations first: the sessions a Cursor database holds are not written
    // again from their lossy transcripts.
    let mut dirty = false;
    for store in &found.stores {
        dirty |= pass.store(store)?;
    }
    let state_dirty = dirty || !todo.is_empty() || !opts.state.as_ref().is_some_and(|p| p.exists());
    for batch in todo.chunks(BATCH) {
        let outcomes: Vec<Outcome> = batch
            .par_iter()
            .map(|(s, _)| convert::convert(s, opts.redact))
            .collect();
        for ((files, stats), o) in batch.iter().zip(outcomes) {
            pass.outcome(files, stats, o)?;
        }
    }
    pass.finish(state_dirty)
}

/// One run over files, as it goes: where documents go, what was counted, the `--new` state, the
/// sessions the stores hold, the ids to queue.
struct Pass<'a, 'w> {
    opts: &'a Options,
    sink: &'a mut Sink<'w>,
    warn: &'a (dyn Fn(String) + Sync),
    state: Option<State>,
    sum: Summary,
    /// Every session a store of the run holds, by document id.
    held: HashSet<String>,
    /// Ids of the documents written, for the distill queue.
    queued: Vec<String>,
}

impl Pass<'_, '_> {
    /// The sessions to convert, with their files' stats: with `--new`, those whose stats changed
    /// (or whose document is gone from the output folder); the rest are counted unchanged unread.
    fn changed(
        &mut self,
        sessions: Vec<SessionFiles>,
    ) -> Vec<(SessionFiles, Vec<state::FileStat>)> {
        let all_stats: Vec<Vec<state::FileStat>> = sessions
            .par_iter()
            .map(|s| state::stat_all(s).unwrap_or_default())
            .collect();
        let mut todo = Vec::with_capacity(sessions.len());
        for (s, stats) in sessions.into_iter().zip(all_stats) {
            let out_missing = self.opts.out_dir.as_ref().is_some_and(|d| {
                self.state
                    .as_ref()
                    .and_then(|st| st.sessions.get(&s.main.display().to_string()))
                    .is_some_and(|e| !d.join(format!("{}.md", e.id)).exists())
            });
            if self.opts.only_new
                && !out_missing
                && self
                    .state
                    .as_ref()
                    .is_some_and(|st| st.stats_match(&s, &stats))
            {
                self.sum.unchanged += 1;
                continue;
            }
            todo.push((s, stats));
        }
        todo
    }

    /// What became of one converted session: counted, warned of, recorded in the state, written.
    fn outcome(
        &mut self,
        files: &SessionFiles,
        stats: &[state::FileStat],
        o: Outcome,
    ) -> Result<(), RunError> {
        let (warn, sum) = (self.warn, &mut self.sum);
        sum.bytes += o.bytes;
        for (file, issue) in &o.issues {
            sum.malformed_lines += 1;
            warn(format!("{file}:{}: {}", issue.line, issue.reason));
        }
        if let Some(why) = o.status.skipped_because() {
            warn(format!("{}: skipped: {why}", files.main.display()));
        }
        let unchanged = self.opts.only_new
            && self.state.as_ref().and_then(|st| st.fingerprint(files))
                == Some(o.fingerprint.as_str());
        let counter = match o.status {
            Status::Doc(doc) => return self.doc(files, stats, &o.fingerprint, &doc, unchanged),
            Status::Empty => &mut sum.empty,
            Status::SummaryOnly => &mut sum.summary_only,
            Status::NotASession => &mut sum.not_sessions,
            Status::DoNotIndex => &mut sum.do_not_index,
            Status::Unreadable(e) => {
                warn(e);
                &mut sum.unreadable
            }
        };
        *counter += 1;
        Ok(())
    }

    /// A converted session's document: recorded in the state, then written unless a store holds
    /// its session or `--new` finds it `unchanged` (and its file still there).
    fn doc(
        &mut self,
        files: &SessionFiles,
        stats: &[state::FileStat],
        fingerprint: &str,
        doc: &Doc,
        unchanged: bool,
    ) -> Result<(), RunError> {
        if let Some(st) = self.state.as_mut() {
            st.record(
                files,
                stats.to_vec(),
                fingerprint.to_string(),
                doc.id.clone(),
            );
        }
        if self.held.contains(&doc.id) {
            self.sum.held_elsewhere += 1;
            return Ok(());
        }
        if unchanged
            && self
                .opts
                .out_dir
                .as_ref()
                .is_none_or(|d| d.join(&doc.path).exists())
        {
            self.sum.unchanged += 1;
            return Ok(());
        }
        self.emit(doc)
    }

    /// Write `doc`, count it and its redactions, queue its id — unless its session was purged.
    fn emit(&mut self, doc: &Doc) -> Result<(), RunError> {
        if self.opts.purged.holds(doc) {
            self.sum.purged += 1;
            return Ok(());
        }
        self.sum.redactions += doc
            .meta
            .get("redactions")
            .and_then(serde_json::Value::as_u64)
            .unwrap_or(0);
        write_doc(self.sink, doc)?;
        self.sum.documents += 1;
        self.queued.push(doc.id.clone());
        Ok(())
    }

    /// The end of the run: output flushed, the state saved when it changed, the queue appended.
    fn finish(self, state_dirty: bool) -> Result<Summary, RunError> {
        let mut sum = self.sum;
        if let Sink::Ndjson(out) = self.sink {
            out.flush().map_err(RunError::Write)?;
        }
        if let (Some(st), Some(p)) = (&self.state, &self.opts.state)
            && state_dirty
        {
            st.save(p)?;
        }
        if let Some(q) = &self.opts.queue {
            sum.queued = state::enqueue(q, &self.queued)? as u64;
        }
        Ok(sum)
    }
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
        Status::Doc(doc) if opts.purged.holds(&doc) => sum.purged = 1,
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
    Write(#[source] std::io::Error),
}

impl brain_doc::Classified for RunError {
    /// `--new` without a state file is the user's to fix (64); a held queue is contention (70);
    /// a state file that does not read is the home's storage (65, as every state file of the home);
    /// output that cannot be written is internal (99) unless the disk says why (65, by the CLI).
    fn code(&self) -> brain_doc::ErrorCode {
        match self {
            RunError::NoState => brain_doc::ErrorCode::BadQuery,
            RunError::Queue(e) => e.code(),
            RunError::State(state::StateError::Parse { .. }) => brain_doc::ErrorCode::IndexMissing,
            RunError::State(_) | RunError::Write(_) => brain_doc::ErrorCode::Internal,
        }
    }

    fn fix(&self) -> String {
        match self {
            RunError::State(state::StateError::Parse { .. }) => {
                "move the file away to start over (the next run converts every session again), or restore it from a backup".into()
            }
            _ => String::new(),
        }
    }
}

impl Summary {
    /// The one-line summary printed on stderr.
    pub fn line(&self, elapsed: std::time::Duration) -> String {
        let secs = elapsed.as_secs_f64();
        let mb = self.bytes as f64 / 1e6;
        let rate = if secs > 0.0 { mb / secs } else { 0.0 };
        format!(
            "{} sessions → {} documents ({} unchanged, {} empty, {} summary-only, {} not transcripts, {} do-not-index, {} unreadable{}); {} malformed lines skipped; {} secrets redacted; {} queued; {:.2} MB in {:.3} s ({:.0} MB/s)",
            self.sessions,
            self.documents,
            self.unchanged,
            self.empty,
            self.summary_only,
            self.not_sessions,
            self.do_not_index,
            self.unreadable,
            [
                (self.held_elsewhere, "held by another store"),
                (self.purged, "purged (left out)"),
            ]
            .iter()
            .filter(|(n, _)| *n > 0)
            .map(|(n, what)| format!(", {n} {what}"))
            .collect::<String>(),
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
