//! `brain extract` (issue 40, "facts that keep themselves current"): after distillation, each
//! session's keyed records — decisions, facts, preferences, rejected approaches, failed commands —
//! written as markdown files under the distilled collection's `records/` folder, each consolidated
//! against what is there (ADD / SUPERSEDE / NOOP / CONFLICT, [`consolidate`]) and logged with its
//! reason (`logs/extract.jsonl`), then indexed.
//!
//! Two paths, and the summary says which ran:
//! * **model** — the user's LLM command (as for `brain distill`) answers a versioned prompt per
//!   distilled session ([`answer`]); an answer is checked whole, and a malformed one writes
//!   nothing and is reported. A session's answer is asked for once per prompt version and
//!   artifact (`state/extract.json`), unless `--all`.
//! * **deterministic** — no command: the artifacts' "Key Decisions" and "What Was Rejected"
//!   bullets, and the sessions' failed shell commands ([`find`]).
//!
//! Every text is redacted before it is written; a key never becomes a path as given; the same
//! record extracted twice is the same file, so running again changes nothing.

pub mod answer;
mod ask;
pub mod consolidate;
pub mod find;
pub mod record;
pub mod said;
mod sessions;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use brain_doc::{Doc, ErrorCode, markdown};
use brain_store::{Config, Home, Lock, LockError};
use serde::Serialize;
use serde_json::{Map, Value};

use crate::queue::files_by_stem;
use brain_exec::Runner;
use consolidate::{Decision, Existing, Known};
use record::{Extracted, Links, Origin};

/// The folder of the distilled collection the records are written under.
pub const RECORDS_DIR: &str = "records";

/// How to extract.
pub struct Options {
    /// The LLM command; `None`: the deterministic path.
    pub runner: Option<Runner>,
    /// Stamped as `extracted_by` (the model path; the other says `deterministic`).
    pub label: String,
    /// Commands at a time.
    pub jobs: usize,
    /// Characters of session body per prompt.
    pub budget: usize,
    /// Ask the model again for sessions already extracted with this prompt version.
    pub all: bool,
    /// At most this many sessions this run (the model path).
    pub limit: Option<usize>,
    /// Read only these documents (`collection/path`; the Stop hook's sessions), not every
    /// collection's changes.
    pub only: Option<std::collections::HashSet<String>>,
    /// The telemetry surface.
    pub surface: String,
}

/// A run's counts.
#[derive(Debug, Default, Clone, Serialize)]
pub struct Summary {
    /// `model` or `deterministic`.
    pub path: &'static str,
    /// Documents read (artifacts, and sessions for failed commands).
    pub sources: u64,
    /// Records found, by type.
    pub by_type: BTreeMap<String, u64>,
    /// Decisions, by name (`add`, `supersede`, `noop`, `conflict`).
    pub by_decision: BTreeMap<String, u64>,
    /// Answers refused as malformed (nothing of them written).
    pub malformed: u64,
    /// Commands that failed or timed out.
    pub failed: u64,
    /// Of `failed`: killed at the timeout.
    pub timeouts: u64,
    /// Records written.
    pub written: u64,
    /// Records indexed.
    pub indexed: u64,
}

impl Summary {
    /// One line for stderr.
    pub fn line(&self) -> String {
        let d = |k: &str| self.by_decision.get(k).copied().unwrap_or(0);
        format!(
            "{} path: {} sources; {} added / {} superseded / {} unchanged / {} conflicts; {} malformed answers, {} failed commands; {} written, {} indexed",
            self.path,
            self.sources,
            d("add"),
            d("supersede"),
            d("noop"),
            d("conflict"),
            self.malformed,
            self.failed,
            self.written,
            self.indexed
        )
    }
}

impl Summary {
    /// The exit class of a run with problems: a command that timed out (66), one that failed
    /// otherwise (65: missing or unusable), a malformed answer (64); `None` when all went well.
    pub fn failure_code(&self) -> Option<ErrorCode> {
        match () {
            _ if self.timeouts > 0 => Some(ErrorCode::Timeout),
            _ if self.failed > 0 => Some(ErrorCode::IndexMissing),
            _ if self.malformed > 0 => Some(ErrorCode::BadQuery),
            _ => None,
        }
    }
}

