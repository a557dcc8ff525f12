//! The Cursor IDE's databases: `User/globalStorage/state.vscdb` and each
//! `User/workspaceStorage/<hash>/state.vscdb` (SQLite key-value tables `ItemTable` and
//! `cursorDiskKV`, values JSON as TEXT or BLOB). One database holds many conversations:
//!
//! * a composer's `composerData:<id>` in `cursorDiskKV`, its messages the `bubbleId:<id>:<bubble>`
//!   rows in the order of `fullConversationHeadersOnly` (2025 on), or inline in its `conversation`
//!   (earlier versions; in a workspace's `composer.composerData.allComposers[]` before that);
//! * the pre-2025 chat pane, `workbench.panel.aichat.view.aichat.chatdata` tabs.
//!
//! Each is read from a private copy of the database ([`brain_store::sqlite_copy`]), so a running
//! Cursor is never blocked. A bubble that is NULL, missing or not JSON is skipped and said; rows no
//! header names (an edited-away message) and keys whose composer part holds a newline (a tool
//! call's sub-composer) are not conversations. Auth keys (`cursorAuth/*`) are never read: only the
//! keys above are queried.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use rusqlite::{Connection, OptionalExtension, types::ValueRef};
use serde_json::Value;

use crate::many::{Conversation, Read, ms_to_rfc3339};
use crate::thread::Thread;

use super::bubble;

/// Where each composer of a workspace was opened, and its project.
#[derive(Debug, Default, Clone)]
pub struct Workspaces {
    /// composer id → project path (from the workspace's `workspace.json`).
    pub project_of: HashMap<String, String>,
}

/// Open a private copy of `db`.
pub fn open(db: &Path) -> Result<brain_store::sqlite_copy::Snapshot, String> {
    brain_store::sqlite_copy::Snapshot::open_as(db, None, "state.vscdb").map_err(|e| e.to_string())
}

fn has_table(conn: &Connection, name: &str) -> bool {
    conn.query_row(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1",
        [name],
        |_| Ok(()),
    )
    .is_ok()
}

/// A row's value as bytes (TEXT and BLOB alike); `None` for NULL.
fn bytes_of(v: ValueRef<'_>) -> Option<Vec<u8>> {
    match v {
        ValueRef::Text(b) | ValueRef::Blob(b) => Some(b.to_vec()),
        _ => None,
    }
}

/// The value of `key` in `ItemTable`, parsed: `None` when there is none (or NULL); an error,
/// naming the key, when it cannot be read (a damaged page) or is not JSON — every conversation it
/// holds is lost, which the caller says, never silently.
pub fn item(conn: &Connection, key: &str) -> Result<Option<Value>, String> {
    let raw = conn
        .query_row("SELECT value FROM ItemTable WHERE key = ?1", [key], |r| {
            Ok(bytes_of(r.get_ref(0)?))
        })
        .optional()
        .map_err(|e| format!("`{key}` could not be read ({e}): its conversations are lost"))?
        .flatten();
    let Some(raw) = raw else {
        return Ok(None);
    };
    serde_json::from_slice(&raw)
        .map(Some)
        .map_err(|e| format!("`{key}` is not JSON ({e}): its conversations are lost"))
}

/// [`item`], its failure added to what `out` could not read.
fn item_of(conn: &Connection, key: &str, out: &mut Read) -> Option<Value> {
    item(conn, key).unwrap_or_else(|e| {
        out.unreadable.push(e);
        None
    })
}

/// The project a workspace folder stands for: its `workspace.json` `folder` (a `file://` URI,
/// `%3A` and all), else its `workspace` (a `.code-workspace` file: its path without the extension).
pub fn workspace_project(dir: &Path) -> Option<String> {
    let v: Value = serde_json::from_slice(&std::fs::read(dir.join("workspace.json")).ok()?).ok()?;
    if let Some(f) = v.get("folder").and_then(Value::as_str) {
        return Some(path_of_uri(f));
    }
    let w = path_of_uri(v.get("workspace").and_then(Value::as_str)?);
    Some(w.strip_suffix(".code-workspace").unwrap_or(&w).to_string())
}

/// `file:///c%3A/Users/x` → `c:/Users/x`; `file:///home/x` → `/home/x`.
pub fn path_of_uri(uri: &str) -> String {
    let rest = uri.strip_prefix("file://").unwrap_or(uri);
    let decoded = percent_decode(rest);
    // `/c:/Users/…`: a Windows drive.
    let b = decoded.as_bytes();
    if b.len() > 3 && b[0] == b'/' && b[1].is_ascii_alphabetic() && b[2] == b':' {
        return decoded[1..].to_string();
    }
    decoded
}

fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%'
            && i + 2 < b.len()
            && let Ok(x) = u8::from_str_radix(&s[i + 1..i + 3], 16)
        {
            out.push(x);
            i += 3;
            continue;
        }
        out.push(b[i]);
        i += 1;
    }
    brain_doc::bytes::lossy(&out)
}

/// A workspace database: which composers were opened there (for the global database), the
/// conversations it holds itself (inline composers of old versions, chat-pane tabs).
pub fn read_workspace(db: &Path, ws: &mut Workspaces) -> Result<Read, String> {
    let snap = open(db)?;
    let conn = &snap.conn;
    let mut out = Read::default();
    if !has_table(conn, "ItemTable") {
        // A database of split storage alone holds no workspace entries; one with neither table is
        // damaged, or not a state database at all.
        if has_table(conn, "cursorDiskKV") {
            return Ok(out);
        }
        return Err(
            "neither `ItemTable` nor `cursorDiskKV` (a damaged state.vscdb, or not one): no conversation read"
                .into(),
        );
    }
    let project = db.parent().and_then(workspace_project);
    if let Some(data) = item_of(conn, "composer.composerData", &mut out) {
        for c in data
            .get("allComposers")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let Some(id) = c.get("composerId").and_then(Value::as_str) else {
                continue;
            };
            if let Some(p) = &project {
                ws.project_of
                    .entry(id.to_string())
                    .or_insert_with(|| p.clone());
            }
            if c.get("conversation")
                .and_then(Value::as_array)
                .is_some_and(|a| !a.is_empty())
            {
                let raw = serde_json::to_vec(c).unwrap_or_default();
                match composer(id, c, fingerprint(&raw, &[]), &[], project.as_deref()) {
                    Some(conv) => out.conversations.push(conv),
                    None => out.empty += 1,
                }
            }
        }
    }
    if let Some(chat) = item_of(
        conn,
        "workbench.panel.aichat.view.aichat.chatdata",
        &mut out,
    ) {
        for tab in chat
            .get("tabs")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            match chat_tab(tab, project.as_deref()) {
                Some(c) => out.conversations.push(c),
                None => out.empty += 1,
            }
        }
    }
    Ok(out)
}

/// The global database's composers (split storage, or inline), attributed to projects by `ws`.
/// A composer whose fingerprint `known(id, fingerprint)` recognises (`--new`: written before, not
/// changed since) is counted in `unchanged` without its bubbles being parsed.
pub fn read_global(db: &Path, ws: &Workspaces, known: Known<'_>) -> Result<Read, String> {
    let snap = open(db)?;
    let conn = &snap.conn;
    let mut out = Read::default();
    if !has_table(conn, "cursorDiskKV") {
        if !has_table(conn, "ItemTable") {
            return Err(
                "neither `cursorDiskKV` nor `ItemTable` (a damaged state.vscdb, or not one): no conversation read"
                    .into(),
            );
        }
        // A Cursor older than split storage: its conversations are in the workspaces' databases.
        return Ok(out);
    }
    let mut st = conn
        .prepare("SELECT key, value FROM cursorDiskKV WHERE key >= 'composerData:' AND key < 'composerData;' ORDER BY key")
        .map_err(|e| e.to_string())?;
    let rows: Vec<(String, Option<Vec<u8>>)> = st
        .query_map([], |r| {
            Ok((r.get::<_, String>(0)?, bytes_of(r.get_ref(1)?)))
        })
        .map_err(|e| e.to_string())?
        .collect::<Result<_, _>>()
        .map_err(|e| format!("reading the composers: {e}"))?;
    for (key, raw) in rows {
        let id = key.trim_start_matches("composerData:");
        if id.is_empty() || id.contains(['\n', ':']) {
            continue;
        }
        let Some(raw) = raw else {
            out.issues.push(format!("{key}: NULL: skipped"));
            continue;
        };
        let Ok(data) = serde_json::from_slice::<Value>(&raw) else {
            out.issues.push(format!("{key}: not JSON: skipped"));
            continue;
        };
        let headers: Vec<&Value> = data
            .get("fullConversationHeadersOnly")
            .and_then(Value::as_array)
            .map(|a| a.iter().collect())
            .unwrap_or_default();
        let (rows, mut issues) = if headers.is_empty() {
            (Vec::new(), Vec::new())
        } else {
            bubble_rows(conn, id, &headers)?
        };
        let fingerprint = fingerprint(&raw, &rows);
        if known(id, &fingerprint) {
            out.unchanged.push(id.to_string());
            continue;
        }
        let mut bubbles = Vec::with_capacity(rows.len());
        for (bid, r) in rows {
            match serde_json::from_slice::<Value>(&r) {
                Ok(v) => bubbles.push(v),
                Err(_) => issues.push(format!("bubbleId:{id}:{bid}: not JSON: skipped")),
            }
        }
        out.issues.extend(issues);
        let project = ws.project_of.get(id).map(String::as_str);
        match composer(id, &data, fingerprint, &bubbles, project) {
            Some(c) => out.conversations.push(c),
            None => out.empty += 1,
        }
    }
    Ok(out)
}

