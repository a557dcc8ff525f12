//! What `brain forget --purge` removed, remembered so a purge holds and finishes (issue 37).
//!
//! `state/purged.json` keeps, for each purged record, the hash of its id, the hash of its
//! conversation (agent and session id, when it is a session) and whether every trace is gone yet —
//! never its text, and its id in clear only while the purge is pending (a finished purge leaves no
//! name behind: a file name can say as much as its text).
//! - **A purge that is killed is finished.** The record is written here, `pending`, before the
//!   first deletion; every writer's run finishes what is pending (`brain_ops::purge::finish_pending`)
//!   and `brain doctor` fails naming it until then.
//! - **A purged record does not come back.** `jsonl2md` and `partition` leave out every document
//!   of a purged conversation ([`Purged::holds`]) — its transcript gaining a turn re-converts the
//!   whole file — and `partition` every document whose id was purged (a browser day read again).

use std::collections::HashSet;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::{Home, Lock};

/// The file's name under `state/`.
pub const FILE: &str = "purged.json";

/// One purged record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Purge {
    /// `collection/path` of the record, while the purge is pending (what finishing it needs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// sha256 of the id ([`id_key`]).
    pub id_sha256: String,
    /// sha256 of `agent \0 session id` for a session's record ([`conversation_key`]), so every
    /// later conversion of that session is left out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conversation: Option<String>,
    /// When the purge was asked for (RFC 3339).
    pub at: String,
    /// Some trace may be left (the purge was stopped before its end): the next writer finishes it.
    #[serde(default)]
    pub pending: bool,
}

/// The file's content.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Purged {
    /// Always 1.
    #[serde(default)]
    pub schema: u32,
    /// Every purge, oldest first; one entry per id.
    #[serde(default)]
    pub records: Vec<Purge>,
    #[serde(skip)]
    ids: HashSet<String>,
    #[serde(skip)]
    conversations: HashSet<String>,
}

/// Why the file could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum PurgedError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(
        "{path} does not read ({reason}): purged records could come back; fix or restore the file"
    )]
    Unreadable { path: PathBuf, reason: String },
    #[error(transparent)]
    Lock(#[from] crate::LockError),
}

impl brain_doc::Classified for PurgedError {
    /// A purge list that cannot be read is storage the run needs: without it a purged record could
    /// come back, so the run stops (65); its lock held by another run is contention (70).
    fn code(&self) -> brain_doc::ErrorCode {
        match self {
            PurgedError::Lock(e) => brain_doc::Classified::code(e),
            PurgedError::Io { .. } | PurgedError::Unreadable { .. } => {
                brain_doc::ErrorCode::IndexMissing
            }
        }
    }

    fn fix(&self) -> String {
        match self {
            PurgedError::Lock(e) => brain_doc::Classified::fix(e),
            _ => "restore or repair state/purged.json (`brain doctor` names it)".into(),
        }
    }
}

/// The hash naming a record id.
pub fn id_key(id: &str) -> String {
    brain_doc::sha256_hex(id.as_bytes())
}

/// The hash naming a session: `agent` and its session id.
pub fn conversation_key(agent: &str, session: &str) -> String {
    brain_doc::sha256_hex(format!("{agent}\0{session}").as_bytes())
}

/// The conversation of a document: its agent and `session_id` (`None` for other documents).
pub fn conversation_of(doc: &brain_doc::Doc) -> Option<String> {
    let session = doc.meta.get("session_id").and_then(|v| v.as_str())?;
    if doc.source.kind != "session" || session.is_empty() {
        return None;
    }
    let agent = doc.source.agent.as_deref().unwrap_or("");
    Some(conversation_key(agent, session))
}

fn path(home: &Home) -> PathBuf {
    home.state_file(FILE)
}

impl Purged {
    /// The purges of `home` (none when the file does not exist; an unreadable file is an error,
    /// never "nothing purged").
    pub fn load(home: &Home) -> Result<Purged, PurgedError> {
        let p = path(home);
        let text = match std::fs::read(&p) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Purged::default()),
            Err(source) => return Err(PurgedError::Io { path: p, source }),
        };
        let mut purged: Purged =
            serde_json::from_slice(&text).map_err(|e| PurgedError::Unreadable {
                path: p,
                reason: e.to_string(),
            })?;
        purged.index();
        Ok(purged)
    }

    fn index(&mut self) {
        self.ids = self.records.iter().map(|r| r.id_sha256.clone()).collect();
        self.conversations = self
            .records
            .iter()
            .filter_map(|r| r.conversation.clone())
            .collect();
    }

    /// Whether nothing was ever purged.
    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    /// Whether `doc` is (of) a purged record: its conversation was purged, or its id (when it has
    /// its final `collection/path` id, after `partition`).
    pub fn holds(&self, doc: &brain_doc::Doc) -> bool {
        if self.records.is_empty() {
            return false;
        }
        self.ids.contains(&id_key(&doc.id))
            || conversation_of(doc).is_some_and(|c| self.conversations.contains(&c))
    }

    /// The purges some trace of which may be left (each with its id).
    pub fn pending(&self) -> Vec<&Purge> {
        self.records
            .iter()
            .filter(|r| r.pending && r.id.is_some())
            .collect()
    }

    fn save(&self, home: &Home) -> Result<(), PurgedError> {
        let p = path(home);
        let mut text = serde_json::to_vec_pretty(self).map_err(|e| PurgedError::Io {
            path: p.clone(),
            source: std::io::Error::other(e),
        })?;
        text.push(b'\n');
        brain_doc::atomic::write(&p, &text).map_err(|source| PurgedError::Io { path: p, source })
    }
}

