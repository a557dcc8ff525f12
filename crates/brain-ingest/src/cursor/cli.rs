//! The cursor-agent CLI's store (`~/.cursor/chats/<md5(project)>/<agent id>/store.db`): table
//! `meta` (row `'0'`: hex of a JSON object with `latestRootBlobId`, `name`, `createdAt`,
//! `lastUsedModel`) and table `blobs` (content-addressed: `id` = sha256 of `data`). The latest root
//! blob is protobuf whose field 1 entries are the 32-byte ids of the conversation's messages, in
//! order (JSON: `{role, content}` with text, reasoning, tool-call and tool-result parts). Only what
//! the latest root names is the conversation: a retried answer an older root kept never shows.
//! The system prompt and injected context (`<user_info>`, rules) are dropped; the user's words are
//! the inside of `<user_query>`.

use std::path::Path;

use rusqlite::types::ValueRef;
use serde_json::Value;

use crate::many::{Conversation, ms_to_rfc3339};
use crate::session::Role;
use crate::thread::Thread;

/// Most messages a root may name (a store of a runaway agent).
const MAX_MESSAGES: usize = 20_000;

/// The ids (hex) a protobuf root names in field 1; other fields skipped by wire type.
pub fn child_ids(root: &[u8]) -> Vec<String> {
    let mut out = Vec::new();
    let mut i = 0;
    let varint = |b: &[u8], i: &mut usize| -> Option<u64> {
        let mut v: u64 = 0;
        for shift in (0..64).step_by(7) {
            let byte = *b.get(*i)?;
            *i += 1;
            v |= u64::from(byte & 0x7f) << shift;
            if byte & 0x80 == 0 {
                return Some(v);
            }
        }
        None
    };
    while i < root.len() && out.len() < MAX_MESSAGES {
        let Some(key) = varint(root, &mut i) else {
            break;
        };
        let (field, wire) = (key >> 3, key & 7);
        match wire {
            0 => {
                if varint(root, &mut i).is_none() {
                    break;
                }
            }
            1 => i += 8,
            5 => i += 4,
            2 => {
                let Some(len) = varint(root, &mut i) else {
                    break;
                };
                let len = len as usize;
                let Some(data) = root.get(i..i.saturating_add(len)) else {
                    break;
                };
                if field == 1 && len == 32 {
                    out.push(data.iter().map(|b| format!("{b:02x}")).collect());
                }
                i += len;
            }
            _ => break,
        }
    }
    out
}

/// The user's words of a message text: the inside of `<user_query>` when there is one; `None` for
/// injected context (`<user_info>`, `<rules>`, …) with no query in it.
pub fn user_words(text: &str) -> Option<String> {
    if let Some(a) = text.find("<user_query>") {
        let rest = &text[a + "<user_query>".len()..];
        let inner = rest.rfind("</user_query>").map_or(rest, |b| &rest[..b]);
        return Some(inner.trim().to_string());
    }
    let t = text.trim();
    if t.starts_with('<')
        && (t.contains("<user_info>") || t.contains("<rules>") || t.contains("<system_reminder>"))
    {
        // A subagent's task follows its reminder; context alone says nothing.
        let after = t.rsplit_once('>').map(|(_, r)| r.trim()).unwrap_or("");
        return (!after.is_empty()).then(|| after.to_string());
    }
    Some(strip_timestamp(t))
}

fn strip_timestamp(t: &str) -> String {
    match (t.find("<timestamp>"), t.find("</timestamp>")) {
        (Some(a), Some(b)) if a < b => format!("{}{}", &t[..a], &t[b + "</timestamp>".len()..])
            .trim()
            .to_string(),
        _ => t.to_string(),
    }
}

/// One message (JSON) into the thread.
pub fn apply(t: &mut Thread, m: &Value, files: &mut Vec<String>) {
    let role = m.get("role").and_then(Value::as_str).unwrap_or("");
    let parts: Vec<Value> = match m.get("content") {
        Some(Value::String(s)) => vec![serde_json::json!({"type": "text", "text": s})],
        Some(Value::Array(a)) => a.clone(),
        _ => Vec::new(),
    };
    for p in &parts {
        let kind = p.get("type").and_then(Value::as_str).unwrap_or("");
        let text = p.get("text").and_then(Value::as_str).unwrap_or("");
        match (role, kind) {
            ("system", _) => {}
            ("user", "text") => {
                if let Some(w) = user_words(text) {
                    t.s.push_turn(Role::User, &w);
                }
            }
            ("assistant", "text") if text.trim() != "[REDACTED]" => {
                t.s.push_turn(Role::Assistant, text);
            }
            ("assistant", "reasoning") => t.reasoning(text),
            (_, "tool-call") => {
                let name = p.get("toolName").and_then(Value::as_str).unwrap_or("tool");
                let args = p.get("args").cloned().unwrap_or(Value::Null);
                let (name, input) = super::tools::canonical(name, &args);
                super::note_paths(&input, files);
                t.tool_use(p.get("toolCallId").and_then(Value::as_str), &name, &input);
            }
            (_, "tool-result") => {
                let result = match p.get("result") {
                    Some(Value::String(s)) => s.clone(),
                    Some(v) => v.to_string(),
                    None => String::new(),
                };
                let failed = p.get("isError").and_then(Value::as_bool).unwrap_or(false);
                t.tool_result(p.get("toolCallId").and_then(Value::as_str), failed, &result);
            }
            _ => {}
        }
        if let Some(model) = p
            .get("providerOptions")
            .and_then(|o| o.get("cursor"))
            .and_then(|c| c.get("modelName"))
            .and_then(Value::as_str)
        {
            t.s.add_model(model);
        }
    }
}

