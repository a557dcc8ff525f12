//! Cursor agent transcripts: `~/.cursor/projects/<slug>/agent-transcripts/<id>.jsonl` (the CLI's,
//! flat) or `<id>/<id>.jsonl` with `<id>/subagents/*.jsonl` (the IDE agent's), and the older
//! plain-text `<id>.txt`. Lines are `{role, message: {content: [text | tool_use]}}` — no ids, no
//! timestamps, no tool results, thinking replaced by `[REDACTED]`: a lossy record, read only when
//! no database holds the session. Never mistaken for a Claude transcript: the folder says which
//! it is, and its lines have no `type`/`sessionId`.

use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

use crate::many::Conversation;
use crate::session::Role;
use crate::thread::Thread;

use super::cli::user_words;

/// Whether `path` is a Cursor agent transcript (by where it lives).
pub fn is_transcript(path: &Path) -> bool {
    let s = path.as_os_str().as_encoded_bytes();
    memchr::memmem::find(s, b"/agent-transcripts/").is_some()
        && (s.ends_with(b".jsonl") || s.ends_with(b".txt"))
}

/// Whether `path` is a subagent transcript of another (`…/<id>/subagents/…`).
pub fn is_subagent(path: &Path) -> bool {
    path.parent()
        .and_then(|d| d.file_name())
        .is_some_and(|n| n == "subagents")
}

fn apply_line(t: &mut Thread, v: &Value, files: &mut Vec<String>) {
    if v.get("type").and_then(Value::as_str) == Some("error") {
        let e = v.get("error").and_then(Value::as_str).unwrap_or("error");
        t.s.push_turn(Role::Note, &format!("Error: {e}"));
        return;
    }
    let role = v.get("role").and_then(Value::as_str).unwrap_or("");
    let content = v.get("message").and_then(|m| m.get("content"));
    let parts: Vec<Value> = match content {
        Some(Value::Array(a)) => a.clone(),
        Some(Value::String(s)) => vec![serde_json::json!({"type": "text", "text": s})],
        _ => Vec::new(),
    };
    for p in parts {
        match p.get("type").and_then(Value::as_str) {
            Some("text") => {
                let text = p.get("text").and_then(Value::as_str).unwrap_or("");
                match role {
                    "user" => {
                        if let Some(w) = user_words(text) {
                            t.s.push_turn(Role::User, &w);
                        }
                    }
                    "assistant" => {
                        let text = text.replace("[REDACTED]", "");
                        t.s.push_turn(Role::Assistant, &text);
                    }
                    _ => {}
                }
            }
            Some("tool_use") => {
                let name = p.get("name").and_then(Value::as_str).unwrap_or("tool");
                let input = p.get("input").cloned().unwrap_or(Value::Null);
                let (name, input) = super::tools::canonical(name, &input);
                super::note_paths(&input, files);
                t.tool_use(None, &name, &input);
            }
            _ => {}
        }
    }
}

static STAMP: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"<timestamp>\s*\w+, (\w{3})\w* (\d{1,2}), (\d{4}), (\d{1,2}):(\d{2}) (AM|PM) \(UTC([+-]\d{1,2})(?::(\d{2}))?\)")
        .unwrap_or_else(|e| unreachable!("a fixed pattern compiles: {e}"))
});

/// The time a `<timestamp>` line (`Thursday, Jan 1, 2026, 10:00 AM (UTC+0)`) says, RFC 3339.
pub fn timestamp_of(text: &str) -> Option<String> {
    let c = STAMP.captures(text)?;
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let month = MONTHS.iter().position(|m| *m == &c[1])? + 1;
    let (day, year): (u32, i32) = (c[2].parse().ok()?, c[3].parse().ok()?);
    let mut hour: u32 = c[4].parse().ok()?;
    let minute: u32 = c[5].parse().ok()?;
    if hour == 12 {
        hour = 0;
    }
    if &c[6] == "PM" {
        hour += 12;
    }
    let off_h: i32 = c[7].parse().ok()?;
    let off_m: i32 = c.get(8).and_then(|m| m.as_str().parse().ok()).unwrap_or(0);
    let sign = if off_h < 0 { '-' } else { '+' };
    let s = format!(
        "{year:04}-{month:02}-{day:02}T{hour:02}:{minute:02}:00{sign}{:02}:{:02}",
        off_h.abs(),
        off_m
    );
    let t: jiff::Timestamp = s.parse().ok()?;
    Some(format!("{t:.3}"))
}

