//! The `jsonl2md` stage: discover sessions, convert them in parallel, write documents in input order,
//! keep the incremental state and the distillation queue.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use brain_doc::Doc;
use rayon::prelude::*;

use crate::convert::{self, Outcome, Status};
use crate::discover::{self, SessionFiles, Store};
use crate::many::Read;
use crate::session::Agent;
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
    let (sessions, errors) = (found.sessions, found.errors);
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
    // Stores of many conversations first: the sessions a Cursor database holds are not written
    // again from their lossy transcripts.
    let mut held = std::collections::HashSet::new();
    let stores_dirty = run_stores(
        &found.stores,
        opts,
        &mut state,
        sink,
        &mut sum,
        &mut held,
        &mut queued_ids,
        warn,
    )?;
    let state_dirty =
        stores_dirty || !todo.is_empty() || !opts.state.as_ref().is_some_and(|p| p.exists());
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
                Status::Doc(doc) if held.contains(&doc.id) => {
                    sum.held_elsewhere += 1;
                    if let Some(st) = state.as_mut() {
                        st.record(files, stats.clone(), o.fingerprint.clone(), doc.id.clone());
                    }
                }
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
                    emit(sink, &doc, &mut sum, &mut queued_ids, &opts.purged)?;
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

/// The agent of a store, and what it holds.
fn read_store(
    store: &Store,
    known: crate::cursor::ide::Known<'_>,
) -> (Agent, Result<Read, String>) {
    match store {
        Store::CursorIde {
            globals,
            workspaces,
        } => {
            let mut ws = crate::cursor::ide::Workspaces::default();
            let mut all = Read::default();
            for w in workspaces {
                match crate::cursor::ide::read_workspace(w, &mut ws) {
                    Ok(r) => merge(&mut all, in_file(w, r)),
                    Err(e) => all.unreadable.push(at(w, e)),
                }
            }
            for g in globals {
                match crate::cursor::ide::read_global(g, &ws, known).map(|r| in_file(g, r)) {
                    Ok(r) => {
                        // The global database's composer wins over an old inline copy.
                        let ids: std::collections::HashSet<&String> = r
                            .conversations
                            .iter()
                            .map(|c| &c.id)
                            .chain(&r.unchanged)
                            .collect();
                        all.conversations.retain(|c| !ids.contains(&c.id));
                        merge(&mut all, r);
                    }
                    // The workspaces' conversations are still read.
                    Err(e) => all.unreadable.push(at(g, e)),
                }
            }
            (Agent::Cursor, Ok(all))
        }
        Store::CursorAgent(db) => {
            let mut r = Read::default();
            let out = crate::cursor::cli::read(db, &mut r.issues).map(|c| {
                match c {
                    Some(c) => r.conversations.push(c),
                    None => r.empty += 1,
                }
                r
            });
            (Agent::Cursor, out.map_err(|e| at(db, e)))
        }
        Store::OpenCodeDb(db) => (
            Agent::OpenCode,
            crate::opencode::read_db(db).map_err(|e| at(db, e)),
        ),
        Store::OpenCodeTree(root) => (Agent::OpenCode, Ok(crate::opencode::read_tree(root))),
        Store::Aider(p) => (Agent::Aider, crate::aider::read(p)),
    }
}

/// `e` said of `path` (once: a snapshot's own errors already name it).
fn at(path: &std::path::Path, e: String) -> String {
    let p = path.display().to_string();
    if e.starts_with(&p) {
        e
    } else {
        format!("{p}: {e}")
    }
}

/// `r`'s issues said of the database they are in.
fn in_file(path: &std::path::Path, mut r: Read) -> Read {
    r.issues = r.issues.into_iter().map(|i| at(path, i)).collect();
    r
}

fn merge(all: &mut Read, r: Read) {
    all.conversations.extend(r.conversations);
    all.empty += r.empty;
    all.issues.extend(r.issues);
    all.unchanged.extend(r.unchanged);
    all.unreadable.extend(r.unreadable);
}