/// Whether a conversation of this id and fingerprint was written before (`--new`).
pub type Known<'a> = &'a dyn Fn(&str, &str) -> bool;

/// A composer's fingerprint: the sha256 of its row and of its bubbles' rows, in header order.
fn fingerprint(raw: &[u8], rows: &[(String, Vec<u8>)]) -> String {
    let mut fp = brain_doc::sha256_hex(raw);
    for (_, r) in rows {
        fp.push_str(&brain_doc::sha256_hex(r));
    }
    brain_doc::sha256_hex(fp.as_bytes())
}

/// The stored rows of composer `id`'s bubbles in header order, `(bubble id, bytes)`, and what
/// could not be found (a NULL row, a header naming no row). A row is found by its key, else —
/// only when some header names no key — by the `bubbleId` inside the rows.
fn bubble_rows(
    conn: &Connection,
    id: &str,
    headers: &[&Value],
) -> Result<(Vec<(String, Vec<u8>)>, Vec<String>), String> {
    let (lo, hi) = (format!("bubbleId:{id}:"), format!("bubbleId:{id};"));
    let mut st = conn
        .prepare("SELECT key, value FROM cursorDiskKV WHERE key >= ?1 AND key < ?2")
        .map_err(|e| e.to_string())?;
    let by_key: HashMap<String, Option<Vec<u8>>> = st
        .query_map([&lo, &hi], |r| {
            Ok((r.get::<_, String>(0)?, bytes_of(r.get_ref(1)?)))
        })
        .map_err(|e| e.to_string())?
        .map(|r| r.map(|(key, raw)| (key[lo.len()..].to_string(), raw)))
        .collect::<Result<_, _>>()
        .map_err(|e| format!("reading the bubbles: {e}"))?;
    let mut by_inner: Option<HashMap<String, &Vec<u8>>> = None;
    let (mut out, mut issues) = (Vec::new(), Vec::new());
    for h in headers {
        let bid = h.get("bubbleId").and_then(Value::as_str).unwrap_or("");
        let raw = match by_key.get(bid) {
            Some(Some(r)) => r.clone(),
            Some(None) => {
                issues.push(format!("bubbleId:{id}:{bid}: NULL: skipped"));
                continue;
            }
            None => {
                let inner = by_inner.get_or_insert_with(|| inner_ids(&by_key));
                match inner.get(bid) {
                    Some(r) => (*r).clone(),
                    None => {
                        issues.push(format!(
                            "composer {id}: header `{bid}` names no stored bubble: skipped"
                        ));
                        continue;
                    }
                }
            }
        };
        out.push((bid.to_string(), raw));
    }
    Ok((out, issues))
}

/// Rows by the `bubbleId` inside them, where it differs from their key's.
fn inner_ids(by_key: &HashMap<String, Option<Vec<u8>>>) -> HashMap<String, &Vec<u8>> {
    by_key
        .iter()
        .filter_map(|(bid, raw)| {
            let r = raw.as_ref()?;
            let inner = serde_json::from_slice::<Value>(r)
                .ok()?
                .get("bubbleId")?
                .as_str()?
                .to_string();
            (!inner.is_empty() && inner != *bid).then_some((inner, r))
        })
        .collect()
}

