//! One capture: check, sanitize, append under the inbox lock, index the day file, log the action.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use brain_doc::Classified;
use brain_doc::ErrorCode;
use brain_store::telemetry::{self, Surface};
use brain_store::{Config, ConfigError, Home, Lock, LockError};
use jiff::Zoned;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::dayfile::{self, Entry, EntryType};
use crate::guard::{self, Noise, Refusal};
use crate::sanitize;

/// Longest entry text, in bytes after cleaning: 64 KiB (four times the large-paste gate).
pub const MAX_BYTES: usize = 64 * 1024;
/// Default wait for the inbox lock before giving up with exit 70: other writers hold it for one
/// read and one atomic write, milliseconds each, so ten seconds means something is stuck.
pub const LOCK_WAIT: Duration = Duration::from_secs(10);
/// Default wait for the lexical index lock; past it the entry stays written and unindexed until the
/// next `lexindex --all` (a warning says so).
pub const INDEX_WAIT: Duration = Duration::from_secs(10);
/// The collection the inbox is.
pub const COLLECTION: &str = brain_store::INBOX;

/// What to capture, and how.
#[derive(Debug, Clone)]
pub struct Capture {
    /// The entry text, raw (it is cleaned and escaped here).
    pub text: String,
    pub kind: EntryType,
    /// Raw tag values, each possibly comma-separated.
    pub tags: Vec<String>,
    pub project: Option<String>,
    /// Store derivable noise anyway (never secrets).
    pub force: bool,
    /// Who asks: `cli`, `mcp`, … (the telemetry row's surface).
    pub surface: Surface,
    /// The capture time: picks the day file and stamps the entry.
    pub now: Zoned,
    /// Bounded wait for the inbox lock (contention past it: exit 70).
    pub lock_wait: Duration,
    /// Index the day file right away.
    pub index: bool,
    /// Bounded wait for the lexical index lock.
    pub index_wait: Duration,
    /// Memory fields: when any is given, the entry is a record of its own (crate::record).
    pub record: crate::record::RecordFields,
}

impl Capture {
    /// A note of `text` at `now`, from the CLI, with the default waits.
    pub fn new(text: impl Into<String>, now: Zoned) -> Capture {
        Capture {
            text: text.into(),
            kind: EntryType::Note,
            tags: Vec::new(),
            project: None,
            force: false,
            surface: Surface::Cli,
            now,
            lock_wait: LOCK_WAIT,
            index: true,
            index_wait: INDEX_WAIT,
            record: Default::default(),
        }
    }
}

/// A written entry: the record `brain inbox --json` prints and the MCP `remember` tool returns.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Captured {
    /// Always `"inbox_entry"`.
    pub kind: String,
    /// `YYYYMMDD-NNN`.
    pub entry_id: String,
    /// `brain://inbox/YYYY-MM-DD.md`.
    pub uri: String,
    /// The day file, absolute.
    pub path: String,
    /// 1-based line of the entry header (`brain get <uri>:<line>`).
    pub line: u64,
    #[serde(rename = "type")]
    pub entry_type: EntryType,
    /// RFC 3339 with offset.
    pub time: String,
    pub tags: Vec<String>,
    pub project: Option<String>,
    /// Bytes of the stored text.
    pub bytes: usize,
    /// Whether the day file is already in the lexical index.
    pub indexed: bool,
    /// Anything the caller should know (not indexed yet, and why).
    pub warnings: Vec<String>,
}

/// Why nothing was captured.
#[derive(Debug, thiserror::Error)]
pub enum InboxError {
    #[error("nothing to capture: the text is empty")]
    Empty,
    #[error("the entry is too long ({bytes} bytes > {max}); nothing was written")]
    TooLong { bytes: usize, max: usize },
    #[error("refused: {0}; nothing was written")]
    Refused(Refusal),
    #[error("gated: the entry {0}; nothing was written")]
    Noise(Noise),
    #[error(transparent)]
    Lock(#[from] LockError),
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error("{0}; nothing was written")]
    BadField(String),
    #[error("--supersedes `{0}` names no record; nothing was written")]
    NoTarget(String),
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

impl InboxError {
    /// The machine reason of a refusal (`secret`, `code_dump`, …), if it is one.
    pub fn reason(&self) -> Option<&'static str> {
        match self {
            InboxError::Refused(r) => Some(r.reason()),
            InboxError::Noise(n) => Some(n.reason()),
            _ => None,
        }
    }
}

impl brain_doc::Classified for InboxError {
    /// The exit-code class: 64 empty, too long or bad brain.yaml; 71 refused or gated; 70 lock held.
    fn code(&self) -> ErrorCode {
        match self {
            InboxError::Empty
            | InboxError::TooLong { .. }
            | InboxError::BadField(_)
            | InboxError::NoTarget(_) => ErrorCode::BadQuery,
            InboxError::Config(e) => e.code(),
            InboxError::Refused(_) | InboxError::Noise(_) => ErrorCode::Refused,
            InboxError::Lock(e) => e.code(),
            InboxError::Io { .. } => ErrorCode::Internal,
        }
    }

