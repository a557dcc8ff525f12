//! OpenCode (issue #26): its SQLite store `opencode.db` (tables `session`, `message`, `part`, the
//! message and part bodies JSON in `data`) and the older JSON tree `storage/` (`session/**/<id>.json`,
//! `message/<session>/<msg>.json`, `part/<msg>/<part>.json`). A part is text, reasoning, or a tool
//! call with its state (input, output, status); the project is the session's directory (else a
//! message's `path.cwd`). Documents are `opencode__<session id>`.

use std::collections::BTreeMap;
use std::path::Path;

use rusqlite::types::ValueRef;
use serde_json::Value;

use crate::many::{Conversation, Read, ms_to_rfc3339};
use crate::session::Role;
use crate::thread::Thread;

/// OpenCode's tool names as every agent's.
fn canonical(tool: &str, input: &Value) -> (String, Value) {
    let f = || {
        input
            .get("filePath")
            .or_else(|| input.get("path"))
            .and_then(Value::as_str)
            .map(str::to_string)
    };
    let one = |name: &str, key: &str, v: Option<String>| match v {
        Some(v) => (name.to_string(), serde_json::json!({ key: v })),
        None => (name.to_string(), input.clone()),
    };
    match tool {
        "bash" => one(
            "Bash",
            "command",
            input
                .get("command")
                .and_then(Value::as_str)
                .map(str::to_string),
        ),
        "read" => one("Read", "file_path", f()),
        "edit" | "patch" | "multiedit" => one("Edit", "file_path", f()),
        "write" => one("Write", "file_path", f()),
        "webfetch" => one(
            "WebFetch",
            "url",
            input.get("url").and_then(Value::as_str).map(str::to_string),
        ),
        "list" => one("LS", "path", f()),
        "grep" => ("Grep".into(), input.clone()),
        "glob" => ("Glob".into(), input.clone()),
        "todowrite" => ("TodoWrite".into(), input.clone()),
        other => (other.to_string(), input.clone()),
    }
}

/// One part into the thread.
fn part(t: &mut Thread, role: &str, p: &Value) {
    match p.get("type").and_then(Value::as_str) {
        Some("text") if p.get("synthetic").and_then(Value::as_bool) != Some(true) => {
            let text = p.get("text").and_then(Value::as_str).unwrap_or("");
            let r = if role == "user" {
                Role::User
            } else {
                Role::Assistant
            };
            t.s.push_turn(r, text);
        }
        Some("reasoning") => t.reasoning(p.get("text").and_then(Value::as_str).unwrap_or("")),
        Some("tool") => {
            let name = p.get("tool").and_then(Value::as_str).unwrap_or("tool");
            let state = p.get("state").cloned().unwrap_or(Value::Null);
            let input = state.get("input").cloned().unwrap_or(Value::Null);
            let (name, input) = canonical(name, &input);
            let id = p.get("callID").and_then(Value::as_str);
            t.tool_use(id, &name, &input);
            let status = state.get("status").and_then(Value::as_str).unwrap_or("");
            let out = state
                .get("output")
                .or_else(|| state.get("error"))
                .and_then(Value::as_str)
                .unwrap_or("");
            t.tool_result(id, status == "error", out);
        }
        _ => {}
    }
}

/// Messages (ordered) with their parts (ordered) into a conversation.
fn conversation(
    id: &str,
    title: Option<String>,
    directory: Option<String>,
    times: [Option<&Value>; 2],
    messages: &[(Value, Vec<Value>)],
    fingerprint: String,
) -> Option<Conversation> {
    let mut t = Thread::default();
    let mut cwd: Option<String> = None;
    for (m, parts) in messages {
        let role = m.get("role").and_then(Value::as_str).unwrap_or("");
        for model in [
            m.get("modelID"),
            m.get("model").and_then(|x| x.get("modelID")),
        ]
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        {
            t.s.add_model(model);
        }
        if let Some(ts) = m
            .get("time")
            .and_then(|x| x.get("created"))
            .and_then(ms_to_rfc3339)
        {
            t.s.saw_time(&ts);
        }
        if cwd.is_none() {
            cwd = m
                .pointer("/path/cwd")
                .and_then(Value::as_str)
                .map(str::to_string);
        }
        for p in parts {
            part(&mut t, role, p);
        }
    }
    if t.s.turns.is_empty() && t.s.tools.is_empty() {
        return None;
    }
    for v in times.into_iter().flatten() {
        if let Some(ts) = ms_to_rfc3339(v) {
            t.s.saw_time(&ts);
        }
    }
    let mut s = t.into_session();
    s.session_id = id.to_string();
    s.summary = title.filter(|x| !x.trim().is_empty());
    s.project = directory.or(cwd);
    Some(Conversation {
        id: id.to_string(),
        session: s,
        fingerprint,
        meta: vec![("store".into(), Value::from("opencode"))],
    })
}