fn blob(conn: &rusqlite::Connection, id: &str) -> Option<Vec<u8>> {
    conn.query_row("SELECT data FROM blobs WHERE id = ?1", [id], |r| {
        Ok(match r.get_ref(0)? {
            ValueRef::Blob(b) | ValueRef::Text(b) => Some(b.to_vec()),
            _ => None,
        })
    })
    .ok()
    .flatten()
}

/// Read `store.db` (the agent id is its folder's name); `issues` gets what could not be read.
pub fn read(db: &Path, issues: &mut Vec<String>) -> Result<Option<Conversation>, String> {
    let snap = brain_store::sqlite_copy::Snapshot::open_as(db, None, "store.db")
        .map_err(|e| e.to_string())?;
    let conn = &snap.conn;
    let id = db
        .parent()
        .and_then(|d| d.file_name())
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let hex: String = conn
        .query_row("SELECT value FROM meta WHERE key = '0'", [], |r| {
            Ok(match r.get_ref(0)? {
                ValueRef::Text(b) | ValueRef::Blob(b) => brain_doc::bytes::lossy(b),
                _ => String::new(),
            })
        })
        .map_err(|e| format!("no meta row: {e}"))?;
    let meta_bytes: Vec<u8> = (0..hex.len() / 2)
        .filter_map(|i| u8::from_str_radix(hex.get(2 * i..2 * i + 2)?, 16).ok())
        .collect();
    let meta: Value = serde_json::from_slice(&meta_bytes)
        .or_else(|_| serde_json::from_str(&hex))
        .map_err(|e| format!("meta is neither hex JSON nor JSON: {e}"))?;
    let Some(root_id) = meta.get("latestRootBlobId").and_then(Value::as_str) else {
        return Ok(None);
    };
    let root = blob(conn, root_id).ok_or_else(|| format!("the root blob {root_id} is missing"))?;
    let mut t = Thread::default();
    let mut files = Vec::new();
    let mut fp = root_id.to_string();
    for child in child_ids(&root) {
        let Some(bytes) = blob(conn, &child) else {
            issues.push(format!(
                "{}: blob {child} is missing: skipped",
                db.display()
            ));
            continue;
        };
        fp.push_str(&child);
        match serde_json::from_slice::<Value>(&bytes) {
            Ok(m) => apply(&mut t, &m, &mut files),
            Err(_) => issues.push(format!(
                "{}: blob {child} is not a JSON message: skipped",
                db.display()
            )),
        }
    }
    if t.s.turns.is_empty() && t.s.tools.is_empty() {
        return Ok(None);
    }
    if let Some(m) = meta.get("lastUsedModel").and_then(Value::as_str) {
        t.s.add_model(m);
    }
    let side: Option<Value> = std::fs::read(db.with_file_name("meta.json"))
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok());
    for v in [
        meta.get("createdAt"),
        side.as_ref().and_then(|s| s.get("createdAtMs")),
        side.as_ref().and_then(|s| s.get("updatedAtMs")),
    ]
    .into_iter()
    .flatten()
    {
        if let Some(ts) = ms_to_rfc3339(v) {
            t.s.saw_time(&ts);
        }
    }
    let mut s = t.into_session();
    s.session_id = id.clone();
    s.summary = meta.get("name").and_then(Value::as_str).map(str::to_string);
    let mut meta_out = vec![("store".to_string(), Value::from("cursor-agent"))];
    s.project = match side
        .as_ref()
        .and_then(|m| m.get("cwd"))
        .and_then(Value::as_str)
    {
        Some(cwd) => Some(cwd.to_string()),
        None => super::infer_project(&files).inspect(|_| {
            meta_out.push(("project_inferred".into(), Value::Bool(true)));
        }),
    };
    Ok(Some(Conversation {
        id,
        session: s,
        fingerprint: brain_doc::sha256_hex(fp.as_bytes()),
        meta: meta_out,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_root_names_its_children_and_skips_other_fields() {
        let a = [0x11u8; 32];
        let b = [0x22u8; 32];
        let mut root = vec![0x0a, 0x20];
        root.extend_from_slice(&a);
        root.extend_from_slice(&[0x28, 0x80, 0xf4, 0x01]); // field 5, varint
        root.extend_from_slice(&[0x0a, 0x20]);
        root.extend_from_slice(&b);
        assert_eq!(child_ids(&root), [hex(&a), hex(&b)]);
        assert!(
            child_ids(&[0x0a, 0xff]).is_empty(),
            "a cut root names nothing, never panics"
        );
    }

    fn hex(b: &[u8]) -> String {
        b.iter().map(|x| format!("{x:02x}")).collect()
    }

    #[test]
    fn the_users_words_are_the_query_and_context_is_dropped() {
        assert_eq!(
            user_words(
                "<timestamp>Thu</timestamp>\n<user_query>\nlist the rust files\n</user_query>"
            )
            .as_deref(),
            Some("list the rust files")
        );
        assert_eq!(user_words("<user_info>\nOS: linux\n</user_info>"), None);
        assert_eq!(user_words("plain words").as_deref(), Some("plain words"));
    }
}
