//! The purge (`brain forget --purge`, the privacy exit): every trace of a record removed, in steps
//! that can each be run again, with its intent recorded first ([`brain_store::purged`]) so a purge
//! stopped half-way is finished by the next writer's run ([`finish_pending`]) and `brain doctor`
//! names it until then.
//!
//! The steps, in order: the intent (id and conversation hash, `pending`); the record's entries in
//! the index queue; its passages, with the segments that held them merged so the text leaves the
//! index files (under the index lock, so no walk indexes the file again meanwhile); its file; its
//! vectors (a new store generation without its chunk text); its reads and listings; its clicks and
//! the query text of queries that listed it in the usage log; then the purge is marked done.

use std::path::{Path, PathBuf};
use std::time::Duration;

use brain_doc::Classified;
use brain_doc::ErrorCode;
use brain_store::{Config, Home};

/// Why a purge could not finish (what was done before stays done; running it again goes on).
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct PurgeError {
    /// The exit-code class.
    pub code: ErrorCode,
    /// What failed.
    pub message: String,
}

impl Classified for PurgeError {
    fn code(&self) -> ErrorCode {
        self.code
    }
}

fn fail(code: ErrorCode) -> impl Fn(String) -> PurgeError {
    move |message| PurgeError { code, message }
}

impl PurgeError {
    /// A library error, its class kept.
    fn of(e: impl Classified) -> PurgeError {
        fail(e.code())(e.to_string())
    }
}

/// What one purge removed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Purged {
    /// The record's id.
    pub id: String,
    /// Its file was deleted by this run (false: it was gone already).
    pub file_deleted: bool,
    /// It was a session: every later conversion of the session is left out.
    pub conversation: bool,
    /// Vector store entries removed.
    pub vectors: usize,
    /// Usage log rows scrubbed.
    pub log_rows: usize,
    /// What became of it in each team engine it was shared with (docs/team.md), said in full.
    pub team: Vec<String>,
}

/// The conversation of the document in `file` (a session's agent and id, hashed), if it is one.
fn conversation(file: &Path) -> Option<String> {
    let text = std::fs::read_to_string(file).ok()?;
    let doc = brain_doc::Doc::from_markdown(&text).ok()?;
    brain_store::purged::conversation_of(&doc)
}

/// The file of record `id` under `config`, when its collection is declared and its path is safe.
fn file_of(config: &Config, id: &str) -> Option<PathBuf> {
    let (collection, rel) = id.split_once('/')?;
    if rel
        .split('/')
        .any(|c| c.is_empty() || c == "." || c == "..")
    {
        return None;
    }
    Some(config.collection_dir(collection)?.join(rel))
}

/// Purge record `id` (its file `file`, or the one its id names): every step above, waiting up to
/// `wait` for a running lexindex or vecindex.
pub fn purge(
    home: &Home,
    config: &Config,
    id: &str,
    file: Option<&Path>,
    wait: Duration,
) -> Result<Purged, PurgeError> {
    let internal = fail(ErrorCode::Internal);
    // A document's reference resolves to the markdown kept of it: its own file is the one to go.
    let document = id
        .split_once('/')
        .is_some_and(|(_, rel)| brain_store::documents::format_of(rel).is_some());
    let file = match document {
        true => file_of(config, id),
        false => file.map(Path::to_path_buf).or_else(|| file_of(config, id)),
    };
    let conversation = file.as_deref().and_then(conversation);
    let mut report = Purged {
        id: id.to_string(),
        conversation: conversation.is_some(),
        ..Purged::default()
    };
    brain_store::purged::begin(home, id, conversation).map_err(PurgeError::of)?;
    brain_lex::queue::forget(home, id).map_err(|e| internal(e.to_string()))?;
    let mut ix = brain_lex::Indexer::open_within(home, false, wait).map_err(PurgeError::of)?;
    ix.purge(id).map_err(PurgeError::of)?;
    if let Some(file) = &file {
        match std::fs::remove_file(file) {
            Ok(()) => report.file_deleted = true,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(internal(format!("{}: {e}", file.display()))),
        }
    }
    // A PDF, a saved page, a DOCX: the markdown doc2md kept of it holds its text too.
    if let Some((collection, rel)) = id.split_once('/')
        && brain_store::documents::format_of(rel).is_some()
    {
        for kept in [
            brain_store::documents::cache_path(home, collection, rel),
            brain_store::documents::failure_path(home, collection, rel),
        ] {
            match std::fs::remove_file(&kept) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                    return Err(internal(format!("{}: {e}", kept.display())));
                }
                _ => {}
            }
        }
    }
    ix.finish().map_err(PurgeError::of)?;
    report.vectors = brain_vec::index::forget(home, &[id], wait).map_err(PurgeError::of)?;
    report.team = forget_in_team(home, config, id).map_err(PurgeError::of)?;
    brain_store::access::forget(home, &[id]).map_err(PurgeError::of)?;
    report.log_rows = brain_store::telemetry::clicks::scrub_docid(home, &brain_doc::docid(id))
        .map_err(|e| internal(format!("{}: {e}", home.usage_log().display())))?;
    brain_store::purged::done(home, id).map_err(PurgeError::of)?;
    Ok(report)
}

