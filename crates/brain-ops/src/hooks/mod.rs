//! brain's hooks in an agent's settings: find ours, add them, remove them — keeping every other
//! hook, backing the file up first, validating the JSON we write, and replacing the file atomically.
//!
//! Three agents have command hooks today (their references read 2026-11-26), all of one shape:
//! `{"hooks": {"<Event>": [{"matcher": …, "hooks": [{"type": "command", "command": …, "timeout":
//! …}]}]}}` —
//!
//! | agent | file | Stop (fast clock) | SessionStart | prompt | pre-tool |
//! |---|---|---|---|---|---|
//! | Claude Code | `~/.claude/settings.json` | `Stop` | `SessionStart` | `UserPromptSubmit` | `PreToolUse` (Bash, Edit, Write, MultiEdit) |
//! | Codex | `~/.codex/hooks.json` | — (`brain import` reads its sessions) | `SessionStart` | `UserPromptSubmit` | `PreToolUse` (Bash, apply_patch) |
//! | Gemini CLI | `~/.gemini/settings.json` (timeouts in ms) | — | `SessionStart` | `BeforeAgent` | — (`BeforeTool` cannot add context, only block or rewrite) |
//!
//! Ours are the command hooks that run `stop-hook.sh` or `brain hook run …`; each is written with
//! `BRAIN_HOME='…'` (and the Stop hook with `BRAIN_BIN='…'`) so it finds this home and this `brain`
//! whatever PATH the agent runs it with.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

pub mod codex;

use crate::settings::{backup, read, write};
use crate::{Host, OpsError, shell};

/// Claude Code's Stop hook event (the fast clock).
pub const EVENT: &str = "Stop";

/// Claude Code's own timeout for the Stop hook, in seconds: a backstop above the script's inner
/// timeout (`BRAIN_HOOK_TIMEOUT`, 10 s), so a hung hook is killed twice over and never blocks the
/// agent long.
pub const TIMEOUT_SECS: u64 = 30;

/// The agent's timeout for a briefing or recall hook, in seconds: the hook answers in tens of
/// milliseconds and fails open; this only bounds a machine in trouble.
pub const BRIEF_TIMEOUT_SECS: u64 = 10;

/// The agent's timeout for the pre-tool hook, in seconds (it runs before every tool).
pub const PRE_TOOL_TIMEOUT_SECS: u64 = 5;

/// The script name that marks a Stop hook command as ours.
pub const SCRIPT: &str = "stop-hook.sh";

/// An agent whose CLI runs command hooks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Agent {
    Claude,
    Codex,
    Gemini,
}

/// What a hook of ours does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hook {
    /// The fast clock: index the finished turn (`stop-hook.sh`).
    Stop,
    /// The briefing at session start (`brain hook run session-start`).
    SessionStart,
    /// Recall for each prompt (`brain hook run prompt`, opt-in).
    Prompt,
    /// "We already tried this" before a tool (`brain hook run pre-tool`, opt-in).
    PreTool,
}

impl Hook {
    /// The word `brain hook run` takes (none for the Stop hook, a script).
    pub fn arg(self) -> Option<&'static str> {
        match self {
            Hook::Stop => None,
            Hook::SessionStart => Some("session-start"),
            Hook::Prompt => Some("prompt"),
            Hook::PreTool => Some("pre-tool"),
        }
    }

    fn timeout_secs(self) -> u64 {
        match self {
            Hook::Stop => TIMEOUT_SECS,
            Hook::SessionStart | Hook::Prompt => BRIEF_TIMEOUT_SECS,
            Hook::PreTool => PRE_TOOL_TIMEOUT_SECS,
        }
    }
}

