//! Gemini CLI chat sessions (`~/.gemini/tmp/<project-hash>/chats/session-*.json`): one JSON document,
//! `{sessionId, projectHash, startTime, lastUpdated, messages: [...]}`. User content is a string or a
//! list of `{text}` parts; `gemini` messages carry `content`, `thoughts` (→ Reasoning), `toolCalls`
//! (→ Tools Used, with `status: "error"` marking failures) and `model`.

use serde_json::Value;

use crate::session::{Role, Session};
use crate::thread::Thread;

/// Why a Gemini file is not a session.
#[derive(Debug)]
pub enum NotASession {
    /// Not JSON at all.
    Invalid(String),
    /// JSON, but not a `{messages: [...]}` object (e.g. `logs.json`).
    Shape,
}

/// True when a parsed JSON document is a Gemini chat session.
pub fn sniff(v: &Value) -> bool {
    v.get("messages").is_some_and(Value::is_array) && v.get("sessionId").is_some()
}

/// Parse a session document.
pub fn parse(bytes: &[u8]) -> Result<Session, NotASession> {
    let v: Value =
        serde_json::from_slice(bytes).map_err(|e| NotASession::Invalid(e.to_string()))?;
    parse_value(&v)
}

/// What a truncated session document still holds: its header and every message complete before
/// the cut, as a whole document, with the count of messages kept and the byte where the cut is.
pub struct Salvaged {
    pub doc: Value,
    pub kept: usize,
    pub cut_at: usize,
}

/// Rebuild a session document cut short (a half-written file, a crash mid-save): the fields before
/// `"messages"` and every complete element of the messages array. `None` when `bytes` is not a
/// Gemini session's beginning (no `sessionId` before the messages, no array).
pub fn salvage(bytes: &[u8]) -> Option<Salvaged> {
    let key = memchr::memmem::find(bytes, b"\"messages\"")?;
    // The header: the object up to the key, closed.
    let head = bytes[..key].trim_ascii_end();
    let head = head.strip_suffix(b",").unwrap_or(head);
    let mut header_text = head.to_vec();
    header_text.push(b'}');
    let mut doc: serde_json::Map<String, Value> = serde_json::from_slice(&header_text).ok()?;
    doc.get("sessionId")?;
    // The array: one element at a time until the cut.
    let after_key = &bytes[key + b"\"messages\"".len()..];
    let colon = after_key.iter().position(|b| !b.is_ascii_whitespace())?;
    let rest = after_key[colon..].strip_prefix(b":")?.trim_ascii_start();
    let mut rest = rest.strip_prefix(b"[")?;
    let mut messages = Vec::new();
    let mut cut_at = bytes.len() - rest.len();
    loop {
        rest = rest.trim_ascii_start();
        if rest.first() == Some(&b']') || rest.is_empty() {
            break;
        }
        let mut one = serde_json::Deserializer::from_slice(rest).into_iter::<Value>();
        let Some(Ok(v)) = one.next() else {
            break;
        };
        messages.push(v);
        rest = rest[one.byte_offset()..].trim_ascii_start();
        cut_at = bytes.len() - rest.len();
        match rest.first() {
            Some(b',') => rest = &rest[1..],
            _ => break,
        }
    }
    let kept = messages.len();
    doc.insert("messages".into(), Value::Array(messages));
    Some(Salvaged {
        doc: Value::Object(doc),
        kept,
        cut_at,
    })
}

/// Parse a session document already read as JSON.
pub fn parse_value(v: &Value) -> Result<Session, NotASession> {
    if !sniff(v) {
        return Err(NotASession::Shape);
    }
    let mut t = Thread::default();
    let s = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
    t.s.session_id = s("sessionId").unwrap_or_default();
    if let Some(ts) = s("startTime") {
        t.s.saw_time(&ts);
    }
    let messages = v
        .get("messages")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    t.s.lines = messages.len() as u64;
    for m in &messages {
        let ms = |k: &str| m.get(k).and_then(Value::as_str);
        if let Some(ts) = ms("timestamp") {
            t.s.saw_time(ts);
        }
        if let Some(model) = ms("model") {
            t.s.add_model(model);
        }
        let text = content_text(m.get("content"));
        match ms("type") {
            Some("user") => t.s.push_turn(Role::User, &text),
            Some("gemini") | Some("model") | Some("assistant") => {
                if let Some(thoughts) = m.get("thoughts").and_then(Value::as_array) {
                    for th in thoughts {
                        let subject = th.get("subject").and_then(Value::as_str).unwrap_or("");
                        let desc = th.get("description").and_then(Value::as_str).unwrap_or("");
                        let r = match (subject.trim(), desc.trim()) {
                            ("", d) => d.to_string(),
                            (s, "") => s.to_string(),
                            (s, d) => format!("**{s}**: {d}"),
                        };
                        t.reasoning(&r);
                    }
                }
                if let Some(calls) = m.get("toolCalls").and_then(Value::as_array) {
                    for c in calls {
                        let id = c.get("id").and_then(Value::as_str);
                        let name = c.get("name").and_then(Value::as_str).unwrap_or("tool");
                        t.tool_use(id, name, c.get("args").unwrap_or(&Value::Null));
                        if c.get("status").and_then(Value::as_str) == Some("error") {
                            let msg = c
                                .get("resultDisplay")
                                .and_then(Value::as_str)
                                .unwrap_or("error");
                            t.tool_result(id, true, msg);
                        }
                    }
                }
                t.s.push_turn(Role::Assistant, &text);
            }
            Some("info") | Some("error") | Some("warning") => {}
            _ => {}
        }
    }
    Ok(t.s)
}

fn content_text(c: Option<&Value>) -> String {
    match c {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}