/// A composer as a conversation: `bubbles` (split storage) or its inline `conversation`; `None`
/// when nothing was said.
fn composer(
    id: &str,
    data: &Value,
    fingerprint: String,
    bubbles: &[Value],
    project: Option<&str>,
) -> Option<Conversation> {
    let mut t = Thread::default();
    let mut files = Vec::new();
    if bubbles.is_empty() {
        for b in data
            .get("conversation")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            bubble::apply(&mut t, b, &mut files);
        }
    } else {
        for b in bubbles {
            bubble::apply(&mut t, b, &mut files);
        }
    }
    if t.s.turns.is_empty() && t.s.tools.is_empty() {
        return None;
    }
    if let Some(m) = data
        .get("modelConfig")
        .and_then(|m| m.get("modelName"))
        .and_then(Value::as_str)
        && m != "default"
    {
        t.s.add_model(m);
    }
    for k in ["createdAt", "lastUpdatedAt"] {
        if let Some(ts) = data.get(k).and_then(ms_to_rfc3339) {
            t.s.saw_time(&ts);
        }
    }
    let mut s = t.into_session();
    s.session_id = id.to_string();
    s.summary = data
        .get("name")
        .and_then(Value::as_str)
        .map(str::to_string)
        .filter(|n| !n.trim().is_empty());
    s.branch = data
        .get("createdOnBranch")
        .and_then(Value::as_str)
        .map(str::to_string);
    let own = data
        .get("workspaceIdentifier")
        .and_then(|w| w.get("uri"))
        .and_then(|u| u.get("fsPath"))
        .and_then(Value::as_str);
    let mut meta = vec![("store".to_string(), Value::from("cursor-ide"))];
    s.project = match own.or(project) {
        Some(p) => Some(p.to_string()),
        None => super::infer_project(&files).inspect(|_| {
            meta.push(("project_inferred".into(), Value::Bool(true)));
        }),
    };
    Some(Conversation {
        id: id.to_string(),
        session: s,
        fingerprint,
        meta,
    })
}

/// A pre-2025 chat-pane tab as a conversation.
fn chat_tab(tab: &Value, project: Option<&str>) -> Option<Conversation> {
    let id = tab.get("tabId").and_then(Value::as_str)?;
    let mut t = Thread::default();
    let mut files = Vec::new();
    for b in tab
        .get("bubbles")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        bubble::apply(&mut t, b, &mut files);
    }
    if t.s.turns.is_empty() {
        return None;
    }
    if let Some(ts) = tab.get("lastSendTime").and_then(ms_to_rfc3339) {
        t.s.saw_time(&ts);
    }
    let mut s = t.into_session();
    s.session_id = id.to_string();
    s.summary = tab
        .get("chatTitle")
        .and_then(Value::as_str)
        .map(str::to_string);
    s.project = project.map(str::to_string);
    let raw = serde_json::to_vec(tab).unwrap_or_default();
    Some(Conversation {
        id: id.to_string(),
        session: s,
        fingerprint: brain_doc::sha256_hex(&raw),
        meta: vec![("store".into(), Value::from("cursor-chat-pane"))],
    })
}

/// The Cursor `User` folders the databases `dbs` belong to: each with its global databases and its
/// workspace databases. A database outside that layout (a copy, an exporter's fixture) is read both
/// ways: as a global one (composers) and as a workspace one (inline composers, the chat pane).
#[allow(clippy::type_complexity)]
pub fn group(dbs: &[PathBuf]) -> Vec<(Vec<PathBuf>, Vec<PathBuf>)> {
    let mut by_user: std::collections::BTreeMap<PathBuf, (Vec<PathBuf>, Vec<PathBuf>)> =
        std::collections::BTreeMap::new();
    for db in dbs {
        let dir = db.parent().unwrap_or(Path::new(""));
        let up = dir.parent().unwrap_or(Path::new(""));
        if dir.file_name().is_some_and(|n| n == "globalStorage") {
            by_user
                .entry(up.to_path_buf())
                .or_default()
                .0
                .push(db.clone());
        } else if up.file_name().is_some_and(|n| n == "workspaceStorage") {
            let user = up.parent().unwrap_or(up).to_path_buf();
            by_user.entry(user).or_default().1.push(db.clone());
        } else {
            let e = by_user.entry(dir.to_path_buf()).or_default();
            e.0.push(db.clone());
            e.1.push(db.clone());
        }
    }
    by_user.into_values().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn workspace_uris_become_paths() {
        assert_eq!(
            path_of_uri("file:///c%3A/Users/ydebray/Documents/mobilechat"),
            "c:/Users/ydebray/Documents/mobilechat"
        );
        assert_eq!(
            path_of_uri("file:///home/dev/proj%20alpha"),
            "/home/dev/proj alpha"
        );
    }
}
