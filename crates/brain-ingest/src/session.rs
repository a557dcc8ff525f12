//! The agent-neutral session model every parser fills and [`crate::render`] turns into a document.

use crate::tools::ToolLine;

/// Which agent wrote the transcript.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Agent {
    /// Claude Code (`~/.claude/projects/**.jsonl`).
    Claude,
    /// OpenAI Codex CLI (`~/.codex/sessions/**/rollout-*.jsonl`).
    Codex,
    /// Gemini CLI (`~/.gemini/tmp/<hash>/chats/session-*.json`).
    Gemini,
    /// Cursor: the IDE's `state.vscdb`, the cursor-agent CLI's `store.db`, agent transcripts.
    Cursor,
    /// OpenCode: `opencode.db`, or the older `storage/` JSON tree.
    OpenCode,
    /// Aider: `.aider.chat.history.md` in each repository.
    Aider,
}

impl Agent {
    /// The name used in frontmatter and `source.agent`.
    pub fn as_str(self) -> &'static str {
        match self {
            Agent::Claude => "claude",
            Agent::Codex => "codex",
            Agent::Gemini => "gemini",
            Agent::Cursor => "cursor",
            Agent::OpenCode => "opencode",
            Agent::Aider => "aider",
        }
    }

    /// The document id of a session (DESIGN: derived from what identifies the session, never a bare
    /// file stem, which two sessions can share). `stem` is the transcript's file stem (`None` for a
    /// stream), `session_id` the id the transcript records, `place` where the transcript lives
    /// (its canonical path, home shown as `~`).
    ///
    /// - The agent's own file name when it carries the session id: Claude `<uuid>`, Codex
    ///   `rollout-<ts>-<uuid>`, Gemini `session-<ts>-<first 8 of the uuid>`. Every home indexed
    ///   before this rule has these ids, so they stay stable.
    /// - Else, for a file, its stem and a hash of its place: `a/turn-1.jsonl` and `b/turn-1.jsonl`
    ///   are two documents, and stay the same two on every run (a fixture cut from a session shares
    ///   the session id with its siblings, so the id alone would merge different texts).
    /// - Else (a stream) the session id; a stream without one is named by its place.
    ///
    /// Claude keeps the bare id; the others are prefixed with the agent (`codex__…`, `gemini__…`,
    /// `cursor__…`, `opencode__…`, `aider__…`: seed 000's prefixes).
    pub fn doc_id(self, stem: Option<&str>, session_id: Option<&str>, place: &str) -> String {
        let sid = session_id.map(safe_id).filter(|s| !s.is_empty());
        let stem = stem.map(safe_id).filter(|s| !s.is_empty());
        let hashed = |name: &str| {
            let hash = brain_doc::sha256_hex(place.as_bytes());
            format!("{name}-{}", &hash[..8])
        };
        let base = match (stem, sid) {
            (Some(stem), Some(sid)) if names_session(&stem, &sid) => stem,
            (Some(stem), _) => hashed(&stem),
            (None, Some(sid)) => sid,
            (None, None) => hashed("session"),
        };
        match self {
            Agent::Claude => base,
            other => format!("{}__{base}", other.as_str()),
        }
    }
}

/// True when a file stem carries the session id (whole, or Gemini's first eight characters).
fn names_session(stem: &str, sid: &str) -> bool {
    stem.contains(sid) || (sid.len() >= 8 && sid.is_char_boundary(8) && stem.contains(&sid[..8]))
}

/// Longest id part kept from a transcript (a session id is a uuid; a stem a file name).
const ID_MAX: usize = 120;

/// `s` as an id part: a safe file name ([`brain_store::partition::safe_component`]) of at most
/// [`ID_MAX`] characters (an id is a file name downstream).
fn safe_id(s: &str) -> String {
    let head: String = s.chars().take(ID_MAX).collect();
    brain_store::partition::safe_component(&head)
}

/// Who speaks a turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// The person.
    User,
    /// The model.
    Assistant,
    /// A marker inserted by the tool (compaction, slash command output), not a person or the model.
    Note,
}

/// One turn of the conversation.
#[derive(Debug, Clone, PartialEq)]
pub struct Turn {
    /// Who speaks.
    pub role: Role,
    /// What was said, markdown.
    pub text: String,
}

/// A subagent run attributed to its parent session.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Subagent {
    /// The agent id (`a52886dc…`).
    pub id: String,
    /// Agent type from `.meta.json` or the Task call (`general-purpose`, `Explore`, …).
    pub kind: Option<String>,
    /// Description from `.meta.json`.
    pub description: Option<String>,
    /// The prompt it was given (first user turn).
    pub prompt: String,
    /// Its last assistant text.
    pub result: String,
    /// Its tool calls.
    pub tools: Vec<ToolLine>,
}

