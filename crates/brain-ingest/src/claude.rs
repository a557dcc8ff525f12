//! Claude Code transcripts (`~/.claude/projects/<project>/<session>.jsonl`).
//!
//! Shapes handled, as the real corpora show them: one API response split over several `assistant` lines
//! sharing `message.id` (merged in order); `tool_use` ↔ `tool_result` paired by id (errors marked);
//! `isMeta` and `system` lines kept out of the conversation; `compact_boundary` and `isCompactSummary`
//! turned into notes; `summary` lines attached through `leafUuid`; `isSidechain` lines and subagent files
//! (`agent-*.jsonl` beside the session, or `<session>/subagents/**/agent-*.jsonl` with `.meta.json`)
//! attributed to the parent as subagents; repeated lines (same `uuid`, as after a resume) read once.

use std::collections::{HashMap, HashSet};

use serde::Deserialize;
use serde_json::Value;

use crate::lines::{self, LineIssue};
use crate::session::{Role, Session};
use crate::thread::Thread;
use crate::tools::clip;

/// Longest compaction summary kept as a note (it restates earlier turns).
const COMPACT_SUMMARY_MAX: usize = 2000;

#[derive(Deserialize, Default)]
#[serde(default)]
struct Line {
    #[serde(rename = "type")]
    kind: Option<String>,
    uuid: Option<String>,
    #[serde(rename = "sessionId")]
    session_id: Option<String>,
    timestamp: Option<String>,
    cwd: Option<String>,
    #[serde(rename = "gitBranch")]
    git_branch: Option<String>,
    version: Option<String>,
    slug: Option<String>,
    #[serde(rename = "isMeta")]
    is_meta: Option<bool>,
    #[serde(rename = "isSidechain")]
    is_sidechain: Option<bool>,
    #[serde(rename = "isCompactSummary")]
    is_compact_summary: Option<bool>,
    #[serde(rename = "agentId")]
    agent_id: Option<String>,
    subtype: Option<String>,
    summary: Option<String>,
    #[serde(rename = "leafUuid")]
    leaf_uuid: Option<String>,
    message: Option<Message>,
    #[serde(rename = "compactMetadata")]
    compact_metadata: Option<Value>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Message {
    model: Option<String>,
    content: Option<Content>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum Content {
    Text(String),
    Blocks(Vec<Value>),
}

/// What a Claude transcript file turned out to hold.
pub struct Parsed {
    /// The main thread (and inline sidechains as subagents).
    pub session: Session,
    /// The file held only `summary` lines (or nothing a person said).
    pub summary_only: bool,
    /// Malformed lines.
    pub issues: Vec<LineIssue>,
    /// Number of `summary` lines read.
    pub summaries: usize,
}

/// Parse a whole transcript.
pub fn parse(bytes: &[u8]) -> Parsed {
    let mut reader = Reader::default();
    let mut records = lines::Records::<Line>::new(bytes);
    for (_, line) in &mut records {
        reader.line(line);
    }
    reader.finish(records.last, records.issues)
}

/// A transcript as its lines are read.
#[derive(Default)]
struct Reader {
    main: Thread,
    /// Inline sidechains by agent id, in the order they appear.
    sidechains: Vec<(String, Thread)>,
    /// What sidechain lines say of their session (cwd, id, times): a subagent transcript whose
    /// parent is absent is dated and placed by it.
    side: Session,
    /// `summary` lines: (leaf uuid, text).
    summaries: Vec<(String, String)>,
    /// Line uuids read (a resumed session repeats lines).
    seen: HashSet<String>,
    saw_message: bool,
}

impl Reader {
    fn line(&mut self, line: Line) {
        let kind = line.kind.as_deref().unwrap_or("");
        if kind == "summary" {
            if let (Some(leaf), Some(text)) = (line.leaf_uuid.clone(), line.summary.clone()) {
                self.summaries.push((leaf, text));
            }
            return;
        }
        if let Some(u) = &line.uuid
            && !self.seen.insert(u.clone())
        {
            return; // the same line again (resumed session)
        }
        let sidechain = line.is_sidechain == Some(true);
        if sidechain {
            note_context(&mut self.side, &line);
            if let Some(ts) = &line.timestamp {
                self.side.saw_time(ts);
            }
        }
        self.saw_message |= matches!(kind, "user" | "assistant");
        let thread = self.thread(sidechain, line.agent_id.as_deref());
        if !sidechain {
            note_context(&mut thread.s, &line);
        }
        // Claude Code 2.x starts every failed shell command's output with `Exit code N`.
        thread.exit_codes = line
            .version
            .as_deref()
            .and_then(|v| v.split('.').next())
            .and_then(|m| m.parse::<u32>().ok())
            .is_some_and(|m| m >= 2);
        if let Some(ts) = &line.timestamp {
            thread.s.saw_time(ts);
        }
        match kind {
            "user" | "assistant" => message(thread, line),
            "system" if line.subtype.as_deref() == Some("compact_boundary") => {
                thread.s.compactions += 1;
                let detail = compact_detail(line.compact_metadata.as_ref());
                thread.s.turns.push(crate::session::Turn {
                    role: Role::Note,
                    text: format!("Conversation compacted{detail}."),
                });
            }
            _ => {}
        }
    }

    /// The thread a line belongs to: the main one, or its sidechain's (opened on its first line).
    fn thread(&mut self, sidechain: bool, agent: Option<&str>) -> &mut Thread {
        if !sidechain {
            return &mut self.main;
        }
        let key = agent.unwrap_or("sidechain");
        let i = match self.sidechains.iter().position(|(k, _)| k == key) {
            Some(i) => i,
            None => {
                self.sidechains.push((key.to_string(), Thread::default()));
                self.sidechains.len() - 1
            }
        };
        &mut self.sidechains[i].1
    }

    /// The session: the main thread, placed by its sidechains when it has nothing of its own; its
    /// summary; the sidechains as subagents.
    fn finish(self, last_line: u64, issues: Vec<LineIssue>) -> Parsed {
        let Reader {
            main,
            sidechains,
            mut side,
            summaries,
            seen,
            saw_message,
        } = self;
        let mut session = main.s;
        session.lines = last_line;
        // Only sidechains (a subagent transcript on its own): the session is theirs.
        if session.turns.is_empty() && session.started.is_none() {
            session.started = side.started.take();
            session.ended = side.ended.take();
            for (slot, v) in [
                (&mut session.project, side.project.take()),
                (&mut session.branch, side.branch.take()),
                (&mut session.agent_version, side.agent_version.take()),
            ] {
                if slot.is_none() {
                    *slot = v;
                }
            }
            if session.session_id.is_empty() {
                session.session_id = std::mem::take(&mut side.session_id);
            }
        }
        // A summary belongs to this session when its leaf is one of this file's messages; the newest wins.
        session.summary = summaries
            .iter()
            .rev()
            .find(|(leaf, _)| seen.contains(leaf))
            .map(|(_, t)| t.clone());
        for (key, t) in sidechains {
            session.models.extend(
                t.s.models
                    .iter()
                    .filter(|m| !session.models.contains(m))
                    .cloned()
                    .collect::<Vec<_>>(),
            );
            session.subagents.push(t.into_subagent(key, None, None));
        }
        Parsed {
            summary_only: !saw_message,
            summaries: summaries.len(),
            session,
            issues,
        }
    }
}

/// A `user` or `assistant` line's message into its thread (meta lines kept out).
fn message(thread: &mut Thread, line: Line) {
    let kind = line.kind.as_deref().unwrap_or("");
    if line.is_meta == Some(true) {
        return;
    }
    let Some(msg) = line.message else { return };
    if let Some(m) = &msg.model {
        thread.s.add_model(m);
    }
    let compact_summary = line.is_compact_summary == Some(true);
    match (kind, msg.content) {
        ("user", Some(Content::Text(t))) => user_text(thread, &t, compact_summary),
        ("assistant", Some(Content::Text(t))) => thread.s.push_turn(Role::Assistant, &t),
        (_, Some(Content::Blocks(blocks))) => {
            for b in &blocks {
                block(thread, kind, b, compact_summary);
            }
        }
        _ => {}
    }
}

/// Parse a subagent file into the parent's subagent list; also its first and last timestamps.
pub fn parse_subagent(
    bytes: &[u8],
    id: String,
    kind: Option<String>,
    description: Option<String>,
) -> (
    crate::session::Subagent,
    Vec<String>,
    Vec<LineIssue>,
    [Option<String>; 2],
) {
    let parsed = parse(bytes);
    let span = [parsed.session.started.clone(), parsed.session.ended.clone()];
    let mut t = Thread::default();
    let models = parsed.session.models.clone();
    // Subagent files mark every line as a sidechain; their content lands in `subagents[0]`.
    let mut sub = match parsed.session.subagents.into_iter().next() {
        Some(s) if parsed.session.turns.is_empty() => s,
        other => {
            t.s.turns = parsed.session.turns;
            t.s.tools = parsed.session.tools;
            let mut s = t.into_subagent(id.clone(), None, None);
            if let Some(o) = other {
                s.tools.extend(o.tools);
            }
            s
        }
    };
    sub.id = id;
    sub.kind = kind;
    sub.description = description;
    (sub, models, parsed.issues, span)
}

fn note_context(s: &mut Session, line: &Line) {
    fill(&mut s.project, &line.cwd);
    fill(&mut s.branch, &line.git_branch);
    fill(&mut s.agent_version, &line.version);
    fill(&mut s.slug, &line.slug);
    if s.session_id.is_empty()
        && let Some(id) = &line.session_id
    {
        s.session_id = id.clone();
    }
}

fn fill(slot: &mut Option<String>, v: &Option<String>) {
    if slot.is_none()
        && let Some(v) = v.as_deref().filter(|v| !v.is_empty())
    {
        *slot = Some(v.to_string());
    }
}

fn compact_detail(meta: Option<&Value>) -> String {
    let Some(m) = meta else { return String::new() };
    let trigger = m.get("trigger").and_then(Value::as_str);
    let tokens = m.get("preTokens").and_then(Value::as_u64);
    match (trigger, tokens) {
        (Some(t), Some(n)) => format!(" ({t}, {n} tokens)"),
        (Some(t), None) => format!(" ({t})"),
        (None, Some(n)) => format!(" ({n} tokens)"),
        (None, None) => String::new(),
    }
}

fn block(thread: &mut Thread, kind: &str, b: &Value, compact_summary: bool) {
    let s = |k: &str| b.get(k).and_then(Value::as_str);
    match s("type") {
        Some("text") => {
            let text = s("text").unwrap_or("");
            if kind == "user" {
                user_text(thread, text, compact_summary)
            } else {
                thread.s.push_turn(Role::Assistant, text)
            }
        }
        Some("thinking") => thread.reasoning(s("thinking").unwrap_or("")),
        Some("tool_use") | Some("server_tool_use") => {
            let input = b.get("input").cloned().unwrap_or(Value::Null);
            thread.tool_use(s("id"), s("name").unwrap_or("tool"), &input);
        }
        Some("tool_result") => {
            let is_error = b.get("is_error").and_then(Value::as_bool).unwrap_or(false);
            let text = result_text(b.get("content"));
            thread.tool_result(s("tool_use_id"), is_error, &text);
        }
        Some("image") => thread.s.push_turn(
            if kind == "user" {
                Role::User
            } else {
                Role::Assistant
            },
            "[image]",
        ),
        _ => {}
    }
}

/// Text of a tool result: a string, or a list of text blocks.
fn result_text(content: Option<&Value>) -> String {
    match content {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

fn user_text(thread: &mut Thread, text: &str, compact_summary: bool) {
    if compact_summary {
        let t = clip(text.trim(), COMPACT_SUMMARY_MAX);
        thread.s.turns.push(crate::session::Turn {
            role: Role::Note,
            text: format!("Summary of the compacted conversation: {t}"),
        });
        return;
    }
    // `! cmd` typed by the user runs in the shell: keep the command as a turn and a tool line.
    if let Some(cmd) = tag_inner(text, "bash-input") {
        let cmd = cmd.trim();
        thread.s.push_turn(Role::User, &format!("! {cmd}"));
        thread.tool_use(None, "Bash", &serde_json::json!({ "command": cmd }));
        return;
    }
    // Output of local commands and `!` shells: one line of it, as a note.
    for tag in [
        "bash-stdout",
        "bash-stderr",
        "local-command-stdout",
        "local-command-stderr",
    ] {
        if let Some(out) = tag_inner(text, tag) {
            let first = crate::tools::one_line(&strip_ansi(&out));
            if !first.is_empty() {
                thread.s.turns.push(crate::session::Turn {
                    role: Role::Note,
                    text: format!("Command output: {}", clip(&first, 200)),
                });
            }
            return;
        }
    }
    let cleaned = clean_user_text(text);
    thread.s.push_turn(Role::User, &cleaned);
}

/// Remove ANSI escape sequences (`\x1b[1m`) from terminal output.
fn strip_ansi(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            if chars.peek() == Some(&'[') {
                chars.next();
                for n in chars.by_ref() {
                    if n.is_ascii_alphabetic() {
                        break;
                    }
                }
            }
            continue;
        }
        out.push(c);
    }
    out
}

/// Strip the markup Claude Code injects into user turns: system reminders and local command output go;
/// a slash command becomes `/name args`.
pub fn clean_user_text(text: &str) -> String {
    let mut t = text.to_string();
    for tag in [
        "system-reminder",
        "local-command-stdout",
        "local-command-stderr",
        "command-message",
    ] {
        t = strip_tag(&t, tag);
    }
    if let Some(name) = tag_inner(&t, "command-name") {
        let args = tag_inner(&t, "command-args").unwrap_or_default();
        let cmd = if args.trim().is_empty() {
            name.trim().to_string()
        } else {
            format!("{} {}", name.trim(), args.trim())
        };
        t = strip_tag(&strip_tag(&t, "command-name"), "command-args");
        t = format!(
            "{cmd}{}",
            if t.trim().is_empty() {
                String::new()
            } else {
                format!("\n{}", t.trim())
            }
        );
    }
    t.trim().to_string()
}

fn tag_inner(text: &str, tag: &str) -> Option<String> {
    let open = format!("<{tag}>");
    let close = format!("</{tag}>");
    let start = text.find(&open)? + open.len();
    let end = text[start..].find(&close)? + start;
    Some(text[start..end].to_string())
}

fn strip_tag(text: &str, tag: &str) -> String {
    let open = format!("<{tag}>");
    let close = format!("</{tag}>");
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find(&open) {
        out.push_str(&rest[..i]);
        match rest[i..].find(&close) {
            Some(j) => rest = &rest[i + j + close.len()..],
            None => {
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

/// Meta of a `<session>/subagents/…/agent-X.meta.json`: (agentType, description).
pub fn subagent_meta(bytes: &[u8]) -> (Option<String>, Option<String>) {
    let v: HashMap<String, Value> = serde_json::from_slice(bytes).unwrap_or_default();
    let s = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
    (s("agentType"), s("description"))
}
