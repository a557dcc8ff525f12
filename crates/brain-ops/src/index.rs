//! The index stages' runs, whole: what `lexindex` ([`lex`]) and `vecindex` ([`vec`]) call.
//!
//! Indexing the home is more than the tantivy sync `brain-lex` owns: a purge stopped half-way is
//! finished first, `--all` turns entity facts into records before it walks
//! ([`brain_graph::facts::sync`]) and folds the access log after, and the documents a run removed
//! leave the vector store too. A stdin run that finds the index held past its wait leaves its
//! records in the index queue instead. Embedding likewise finishes a stopped purge, takes the
//! `vecindex` lock, embeds through a model switch ([`brain_vec::switch`]) and records in
//! state.sqlite what the store now holds.

use std::io::BufRead;
use std::path::PathBuf;
use std::time::Duration;

use brain_doc::{Classified, Doc, ErrorCode};
use brain_lex::{Indexer, LexIndex, Summary, SyncError, queue};
use brain_store::{Home, Lock};
use brain_vec::Embedder;
use brain_vec::index::{Input, Options};
use brain_vec::switch::Switched;

/// How long a run that removed documents waits for a running vecindex before leaving their
/// vectors to the next `vecindex --all`.
const VECTOR_WAIT: Duration = Duration::from_secs(2);

/// One `lexindex` run.
#[derive(Debug, Clone, Default)]
pub struct LexRun<'a> {
    /// Every collection as it is on disk (else doc records from the input).
    pub all: bool,
    /// From scratch, built aside and swapped in.
    pub rebuild: bool,
    /// How long to wait for another run holding the index.
    pub wait: Duration,
    /// The collection of input records whose `collection` is null.
    pub collection: Option<&'a str>,
}

/// What a run did.
#[derive(Debug)]
pub enum LexOutcome {
    /// Indexed: the run's summary.
    Indexed(Summary),
    /// Another run held the index past the wait: every input record went into the index queue
    /// (the next run of any writer indexes them).
    Queued {
        summary: Summary,
        /// Why the index could not be taken.
        why: String,
        queue: PathBuf,
    },
}