impl Agent {
    pub fn name(self) -> &'static str {
        match self {
            Agent::Claude => "claude",
            Agent::Codex => "codex",
            Agent::Gemini => "gemini",
        }
    }

    /// The file the agent reads its hooks from.
    pub fn settings(self, host: &Host) -> PathBuf {
        match self {
            Agent::Claude => host.claude_settings(),
            Agent::Codex => host.codex_dir.join("hooks.json"),
            Agent::Gemini => host.gemini_dir.join("settings.json"),
        }
    }

    /// The agent's event for `hook`, or `None` when it has no such hook (or none that can hand
    /// the agent context).
    pub fn event(self, hook: Hook) -> Option<&'static str> {
        match (self, hook) {
            (Agent::Claude, Hook::Stop) => Some(EVENT),
            (_, Hook::Stop) => None,
            (_, Hook::SessionStart) => Some("SessionStart"),
            (Agent::Gemini, Hook::Prompt) => Some("BeforeAgent"),
            (_, Hook::Prompt) => Some("UserPromptSubmit"),
            (Agent::Claude, Hook::PreTool) | (Agent::Codex, Hook::PreTool) => Some("PreToolUse"),
            (Agent::Gemini, Hook::PreTool) => None,
        }
    }

    /// The tools a pre-tool hook is for: the shell and the file edits.
    fn matcher(self, hook: Hook) -> Option<&'static str> {
        match (self, hook) {
            (Agent::Claude, Hook::PreTool) => Some("Bash|Edit|Write|MultiEdit"),
            (Agent::Codex, Hook::PreTool) => Some("Bash|apply_patch"),
            _ => None,
        }
    }

    /// A hook's `timeout` as the agent reads it (Gemini: milliseconds; the others: seconds).
    fn timeout(self, secs: u64) -> Value {
        match self {
            Agent::Gemini => Value::from(secs * 1000),
            _ => Value::from(secs),
        }
    }
}

/// One installed hook of ours, as read back from the settings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HookInfo {
    /// The agent (`claude`, `codex`, `gemini`).
    pub agent: String,
    /// The settings file it is in.
    pub settings: String,
    /// The hook event (`Stop`, `SessionStart`, …).
    pub event: String,
    /// The command as written.
    pub command: String,
    /// The script it runs (the Stop hook), or the `brain` it runs.
    pub script: Option<String>,
    /// `BRAIN_BIN` it pins, if any (or the `brain` a `hook run` command names).
    pub brain: Option<String>,
    /// `BRAIN_HOME` it pins, if any.
    pub home: Option<String>,
    /// What is wrong with it (script or brain missing or not executable), or null.
    pub problem: Option<String>,
}

/// The command line of our Stop hook.
pub fn command(home: &Path, brain: &Path, script: &Path) -> String {
    format!(
        "BRAIN_HOME={} BRAIN_BIN={} {}",
        shell::quote(&home.display().to_string()),
        shell::quote(&brain.display().to_string()),
        shell::quote(&script.display().to_string())
    )
}

/// The command line of a `brain hook run` hook (`hook` is not [`Hook::Stop`]); `budget`: the
/// briefing's or the recall's tokens, when not the default.
pub fn run_command(home: &Path, brain: &Path, hook: Hook, budget: Option<usize>) -> String {
    let mut c = format!(
        "BRAIN_HOME={} {} hook run {}",
        shell::quote(&home.display().to_string()),
        shell::quote(&brain.display().to_string()),
        hook.arg().unwrap_or("session-start")
    );
    if let Some(b) = budget {
        c.push_str(&format!(" --budget {b}"));
    }
    c
}

/// The `brain hook run` part of a command: (the brain it runs, the hook word).
fn run_words(words: &[String]) -> Option<(String, String)> {
    let i = words
        .windows(3)
        .position(|w| w[1] == "hook" && w[2] == "run")?;
    let arg = words.get(i + 3)?;
    [Hook::SessionStart, Hook::Prompt, Hook::PreTool]
        .iter()
        .any(|h| h.arg() == Some(arg.as_str()))
        .then(|| (words[i].clone(), arg.clone()))
}

fn is_ours(hook: &Value) -> bool {
    hook.get("command")
        .and_then(Value::as_str)
        .is_some_and(|c| c.contains(SCRIPT) || run_words(&shell::split(c)).is_some())
}

