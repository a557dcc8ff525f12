//! What brain answers an agent's hook with (`brain hook run EVENT`, issue 40): the hook's JSON read
//! from stdin, the answer as the agent's JSON on stdout.
//!
//! The agents that have such hooks agree on the wire (Claude Code, Codex and Gemini CLI, read
//! 2026-11-26): the input carries `session_id`, `transcript_path`, `cwd`, `hook_event_name`, and
//! per event `source` (SessionStart: `startup` / `resume` / `clear` / `compact`), `prompt`
//! (UserPromptSubmit; Gemini's BeforeAgent), `tool_name` and `tool_input` (PreToolUse); the
//! answer is `{"hookSpecificOutput": {"hookEventName": E, "additionalContext": TEXT}}`, echoing the
//! event name the agent sent. Nothing to say is no output at all.
//!
//! Failing open is the caller's: every error here is returned, and `brain hook run` turns it into
//! no output, exit 0 and a log line.

use std::io::Read;

use brain_doc::Hit;
use brain_rank::Engine;
use jiff::Zoned;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::brief::{self, Moment, Request};
use crate::{ContextError, render};

/// Largest hook input read (a prompt can hold a pasted log); past it the input is refused.
pub const MAX_INPUT_BYTES: u64 = 4 * 1024 * 1024;

/// Most records a pre-tool note names.
pub const TRIED: usize = 3;

/// Most characters of a record's text a pre-tool note quotes.
pub const NOTE_CHARS: usize = 240;

/// Which hook is answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    /// A session starts, resumes, is cleared or compacted: the briefing.
    SessionStart,
    /// A prompt was submitted: recall for it.
    Prompt,
    /// A tool is about to run: what was tried and failed with the same command or file.
    PreTool,
}

impl Event {
    /// The event name the agents use, when the input does not say.
    fn agent_name(self) -> &'static str {
        match self {
            Event::SessionStart => "SessionStart",
            Event::Prompt => "UserPromptSubmit",
            Event::PreTool => "PreToolUse",
        }
    }
}

/// A hook's input, as the agents send it (fields an event lacks are absent).
#[derive(Debug, Clone, Default, Deserialize)]
pub struct Input {
    #[serde(default)]
    pub session_id: Option<String>,
    #[serde(default)]
    pub transcript_path: Option<String>,
    #[serde(default)]
    pub cwd: Option<String>,
    #[serde(default)]
    pub hook_event_name: Option<String>,
    /// SessionStart: `startup`, `resume`, `clear`, `compact`.
    #[serde(default)]
    pub source: Option<String>,
    #[serde(default)]
    pub prompt: Option<String>,
    #[serde(default)]
    pub tool_name: Option<String>,
    #[serde(default)]
    pub tool_input: Option<Value>,
}

/// Why a hook input was refused.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    #[error("reading the hook input: {0}")]
    Read(std::io::Error),
    #[error("the hook input is over {MAX_INPUT_BYTES} bytes")]
    TooLarge,
    #[error("the hook input is not the agent's JSON: {0}")]
    Json(serde_json::Error),
}

/// Read a hook input from `r` (at most [`MAX_INPUT_BYTES`]).
pub fn read_input(r: impl Read) -> Result<Input, InputError> {
    let mut buf = Vec::new();
    r.take(MAX_INPUT_BYTES + 1)
        .read_to_end(&mut buf)
        .map_err(InputError::Read)?;
    if buf.len() as u64 > MAX_INPUT_BYTES {
        return Err(InputError::TooLarge);
    }
    serde_json::from_slice(&buf).map_err(InputError::Json)
}

/// The agent a transcript belongs to, by where agents keep them (`~/.claude/…`, `~/.codex/…`,
/// `~/.gemini/…`).
fn agent_of(transcript: &str) -> Option<&'static str> {
    let t = transcript.replace('\\', "/");
    [
        ("/.claude/", "claude"),
        ("/.codex/", "codex"),
        ("/.gemini/", "gemini"),
    ]
    .into_iter()
    .find(|(dir, _)| t.contains(dir))
    .map(|(_, agent)| agent)
}

