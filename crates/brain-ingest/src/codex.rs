//! OpenAI Codex CLI rollouts (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`).
//!
//! `session_meta` gives id, cwd, git branch and CLI version; `turn_context` the model. Every message
//! appears twice (a `response_item` and an `event_msg`): the response items are used, the events only
//! when a rollout has no response-item messages at all. Injected context (`<environment_context>`,
//! `# AGENTS.md instructions`, `<permissions instructions>`, developer messages) is not the user's prompt.
//! `function_call`, `custom_tool_call` (apply_patch), `local_shell_call` and `web_search_call` become
//! tool lines; a non-zero exit code in the paired output marks the call failed.

use serde::Deserialize;
use serde_json::Value;

use crate::lines::{self, LineIssue};
use crate::session::{Role, Session};
use crate::thread::Thread;

#[derive(Deserialize, Default)]
#[serde(default)]
struct Line {
    timestamp: Option<String>,
    #[serde(rename = "type")]
    kind: Option<String>,
    payload: Option<Value>,
}

/// Prefixes of user-role messages that the CLI injects rather than the user types.
const INJECTED: [&str; 6] = [
    "<environment_context>",
    "<user_instructions>",
    "# AGENTS.md instructions",
    "<permissions instructions>",
    "<INSTRUCTIONS>",
    "<turn_aborted>",
];

/// True when a rollout's first object line looks like Codex (`session_meta`, `response_item`, …).
pub fn sniff(first: &Value) -> bool {
    matches!(
        first.get("type").and_then(Value::as_str),
        Some("session_meta" | "response_item" | "event_msg" | "turn_context")
    ) || (first.get("instructions").is_some() && first.get("id").is_some())
}

/// Parse a rollout.
pub fn parse(bytes: &[u8]) -> (Session, Vec<LineIssue>) {
    let mut t = Thread::default();
    let mut events: Vec<(Role, String)> = Vec::new();
    let mut event_reasoning: Vec<String> = Vec::new();
    let mut saw_item_message = false;
    let mut saw_item_reasoning = false;
    let mut records = lines::Records::<Line>::new(bytes);
    for (_, line) in &mut records {
        if let Some(ts) = &line.timestamp {
            t.s.saw_time(ts);
        }
        let kind = line.kind.as_deref().unwrap_or("");
        let Some(p) = line.payload else {
            // Early rollouts: a header line {id, timestamp, instructions} then bare response items.
            continue;
        };
        let s = |k: &str| p.get(k).and_then(Value::as_str).map(str::to_string);
        match kind {
            "session_meta" => {
                if t.s.session_id.is_empty() {
                    t.s.session_id = s("id").unwrap_or_default();
                }
                if let Some(ts) = s("timestamp") {
                    t.s.saw_time(&ts);
                }
                t.s.project = t.s.project.take().or(s("cwd"));
                t.s.agent_version = t.s.agent_version.take().or(s("cli_version"));
                if t.s.branch.is_none() {
                    t.s.branch = p
                        .pointer("/git/branch")
                        .and_then(Value::as_str)
                        .map(str::to_string);
                }
            }
            "turn_context" => {
                if let Some(m) = s("model") {
                    t.s.add_model(&m);
                }
            }
            "response_item" => item(&mut t, &p, &mut saw_item_message, &mut saw_item_reasoning),
            "event_msg" => match s("type").as_deref() {
                Some("user_message") => events.push((Role::User, s("message").unwrap_or_default())),
                Some("agent_message") => {
                    events.push((Role::Assistant, s("message").unwrap_or_default()))
                }
                Some("agent_reasoning") => event_reasoning.push(s("text").unwrap_or_default()),
                _ => {}
            },
            _ => {}
        }
    }
    if !saw_item_message {
        for (role, text) in events {
            if role == Role::User && is_injected(&text) {
                continue;
            }
            t.s.push_turn(role, &text);
        }
    }
    if !saw_item_reasoning {
        for r in event_reasoning {
            t.reasoning(&r);
        }
    }
    t.s.lines = records.last;
    (t.s, records.issues)
}