/// Why a run failed as a whole.
#[derive(Debug, thiserror::Error)]
pub enum LexRunError {
    #[error(transparent)]
    Sync(#[from] SyncError),
    #[error("{why}; and the index queue could not take the records: {source}")]
    Queue { why: String, source: std::io::Error },
    #[error(transparent)]
    Config(#[from] brain_store::ConfigError),
    #[error("reading the input: {0}")]
    Read(std::io::Error),
}

impl Classified for LexRunError {
    fn code(&self) -> ErrorCode {
        match self {
            LexRunError::Sync(e) => e.code(),
            LexRunError::Queue { .. } => ErrorCode::Locked,
            LexRunError::Config(e) => e.code(),
            LexRunError::Read(_) => ErrorCode::Internal,
        }
    }

    fn fix(&self) -> String {
        match self {
            LexRunError::Sync(e) => e.fix(),
            LexRunError::Queue { .. } => {
                "wait for the running lexindex to finish, then run it again".into()
            }
            LexRunError::Config(e) => e.fix(),
            LexRunError::Read(_) => String::new(),
        }
    }
}

/// Bring the lexical index of `home` up to date: with every collection (`run.all`) or with the
/// doc records of `input`. `warn` is told of each record or document skipped; `say` of what the
/// run did along the way (an outdated schema rebuilt, queued records indexed, entity facts made,
/// a memory field that does not read) — a line each, for stderr.
pub fn lex(
    home: &Home,
    run: &LexRun<'_>,
    input: &mut dyn BufRead,
    warn: &dyn Fn(String),
    say: &dyn Fn(String),
) -> Result<LexOutcome, LexRunError> {
    // An index of an older schema is rebuilt by a full run (aside: readers are told to wait).
    let outdated = (run.all && !run.rebuild)
        .then(|| LexIndex::outdated(home))
        .flatten();
    if let Some(found) = &outdated {
        say(format!(
            "the index has schema {found:?}, this build reads schema {}: rebuilding it",
            brain_lex::schema::SCHEMA_VERSION
        ));
    }
    // A purge stopped half-way is finished before anything else is indexed.
    crate::purge::finish_pending_quietly(home, say);
    // Documents are converted before the index lock is taken: a first conversion of a folder of
    // PDFs takes its time, and Stop hooks index meanwhile instead of queueing.
    if run.all
        && let Ok(config) = brain_store::Config::load(home)
    {
        documents(home, &config, warn, say);
    }
    let mut indexer = match Indexer::open_within(home, run.rebuild || outdated.is_some(), run.wait)
    {
        Ok(ix) => ix,
        Err(SyncError::Locked(e)) if !run.all && !run.rebuild => {
            return queue_input(home, run, input, warn, e.to_string());
        }
        Err(e) => return Err(e.into()),
    };
    if run.all {
        facts_then_all(home, &mut indexer, warn, say)?;
    } else {
        index_input(home, run, &mut indexer, input, warn)?;
    }
    let summary = indexer.finish()?;
    if summary.from_queue > 0 {
        say(format!(
            "{} queued records indexed (left by a run that waited for the lock or was stopped)",
            summary.from_queue
        ));
    }
    after(home, run, &summary, warn);
    // A memory field that does not read is the record's problem, not a skipped record.
    for w in &summary.field_warnings {
        say(format!("warning: {w}"));
    }
    Ok(LexOutcome::Indexed(summary))
}

/// What an indexing run leaves to the rest of the home: a document the index no longer holds is
/// no vector hit either; a full run folds what was read into the rehearsal table.
fn after(home: &Home, run: &LexRun<'_>, summary: &Summary, warn: &dyn Fn(String)) {
    let removed: Vec<&str> = summary.removed_ids.iter().map(String::as_str).collect();
    if let Err(e) = brain_vec::index::forget(home, &removed, VECTOR_WAIT) {
        warn(format!(
            "the vectors of {} removed documents stay until `vecindex --all`: {e}",
            removed.len()
        ));
    }
    if run.all
        && let Err(e) = brain_store::access::fold(home)
    {
        warn(format!("folding the access log: {e}"));
    }
}

/// Another run holds the index past the wait: every input record goes into the index queue
/// (durable) for the next run of any writer — the stop hook never drops a session.
fn queue_input(
    home: &Home,
    run: &LexRun<'_>,
    input: &mut dyn BufRead,
    warn: &dyn Fn(String),
    why: String,
) -> Result<LexOutcome, LexRunError> {
    let config = brain_store::Config::load(home)?;
    let queued =
        queue::enqueue_records(home, &config, input, run.collection, warn).map_err(|source| {
            LexRunError::Queue {
                why: why.clone(),
                source,
            }
        })?;
    Ok(LexOutcome::Queued {
        summary: Summary {
            kind: "lexindex_summary".into(),
            queued: queued as u64,
            ..Default::default()
        },
        why,
        queue: queue::path(home),
    })
}

/// `--all`: entity facts turned into records of the inbox first, so the walk indexes them; then
/// every collection walked (its documents were converted before the lock, [`documents`]). The
/// facts' warnings name items of a file, not skipped documents.
fn facts_then_all(
    home: &Home,
    indexer: &mut Indexer,
    warn: &dyn Fn(String),
    say: &dyn Fn(String),
) -> Result<(), SyncError> {
    let said = |w: String| say(format!("warning: {w}"));
    match brain_graph::facts::sync(home, indexer.config(), &said) {
        Ok(e) if e.files > 0 => say(format!(
            "entity facts: {} files, {} facts ({} written, {} removed, {} skipped)",
            e.files, e.facts, e.written, e.removed, e.skipped
        )),
        Ok(_) => {}
        Err(e) => warn(format!("entity facts: {e}")),
    }
    indexer.sync_all(warn)
}

/// The documents collections hold in place (PDF, HTML, DOCX, text) converted where they changed,
/// doc2md's step (`doc2md --collections`), so the walk indexes them; PDFs are parsed in children
/// of doc2md. Nothing is done for collections whose glob takes no documents.
fn documents(
    home: &Home,
    config: &brain_store::Config,
    warn: &dyn Fn(String),
    say: &dyn Fn(String),
) {
    if !config
        .collections
        .iter()
        .any(brain_store::documents::takes_documents)
    {
        return;
    }
    let opts = brain_convert::Options {
        limits: brain_convert::Limits::default(),
        redact: true,
        worker: crate::bins::locate("doc2md"),
    };
    // Each failure is named once, by the walk that then skips the document (with its reason).
    match brain_convert::collections(home, config, &opts, &|_| {}) {
        Ok(s) if s.converted + s.failed + s.removed > 0 => say(format!("documents: {}", s.line())),
        Ok(_) => {}
        Err(e) => warn(format!("documents: {e}")),
    }
}

/// Doc records of `input`, each in the index queue until this run commits: a kill from here on
/// loses nothing.
fn index_input(
    home: &Home,
    run: &LexRun<'_>,
    indexer: &mut Indexer,
    input: &mut dyn BufRead,
    warn: &dyn Fn(String),
) -> Result<(), LexRunError> {
    for item in brain_doc::ndjson::Reader::<_, Doc>::new(input, "<stdin>") {
        match item.map_err(LexRunError::Read)? {
            Ok(doc) => {
                if let Some(e) = queue::Entry::for_doc(indexer.config(), &doc, run.collection)
                    && let Err(err) = queue::append(home, &[e], false)
                {
                    warn(format!("the index queue: {err}"));
                }
                if let Err(reason) = indexer.index_doc(&doc, run.collection)? {
                    warn(format!("<stdin>: {reason}"));
                }
            }
            Err(e) => warn(e.to_string()),
        }
    }
    Ok(())
}

/// Where `vecindex` takes its documents.
pub enum VecSource<'a> {
    /// Every collection of brain.yaml, as `lexindex --all` sees them.
    All,
    /// Doc records, one a line (bad lines warned and skipped).
    Records(&'a mut dyn BufRead),
}

/// Why an embedding run failed as a whole.
#[derive(Debug, thiserror::Error)]
pub enum VecRunError {
    #[error(transparent)]
    Config(#[from] brain_store::ConfigError),
    #[error("reading stdin: {0}")]
    Read(std::io::Error),
    #[error(transparent)]
    Lock(#[from] brain_store::LockError),
    #[error(transparent)]
    Vec(#[from] brain_vec::VecError),
}

impl Classified for VecRunError {
    fn code(&self) -> ErrorCode {
        match self {
            VecRunError::Config(e) => e.code(),
            VecRunError::Read(_) => ErrorCode::Internal,
            VecRunError::Lock(e) => e.code(),
            VecRunError::Vec(e) => e.code(),
        }
    }

    fn fix(&self) -> String {
        match self {
            VecRunError::Config(e) => e.fix(),
            VecRunError::Read(_) => String::new(),
            VecRunError::Lock(e) => e.fix(),
            VecRunError::Vec(e) => e.fix(),
        }
    }
}

/// The documents `source` holds, as vecindex embeds them.
pub fn vec_inputs(
    home: &Home,
    source: VecSource<'_>,
    warn: &dyn Fn(String),
) -> Result<Vec<Input>, VecRunError> {
    match source {
        VecSource::All => {
            let config = brain_store::Config::load(home)?;
            Ok(brain_vec::corpus::read(&config, warn))
        }
        VecSource::Records(r) => {
            brain_vec::stage::read_inputs(r, "<stdin>", warn).map_err(VecRunError::Read)
        }
    }
}

/// What an embedding run did: the store's report and the switch's moves, and whether state.sqlite
/// recorded what the store now holds (`Err`: the vectors are written, the registry does not say
/// so — the run fails after its summary).
pub struct VecOutcome {
    pub switched: Switched,
    pub recorded: Result<(), String>,
}

/// Bring the vectors of `home` up to date with `embedder` over the documents of `source`: a purge
/// stopped half-way finished first (`say` tells of it), under the `vecindex` lock, through a model
/// switch; `progress(done, of)` as documents finish.
pub fn vec(
    home: &Home,
    embedder: &dyn Embedder,
    source: VecSource<'_>,
    opts: &Options,
    warn: &dyn Fn(String),
    progress: &dyn Fn(usize, usize),
    say: &dyn Fn(String),
) -> Result<VecOutcome, VecRunError> {
    // A purge stopped half-way is finished first (its vectors go with it).
    crate::purge::finish_pending_quietly(home, say);
    let _lock = Lock::try_acquire(&home.lock_file("vecindex"))?;
    let inputs = vec_inputs(home, source, warn)?;
    let dir = home.vectors();
    let of = inputs.len();
    let switched = brain_vec::switch::update(&dir, embedder, &inputs, opts, &|n| progress(n, of))?;
    // The vectors are written; the registry must say so, or every later run and `brain status`
    // counts them as a backlog.
    let recorded = brain_vec::stage::record_freshness(home, &dir, &inputs);
    Ok(VecOutcome { switched, recorded })
}