/// Take the file's lock, read it, let `change` edit it, write it back.
fn edit(home: &Home, change: impl FnOnce(&mut Purged)) -> Result<(), PurgedError> {
    let _lock = Lock::acquire_within(
        &home.lock_file("purged"),
        std::time::Duration::from_secs(30),
    )?;
    let mut purged = Purged::load(home)?;
    change(&mut purged);
    purged.schema = 1;
    purged.save(home)
}

/// Record that `id` is being purged (pending), before anything is deleted; an earlier purge of the
/// same id is replaced.
pub fn begin(home: &Home, id: &str, conversation: Option<String>) -> Result<(), PurgedError> {
    let at = crate::clock::now()
        .strftime("%Y-%m-%dT%H:%M:%SZ")
        .to_string();
    let key = id_key(id);
    edit(home, |p| {
        let conversation = conversation.or_else(|| {
            p.records
                .iter()
                .find(|r| r.id_sha256 == key)
                .and_then(|r| r.conversation.clone())
        });
        p.records.retain(|r| r.id_sha256 != key);
        p.records.push(Purge {
            id: Some(id.to_string()),
            id_sha256: key,
            conversation,
            at,
            pending: true,
        });
    })
}

/// Record that every trace of `id` is gone: its id in clear goes too.
pub fn done(home: &Home, id: &str) -> Result<(), PurgedError> {
    let key = id_key(id);
    edit(home, |p| {
        for r in p.records.iter_mut().filter(|r| r.id_sha256 == key) {
            r.pending = false;
            r.id = None;
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session(agent: &str, sid: &str, id: &str) -> brain_doc::Doc {
        let mut d = brain_doc::Doc::new(
            id,
            "t",
            "2026-01-01T00:00:00Z",
            brain_doc::Source::new("session", "/x.jsonl"),
        );
        d.source.agent = Some(agent.into());
        d.meta.insert("session_id".into(), sid.into());
        d
    }

    #[test]
    fn a_purge_is_pending_until_done_and_holds_its_conversation_and_id() {
        let dir = tempfile::tempdir().expect("tempdir");
        let home = Home::at(dir.path());
        assert!(Purged::load(&home).expect("none").is_empty());
        let key = conversation_key("claude", "s1");
        begin(&home, "brain/2026/01/a.md", Some(key.clone())).expect("begin");
        let p = Purged::load(&home).expect("load");
        assert_eq!(p.pending().len(), 1);
        assert!(p.holds(&session("claude", "s1", "claude:s1")));
        assert!(!p.holds(&session("codex", "s1", "codex:s1")));
        assert!(!p.holds(&session("claude", "s2", "claude:s2")));
        let day = brain_doc::Doc::new(
            "brain/2026/01/a.md",
            "t",
            "2026-01-01T00:00:00Z",
            brain_doc::Source::new("browser", "/History"),
        );
        assert!(p.holds(&day));
        done(&home, "brain/2026/01/a.md").expect("done");
        let p = Purged::load(&home).expect("load");
        assert!(p.pending().is_empty());
        assert!(p.holds(&session("claude", "s1", "x")));
        // Purged again (finishing it by hand): the conversation is kept.
        begin(&home, "brain/2026/01/a.md", None).expect("again");
        let p = Purged::load(&home).expect("load");
        assert_eq!(p.records.len(), 1);
        assert_eq!(p.records[0].conversation.as_deref(), Some(key.as_str()));
        // No text of the record is in the file, nor its name once the purge is done.
        done(&home, "brain/2026/01/a.md").expect("done");
        let text = std::fs::read_to_string(home.state_file(FILE)).expect("file");
        assert!(
            !text.contains("s1") && !text.contains("claude") && !text.contains("a.md"),
            "{text}"
        );
    }

    #[test]
    fn an_unreadable_file_is_an_error_not_nothing_purged() {
        let dir = tempfile::tempdir().expect("tempdir");
        let home = Home::at(dir.path());
        std::fs::create_dir_all(dir.path().join("state")).expect("state");
        std::fs::write(home.state_file(FILE), b"{\"records\": [ {\"id\"").expect("cut");
        assert!(matches!(
            Purged::load(&home),
            Err(PurgedError::Unreadable { .. })
        ));
    }
}
