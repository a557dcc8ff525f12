//! The sessions pass of the extraction (issue 53), which every run makes whatever else it does
//! (and the artifacts pass of the path without a model, read the same way):
//! each session of the `sessions` collections read for its tool notes ([`find::tool_notes`]:
//! failed, refused and declined calls) and for what its people said ([`said::statements`]:
//! decisions, rejections, preferences, facts). Incremental: `state/extract-sessions.json` keeps
//! each session file's size, modification time and sha256 at the rules' version
//! ([`RULES_VERSION`]), so a session already read and unchanged is not read again; new and
//! changed sessions (imported, or finished since) are.

use std::collections::BTreeMap;
use std::path::PathBuf;

use brain_store::{Config, Home};
use serde::{Deserialize, Serialize};

use brain_store::para::{ROLE_DISTILLED, ROLE_SESSIONS};

use super::record::Origin;
use super::{Found, facts, find, read_doc, said};

/// The version of the rules that read sessions: a change to [`said`] or [`find::tool_notes`]
/// that would find other records bumps it, and every session is read again once (records already
/// written are NOOPs).
pub const RULES_VERSION: &str = "sessions-1";

/// Largest session file read (a bigger one is reported and skipped).
pub const MAX_SESSION_BYTES: u64 = 64 * 1024 * 1024;

/// What a session file was when it was read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Seen {
    size: u64,
    mtime_ns: i64,
    sha256: String,
}

/// The sessions read at [`RULES_VERSION`], by `collection/path`.
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct State {
    version: String,
    done: BTreeMap<String, Seen>,
}

impl State {
    fn file(home: &Home) -> PathBuf {
        home.state_file("extract-sessions.json")
    }

    /// The state of `home` (empty when missing, damaged or of other rules: every session is read).
    pub fn load(home: &Home, warn: &dyn Fn(String)) -> State {
        let file = State::file(home);
        let fresh = State {
            version: RULES_VERSION.into(),
            done: BTreeMap::new(),
        };
        match std::fs::read(&file) {
            Ok(b) => match serde_json::from_slice::<State>(&b) {
                Ok(s) if s.version == RULES_VERSION => s,
                Ok(_) => fresh,
                Err(e) => {
                    warn(format!(
                        "{}: {e}; every session is read again",
                        file.display()
                    ));
                    fresh
                }
            },
            Err(_) => fresh,
        }
    }

    /// Write it (atomically); a state that cannot be written is a warning (the next run reads the
    /// sessions again, and what it writes is the same).
    pub fn save(&self, home: &Home, warn: &dyn Fn(String)) {
        let file = State::file(home);
        match serde_json::to_vec(self) {
            Ok(b) => {
                if let Err(e) = brain_doc::atomic::write(&file, &b) {
                    warn(format!("{}: {e}", file.display()));
                }
            }
            Err(e) => warn(format!("{}: {e}", file.display())),
        }
    }
}

/// A document of a collection read for records: its `brain://` uri, its text and frontmatter.
type Read = (String, String, serde_json::Map<String, serde_json::Value>);

/// The documents of the collections of `role` new or changed since they were last read at this
/// version (every one with `all`), `exclude` aside (the records folder); `state` is updated for
/// each one read, and forgets the files of `role` that are gone.
fn changed(
    config: &Config,
    role: &str,
    exclude: Option<&std::path::Path>,
    state: &mut State,
    opts: &Which<'_>,
    warn: &dyn Fn(String),
) -> Vec<Read> {
    let mut out = Vec::new();
    let mut present = std::collections::HashSet::new();
    let mut prefixes = Vec::new();
    for c in config.collections.iter().filter(|c| c.role == role) {
        prefixes.push(format!("{}/", c.name));
        let dir = config.resolve(&c.path);
        // The documents named (the Stop hook's: no walk of the collection), else every one.
        let files: Vec<std::path::PathBuf> = match opts.only {
            Some(ids) => ids
                .iter()
                .filter_map(|id| id.strip_prefix(&format!("{}/", c.name)))
                .filter_map(|rel| brain_store::walk::servable(config, &c.name, rel).ok())
                .collect(),
            None => walkdir::WalkDir::new(&dir)
                .sort_by_file_name()
                .into_iter()
                .filter_entry(|e| exclude.is_none_or(|x| e.path() != x))
                .filter_map(Result::ok)
                .filter(|e| e.file_type().is_file())
                .filter(|e| e.path().extension().is_some_and(|x| x == "md"))
                .map(|e| e.into_path())
                .collect(),
        };
        for file in &files {
            let file = file.as_path();
            let Ok(rel) = file.strip_prefix(&dir) else {
                continue;
            };
            let id = format!("{}/{}", c.name, rel.to_string_lossy().replace('\\', "/"));
            present.insert(id.clone());
            let Ok(meta) = std::fs::metadata(file) else {
                continue;
            };
            let (size, mtime_ns) = (meta.len(), brain_doc::file::mtime_ns(&meta));
            let known = state.done.get(&id);
            let all = opts.all;
            if !all && known.is_some_and(|k| k.size == size && k.mtime_ns == mtime_ns) {
                continue;
            }
            if size > MAX_SESSION_BYTES {
                warn(format!(
                    "{}: {size} bytes, over {MAX_SESSION_BYTES}; not read for records",
                    file.display()
                ));
                continue;
            }
            let Some((uri, text, fm)) = read_doc(&c.name, &dir, file, warn) else {
                continue;
            };
            let sha256 = brain_doc::sha256_hex(text.as_bytes());
            let unchanged = known.is_some_and(|k| k.sha256 == sha256);
            state.done.insert(
                id,
                Seen {
                    size,
                    mtime_ns,
                    sha256,
                },
            );
            if unchanged && !all {
                continue;
            }
            out.push((uri, text, fm));
        }
    }
    // A file gone is forgotten (the records it gave stay: they are memory); a read of named
    // documents knows nothing of the others.
    if opts.only.is_none() {
        state
            .done
            .retain(|id, _| present.contains(id) || !prefixes.iter().any(|p| id.starts_with(p)));
    }
    out
}

/// Which documents a pass reads.
pub(super) struct Which<'a> {
    /// Every document again, changed or not (`--all`).
    pub all: bool,
    /// Only these documents (`collection/path`: the Stop hook's), else every one that changed.
    pub only: Option<&'a std::collections::HashSet<String>>,
}

/// The records of every session of `config` not read at this version, or changed since (all with
/// `all`): their tool notes and what was said in them.
pub(super) fn read(
    config: &Config,
    state: &mut State,
    which: &Which<'_>,
    warn: &dyn Fn(String),
) -> Vec<Found> {
    changed(config, ROLE_SESSIONS, None, state, which, warn)
        .into_iter()
        .filter_map(|(uri, text, fm)| {
            let (session, project, date, _) = facts(&fm);
            let mut records = find::tool_notes(&text, &date);
            records.extend(said::statements(&text, &date));
            (!records.is_empty()).then_some(Found {
                origin: Origin {
                    session,
                    project,
                    date,
                    uri,
                },
                records,
            })
        })
        .collect()
}

/// The distilled artifacts of `config` not read at this version, or changed since (all with
/// `all`), the records folder `records` aside: the path without a model reads their bullets.
pub(super) fn artifacts(
    config: &Config,
    records: &std::path::Path,
    state: &mut State,
    which: &Which<'_>,
    warn: &dyn Fn(String),
) -> Vec<Read> {
    changed(config, ROLE_DISTILLED, Some(records), state, which, warn)
        .into_iter()
        .filter(|(_, _, fm)| fm.get("session_id").is_some())
        .collect()
}