/// A parsed session, before rendering.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Session {
    /// The session id the agent recorded (falls back to the file stem).
    pub session_id: String,
    /// Claude Code's human-readable slug.
    pub slug: Option<String>,
    /// First timestamp, RFC 3339.
    pub started: Option<String>,
    /// Last timestamp, RFC 3339.
    pub ended: Option<String>,
    /// Working directory.
    pub project: Option<String>,
    /// Git branch.
    pub branch: Option<String>,
    /// Version of the agent CLI.
    pub agent_version: Option<String>,
    /// Models used, in order of first use.
    pub models: Vec<String>,
    /// A title the agent wrote (Claude `summary` lines).
    pub summary: Option<String>,
    /// The conversation.
    pub turns: Vec<Turn>,
    /// Tool calls of the main thread.
    pub tools: Vec<ToolLine>,
    /// Thinking / reasoning blocks.
    pub reasoning: Vec<String>,
    /// Subagent runs.
    pub subagents: Vec<Subagent>,
    /// Number of context compactions.
    pub compactions: u32,
    /// Number of lines (or messages for JSON sessions) read.
    pub lines: u64,
}

impl Session {
    /// True when the transcript held nothing at all to show: no turn (not even a note), tool, thought or
    /// subagent.
    pub fn is_empty(&self) -> bool {
        self.turns.is_empty()
            && self.tools.is_empty()
            && self.reasoning.is_empty()
            && self.subagents.is_empty()
    }

    /// Number of user turns.
    pub fn user_turns(&self) -> usize {
        self.turns.iter().filter(|t| t.role == Role::User).count()
    }

    /// Record a model name once.
    pub fn add_model(&mut self, model: &str) {
        let m = model.trim();
        if !m.is_empty() && !m.starts_with('<') && !self.models.iter().any(|x| x == m) {
            self.models.push(m.to_string());
        }
    }

    /// Keep the earliest `started` and the latest `ended` timestamp.
    pub fn saw_time(&mut self, ts: &str) {
        if ts.is_empty() {
            return;
        }
        if self.started.as_deref().is_none_or(|s| ts < s) {
            self.started = Some(ts.to_string());
        }
        if self.ended.as_deref().is_none_or(|e| ts > e) {
            self.ended = Some(ts.to_string());
        }
    }

    /// Append text, merging with the previous turn of the same speaker (one API response split over
    /// several transcript lines, or a prompt with text and an image, stays one turn).
    pub fn push_turn(&mut self, role: Role, text: &str) {
        let text = text.trim();
        if text.is_empty() {
            return;
        }
        if let Some(last) = self.turns.last_mut()
            && last.role == role
            && role != Role::Note
        {
            last.text.push_str("\n\n");
            last.text.push_str(text);
            return;
        }
        self.turns.push(Turn {
            role,
            text: text.to_string(),
        });
    }

    /// Scrub every piece of text (`brain_redact::scrub`: `<private>` spans, base64 blobs) and, when
    /// `secrets`, replace secrets: the counts of what was replaced. Done before rendering, for
    /// every agent alike.
    pub fn redact(&mut self, secrets: bool) -> brain_redact::Counts {
        let mut counts = brain_redact::Counts::new();
        self.map_text(&mut |t| {
            let t = brain_redact::scrub(t);
            if secrets {
                brain_redact::redact(&t, &mut counts)
            } else {
                t
            }
        });
        counts
    }

    /// Apply `f` to every piece of text the session holds (for scrubbing and redaction before
    /// rendering, so the title derived from the first prompt is clean too).
    pub fn map_text(&mut self, f: &mut dyn FnMut(&str) -> String) {
        for t in &mut self.turns {
            t.text = f(&t.text);
        }
        for t in &mut self.tools {
            t.summary = f(&t.summary);
            t.error = t.error.as_deref().map(&mut *f);
            t.refs = t.refs.iter().map(|r| f(r)).collect();
        }
        for r in &mut self.reasoning {
            *r = f(r);
        }
        self.summary = self.summary.as_deref().map(&mut *f);
        for a in &mut self.subagents {
            a.prompt = f(&a.prompt);
            a.result = f(&a.result);
            a.description = a.description.as_deref().map(&mut *f);
            for t in &mut a.tools {
                t.summary = f(&t.summary);
                t.error = t.error.as_deref().map(&mut *f);
                t.refs = t.refs.iter().map(|r| f(r)).collect();
            }
        }
    }
}