/// One decision, as printed (NDJSON) and logged.
#[derive(Debug, Clone, Serialize)]
pub struct Logged {
    /// Always `"extract"`.
    pub kind: &'static str,
    pub decision: Decision,
    pub reason: String,
    /// The record's id (written unless the decision is NOOP).
    pub record: String,
    /// The key as written (`project:key`).
    pub key: String,
    #[serde(rename = "type")]
    pub record_type: String,
    pub statement: String,
    /// The session it came from, and the line it was read at.
    pub session: String,
    pub source: String,
    /// The records it supersedes, contradicts or repeats.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub against: Vec<String>,
}

/// Why a run stopped.
#[derive(Debug, thiserror::Error)]
pub enum ExtractError {
    #[error(transparent)]
    Config(#[from] brain_store::ConfigError),
    #[error(transparent)]
    Lock(#[from] LockError),
    #[error("no collection of role `distilled` in brain.yaml: records are written under it")]
    NoCollection,
    #[error("writing {path}: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("writing the output: {0}")]
    Emit(std::io::Error),
}

impl brain_doc::Classified for ExtractError {
    fn code(&self) -> ErrorCode {
        match self {
            ExtractError::Config(e) => e.code(),
            ExtractError::Lock(e) => e.code(),
            ExtractError::NoCollection => ErrorCode::IndexMissing,
            ExtractError::Write { .. } | ExtractError::Emit(_) => ErrorCode::Internal,
        }
    }

    fn fix(&self) -> String {
        match self {
            ExtractError::Config(e) => e.fix(),
            ExtractError::Lock(_) => "another `brain extract` is running; try again".into(),
            ExtractError::NoCollection => {
                "add the built-in collection back: `brain collection add distilled …`".into()
            }
            _ => String::new(),
        }
    }
}

/// A source document and its records, before consolidation.
struct Found {
    origin: Origin,
    records: Vec<Extracted>,
}

/// Frontmatter facts of a document: (session id, project, date, confidence).
fn facts(fm: &Map<String, Value>) -> (String, Option<String>, String, f64) {
    let s = |k: &str| fm.get(k).and_then(Value::as_str).map(str::to_string);
    let confidence = brain_doc::memory::Memory::read(fm, None)
        .0
        .confidence
        .unwrap_or(0.7);
    (
        s("session_id").unwrap_or_default(),
        s("project").filter(|p| !p.is_empty()),
        s("date")
            .or_else(|| fm.get("date").map(|d| d.to_string()))
            .unwrap_or_default(),
        confidence,
    )
}

/// `(uri, text, frontmatter)` of a file of `collection` at `dir`, or `None` (`warn`).
fn read_doc(
    collection: &str,
    dir: &Path,
    file: &Path,
    warn: &dyn Fn(String),
) -> Option<(String, String, Map<String, Value>)> {
    let rel = file
        .strip_prefix(dir)
        .ok()?
        .to_string_lossy()
        .replace('\\', "/");
    let text = match std::fs::read(file) {
        Ok(b) => brain_doc::bytes::text(&b).0.into_owned(),
        Err(e) => {
            warn(format!("{}: {e}", file.display()));
            return None;
        }
    };
    let fm = match markdown::split(&text) {
        Ok((Some(fm), _)) => fm,
        _ => return None,
    };
    Some((format!("brain://{collection}/{rel}"), text, fm))
}

/// Extract, consolidate, write, index. `emit` sees each decision; per-source problems go to `warn`.
pub fn run(
    home: &Home,
    opts: &Options,
    warn: &dyn Fn(String),
    progress: &dyn Fn(u64, u64),
    emit: &mut dyn FnMut(&Logged) -> std::io::Result<()>,
) -> Result<Summary, ExtractError> {
    let started = std::time::Instant::now();
    let _lock = Lock::try_acquire(&home.lock_file("extract"))?;
    let config = Config::load(home)?;
    let coll = config
        .collections
        .iter()
        .find(|c| c.role == brain_store::para::ROLE_DISTILLED)
        .ok_or(ExtractError::NoCollection)?;
    let coll_dir = config.resolve(&coll.path);
    let records_dir = coll_dir.join(RECORDS_DIR);
    let mut summary = Summary {
        path: if opts.runner.is_some() {
            "model"
        } else {
            "deterministic"
        },
        ..Summary::default()
    };
    let version = answer::version();
    let mut read = sessions::State::load(home, warn);
    let paths = Paths {
        config: &config,
        collection: &coll.name,
        dir: &coll_dir,
        records: &records_dir,
    };
    let mut found = gather(
        home,
        &paths,
        opts,
        &mut read,
        &version,
        &mut summary,
        warn,
        progress,
    );
    summary.sources = found.len() as u64;
    // Oldest first: a later session's record supersedes an earlier one, never the other way.
    found.sort_by(|a, b| {
        (a.origin.date.as_str(), a.origin.session.as_str())
            .cmp(&(b.origin.date.as_str(), b.origin.session.as_str()))
    });
    let by = match &opts.runner {
        Some(_) => opts.label.as_str(),
        None => "deterministic",
    };
    let mut c = Consolidation {
        collection: &coll.name,
        dir: &coll_dir,
        // The records already written are read one subject's folder at a time, as records of
        // that subject are decided.
        known: Known::lazy(&records_dir, &coll.name, RECORDS_DIR),
        warn,
        by,
        version: &version,
        written: Vec::new(),
        log: Vec::new(),
    };
    for f in &found {
        for e in &f.records {
            c.take(f, e, &mut summary, emit)?;
        }
    }
    summary.indexed = crate::distill::index(home, &c.written, warn);
    write_log(home, &c.log, warn);
    // Only once their records are written: a run that stopped reads the same sessions again.
    read.save(home, warn);
    let mut row = Map::new();
    row.insert("path".into(), Value::from(summary.path));
    row.insert("written".into(), Value::from(summary.written));
    row.insert("malformed".into(), Value::from(summary.malformed));
    row.insert(
        "latency_ms".into(),
        Value::from(started.elapsed().as_millis() as u64),
    );
    // Telemetry never breaks the run it records.
    let _ = brain_store::telemetry::append(home, &opts.surface, "extract", row);
    Ok(summary)
}

/// Where the records are read from and written to.
struct Paths<'a> {
    config: &'a Config,
    /// The distilled collection, its folder, and its records folder.
    collection: &'a str,
    dir: &'a Path,
    records: &'a Path,
}

/// What this run decides: the sessions new or changed since their last read (their tool notes
/// and what was said), and the artifacts — new or changed ones' bullets without a model, every
/// one not asked at this prompt version with one.
#[allow(clippy::too_many_arguments)]
fn gather(
    home: &Home,
    p: &Paths<'_>,
    opts: &Options,
    read: &mut sessions::State,
    version: &str,
    summary: &mut Summary,
    warn: &dyn Fn(String),
    progress: &dyn Fn(u64, u64),
) -> Vec<Found> {
    let which = sessions::Which {
        all: opts.all,
        only: opts.only.as_ref(),
    };
    let mut found = sessions::read(p.config, read, &which, warn);
    found.extend(match &opts.runner {
        None => from_artifacts(&sessions::artifacts(
            p.config, p.records, read, &which, warn,
        )),
        // The model is asked about each artifact not asked at this prompt version (ask.rs keeps
        // which): every artifact is read to know.
        Some(runner) => {
            let artifacts: Vec<(String, String, Map<String, Value>)> =
                files_by_stem(p.config, brain_store::para::ROLE_DISTILLED)
                    .into_values()
                    .filter(|f| !f.starts_with(p.records))
                    .filter_map(|f| read_doc(p.collection, p.dir, &f, warn))
                    .filter(|(_, _, fm)| fm.get("session_id").is_some())
                    .collect();
            ask::model(
                home, p.config, runner, opts, &artifacts, version, summary, warn, progress,
            )
        }
    });
    found
}

/// Where records go as they are decided: the collection, the records already there (and those
/// written this run), and the decisions made.
struct Consolidation<'a> {
    collection: &'a str,
    dir: &'a Path,
    known: Known,
    /// `extracted_by`.
    by: &'a str,
    /// `extract_version`.
    version: &'a str,
    warn: &'a dyn Fn(String),
    written: Vec<Doc>,
    log: Vec<Logged>,
}

