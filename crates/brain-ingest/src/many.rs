//! Stores that hold many conversations — a Cursor database, an OpenCode database or storage tree,
//! an Aider history file: what a reader of one yields, and how it becomes documents. (A Claude
//! Code, Codex or Gemini transcript is one file, one session: [`crate::convert`].)

use std::path::Path;

use brain_doc::{Doc, Source};
use brain_redact as redact;
use serde_json::Value;

use crate::session::{Agent, Session};

/// One conversation read out of a store.
#[derive(Debug, Clone, Default)]
pub struct Conversation {
    /// The agent's own id of it (Cursor's composer id, OpenCode's session id, …).
    pub id: String,
    pub session: Session,
    /// sha256 of what it was read from: the same fingerprint, the same document (`--new` skips it).
    pub fingerprint: String,
    /// Frontmatter beyond the session's own (`project_inferred`, `store`, …).
    pub meta: Vec<(String, Value)>,
}

/// What a store held.
#[derive(Debug, Default)]
pub struct Read {
    pub conversations: Vec<Conversation>,
    /// Conversations with nothing said (an opened, never sent composer): no document.
    pub empty: u64,
    /// What could not be read inside it (a NULL bubble, a message that is not JSON): `where: why`.
    pub issues: Vec<String>,
    /// Conversations whose fingerprint showed them unchanged since written (`--new`): not read
    /// further, their ids only.
    pub unchanged: Vec<String>,
    /// Its databases that could not be read at all (a corrupt workspace database beside a good
    /// global one): `path: why`.
    pub unreadable: Vec<String>,
}

/// `c`, read from `file` by `agent`, as a document (redacted unless `redact_secrets` is off);
/// `None` when it holds `brain:do-not-index`.
pub fn to_doc(agent: Agent, file: &Path, c: &Conversation, redact_secrets: bool) -> Option<Doc> {
    let mut session = c.session.clone();
    let marker = String::from_utf8_lossy(redact::DO_NOT_INDEX).into_owned();
    let mut hit = false;
    session.map_text(&mut |t| {
        hit |= t.contains(&marker);
        t.to_string()
    });
    if hit {
        return None;
    }
    if session.session_id.is_empty() {
        session.session_id = c.id.clone();
    }
    let place = crate::render::place_of(&file.display().to_string());
    let source = Source {
        kind: "session".into(),
        agent: Some(agent.as_str().into()),
        file: place.clone(),
        lines: None,
        sha256: Some(c.fingerprint.clone()),
        parts: Vec::new(),
    };
    let counts = session.redact(redact_secrets);
    let id = agent.doc_id(None, Some(&c.id), &place);
    let mut doc = crate::render::to_doc(&session, agent, id, source);
    for (k, v) in &c.meta {
        doc.meta.insert(k.clone(), v.clone());
    }
    brain_redact::record(&counts, &mut doc.meta);
    Some(doc)
}

/// Milliseconds since the epoch (a number, or a numeric string) as RFC 3339 with milliseconds.
pub fn ms_to_rfc3339(v: &Value) -> Option<String> {
    let ms = match v {
        Value::Number(n) => n.as_i64().or_else(|| n.as_f64().map(|f| f as i64))?,
        Value::String(s) => s.trim().parse::<i64>().ok()?,
        _ => return None,
    };
    // Seconds, not milliseconds (before 2001 in ms): a few stores write seconds.
    let ms = if ms < 1_000_000_000_000 {
        ms * 1000
    } else {
        ms
    };
    let t = jiff::Timestamp::from_millisecond(ms).ok()?;
    Some(format!("{t:.3}"))
}

/// A time as the stores write it: RFC 3339 text, or milliseconds.
pub fn time_of(v: &Value) -> Option<String> {
    match v {
        Value::String(s) if s.contains('T') => {
            s.parse::<jiff::Timestamp>().ok().map(|t| format!("{t:.3}"))
        }
        other => ms_to_rfc3339(other),
    }
}