fn text_of(v: ValueRef<'_>) -> String {
    match v {
        ValueRef::Text(b) | ValueRef::Blob(b) => brain_doc::bytes::lossy(b),
        ValueRef::Integer(i) => i.to_string(),
        _ => String::new(),
    }
}

/// The sessions of `opencode.db`.
pub fn read_db(db: &Path) -> Result<Read, String> {
    let snap = brain_store::sqlite_copy::Snapshot::open_as(db, None, "opencode.db")
        .map_err(|e| e.to_string())?;
    let conn = &snap.conn;
    let mut out = Read::default();
    let q = |sql: &str| -> Result<Vec<Vec<String>>, String> {
        let mut st = conn.prepare(sql).map_err(|e| e.to_string())?;
        let n = st.column_count();
        let rows = st
            .query_map([], |r| {
                (0..n)
                    .map(|i| Ok(text_of(r.get_ref(i)?)))
                    .collect::<Result<Vec<_>, _>>()
            })
            .map_err(|e| e.to_string())?;
        // A row that does not read (a zeroed page) fails the database, named, never drops out.
        rows.collect::<Result<Vec<_>, _>>()
            .map_err(|e| e.to_string())
    };
    let has = |t: &str| {
        conn.query_row(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1",
            [t],
            |_| Ok(()),
        )
        .is_ok()
    };
    if !has("message") || !has("part") {
        return Err(
            "no `message` or `part` table (a damaged opencode.db, or not one): no conversation read"
                .into(),
        );
    }
    // A database without its session table still has conversations: its messages name them.
    let sessions = if has("session") {
        q(
            "SELECT id, title, directory, time_created, time_updated FROM session ORDER BY time_created, id",
        )?
    } else {
        Vec::new()
    };
    let messages = q("SELECT id, session_id, data FROM message ORDER BY time_created, id")?;
    let parts = q("SELECT message_id, data FROM part ORDER BY time_created, id")?;
    let mut parts_of: BTreeMap<String, Vec<Value>> = BTreeMap::new();
    let mut fp_of: BTreeMap<String, String> = BTreeMap::new();
    for r in &parts {
        match serde_json::from_str::<Value>(&r[1]) {
            Ok(v) => parts_of.entry(r[0].clone()).or_default().push(v),
            Err(_) => out.issues.push(format!(
                "{}: a part of message {} is not JSON: skipped",
                db.display(),
                r[0]
            )),
        }
    }
    let mut msgs_of: BTreeMap<String, Vec<(Value, Vec<Value>)>> = BTreeMap::new();
    for r in &messages {
        let Ok(m) = serde_json::from_str::<Value>(&r[2]) else {
            out.issues.push(format!(
                "{}: message {} is not JSON: skipped",
                db.display(),
                r[0]
            ));
            continue;
        };
        let ps = parts_of.remove(&r[0]).unwrap_or_default();
        let fp = fp_of.entry(r[1].clone()).or_default();
        fp.push_str(&r[2]);
        for p in &ps {
            fp.push_str(&p.to_string());
        }
        msgs_of.entry(r[1].clone()).or_default().push((m, ps));
    }
    for s in &sessions {
        let msgs = msgs_of.remove(&s[0]).unwrap_or_default();
        let fp = brain_doc::sha256_hex(
            format!(
                "{}{}",
                s.join("\u{1f}"),
                fp_of.get(&s[0]).cloned().unwrap_or_default()
            )
            .as_bytes(),
        );
        let times = [Value::from(s[3].clone()), Value::from(s[4].clone())];
        match conversation(
            &s[0],
            Some(s[1].clone()),
            Some(s[2].clone()).filter(|d| !d.is_empty()),
            [Some(&times[0]), Some(&times[1])],
            &msgs,
            fp,
        ) {
            Some(c) => out.conversations.push(c),
            None => out.empty += 1,
        }
    }
    // Messages of a session the table does not list still make a conversation.
    for (sid, msgs) in msgs_of {
        let fp = brain_doc::sha256_hex(fp_of.get(&sid).cloned().unwrap_or_default().as_bytes());
        match conversation(&sid, None, None, [None, None], &msgs, fp) {
            Some(c) => out.conversations.push(c),
            None => out.empty += 1,
        }
    }
    Ok(out)
}