/// A `.jsonl` transcript into `t`; malformed lines into `issues` (`file:line: why`).
fn read_jsonl(
    path: &Path,
    bytes: &[u8],
    t: &mut Thread,
    files: &mut Vec<String>,
    issues: &mut Vec<String>,
) {
    for (no, raw) in crate::lines::split(bytes) {
        match serde_json::from_slice::<Value>(raw) {
            Ok(v) if v.is_object() => {
                if let Some(ts) = v
                    .pointer("/message/content/0/text")
                    .and_then(Value::as_str)
                    .and_then(timestamp_of)
                {
                    t.s.saw_time(&ts);
                }
                apply_line(t, &v, files);
            }
            _ => issues.push(format!(
                "{}:{no}: not a JSON object: skipped",
                path.display()
            )),
        }
    }
}

/// The older `.txt` transcript: `user:` and `A:` start turns; `[Thinking] …` is reasoning,
/// `[Tool call] name` a call, `[Tool result] …` its output.
fn read_txt(text: &str, t: &mut Thread) {
    let mut role: Option<Role> = None;
    let mut buf = String::new();
    let flush = |t: &mut Thread, role: Option<Role>, buf: &mut String| {
        match role {
            Some(Role::User) => {
                if let Some(w) = user_words(buf) {
                    t.s.push_turn(Role::User, &w);
                }
            }
            Some(r) => t.s.push_turn(r, buf),
            None => {}
        }
        buf.clear();
    };
    for line in text.lines() {
        let l = line.trim_end();
        if l == "user:" {
            flush(t, role, &mut buf);
            role = Some(Role::User);
        } else if l == "A:" || l == "assistant:" {
            flush(t, role, &mut buf);
            role = Some(Role::Assistant);
        } else if let Some(th) = l.strip_prefix("[Thinking]") {
            t.reasoning(th);
        } else if let Some(call) = l.strip_prefix("[Tool call]") {
            t.tool_use(None, call.trim(), &Value::Null);
        } else if l.starts_with("[Tool result]") {
            // The call is kept; its output is not.
        } else {
            buf.push_str(line);
            buf.push('\n');
        }
    }
    flush(t, role, &mut buf);
}

/// Read transcript `path` (and its `subagents`).
pub fn read(
    path: &Path,
    subagents: &[std::path::PathBuf],
    issues: &mut Vec<String>,
) -> Result<Option<Conversation>, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut subs = Vec::new();
    for sub in subagents {
        match std::fs::read(sub) {
            Ok(b) => subs.push((sub.display().to_string(), b)),
            Err(e) => issues.push(format!("{}: {e}: skipped", sub.display())),
        }
    }
    let mtime = std::fs::metadata(path).and_then(|m| m.modified()).ok();
    let txt = path.extension().is_some_and(|e| e == "txt");
    let mut c = parse(
        &path.display().to_string(),
        &bytes,
        &subs,
        txt,
        mtime,
        issues,
    );
    if let (Some(c), Some(side)) = (c.as_mut(), cli_meta(path)) {
        with_cli_meta(c, &side);
    }
    Ok(c)
}

/// The cursor-agent `meta.json` of the session a transcript records, when the CLI kept one:
/// `<root>/chats/<md5(project)>/<id>/meta.json` beside `<root>/projects/<slug>/agent-transcripts/`.
fn cli_meta(path: &Path) -> Option<Value> {
    let id = path.file_stem()?.to_str()?;
    let root = path
        .ancestors()
        .find(|a| a.file_name().is_some_and(|n| n == "projects"))?
        .parent()?;
    let chats = std::fs::read_dir(root.join("chats")).ok()?;
    chats.flatten().find_map(|d| {
        let bytes = std::fs::read(d.path().join(id).join("meta.json")).ok()?;
        serde_json::from_slice::<Value>(&bytes)
            .ok()
            .filter(Value::is_object)
    })
}