fn item(t: &mut Thread, p: &Value, saw_message: &mut bool, saw_reasoning: &mut bool) {
    let s = |k: &str| p.get(k).and_then(Value::as_str);
    match s("type") {
        Some("message") => {
            let role = match s("role") {
                Some("user") => Role::User,
                Some("assistant") => Role::Assistant,
                _ => return, // developer / system prompts
            };
            let text = content_text(p.get("content"));
            if role == Role::User && is_injected(&text) {
                return;
            }
            *saw_message = true;
            t.s.push_turn(role, &text);
        }
        Some("reasoning") => {
            let mut any = false;
            for key in ["summary", "content"] {
                if let Some(parts) = p.get(key).and_then(Value::as_array) {
                    for part in parts {
                        if let Some(text) = part.get("text").and_then(Value::as_str) {
                            any = true;
                            t.reasoning(text);
                        }
                    }
                }
            }
            *saw_reasoning |= any;
        }
        Some("function_call") => {
            let args = s("arguments")
                .and_then(|a| serde_json::from_str::<Value>(a).ok())
                .unwrap_or(Value::Null);
            t.tool_use(s("call_id"), s("name").unwrap_or("function"), &args);
        }
        Some("custom_tool_call") => {
            let input = p.get("input").cloned().unwrap_or(Value::Null);
            t.tool_use(s("call_id"), s("name").unwrap_or("tool"), &input);
        }
        Some("local_shell_call") => {
            let action = p.get("action").cloned().unwrap_or(Value::Null);
            t.tool_use(s("call_id"), "shell", &action);
        }
        Some("web_search_call") => {
            let q = p.pointer("/action/query").cloned().unwrap_or(Value::Null);
            t.tool_use(None, "web_search", &serde_json::json!({ "query": q }));
        }
        Some("function_call_output") | Some("custom_tool_call_output") => {
            let (failed, text) = output_status(p.get("output"));
            t.tool_result(s("call_id"), failed, &text);
        }
        _ => {}
    }
}

/// (failed, text) of a tool output: a JSON string `{"output":…,"metadata":{"exit_code":N}}`, a plain
/// string with `Exit code: N` (newer CLIs), or an object.
fn output_status(out: Option<&Value>) -> (bool, String) {
    let parsed = match out {
        Some(Value::String(s)) => serde_json::from_str::<Value>(s)
            .ok()
            .filter(Value::is_object)
            .unwrap_or(Value::String(s.clone())),
        Some(v) => v.clone(),
        None => return (false, String::new()),
    };
    match &parsed {
        Value::Object(_) => {
            let code = parsed
                .pointer("/metadata/exit_code")
                .and_then(Value::as_i64)
                .unwrap_or(0);
            let text = parsed
                .get("output")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string();
            (code != 0, text)
        }
        Value::String(s) => {
            let code = s
                .lines()
                .take(3)
                .find_map(|l| {
                    l.trim()
                        .strip_prefix("Exit code:")
                        .or_else(|| l.trim().strip_prefix("Process exited with code"))
                })
                .and_then(|c| c.trim().parse::<i64>().ok())
                .unwrap_or(0);
            let body = s.split_once("Output:\n").map_or(s.as_str(), |(_, o)| o);
            (code != 0, body.to_string())
        }
        _ => (false, String::new()),
    }
}

fn content_text(content: Option<&Value>) -> String {
    match content {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|b| match b.get("type").and_then(Value::as_str) {
                Some("input_image") => Some("[image]"),
                _ => b.get("text").and_then(Value::as_str),
            })
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

fn is_injected(text: &str) -> bool {
    let t = text.trim_start();
    INJECTED.iter().any(|p| t.starts_with(p))
}