fn json_files(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out: Vec<std::path::PathBuf> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "json"))
                .collect()
        })
        .unwrap_or_default();
    out.sort();
    out
}

/// The sessions of a `storage/` tree (the folder holding `message/` and `part/`).
pub fn read_tree(root: &Path) -> Read {
    let mut out = Read::default();
    let mut meta_of: BTreeMap<String, Value> = BTreeMap::new();
    for entry in walkdir::WalkDir::new(root.join("session"))
        .into_iter()
        .flatten()
    {
        if entry.path().extension().is_some_and(|x| x == "json")
            && let Ok(v) =
                serde_json::from_slice::<Value>(&std::fs::read(entry.path()).unwrap_or_default())
            && let Some(id) = v.get("id").and_then(Value::as_str)
        {
            meta_of.insert(id.to_string(), v.clone());
        }
    }
    let mut sessions: Vec<std::path::PathBuf> = std::fs::read_dir(root.join("message"))
        .map(|rd| {
            rd.flatten()
                .map(|e| e.path())
                .filter(|p| p.is_dir())
                .collect()
        })
        .unwrap_or_default();
    sessions.sort();
    for dir in sessions {
        let sid = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let mut fp = String::new();
        let mut msgs: Vec<(Value, Vec<Value>)> = Vec::new();
        for mf in json_files(&dir) {
            let bytes = std::fs::read(&mf).unwrap_or_default();
            let Ok(m) = serde_json::from_slice::<Value>(&bytes) else {
                out.issues
                    .push(format!("{}: not JSON: skipped", mf.display()));
                continue;
            };
            fp.push_str(&brain_doc::sha256_hex(&bytes));
            let mid = m
                .get("id")
                .and_then(Value::as_str)
                .map(str::to_string)
                .unwrap_or_else(|| {
                    mf.file_stem()
                        .map(|s| s.to_string_lossy().into_owned())
                        .unwrap_or_default()
                });
            let mut parts = Vec::new();
            for pf in json_files(&root.join("part").join(&mid)) {
                let b = std::fs::read(&pf).unwrap_or_default();
                match serde_json::from_slice::<Value>(&b) {
                    Ok(p) => {
                        fp.push_str(&brain_doc::sha256_hex(&b));
                        parts.push(p);
                    }
                    Err(_) => out
                        .issues
                        .push(format!("{}: not JSON: skipped", pf.display())),
                }
            }
            parts.sort_by_key(|p| {
                p.pointer("/time/start")
                    .and_then(Value::as_i64)
                    .unwrap_or(i64::MAX)
            });
            msgs.push((m, parts));
        }
        msgs.sort_by_key(|(m, _)| {
            m.pointer("/time/created")
                .and_then(Value::as_i64)
                .unwrap_or(0)
        });
        let meta = meta_of.get(&sid);
        let title = meta
            .and_then(|m| m.get("title"))
            .and_then(Value::as_str)
            .map(str::to_string);
        let directory = meta
            .and_then(|m| m.get("directory"))
            .and_then(Value::as_str)
            .map(str::to_string);
        let times = [
            meta.and_then(|m| m.pointer("/time/created")),
            meta.and_then(|m| m.pointer("/time/updated")),
        ];
        match conversation(
            &sid,
            title,
            directory,
            times,
            &msgs,
            brain_doc::sha256_hex(fp.as_bytes()),
        ) {
            Some(c) => out.conversations.push(c),
            None => out.empty += 1,
        }
    }
    out
}