impl Consolidation<'_> {
    /// Decide record `e` of source `f`, report the decision (`emit`), and write the record unless
    /// the decision is NOOP.
    fn take(
        &mut self,
        f: &Found,
        e: &Extracted,
        summary: &mut Summary,
        emit: &mut dyn FnMut(&Logged) -> std::io::Result<()>,
    ) -> Result<(), ExtractError> {
        *summary.by_type.entry(e.kind.clone()).or_default() += 1;
        let subject = record::subject(e, &f.origin);
        let path = record_path(e, &f.origin);
        let id = format!("{}/{path}", self.collection);
        if let Some(rel) = path.strip_prefix(&format!("{RECORDS_DIR}/")) {
            self.known.load(rel, self.warn);
        }
        let (decision, reason, against) =
            consolidate::decide(&self.known, &subject, &id, e, &f.origin.session);
        *summary
            .by_decision
            .entry(decision.name().into())
            .or_default() += 1;
        let logged = Logged {
            kind: "extract",
            decision,
            reason,
            record: id.clone(),
            key: subject.clone(),
            record_type: e.kind.clone(),
            statement: e.statement.clone(),
            session: f.origin.session.clone(),
            source: format!("{}:{}", f.origin.uri, e.line),
            against: against.clone(),
        };
        emit(&logged).map_err(ExtractError::Emit)?;
        self.log.push(logged);
        if decision == Decision::Noop {
            return Ok(());
        }
        let links = Links {
            keyed: decision != Decision::Conflict,
            supersedes: if decision == Decision::Supersede {
                against.clone()
            } else {
                Vec::new()
            },
            contradicts: (decision == Decision::Conflict)
                .then(|| against.first().cloned())
                .flatten(),
        };
        let doc = record::to_doc(
            e,
            &f.origin,
            self.collection,
            &path,
            &links,
            self.by,
            self.version,
        );
        let file = self.dir.join(&path);
        brain_store::partition::write(&doc, &file).map_err(|source| ExtractError::Write {
            path: file.clone(),
            source,
        })?;
        self.known.add(
            subject,
            Existing {
                id,
                keyed: links.keyed,
                occurred_at: e.occurred_at.clone(),
                session: f.origin.session.clone(),
                statement: e.statement.clone(),
                supersedes: links.supersedes,
                archived: false,
            },
        );
        summary.written += 1;
        self.written.push(doc);
        Ok(())
    }
}

