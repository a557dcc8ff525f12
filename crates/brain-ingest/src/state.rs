//! Incremental runs (`--new`): which sessions changed since their document was last written, and the
//! distillation queue (`--queue`).
//!
//! The state file maps each session's main file to the (path, mtime, size) of all its files and a
//! content fingerprint. A session is unchanged when every stat matches (no read at all), or when the
//! stats moved but the content hash did not (a `touch`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use serde::{Deserialize, Serialize};

use crate::discover::SessionFiles;

/// Stat of one file: (path, mtime in ns, size).
pub type FileStat = (String, u128, u64);

/// What was last written for one session.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    /// Stats of the main file then its subagent files.
    pub files: Vec<FileStat>,
    /// Content fingerprint of all files.
    pub fingerprint: String,
    /// Document id written.
    pub id: String,
}

/// The state file's content.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct State {
    /// Always 1.
    pub schema: u32,
    /// Keyed by the main file's path.
    pub sessions: BTreeMap<String, Entry>,
    /// Keys this run recorded: what [`State::save`] merges into the file as it is then.
    #[serde(skip)]
    touched: std::collections::BTreeSet<String>,
}

/// Longest wait for another run's save (two agent tabs finishing together): a save is one small
/// read and one atomic write.
const SAVE_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

/// Why the state file could not be used.
#[derive(Debug, thiserror::Error)]
pub enum StateError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: not a jsonl2md state file ({source}); delete it to start over")]
    Parse {
        path: PathBuf,
        source: serde_json::Error,
    },
}