fn describe(agent: Agent, settings: &Path, event: &str, cmd: &str) -> HookInfo {
    let words = shell::split(cmd);
    let (env, rest) = shell::assignments(&words);
    let get = |k: &str| env.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
    let run = run_words(rest);
    let script = rest.iter().find(|w| w.ends_with(SCRIPT)).cloned();
    let brain = get("BRAIN_BIN").or_else(|| run.as_ref().map(|(b, _)| b.clone()));
    let problem = match (&script, &brain, &run) {
        (None, _, None) => Some(format!("the command names no {SCRIPT}")),
        (Some(s), _, _) if !crate::bins::is_executable(Path::new(s)) => {
            Some(format!("{s} is missing or not executable"))
        }
        (_, Some(b), _) if !crate::bins::is_executable(Path::new(b)) => {
            Some(format!("brain {b} is missing or not executable"))
        }
        _ => None,
    };
    HookInfo {
        agent: agent.name().into(),
        settings: settings.display().to_string(),
        event: event.into(),
        command: cmd.to_string(),
        script,
        brain,
        home: get("BRAIN_HOME"),
        problem,
    }
}

fn bad(path: &Path, reason: &str) -> OpsError {
    OpsError::BadSettings {
        path: path.to_path_buf(),
        reason: reason.into(),
    }
}

/// The `hooks` object of a settings object (created when `create`).
fn hooks_of<'a>(
    path: &Path,
    root: &'a mut Map<String, Value>,
    create: bool,
) -> Result<Option<&'a mut Map<String, Value>>, OpsError> {
    if !root.contains_key("hooks") {
        if !create {
            return Ok(None);
        }
        root.insert("hooks".into(), json!({}));
    }
    match root.get_mut("hooks").and_then(Value::as_object_mut) {
        Some(h) => Ok(Some(h)),
        None => Err(bad(path, "`hooks` is not an object")),
    }
}

/// Every event's groups: a non-array event value is refused (we would not know how to keep it).
fn check_events(path: &Path, hooks: &Map<String, Value>) -> Result<(), OpsError> {
    for (event, v) in hooks {
        // Gemini keeps flags beside the events (`enabled`, `disabled`): not ours to judge.
        if v.is_array() || !event.chars().next().is_some_and(char::is_uppercase) {
            continue;
        }
        return Err(bad(path, &format!("`hooks.{event}` is not an array")));
    }
    Ok(())
}

/// Our hooks in the settings file at `path` (empty when the file or the section is absent).
pub fn installed(path: &Path, agent: Agent) -> Result<Vec<HookInfo>, OpsError> {
    let Some(mut root) = read(path)? else {
        return Ok(Vec::new());
    };
    let Some(hooks) = hooks_of(path, &mut root, false)? else {
        return Ok(Vec::new());
    };
    check_events(path, hooks)?;
    let mut out = Vec::new();
    for (event, groups) in hooks.iter() {
        let Some(groups) = groups.as_array() else {
            continue;
        };
        out.extend(
            groups
                .iter()
                .filter_map(|g| g.get("hooks").and_then(Value::as_array))
                .flatten()
                .filter(|h| is_ours(h))
                .filter_map(|h| h.get("command").and_then(Value::as_str))
                .map(|c| describe(agent, path, event, c)),
        );
    }
    Ok(out)
}

/// Our hooks, or one entry carrying the reason the settings file cannot be read (for `explain`).
pub fn installed_or_problem(path: &Path, agent: Agent) -> Vec<HookInfo> {
    installed(path, agent).unwrap_or_else(|e| {
        vec![HookInfo {
            agent: agent.name().into(),
            settings: path.display().to_string(),
            event: String::new(),
            command: String::new(),
            script: None,
            brain: None,
            home: None,
            problem: Some(e.to_string()),
        }]
    })
}

/// What an install or remove did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    /// Hooks were added (none of ours was there).
    Added,
    /// Ours were there and are now the ones asked for.
    Replaced,
    /// The same hooks were already there; nothing written.
    Unchanged,
    /// This many hooks of ours were removed.
    Removed(usize),
    /// There was nothing of ours to remove; nothing written.
    NotFound,
}

/// The outcome of [`install`] or [`remove`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    pub settings: PathBuf,
    pub change: Change,
    /// The backup of the previous file, when one was written.
    pub backup: Option<PathBuf>,
    /// The events ours are on now.
    pub events: Vec<String>,
}

/// One hook to install: what it does and the command that does it.
#[derive(Debug, Clone)]
pub struct Wanted {
    pub hook: Hook,
    pub command: String,
}