/// The answer to hook `event` with `input`: the agent's JSON line, or `None` when there is nothing
/// to say. `budget`: the briefing's (or the prompt recall's) tokens.
pub fn respond(
    engine: &Engine,
    event: Event,
    input: &Input,
    budget: usize,
    now: &Zoned,
) -> Result<Option<String>, ContextError> {
    let text = match event {
        Event::SessionStart | Event::Prompt => {
            let moment = match event {
                Event::Prompt => Moment::Prompt,
                _ => Moment::of_source(input.source.as_deref().unwrap_or("startup")),
            };
            let req = Request {
                project: input.cwd.clone().filter(|c| !c.trim().is_empty()),
                moment: Some(moment),
                session: input.session_id.clone(),
                prompt: input.prompt.clone(),
                agent: input
                    .transcript_path
                    .as_deref()
                    .and_then(agent_of)
                    .map(str::to_string),
                budget,
            };
            let block = brief::brief(engine, &req, now)?;
            if block.items.is_empty() && block.working.is_empty() {
                return Ok(None);
            }
            block.markdown
        }
        Event::PreTool => match tried(engine, input, now)? {
            Some(t) => t,
            None => return Ok(None),
        },
    };
    // The agent's own name for the event is echoed back, when it is one: a name (letters, at
    // most 64), never a 3 MB string repeated into the agent's context.
    let name = input
        .hook_event_name
        .as_deref()
        .filter(|n| !n.is_empty() && n.len() <= 64 && n.chars().all(|c| c.is_ascii_alphanumeric()))
        .map_or_else(|| event.agent_name().to_string(), str::to_string);
    let out = json!({"hookSpecificOutput": {"hookEventName": name, "additionalContext": text}});
    Ok(Some(out.to_string()))
}

/// What a tool call is about: the command's subject, or the file it edits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Subject {
    /// `pytest`, `npm run build`, `cargo test -p api` ([`brain_doc::command::subject`]).
    Command(String),
    /// The file an edit writes.
    File(String),
}

/// The subject of a tool call: Bash's `command` (the tool that actually ran,
/// [`brain_doc::command::subject`]), an edit's `file_path` (Claude's Edit / Write / MultiEdit,
/// Gemini's `file_path`), or the first file of a Codex `apply_patch`.
pub fn subject(tool: &str, input: &Value) -> Option<Subject> {
    let str_of = |k: &str| input.get(k).and_then(Value::as_str);
    if let Some(path) = str_of("file_path").or_else(|| str_of("path")) {
        return Some(Subject::File(path.to_string()));
    }
    let command = match input.get("command") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(a)) => a
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join(" "),
        _ => return None,
    };
    if tool == "apply_patch" || command.contains("*** Begin Patch") {
        return command.lines().find_map(|l| {
            ["*** Update File: ", "*** Add File: ", "*** Delete File: "]
                .iter()
                .find_map(|p| l.strip_prefix(p))
                .map(|f| Subject::File(f.trim().to_string()))
        });
    }
    brain_doc::command::subject(&command).map(Subject::Command)
}

/// The pre-tool note: the project's rejected approaches and failed commands about the same command
/// or file, newest first, at most [`TRIED`]; `None` when none match (the hook then says nothing).
/// A command's records are those of its subject's key (`cmd.pytest` in this project: a failed `uv
/// run pyright` is never cited before `pytest`), and the records written by hand that name the
/// subject and carry no key of their own.
pub fn tried(engine: &Engine, input: &Input, now: &Zoned) -> Result<Option<String>, ContextError> {
    let (Some(tool), Some(args)) = (input.tool_name.as_deref(), input.tool_input.as_ref()) else {
        return Ok(None);
    };
    let Some(subject) = subject(tool, args) else {
        return Ok(None);
    };
    let projects = input
        .cwd
        .as_deref()
        .map(|c| brief::projects(engine, c))
        .unwrap_or_default();
    let (words, about, key) = match &subject {
        Subject::Command(c) => (c.clone(), format!("`{c}`"), brain_doc::command::key(c)),
        Subject::File(f) => {
            let tail = std::path::Path::new(f)
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or(f)
                .to_string();
            let key = brain_doc::memory::normalize_key(&format!("file.{tail}"));
            (tail.clone(), format!("`{tail}`"), key)
        }
    };
    let keys: Vec<String> = key
        .iter()
        .flat_map(|k| {
            projects
                .iter()
                .map(|p| brain_doc::memory::project_key(Some(p), k))
        })
        .collect();
    let mut hits = keyed(engine, &keys, now)?;
    hits.extend(hand_written(engine, &words, &keys, &projects, now)?);
    let mut seen = std::collections::HashSet::new();
    hits.retain(|h| seen.insert(format!("{}/{}", h.collection, h.path)));
    hits.sort_by(|a, b| b.date.cmp(&a.date));
    if hits.is_empty() {
        return Ok(None);
    }
    Ok(Some(note(&about, &hits)))
}

/// The current rejected and failed records of `keys`, newest first.
fn keyed(engine: &Engine, keys: &[String], now: &Zoned) -> Result<Vec<Hit>, ContextError> {
    let ranker = engine.ranker()?;
    let mut hits = Vec::new();
    for k in keys {
        let passages = ranker
            .searcher()
            .keyed(k)
            .map_err(brain_rank::RankError::from)?;
        for p in passages.iter().rev() {
            if let Some(h) = ranker.document(&p.id, now.timestamp())?
                && h.memory.as_ref().is_some_and(|m| {
                    m.state == "current"
                        && m.kind
                            .as_deref()
                            .is_some_and(|k| brief::FAILED_TYPES.contains(&k))
                })
            {
                hits.push(h);
            }
        }
    }
    Ok(hits)
}