/// Where record `e` of `origin` is written in the collection:
/// `records/<project folder>/<key>/<day>-<hash>.md` (`_` without a project).
fn record_path(e: &Extracted, origin: &Origin) -> String {
    let project = origin
        .project
        .as_deref()
        .and_then(|p| p.rsplit(['/', '\\']).find(|s| !s.is_empty()))
        .map(brain_store::partition::safe_component)
        .filter(|p| !p.is_empty())
        .unwrap_or_else(|| "_".into());
    format!(
        "{RECORDS_DIR}/{project}/{}/{}.md",
        brain_store::partition::safe_component(&e.key),
        record::file_stem(e, origin)
    )
}

/// Append the run's decisions to `logs/extract.jsonl` (each row stamped `ts`); a log that cannot
/// be written is a warning (the records are on disk, and the decisions were printed).
fn write_log(home: &Home, log: &[Logged], warn: &dyn Fn(String)) {
    let ts = jiff::Timestamp::now().to_string();
    let rows: Vec<Map<String, Value>> = log
        .iter()
        .filter_map(|l| match serde_json::to_value(l) {
            Ok(Value::Object(mut m)) => {
                m.insert("ts".into(), Value::from(ts.clone()));
                Some(m)
            }
            _ => None,
        })
        .collect();
    if let Err(e) = brain_store::telemetry::append_rows_to(
        &home.root().join("logs").join("extract.jsonl"),
        brain_store::telemetry::MAX_BYTES,
        &rows,
    ) {
        warn(format!("the decision log was not written: {e}"));
    }
}

/// The deterministic path's artifacts: their "Key Decisions" and "What Was Rejected" bullets.
fn from_artifacts(artifacts: &[(String, String, Map<String, Value>)]) -> Vec<Found> {
    artifacts
        .iter()
        .map(|(uri, text, fm)| {
            let (session, project, date, confidence) = facts(fm);
            let records = find::from_artifact(text, &date, confidence);
            Found {
                origin: Origin {
                    session,
                    project,
                    date,
                    uri: uri.clone(),
                },
                records,
            }
        })
        .collect()
}