    /// What to do about it.
    fn fix(&self) -> String {
        let fix: &str = {
            match self {
                InboxError::Empty => {
                    "give the text as an argument or on stdin: brain inbox \"what you want to remember\""
                }
                InboxError::TooLong { .. } => {
                    "capture the gist; put a whole document into a collection folder instead"
                }
                InboxError::Refused(Refusal::Secret(_)) => {
                    "remove the secret (the inbox never stores one) and capture again"
                }
                InboxError::Refused(Refusal::Private) => {
                    "remove the <private> span and capture again"
                }
                InboxError::Refused(Refusal::DoNotIndex) => {
                    "remove the brain:do-not-index marker, or keep this out of the brain"
                }
                InboxError::Noise(_) => {
                    "capture what you concluded from it instead, or pass --force to store it as it is"
                }
                InboxError::Lock(LockError::Held { .. }) => {
                    "another capture is writing the inbox; try again, or wait longer (--wait)"
                }
                InboxError::Config(e) => return e.fix(),
                InboxError::BadField(_) => {
                    "importance is 1-5, dates are YYYY-MM-DD or RFC 3339, ttl like 7d, 12h, 2w, 3mo, 1y (docs/FORMATS.md)"
                }
                InboxError::NoTarget(_) => {
                    "name an existing record by its collection/path (or brain://collection/path), as `brain ask` shows it"
                }
                InboxError::Lock(_) | InboxError::Io { .. } => "",
            }
        };
        fix.into()
    }
}

/// Capture `req` into the inbox of `home` and log one telemetry row (`inbox_write`, or
/// `inbox_refused` for a refusal; failures carry their `error` class).
pub fn capture(home: &Home, req: &Capture) -> Result<Captured, InboxError> {
    let started = Instant::now();
    let result = write(home, req);
    let mut row = Map::new();
    let event = match &result {
        Ok(c) => {
            row.insert("entry_id".into(), Value::from(c.entry_id.clone()));
            row.insert(
                "path".into(),
                Value::from(brain_store::display_path(Path::new(&c.path))),
            );
            row.insert("type".into(), Value::from(c.entry_type.as_str()));
            row.insert("bytes".into(), Value::from(c.bytes));
            row.insert("indexed".into(), Value::from(c.indexed));
            "inbox_write"
        }
        Err(e) => {
            row.insert("error".into(), Value::from(e.code().as_str()));
            if let Some(r) = e.reason() {
                row.insert("reason".into(), Value::from(r));
            }
            if e.code() == ErrorCode::Refused {
                "inbox_refused"
            } else {
                "inbox_write"
            }
        }
    };
    row.insert(
        "latency_ms".into(),
        Value::from(started.elapsed().as_millis() as u64),
    );
    let _ = telemetry::append(home, req.surface.as_str(), event, row);
    result
}

/// Whether `target` (`collection/path`, or `brain://collection/path`) is a file of a declared
/// collection (a safe path: no `..`, no empty part).
fn record_exists(config: &Config, target: &str) -> bool {
    let id = target.strip_prefix("brain://").unwrap_or(target);
    let Some((collection, rel)) = id.split_once('/') else {
        return false;
    };
    if rel
        .split('/')
        .any(|c| c.is_empty() || c == "." || c == "..")
    {
        return false;
    }
    config
        .collection_dir(collection)
        .is_some_and(|d| d.join(rel).is_file())
}

fn write(home: &Home, req: &Capture) -> Result<Captured, InboxError> {
    let (text, tags, project) = checked(req)?;
    let config = Config::load(home)?;
    // A record may only replace one that exists: a typo would otherwise hide nothing and say so
    // nowhere.
    if let Some(t) = req
        .record
        .supersedes
        .iter()
        .find(|t| !record_exists(&config, t))
    {
        return Err(InboxError::NoTarget(t.clone()));
    }
    let declared = config.collection_dir(COLLECTION);
    let dir = declared.clone().unwrap_or_else(|| home.inbox());
    let stored = sanitize::escape(&text);
    let fields = if req.record.is_set() {
        Some(
            crate::record::frontmatter(
                &req.record,
                req.kind,
                &req.now,
                &stored,
                &tags,
                project.as_deref(),
            )
            .map_err(InboxError::BadField)?,
        )
    } else {
        None
    };
    let entry = Entry {
        id: String::new(),
        time: req.now.strftime("%Y-%m-%dT%H:%M:%S%:z").to_string(),
        kind: req.kind,
        tags,
        project,
        text: stored,
        line: 0,
    };
    let (entry, line, rel, file) = {
        let _lock = Lock::acquire_within(&home.lock_file("inbox"), req.lock_wait)?;
        store(&dir, req, entry, fields.as_ref())?
    };
    let mut warnings = Vec::new();
    let indexed = match (&declared, req.index) {
        (_, false) => false,
        (None, true) => {
            warnings.push(format!(
                "brain.yaml declares no `{COLLECTION}` collection: the entry is written but not searchable; add one with path {}",
                dir.display()
            ));
            false
        }
        (Some(_), true) => match index(home, &rel, &file, req.index_wait) {
            Ok(()) => true,
            Err(why) => {
                warnings.push(format!(
                    "not indexed yet ({why}); the next `lexindex --all` picks it up"
                ));
                false
            }
        },
    };
    Ok(Captured {
        kind: "inbox_entry".into(),
        uri: format!("brain://{COLLECTION}/{rel}"),
        path: file.display().to_string(),
        line,
        entry_type: entry.kind,
        bytes: entry.text.len(),
        entry_id: entry.id,
        time: entry.time,
        tags: entry.tags,
        project: entry.project,
        indexed,
        warnings,
    })
}