/// Take every hook of ours out of `hooks` (other hooks kept; a group, an event emptied by it
/// dropped); how many were taken.
fn take_ours(hooks: &mut Map<String, Value>) -> usize {
    let mut n = 0;
    let mut emptied = Vec::new();
    for (event, groups) in hooks.iter_mut() {
        let Some(groups) = groups.as_array_mut() else {
            continue;
        };
        let mut here = 0;
        for h in groups
            .iter_mut()
            .filter_map(|g| g.get_mut("hooks").and_then(Value::as_array_mut))
            .flatten()
            .filter(|h| is_ours(h))
        {
            *h = Value::Null;
            here += 1;
        }
        prune(groups);
        if here > 0 && groups.is_empty() {
            emptied.push(event.clone());
        }
        n += here;
    }
    for e in emptied {
        hooks.remove(&e);
    }
    n
}

/// Make ours in the settings file at `path` (created if absent) exactly `wanted` — those the agent
/// has an event for; idempotent: the same hooks mean no write. Other hooks are kept; an older hook
/// of ours is replaced; one of ours no longer wanted (an opt-in left out) is removed.
pub fn install(path: &Path, agent: Agent, wanted: &[Wanted]) -> Result<Outcome, OpsError> {
    let existed = path.exists();
    let mut root = read(path)?.unwrap_or_default();
    let before = Value::Object(root.clone());
    let hooks = hooks_of(path, &mut root, true)?.ok_or_else(|| bad(path, "no `hooks`"))?;
    check_events(path, hooks)?;
    let had = take_ours(hooks);
    let mut events = Vec::new();
    for w in wanted {
        let Some(event) = agent.event(w.hook) else {
            continue;
        };
        let entry = json!({"type": "command", "command": w.command,
            "timeout": agent.timeout(w.hook.timeout_secs())});
        let group = match agent.matcher(w.hook) {
            Some(m) => json!({"matcher": m, "hooks": [entry]}),
            None => json!({"hooks": [entry]}),
        };
        let list = hooks.entry(event.to_string()).or_insert_with(|| json!([]));
        match list.as_array_mut() {
            Some(a) => a.push(group),
            None => return Err(bad(path, &format!("`hooks.{event}` is not an array"))),
        }
        events.push(event.to_string());
    }
    if hooks.is_empty() {
        root.remove("hooks");
    }
    let change = if Value::Object(root.clone()) == before {
        Change::Unchanged
    } else if had == 0 {
        Change::Added
    } else {
        Change::Replaced
    };
    if change == Change::Unchanged {
        return Ok(Outcome {
            settings: path.to_path_buf(),
            change,
            backup: None,
            events,
        });
    }
    let backup = if existed { Some(backup(path)?) } else { None };
    write(path, &root)?;
    Ok(Outcome {
        settings: path.to_path_buf(),
        change,
        backup,
        events,
    })
}

/// Remove every hook of ours from the settings file at `path`; other hooks are kept, and groups,
/// event arrays and the `hooks` object are dropped only when we emptied them.
pub fn remove(path: &Path) -> Result<Outcome, OpsError> {
    let not_found = || Outcome {
        settings: path.to_path_buf(),
        change: Change::NotFound,
        backup: None,
        events: Vec::new(),
    };
    let Some(mut root) = read(path)? else {
        return Ok(not_found());
    };
    let Some(hooks) = hooks_of(path, &mut root, false)? else {
        return Ok(not_found());
    };
    check_events(path, hooks)?;
    let n = take_ours(hooks);
    if n == 0 {
        return Ok(not_found());
    }
    if hooks.is_empty() {
        root.remove("hooks");
    }
    let backup = Some(backup(path)?);
    write(path, &root)?;
    Ok(Outcome {
        settings: path.to_path_buf(),
        change: Change::Removed(n),
        backup,
        events: Vec::new(),
    })
}

/// Drop the entries we nulled, and groups we left without hooks.
fn prune(groups: &mut Vec<Value>) {
    for g in groups.iter_mut() {
        if let Some(hs) = g.get_mut("hooks").and_then(Value::as_array_mut) {
            hs.retain(|h| !h.is_null());
        }
    }
    groups.retain(|g| {
        g.get("hooks")
            .and_then(Value::as_array)
            .is_none_or(|hs| !hs.is_empty())
    });
}

#[cfg(test)]
mod tests;