impl State {
    /// Load the state at `path`; a missing file is an empty state.
    pub fn load(path: &Path) -> Result<State, StateError> {
        match std::fs::read(path) {
            Ok(b) => serde_json::from_slice(&b).map_err(|source| StateError::Parse {
                path: path.into(),
                source,
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(State {
                schema: 1,
                ..State::default()
            }),
            Err(source) => Err(StateError::Io {
                path: path.into(),
                source,
            }),
        }
    }

    /// Write the state atomically.
    /// Write the state: under a lock beside the file, the file as it is *now* with this run's
    /// recorded sessions merged in — so runs at the same time (two agent tabs finishing together)
    /// each add their sessions instead of overwriting each other's.
    pub fn save(&self, path: &Path) -> Result<(), StateError> {
        let mut lock_path = path.as_os_str().to_owned();
        lock_path.push(".lock");
        let _lock =
            brain_store::Lock::acquire_within(Path::new(&lock_path), SAVE_WAIT).map_err(|e| {
                StateError::Io {
                    path: path.into(),
                    source: std::io::Error::other(e.to_string()),
                }
            })?;
        let mut now = State::load(path).unwrap_or_else(|_| State {
            schema: 1,
            ..State::default()
        });
        for key in &self.touched {
            if let Some(e) = self.sessions.get(key) {
                now.sessions.insert(key.clone(), e.clone());
            }
        }
        let bytes = serde_json::to_vec(&now).map_err(|source| StateError::Parse {
            path: path.into(),
            source,
        })?;
        brain_doc::atomic::write(path, &bytes).map_err(|source| StateError::Io {
            path: path.into(),
            source,
        })
    }

    /// True when the stats of every file of `files` match what was recorded (no content read needed).
    pub fn stats_match(&self, files: &SessionFiles, stats: &[FileStat]) -> bool {
        self.sessions
            .get(&key(files))
            .is_some_and(|e| e.files == stats)
    }

    /// The recorded fingerprint of a session, if any.
    pub fn fingerprint(&self, files: &SessionFiles) -> Option<&str> {
        self.sessions
            .get(&key(files))
            .map(|e| e.fingerprint.as_str())
    }

    /// Record a session as written (or confirmed unchanged).
    pub fn record(
        &mut self,
        files: &SessionFiles,
        stats: Vec<FileStat>,
        fingerprint: String,
        id: String,
    ) {
        self.touched.insert(key(files));
        self.sessions.insert(
            key(files),
            Entry {
                files: stats,
                fingerprint,
                id,
            },
        );
    }
}

impl State {
    /// The entry recorded under `key` (a store's path, or `<store>#<conversation>`).
    pub fn entry(&self, key: &str) -> Option<&Entry> {
        self.sessions.get(key)
    }

    /// Record `entry` under `key`.
    pub fn record_key(&mut self, key: String, entry: Entry) {
        self.touched.insert(key.clone());
        self.sessions.insert(key, entry);
    }

    /// The document ids recorded for the conversations of the store `key` (`<key>#…`).
    pub fn ids_under(&self, key: &str) -> Vec<String> {
        let prefix = format!("{key}#");
        self.sessions
            .range(prefix.clone()..)
            .take_while(|(k, _)| k.starts_with(&prefix))
            .map(|(_, e)| e.id.clone())
            .collect()
    }
}

/// Stats of `paths` (those that exist: a WAL comes and goes).
pub fn stat_paths(paths: &[PathBuf]) -> Vec<FileStat> {
    paths.iter().filter_map(|p| stat(p)).collect()
}

fn key(files: &SessionFiles) -> String {
    files.main.display().to_string()
}

/// Stats of a session's files, main first; `None` if one cannot be stat'ed.
pub fn stat_all(files: &SessionFiles) -> Option<Vec<FileStat>> {
    std::iter::once(&files.main)
        .chain(files.subagents.iter().map(|(p, _)| p))
        .map(|p| stat(p))
        .collect()
}

fn stat(p: &Path) -> Option<FileStat> {
    let m = std::fs::metadata(p).ok()?;
    let mtime = m
        .modified()
        .ok()?
        .duration_since(UNIX_EPOCH)
        .ok()?
        .as_nanos();
    Some((p.display().to_string(), mtime, m.len()))
}

/// Append `ids` to the queue file, each at most once, under an exclusive lock on `<queue>.lock`.
pub fn enqueue(queue: &Path, ids: &[String]) -> Result<usize, QueueError> {
    if ids.is_empty() {
        return Ok(0);
    }
    let lock_path = queue.with_extension("lock");
    let _lock = brain_store::Lock::acquire_within(&lock_path, std::time::Duration::from_secs(5))?;
    let existing = match std::fs::read_to_string(queue) {
        Ok(s) => s,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(source) => {
            return Err(QueueError::Io {
                path: queue.into(),
                source,
            });
        }
    };
    let present: std::collections::HashSet<&str> = existing.lines().map(str::trim).collect();
    let mut added = 0;
    let mut out = existing.clone();
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    let mut new_ids = std::collections::HashSet::new();
    for id in ids {
        if !present.contains(id.as_str()) && new_ids.insert(id.as_str()) {
            out.push_str(id);
            out.push('\n');
            added += 1;
        }
    }
    if added > 0 {
        brain_doc::atomic::write(queue, out.as_bytes()).map_err(|source| QueueError::Io {
            path: queue.into(),
            source,
        })?;
    }
    Ok(added)
}

/// Why the queue could not be appended to.
#[derive(Debug, thiserror::Error)]
pub enum QueueError {
    #[error(transparent)]
    Lock(#[from] brain_store::LockError),
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

impl brain_doc::Classified for QueueError {
    fn code(&self) -> brain_doc::ErrorCode {
        match self {
            QueueError::Lock(e) => e.code(),
            QueueError::Io { .. } => brain_doc::ErrorCode::Internal,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_queue_gets_each_id_once() {
        let d = tempfile::tempdir().expect("tempdir");
        let q = d.path().join("pending_distill.txt");
        assert_eq!(
            enqueue(&q, &["a".into(), "b".into(), "a".into()]).expect("enqueue"),
            2
        );
        assert_eq!(enqueue(&q, &["b".into(), "c".into()]).expect("enqueue"), 1);
        assert_eq!(std::fs::read_to_string(&q).expect("read"), "a\nb\nc\n");
    }

    /// Two runs that loaded the same state each save what they recorded: the file ends up with
    /// both (a plain write-back kept only the last run's).
    #[test]
    fn saves_of_two_runs_merge_instead_of_overwriting() {
        let d = tempfile::tempdir().expect("tempdir");
        let path = d.path().join("state/jsonl2md.json");
        let files = |name: &str| SessionFiles {
            main: d.path().join(name),
            subagents: Vec::new(),
        };
        let mut a = State::load(&path).expect("load");
        let mut b = State::load(&path).expect("load");
        a.record(&files("a.jsonl"), vec![], "fa".into(), "a".into());
        b.record(&files("b.jsonl"), vec![], "fb".into(), "b".into());
        a.save(&path).expect("save a");
        b.save(&path).expect("save b");
        let both = State::load(&path).expect("reload");
        let ids: Vec<&str> = both.sessions.values().map(|e| e.id.as_str()).collect();
        assert_eq!(ids, ["a", "b"]);
    }
}
