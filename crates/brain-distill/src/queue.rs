//! What needs distilling: the queue file (`$BRAIN_HOME/pending_distill.txt`, one session id a line, as
//! `jsonl2md --queue` appends it) plus every session whose artifact was written with another prompt
//! version (seed 004: "When the prompt changes, the --new flag detects stale distillations by checking
//! the prompt_version field in existing files and re-queues them").
//!
//! An id leaves the queue only after a valid artifact for it is on disk, under the same lock
//! (`<queue>.lock`) that `jsonl2md --queue` appends under.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::Duration;

use brain_doc::markdown;
use brain_store::{Config, Lock, LockError};
use serde_json::Value;

use crate::prompt::stem;

/// Our choice: `jsonl2md --queue` holds the queue lock for one read and one write; 5 s is ample (the
/// same bound it uses).
const QUEUE_LOCK_WAIT: Duration = Duration::from_secs(5);

/// Why the queue could not be read or updated.
#[derive(Debug, thiserror::Error)]
pub enum QueueError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(transparent)]
    Lock(#[from] LockError),
}

impl brain_doc::Classified for QueueError {
    fn code(&self) -> brain_doc::ErrorCode {
        match self {
            QueueError::Lock(e) => e.code(),
            QueueError::Io { .. } => brain_doc::ErrorCode::Internal,
        }
    }
}

/// Why a session is pending.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reason {
    /// Listed in the queue file.
    Queued,
    /// Its artifact carries this other prompt version.
    Stale(String),
}

/// A session to distill.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pending {
    /// The queue id: the session doc's stem (`02b3c2d7-…`, `codex__<stem>`).
    pub id: String,
    /// Its markdown file.
    pub file: PathBuf,
    /// Why.
    pub reason: Reason,
}

/// The ids in the queue file, in order, each once; a missing file is an empty queue.
pub fn read(queue: &Path) -> Result<Vec<String>, QueueError> {
    let text = match std::fs::read_to_string(queue) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(source) => {
            return Err(QueueError::Io {
                path: queue.into(),
                source,
            });
        }
    };
    let mut seen = HashSet::new();
    Ok(text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && seen.insert(*l))
        .map(String::from)
        .collect())
}

/// Remove `id` from the queue file under its lock. True if it was there.
pub fn remove(queue: &Path, id: &str) -> Result<bool, QueueError> {
    let _lock = Lock::acquire_within(&queue.with_extension("lock"), QUEUE_LOCK_WAIT)?;
    let text = match std::fs::read_to_string(queue) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(false),
        Err(source) => {
            return Err(QueueError::Io {
                path: queue.into(),
                source,
            });
        }
    };
    let kept: Vec<&str> = text.lines().filter(|l| l.trim() != id).collect();
    if kept.len() == text.lines().count() {
        return Ok(false);
    }
    let mut out = kept.join("\n");
    if !out.is_empty() {
        out.push('\n');
    }
    brain_doc::atomic::write(queue, out.as_bytes()).map_err(|source| QueueError::Io {
        path: queue.into(),
        source,
    })?;
    Ok(true)
}

/// Every markdown file of the collections with `role`, by file stem.
pub fn files_by_stem(config: &Config, role: &str) -> BTreeMap<String, PathBuf> {
    let mut out = BTreeMap::new();
    for c in config.collections.iter().filter(|c| c.role == role) {
        let dir = config.resolve(&c.path);
        for e in walkdir::WalkDir::new(&dir)
            .sort_by_file_name()
            .into_iter()
            .filter_map(Result::ok)
        {
            let p = e.path();
            if e.file_type().is_file() && p.extension().is_some_and(|x| x == "md") {
                let name = p
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default();
                out.entry(stem(&name).to_string())
                    .or_insert_with(|| p.to_path_buf());
            }
        }
    }
    out
}

/// `(stem, prompt_version)` of every distilled artifact whose version is not `version`; an artifact's
/// file stem is its session's (`brain distill` names it so). Unreadable artifacts go to `warn`.
pub fn stale_artifacts(
    config: &Config,
    version: &str,
    warn: &dyn Fn(String),
) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for (stem, file) in files_by_stem(config, brain_store::para::ROLE_DISTILLED) {
        let text = match std::fs::read_to_string(&file) {
            Ok(t) => t,
            Err(e) => {
                warn(format!("{}: {e}", file.display()));
                continue;
            }
        };
        let fm = match markdown::split(&text) {
            Ok((Some(fm), _)) => fm,
            Ok((None, _)) => continue,
            Err(e) => {
                warn(format!("{}: {e}", file.display()));
                continue;
            }
        };
        let field = |k: &str| match fm.get(k) {
            Some(Value::String(s)) => s.clone(),
            _ => String::new(),
        };
        let pv = field("prompt_version");
        if !field("session_id").is_empty() && pv != version {
            out.push((stem, pv));
        }
    }
    out
}

/// The sessions to distill: the queue's ids first, in queue order, then stale artifacts' sessions.
/// A queued id without a session file goes to `warn` and stays queued (its session may not be
/// partitioned yet).
pub fn pending(
    config: &Config,
    queue: &Path,
    version: &str,
    warn: &dyn Fn(String),
) -> Result<Vec<Pending>, QueueError> {
    let sessions = files_by_stem(config, brain_store::para::ROLE_SESSIONS);
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    for id in read(queue)? {
        match sessions.get(&id) {
            Some(file) => {
                seen.insert(id.clone());
                out.push(Pending {
                    id,
                    file: file.clone(),
                    reason: Reason::Queued,
                });
            }
            None => warn(format!(
                "{}: queued session `{id}` has no markdown file in a sessions collection; left queued",
                queue.display()
            )),
        }
    }
    for (sid, old) in stale_artifacts(config, version, warn) {
        if let Some(file) = sessions.get(&sid)
            && seen.insert(sid.clone())
        {
            out.push(Pending {
                id: sid,
                file: file.clone(),
                reason: Reason::Stale(old),
            });
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn removal_takes_out_exactly_one_id_and_keeps_the_rest() {
        let dir = tempfile::tempdir().expect("tempdir");
        let q = dir.path().join("pending_distill.txt");
        std::fs::write(&q, "a\nb\nc\nb\n").expect("write");
        assert_eq!(read(&q).expect("read"), ["a", "b", "c"]);
        assert!(remove(&q, "b").expect("remove"));
        assert!(!remove(&q, "zz").expect("absent"));
        assert_eq!(std::fs::read_to_string(&q).expect("read"), "a\nc\n");
        assert_eq!(
            read(&dir.path().join("none.txt")).expect("missing"),
            Vec::<String>::new()
        );
    }
}