/// Records written by hand: the subject's `words` in a rejected or failed record of `projects`
/// that has no key of its own (a keyed one of another subject is another subject).
fn hand_written(
    engine: &Engine,
    words: &str,
    keys: &[String],
    projects: &[String],
    now: &Zoned,
) -> Result<Vec<Hit>, ContextError> {
    let types: Vec<String> = brief::FAILED_TYPES.iter().map(|t| t.to_string()).collect();
    let Ok(b) = engine
        .request(now)
        .scope(&[], projects, &[])
        .kinds(&types, &[])
        .mode(brain_rank::route::Mode::Lex)
        .snippets(true)
        .text(&format!("\"{}\"", brief::plain_words(words)))
    else {
        return Ok(Vec::new());
    };
    match engine.search(&b.limit(TRIED, 1).build(), now) {
        Ok(r) => Ok(r
            .hits
            .into_iter()
            .filter(|h| {
                h.memory
                    .as_ref()
                    .and_then(|m| m.key.as_ref())
                    .is_none_or(|k| keys.contains(k))
            })
            .collect()),
        Err(e) if brain_doc::Classified::code(&e) == brain_doc::ErrorCode::NoResults => {
            Ok(Vec::new())
        }
        Err(e) => Err(e.into()),
    }
}

/// The note about `hits` (at most [`TRIED`]): each with its source, age and what it said.
fn note(about: &str, hits: &[Hit]) -> String {
    let mut out = format!("brain: tried before in this project with {about}:\n");
    for h in hits.iter().take(TRIED) {
        let title = render::inline(&h.title);
        let snippet = render::inline(&h.snippet);
        let (title, snippet) = if h.untrusted {
            (
                brain_doc::fence::inline(&title),
                brain_doc::fence::inline(&snippet),
            )
        } else {
            (title, snippet)
        };
        let age = brain_fmt::age::age_label(h.age_days);
        // Cut by characters: loading the token table would cost this hot path more than the
        // search did (about 15 ms, measured 2026-11-26).
        let said = if title.contains(snippet.as_str()) {
            String::new()
        } else {
            let cut: String = snippet.chars().take(NOTE_CHARS).collect();
            let more = if cut.len() < snippet.len() { "…" } else { "" };
            format!(": {cut}{more}")
        };
        out.push_str(&format!("- {title} ({}:{}, {age}){said}\n", h.uri, h.line));
    }
    out.trim_end().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subjects_of_commands_edits_and_patches() {
        let cmd = |c: &str| subject("Bash", &json!({"command": c}));
        assert_eq!(
            cmd("RUST_LOG=debug cargo test -p api --release"),
            Some(Subject::Command("cargo test -p api".into()))
        );
        assert_eq!(
            cmd("uv run pyright"),
            Some(Subject::Command("pyright".into()))
        );
        assert_eq!(
            cmd("/usr/bin/npm install left-pad && ls"),
            Some(Subject::Command("npm install".into()))
        );
        assert_eq!(cmd("cd src; make"), Some(Subject::Command("make".into())));
        assert_eq!(cmd("cd src; ls"), None);
        assert_eq!(cmd(""), None);
        assert_eq!(
            subject("Edit", &json!({"file_path": "/w/api/src/auth.rs"})),
            Some(Subject::File("/w/api/src/auth.rs".into()))
        );
        let patch = "*** Begin Patch\n*** Update File: src/retry.rs\n@@\n-a\n+b\n*** End Patch";
        assert_eq!(
            subject("apply_patch", &json!({"command": patch})),
            Some(Subject::File("src/retry.rs".into()))
        );
        assert_eq!(subject("Bash", &json!({"command": 7})), None);
        assert_eq!(
            cmd("git commit -m \"x\" $(rm -rf /)"),
            Some(Subject::Command("git commit".into()))
        );
    }

    #[test]
    fn inputs_are_bounded_and_parsed() {
        let i = read_input(&br#"{"session_id":"s","cwd":"/w","source":"compact","extra":1}"#[..])
            .expect("input");
        assert_eq!(i.source.as_deref(), Some("compact"));
        assert!(matches!(
            read_input(&b"not json"[..]),
            Err(InputError::Json(_))
        ));
        let big = vec![b' '; MAX_INPUT_BYTES as usize + 2];
        assert!(matches!(read_input(&big[..]), Err(InputError::TooLarge)));
    }
}