/// Delete record `id` from every team engine of brain.yaml that its collection is shared with (or
/// that this home remembers sending it to): deleted, or spooled when the engine is unreachable.
fn forget_in_team(
    home: &Home,
    config: &Config,
    id: &str,
) -> Result<Vec<String>, brain_team::TeamError> {
    let Some(team) = &config.team else {
        return Ok(Vec::new());
    };
    let collection = id.split('/').next().unwrap_or_default();
    let mut said = Vec::new();
    for name in team.engines.keys() {
        let engine = brain_team::home::connect(
            Some(config),
            Some(name),
            None,
            brain_team::client::DEFAULT_TIMEOUT,
        )?;
        let state = home.team_state(&brain_team::sink::state_key(&engine));
        let was_sent = match brain_team::sink::sent(&state) {
            Ok(sent) => sent.contains_key(id),
            // Unknown: the delete goes out (deleting what is not there changes nothing).
            Err(brain_team::TeamError::Damaged { .. }) => true,
            Err(e) => return Err(e),
        };
        if !was_sent && !team.shared.iter().any(|s| s == collection) {
            continue;
        }
        let at = format!("{} (index {})", engine.url(), engine.index());
        said.push(match brain_team::sink::forget(&state, &engine, id)? {
            brain_team::sink::Forgotten::Deleted => format!("deleted from the team engine {at}"),
            brain_team::sink::Forgotten::Spooled(why) => format!(
                "{why}: its delete waits in the spool, and the next teamindex run sends it to {at}"
            ),
        });
    }
    Ok(said)
}

/// Finish every purge that was stopped before its end (what every writer runs first). Returns the
/// purges finished.
pub fn finish_pending(home: &Home, wait: Duration) -> Result<Vec<Purged>, PurgeError> {
    let purged = brain_store::purged::Purged::load(home).map_err(PurgeError::of)?;
    let pending: Vec<String> = purged
        .pending()
        .iter()
        .filter_map(|p| p.id.clone())
        .collect();
    if pending.is_empty() {
        return Ok(Vec::new());
    }
    let config = Config::load(home).map_err(PurgeError::of)?;
    pending
        .iter()
        .map(|id| purge(home, &config, id, None, wait))
        .collect()
}

/// [`finish_pending`] as a writer's run does it first: without waiting for a lock (a purge that
/// cannot finish now stays pending for the next run, and `brain doctor` names it), each purge
/// finished or left said through `say`.
pub fn finish_pending_quietly(home: &Home, say: &dyn Fn(String)) {
    match finish_pending(home, Duration::ZERO) {
        Ok(done) => {
            for p in done {
                say(format!(
                    "finished the purge of {} that was stopped before its end",
                    p.id
                ));
            }
        }
        Err(e) => say(format!(
            "a purge stopped before its end is still pending ({e}); the next writer's run finishes it"
        )),
    }
}
