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
pub mod consolidate;
pub mod find;
pub mod record;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use brain_doc::{Doc, ErrorCode, markdown};
use brain_store::{Config, Home, Lock, LockError};
use serde::Serialize;
use serde_json::{Map, Value};

use crate::queue::files_by_stem;
use brain_exec::{RunError, Runner, run_all};
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
            ExtractError::Config(_) => ErrorCode::BadQuery,
            ExtractError::Lock(_) => ErrorCode::Locked,
            ExtractError::NoCollection => ErrorCode::IndexMissing,
            ExtractError::Write { .. } | ExtractError::Emit(_) => ErrorCode::Internal,
        }
    }

    fn fix(&self) -> String {
        match self {
            ExtractError::Config(_) => "fix brain.yaml (`brain doctor` says where)".into(),
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
        .find(|c| c.role == "distilled")
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
    let artifacts: Vec<(String, String, Map<String, Value>)> = files_by_stem(&config, "distilled")
        .into_values()
        .filter(|f| !f.starts_with(&records_dir))
        .filter_map(|f| read_doc(&coll.name, &coll_dir, &f, warn))
        .filter(|(_, _, fm)| fm.get("session_id").is_some())
        .collect();
    let version = answer::version();
    let mut found = match &opts.runner {
        None => deterministic(&config, &artifacts, warn),
        Some(runner) => model(
            home,
            &config,
            runner,
            opts,
            &artifacts,
            &version,
            &mut summary,
            warn,
            progress,
        ),
    };
    summary.sources = found.len() as u64;
    // Oldest first: a later session's record supersedes an earlier one, never the other way.
    found.sort_by(|a, b| {
        (a.origin.date.as_str(), a.origin.session.as_str())
            .cmp(&(b.origin.date.as_str(), b.origin.session.as_str()))
    });
    let mut known = Known::read(&records_dir, &coll.name, RECORDS_DIR, warn);
    let by = match &opts.runner {
        Some(_) => opts.label.as_str(),
        None => "deterministic",
    };
    let mut written: Vec<Doc> = Vec::new();
    let mut log = Vec::new();
    for f in &found {
        for e in &f.records {
            *summary.by_type.entry(e.kind.clone()).or_default() += 1;
            let subject = record::subject(e, &f.origin);
            let project = f
                .origin
                .project
                .as_deref()
                .and_then(|p| p.rsplit(['/', '\\']).find(|s| !s.is_empty()))
                .map(brain_store::partition::safe_component)
                .filter(|p| !p.is_empty())
                .unwrap_or_else(|| "_".into());
            let path = format!(
                "{RECORDS_DIR}/{project}/{}/{}.md",
                brain_store::partition::safe_component(&e.key),
                record::file_stem(e, &f.origin)
            );
            let id = format!("{}/{path}", coll.name);
            let (decision, reason, against) =
                consolidate::decide(&known, &subject, &id, e, &f.origin.session);
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
            log.push(logged);
            if decision == Decision::Noop {
                continue;
            }
            let links = Links {
                keyed: decision != Decision::Conflict,
                supersedes: if decision == Decision::Supersede {
                    against.clone()
                } else {
                    Vec::new()
                },
                contradicts: (decision == Decision::Conflict).then(|| against[0].clone()),
            };
            let doc = record::to_doc(e, &f.origin, &coll.name, &path, &links, by, &version);
            let file = coll_dir.join(&path);
            brain_store::partition::write(&doc, &file).map_err(|source| ExtractError::Write {
                path: file.clone(),
                source,
            })?;
            known.add(
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
            written.push(doc);
        }
    }
    summary.indexed = crate::distill::index(home, &written, warn);
    let rows: Vec<Map<String, Value>> = log
        .iter()
        .filter_map(|l| match serde_json::to_value(l) {
            Ok(Value::Object(mut m)) => {
                m.insert("ts".into(), Value::from(jiff::Timestamp::now().to_string()));
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
    let mut row = Map::new();
    row.insert("path".into(), Value::from(summary.path));
    row.insert("written".into(), Value::from(summary.written));
    row.insert("malformed".into(), Value::from(summary.malformed));
    row.insert(
        "latency_ms".into(),
        Value::from(started.elapsed().as_millis() as u64),
    );
    let _ = brain_store::telemetry::append(home, &opts.surface, "extract", row);
    Ok(summary)
}

/// The deterministic path: every artifact's bullets, every session's failed commands.
fn deterministic(
    config: &Config,
    artifacts: &[(String, String, Map<String, Value>)],
    warn: &dyn Fn(String),
) -> Vec<Found> {
    let mut out = Vec::new();
    for (uri, text, fm) in artifacts {
        let (session, project, date, confidence) = facts(fm);
        let records = find::from_artifact(text, &date, confidence);
        out.push(Found {
            origin: Origin {
                session,
                project,
                date,
                uri: uri.clone(),
            },
            records,
        });
    }
    for c in config.collections.iter().filter(|c| c.role == "sessions") {
        let dir = config.resolve(&c.path);
        for file in files_by_stem(config, "sessions")
            .into_values()
            .filter(|f| f.starts_with(&dir))
        {
            let Some((uri, text, fm)) = read_doc(&c.name, &dir, &file, warn) else {
                continue;
            };
            if !text.contains("**Note**: Tool error (") {
                continue;
            }
            let (session, project, date, _) = facts(&fm);
            let records = find::failed_commands(&text, &date);
            if records.is_empty() {
                continue;
            }
            out.push(Found {
                origin: Origin {
                    session,
                    project,
                    date,
                    uri,
                },
                records,
            });
        }
    }
    out
}

/// What was asked of the model before: artifact id → sha256 of the artifact, per prompt version.
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
struct Asked {
    version: String,
    done: BTreeMap<String, String>,
}

/// The model path: one prompt per distilled session not yet asked at this version.
#[allow(clippy::too_many_arguments)]
fn model(
    home: &Home,
    config: &Config,
    runner: &Runner,
    opts: &Options,
    artifacts: &[(String, String, Map<String, Value>)],
    version: &str,
    summary: &mut Summary,
    warn: &dyn Fn(String),
    progress: &dyn Fn(u64, u64),
) -> Vec<Found> {
    let state = home.state_file("extract.json");
    let mut asked: Asked = std::fs::read(&state)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .filter(|a: &Asked| a.version == version)
        .unwrap_or_else(|| Asked {
            version: version.to_string(),
            done: BTreeMap::new(),
        });
    let sessions = files_by_stem(config, "sessions");
    let mut jobs = Vec::new();
    for (uri, text, fm) in artifacts {
        let sha = brain_doc::sha256_hex(text.as_bytes());
        if !opts.all && asked.done.get(uri) == Some(&sha) {
            continue;
        }
        let (session, project, date, _) = facts(fm);
        let session_text = fm
            .get("session_doc")
            .and_then(Value::as_str)
            .and_then(|id| id.rsplit('/').next())
            .map(|name| crate::prompt::stem(name).to_string())
            .and_then(|stem| sessions.get(&stem))
            .and_then(|f| std::fs::read(f).ok())
            .map(|b| brain_doc::bytes::text(&b).0.into_owned())
            .unwrap_or_default();
        let body = markdown::split(&session_text)
            .map(|(_, b)| b.to_string())
            .unwrap_or_default();
        let (cut, _) = crate::budget::cut(&body, opts.budget);
        let art_body = markdown::split(text)
            .map(|(_, b)| b.to_string())
            .unwrap_or_default();
        let prompt = answer::prompt(
            &session,
            &date,
            project.as_deref().unwrap_or("(none)"),
            art_body.trim(),
            &cut,
        );
        let lines = text.lines().count() as u64;
        jobs.push((
            uri.clone(),
            sha,
            Origin {
                session,
                project,
                date,
                uri: uri.clone(),
            },
            prompt,
            lines,
        ));
        if opts.limit.is_some_and(|n| jobs.len() >= n) {
            break;
        }
    }
    let total = jobs.len() as u64;
    let mut finished = 0;
    progress(0, total);
    let mut out = Vec::new();
    let work = |job: (String, String, Origin, String, u64)| {
        let env = [
            ("BRAIN_SESSION_ID", job.2.session.as_str()),
            ("BRAIN_PROMPT_VERSION", version),
        ];
        let answer = runner.run(&job.3, &env);
        (job, answer)
    };
    run_all(
        jobs,
        opts.jobs.max(1),
        work,
        |((uri, sha, origin, _, lines), answer): (
            (String, String, Origin, String, u64),
            Result<String, RunError>,
        )| {
            finished += 1;
            progress(finished, total);
            match answer {
                Err(e) => {
                    summary.failed += 1;
                    summary.timeouts += u64::from(matches!(e, RunError::Timeout { .. }));
                    warn(format!("{}: {e}; nothing written", origin.session));
                }
                Ok(a) => match answer::parse(&a, &origin.date, lines) {
                    Err(m) => {
                        summary.malformed += 1;
                        warn(format!(
                            "{}: malformed answer: {m}; nothing written",
                            origin.session
                        ));
                    }
                    Ok(records) => {
                        asked.done.insert(uri, sha);
                        out.push(Found { origin, records });
                    }
                },
            }
        },
    );
    if let Ok(bytes) = serde_json::to_vec_pretty(&asked)
        && let Err(e) = brain_doc::atomic::write(&state, &bytes)
    {
        warn(format!("{}: {e}", state.display()));
    }
    out
}
