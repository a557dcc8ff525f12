//! Session → markdown document (seed 004's format: `## Conversation`, `## Tools Used`, `## Reasoning`,
//! plus `## Subagents`).

use std::fmt::Write;

use brain_doc::{Doc, Source};
use serde_json::Value;

use crate::session::{Agent, Role, Session};
use crate::tools::{ToolLine, clip};

/// Most refs a session document lists (files and URLs touched, first touches first).
const MAX_REFS: usize = 200;

/// Longest title taken from a first prompt.
const TITLE_MAX: usize = 100;

/// The document `id` for `session`; `source` is its provenance.
pub fn to_doc(session: &Session, agent: Agent, id: String, source: Source) -> Doc {
    let title = title(session);
    let date = session.started.clone().unwrap_or_default();
    let mut doc = Doc::new(id, title, date, source);
    let m = &mut doc.meta;
    m.insert(
        "session_id".into(),
        Value::String(session.session_id.clone()),
    );
    if let Some(slug) = &session.slug {
        m.insert("slug".into(), Value::String(slug.clone()));
    }
    if let Some(ended) = &session.ended {
        m.insert("ended".into(), Value::String(ended.clone()));
    }
    if let Some(p) = &session.project {
        // The project is the repository the session ran in (a worktree's or a subfolder's too,
        // issue 57); where it ran is kept when that is another folder.
        let project = brain_store::project_of(p);
        let cwd = tilde(p);
        if cwd != project {
            m.insert("cwd".into(), Value::String(cwd));
        }
        m.insert("project".into(), Value::String(project));
    }
    if let Some(b) = &session.branch {
        m.insert("branch".into(), Value::String(b.clone()));
    }
    m.insert("agent".into(), Value::String(agent.as_str().into()));
    if let Some(v) = &session.agent_version {
        m.insert("agent_version".into(), Value::String(v.clone()));
    }
    m.insert("models".into(), Value::from(session.models.clone()));
    m.insert("turns".into(), Value::from(session.user_turns()));
    let tool_calls = session.tools.len()
        + session
            .subagents
            .iter()
            .map(|s| s.tools.len())
            .sum::<usize>();
    m.insert("tool_calls".into(), Value::from(tool_calls));
    m.insert("subagents".into(), Value::from(session.subagents.len()));
    // What the session touched (its own calls and its subagents'), in order of first touch.
    let mut refs: Vec<String> = Vec::new();
    for r in session
        .tools
        .iter()
        .chain(session.subagents.iter().flat_map(|s| s.tools.iter()))
        .flat_map(|t| t.refs.iter())
    {
        if refs.len() >= MAX_REFS {
            break;
        }
        if !refs.contains(r) {
            refs.push(r.clone());
        }
    }
    if !refs.is_empty() {
        m.insert("refs".into(), Value::from(refs));
    }
    if session.compactions > 0 {
        m.insert("compactions".into(), Value::from(session.compactions));
    }
    doc.body = body(session);
    doc
}

/// The session's title: the agent's own summary, else the first line of the first real request —
/// housekeeping is never a title: slash commands (`/clear`, `/init`, `/model`), `!` shell lines,
/// IDE wrappers (`<ide_opened_file>`, `<ide_selection>`, …) and "Caveat: …" lines are passed over;
/// a session with nothing else is titled by its first line as before.
fn title(session: &Session) -> String {
    if let Some(s) = session
        .summary
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty())
    {
        return clip(s, TITLE_MAX);
    }
    let users = || session.turns.iter().filter(|t| t.role == Role::User);
    let first_line = |text: &str| -> Option<String> {
        text.lines()
            .map(str::trim)
            .find(|l| !l.is_empty())
            .map(str::to_string)
    };
    if let Some(request) = users().find_map(|t| real_request(&t.text)) {
        return clip(&request, TITLE_MAX);
    }
    // A session of subagents only (their parent transcript absent): the first real prompt.
    if let Some(request) = session
        .subagents
        .iter()
        .find_map(|a| real_request(&a.prompt))
    {
        return clip(&request, TITLE_MAX);
    }
    match users().find_map(|t| first_line(&t.text)) {
        Some(first) => clip(&first, TITLE_MAX),
        None => format!("Session {}", session.session_id),
    }
}