/// Read every store (unless `--new` finds its files unchanged), write each conversation that is
/// new or changed; `held` gets the ids of every conversation the stores hold. Whether the state
/// changed.
#[allow(clippy::too_many_arguments)]
fn run_stores(
    stores: &[Store],
    opts: &Options,
    state: &mut Option<State>,
    sink: &mut Sink<'_>,
    sum: &mut Summary,
    held: &mut std::collections::HashSet<String>,
    queued: &mut Vec<String>,
    warn: &(dyn Fn(String) + Sync),
) -> Result<bool, RunError> {
    let mut dirty = false;
    for store in stores {
        let key = store.key();
        let stats = state::stat_paths(&store.files());
        if opts.only_new
            && let Some(st) = state.as_ref()
            && st.entry(&key).is_some_and(|e| e.files == stats)
        {
            held.extend(st.ids_under(&key));
            continue;
        }
        let known = |id: &str, fingerprint: &str| {
            opts.only_new
                && state
                    .as_ref()
                    .and_then(|st| st.entry(&format!("{key}#{id}")))
                    .is_some_and(|e| e.fingerprint == fingerprint)
        };
        let (agent, read) = read_store(store, &known);
        let read = match read {
            Ok(r) => r,
            Err(e) => {
                sum.unreadable += 1;
                warn(e);
                continue;
            }
        };
        sum.bytes += stats.iter().map(|s| s.2).sum::<u64>();
        // An empty conversation is a session that yields nothing, as an empty transcript is.
        sum.sessions += read.empty;
        sum.empty += read.empty;
        for i in &read.issues {
            sum.malformed_lines += 1;
            warn(i.clone());
        }
        for e in &read.unreadable {
            sum.unreadable += 1;
            warn(e.clone());
        }
        for id in &read.unchanged {
            sum.sessions += 1;
            sum.unchanged += 1;
            held.insert(agent.doc_id(None, Some(id), ""));
        }
        let file = std::path::PathBuf::from(&key);
        for c in &read.conversations {
            sum.sessions += 1;
            let ckey = format!("{key}#{}", c.id);
            let id = agent.doc_id(None, Some(&c.id), "");
            if !held.insert(id.clone()) {
                // An earlier store of the run has it (stores are read databases first).
                sum.held_elsewhere += 1;
                continue;
            }
            let same = opts.only_new
                && state
                    .as_ref()
                    .and_then(|st| st.entry(&ckey))
                    .is_some_and(|e| e.fingerprint == c.fingerprint);
            if same {
                sum.unchanged += 1;
                continue;
            }
            let Some(doc) = crate::many::to_doc(agent, &file, c, opts.redact) else {
                sum.do_not_index += 1;
                continue;
            };
            emit(sink, &doc, sum, queued, &opts.purged)?;
            if let Some(st) = state.as_mut() {
                st.record_key(
                    ckey,
                    state::Entry {
                        files: Vec::new(),
                        fingerprint: c.fingerprint.clone(),
                        id: doc.id.clone(),
                    },
                );
                dirty = true;
            }
        }
        // A store read in part is read again next time, not skipped as unchanged.
        if let Some(st) = state.as_mut().filter(|_| read.unreadable.is_empty()) {
            st.record_key(
                key.clone(),
                state::Entry {
                    files: stats,
                    fingerprint: String::new(),
                    id: String::new(),
                },
            );
            dirty = true;
        }
    }
    Ok(dirty)
}

/// Write `doc`, count it and its redactions, queue its id — unless its session was purged.
fn emit(
    sink: &mut Sink<'_>,
    doc: &Doc,
    sum: &mut Summary,
    queued: &mut Vec<String>,
    purged: &brain_store::purged::Purged,
) -> Result<(), RunError> {
    if purged.holds(doc) {
        sum.purged += 1;
        return Ok(());
    }
    sum.redactions += doc
        .meta
        .get("redactions")
        .and_then(serde_json::Value::as_u64)
        .unwrap_or(0);
    write_doc(sink, doc)?;
    sum.documents += 1;
    queued.push(doc.id.clone());
    Ok(())
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
    /// a state file or output that cannot be read or written is internal (99).
    fn code(&self) -> brain_doc::ErrorCode {
        match self {
            RunError::NoState => brain_doc::ErrorCode::BadQuery,
            RunError::Queue(e) => e.code(),
            RunError::State(_) | RunError::Write(_) => brain_doc::ErrorCode::Internal,
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