/// What a cursor-agent `meta.json` says that the transcript does not: the project (`cwd`) and, for
/// a transcript without times, when it was (`createdAtMs`, `updatedAtMs`).
fn with_cli_meta(c: &mut Conversation, side: &Value) {
    let inferred = c.meta.iter().any(|(k, _)| k == "project_inferred");
    if let Some(cwd) = side.get("cwd").and_then(Value::as_str)
        && (c.session.project.is_none() || inferred)
    {
        c.session.project = Some(cwd.to_string());
        c.meta.retain(|(k, _)| k != "project_inferred");
    }
    let times: Vec<String> = ["createdAtMs", "updatedAtMs"]
        .iter()
        .filter_map(|k| side.get(*k).and_then(crate::many::ms_to_rfc3339))
        .collect();
    if !times.is_empty() && c.meta.iter().any(|(k, _)| k == "time_from") {
        c.session.started = None;
        c.session.ended = None;
        for t in &times {
            c.session.saw_time(t);
        }
        for (k, v) in c.meta.iter_mut() {
            if k == "time_from" {
                *v = Value::from("cursor-agent meta.json");
            }
        }
    }
}

/// A transcript from bytes: `name` in messages, `subs` its subagents' (name, bytes), `txt` the
/// older plain-text form, `mtime` the file's modification time (the time of a transcript that
/// says none).
pub fn parse(
    name: &str,
    bytes: &[u8],
    subs: &[(String, Vec<u8>)],
    txt: bool,
    mtime: Option<std::time::SystemTime>,
    issues: &mut Vec<String>,
) -> Option<Conversation> {
    let mut fp = brain_doc::sha256_hex(bytes);
    let bytes = crate::lines::decode(bytes).into_owned();
    let mut t = Thread::default();
    let mut files = Vec::new();
    if txt {
        read_txt(&brain_doc::bytes::lossy(&bytes), &mut t);
    } else {
        read_jsonl(Path::new(name), &bytes, &mut t, &mut files, issues);
    }
    for (sub_name, b) in subs {
        fp.push_str(&brain_doc::sha256_hex(b));
        let mut st = Thread::default();
        read_jsonl(
            Path::new(sub_name),
            &crate::lines::decode(b),
            &mut st,
            &mut files,
            issues,
        );
        let id = Path::new(sub_name)
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        t.s.subagents.push(st.into_subagent(id, None, None));
    }
    if t.s.turns.iter().all(|x| x.role == Role::Note)
        && t.s.tools.is_empty()
        && t.s.subagents.is_empty()
    {
        return None;
    }
    let id = Path::new(name)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut meta = vec![("store".to_string(), Value::from("cursor-transcript"))];
    let mut s = t.into_session();
    if s.started.is_none()
        && let Some(ts) = mtime.and_then(|m| jiff::Timestamp::try_from(m).ok())
    {
        s.saw_time(&format!("{ts:.3}"));
        meta.push(("time_from".into(), Value::from("file modification time")));
    }
    s.session_id = id.clone();
    let slug = Path::new(name)
        .ancestors()
        .skip_while(|a| a.file_name().is_none_or(|n| n != "agent-transcripts"))
        .nth(1)
        .and_then(Path::file_name)
        .map(|n| n.to_string_lossy().into_owned());
    if let Some(p) = slug.and_then(|slug| super::project_of_slug(&slug, &files)) {
        s.project = Some(p);
    } else if let Some(p) = super::infer_project(&files) {
        s.project = Some(p);
        meta.push(("project_inferred".into(), Value::Bool(true)));
    }
    Some(Conversation {
        id,
        session: s,
        fingerprint: brain_doc::sha256_hex(fp.as_bytes()),
        meta,
    })
}

/// Whether the first JSON object of `bytes` is a Cursor transcript line (`role` and `message` at
/// the top; Claude's and Codex's lines carry a `type`).
pub fn sniff(first: &Value) -> bool {
    first.get("role").is_some() && first.get("message").is_some() && first.get("type").is_none()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_timestamp_line_is_read_in_its_zone() {
        assert_eq!(
            timestamp_of("<timestamp>Thursday, Jan 1, 2026, 10:00 AM (UTC+0)</timestamp>")
                .as_deref(),
            Some("2026-01-01T10:00:00.000Z")
        );
        assert_eq!(
            timestamp_of("<timestamp>Friday, Mar 6, 2026, 12:30 PM (UTC-5)</timestamp>").as_deref(),
            Some("2026-03-06T17:30:00.000Z")
        );
        assert_eq!(timestamp_of("no time"), None);
        assert!(is_transcript(Path::new(
            "/h/.cursor/projects/p/agent-transcripts/a.jsonl"
        )));
        assert!(!is_transcript(Path::new("/h/.claude/projects/p/a.jsonl")));
    }
}