/// The prompt of Claude Code's warm-up subagent probes: housekeeping, never content.
pub const WARMUP: &str = "Warmup";

/// The first line of a user turn that asks for something, or `None` when the turn is housekeeping
/// (see [`title`]).
fn real_request(text: &str) -> Option<String> {
    let mut t = text.to_string();
    while let Some(start) = t.find("<ide_") {
        let name_end = t[start + 1..]
            .find(['>', ' '])
            .map_or(t.len(), |n| start + 1 + n);
        let close = format!("</{}>", &t[start + 1..name_end]);
        match t[start..].find(&close) {
            Some(n) => t.replace_range(start..start + n + close.len(), ""),
            None => t.truncate(start),
        }
    }
    t.lines().map(str::trim).find_map(|l| {
        let housekeeping = brain_doc::title::is_housekeeping(l) || l == WARMUP;
        (!housekeeping).then(|| l.to_string())
    })
}

fn body(s: &Session) -> String {
    let mut out = String::new();
    out.push_str("## Conversation\n\n");
    for t in &s.turns {
        let who = match t.role {
            Role::User => "**User**",
            Role::Assistant => "**Assistant**",
            Role::Note => "**Note**",
        };
        let _ = writeln!(out, "{who}: {}\n", t.text);
    }
    if !s.tools.is_empty() {
        out.push_str("## Tools Used\n\n");
        tool_lines(&mut out, &s.tools);
        out.push('\n');
    }
    if !s.reasoning.is_empty() {
        out.push_str("## Reasoning\n\n");
        for r in &s.reasoning {
            for line in r.trim().lines() {
                if line.trim().is_empty() {
                    out.push_str(">\n");
                } else {
                    let _ = writeln!(out, "> {line}");
                }
            }
            out.push('\n');
        }
    }
    if !s.subagents.is_empty() {
        out.push_str("## Subagents\n\n");
        for a in &s.subagents {
            let kind = a
                .kind
                .as_deref()
                .map(|k| format!(" ({k})"))
                .unwrap_or_default();
            let desc = a
                .description
                .as_deref()
                .map(|d| format!(": {d}"))
                .unwrap_or_default();
            let _ = writeln!(out, "### agent-{}{kind}{desc}\n", a.id);
            if !a.prompt.is_empty() {
                let _ = writeln!(out, "**Prompt**: {}\n", a.prompt.trim());
            }
            if !a.result.is_empty() {
                let _ = writeln!(out, "**Result**: {}\n", a.result.trim());
            }
            if !a.tools.is_empty() {
                tool_lines(&mut out, &a.tools);
                out.push('\n');
            }
        }
    }
    while out.ends_with("\n\n") {
        out.pop();
    }
    out
}

fn tool_lines(out: &mut String, tools: &[ToolLine]) {
    for t in tools {
        let tag = t.ended.tag();
        let _ = match (&t.error, t.ended) {
            (Some(e), _) => writeln!(out, "- {} [{tag}: {e}]", t.summary),
            (None, brain_doc::command::Outcome::Declined) => {
                writeln!(out, "- {} [{tag}]", t.summary)
            }
            (None, _) => writeln!(out, "- {}", t.summary),
        };
    }
}

/// Where a transcript lives, for provenance and its id: the canonical path, home shown as `~`, so
/// that one file is one source from any working folder (the name as given, for a stream).
pub(crate) fn place_of(name: &str) -> String {
    match std::fs::canonicalize(name) {
        Ok(p) => tilde(&p.display().to_string()),
        Err(_) => name.to_string(),
    }
}

/// A path with the user's home shown as `~` ([`brain_store::project_path`]).
pub fn tilde(p: &str) -> String {
    brain_store::project_path(p)
}