/// The capture's text, tags and project, cleaned; refused when empty, too long, holding a secret
/// (in any field, raw or cleaned) or, without `force`, noise.
fn checked(req: &Capture) -> Result<(String, Vec<String>, Option<String>), InboxError> {
    let text = sanitize::clean_text(&req.text);
    if text.is_empty() {
        return Err(InboxError::Empty);
    }
    if text.len() > MAX_BYTES {
        return Err(InboxError::TooLong {
            bytes: text.len(),
            max: MAX_BYTES,
        });
    }
    let tags = sanitize::clean_tags(&req.tags);
    // A folder of a repository is the repository's project, as a session's is (issue 57).
    let project = req
        .project
        .as_deref()
        .and_then(sanitize::clean_project)
        .map(|p| brain_store::project_of(&p));
    // Raw and cleaned: removing a control character must not assemble a secret the raw text hid.
    let everything = format!(
        "{}\n{text}\n{}\n{}\n{}",
        req.text,
        req.tags.join(" "),
        req.project.as_deref().unwrap_or(""),
        req.record.guarded_text()
    );
    if let Some(r) = guard::refusal(&everything) {
        return Err(InboxError::Refused(r));
    }
    if !req.force
        && let Some(n) = guard::noise(&text)
    {
        return Err(InboxError::Noise(n));
    }
    Ok((text, tags, project))
}

/// Write `entry` under the inbox lock: numbered after the day's entries (and records), as a record
/// of its own when it carries `fields`, else a section appended to the day file. The entry, the
/// line its text starts on, its path inside the collection and on disk.
fn store(
    dir: &Path,
    req: &Capture,
    mut entry: Entry,
    fields: Option<&Map<String, Value>>,
) -> Result<(Entry, u64, String, PathBuf), InboxError> {
    let day = req.now.strftime("%Y-%m-%d").to_string();
    let rel = format!("{day}.md");
    let file = dir.join(&rel);
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| InboxError::Io { path, source }
    };
    let mut out = match std::fs::read_to_string(&file) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => day_head(req, &day, &file),
        Err(e) => return Err(io(&file)(e)),
    };
    let prefix = req.now.strftime("%Y%m%d").to_string();
    let seq = match fields {
        Some(_) => {
            crate::record::next_seq(next_seq_of(&out, &prefix), &dir.join("records"), &prefix)
        }
        None => next_seq_of(&out, &prefix),
    };
    entry.id = format!("{prefix}-{seq:03}");
    match fields {
        Some(fm) => {
            // A record of its own; the day file is left as it is.
            let rel = format!("records/{}.md", entry.id);
            let path = dir.join(&rel);
            let (md, line) =
                crate::record::markdown(fm, &entry.text).map_err(InboxError::BadField)?;
            brain_doc::atomic::write(&path, md.as_bytes()).map_err(io(&path))?;
            Ok((entry, line, rel, path))
        }
        None => {
            if !out.ends_with('\n') {
                out.push('\n');
            }
            let line = out.matches('\n').count() as u64 + 2;
            out.push_str(&dayfile::section(&entry));
            brain_doc::atomic::write(&file, out.as_bytes()).map_err(io(&file))?;
            Ok((entry, line, rel, file))
        }
    }
}

/// The head of a new day file: its frontmatter, dated at the day's midnight in the capture's zone.
fn day_head(req: &Capture, day: &str, file: &Path) -> String {
    let midnight = req
        .now
        .date()
        .to_zoned(req.now.time_zone().clone())
        .map_or_else(
            |_| format!("{day}T00:00:00Z"),
            |z| z.strftime("%Y-%m-%dT%H:%M:%S%:z").to_string(),
        );
    dayfile::head(day, &midnight, COLLECTION, &brain_store::display_path(file))
}

/// The next entry number of a day file's text: its well-formed headers are read leniently (a file
/// the user edited still takes new entries).
fn next_seq_of(text: &str, prefix: &str) -> u32 {
    let entries: Vec<Entry> = text
        .lines()
        .enumerate()
        .filter_map(|(i, l)| dayfile::parse_header(l, i as u64 + 1))
        .collect();
    dayfile::next_seq(&entries, prefix)
}

/// Index the day file alone, as `lexindex --all` would see it.
fn index(home: &Home, rel: &str, file: &Path, wait: Duration) -> Result<(), String> {
    let mut ix = brain_lex::Indexer::open_within(home, false, wait).map_err(|e| e.to_string())?;
    ix.index_file(COLLECTION, rel, file)
        .map_err(|e| e.to_string())??;
    ix.finish().map_err(|e| e.to_string())?;
    Ok(())
}
