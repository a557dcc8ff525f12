//! One Cursor IDE message ("bubble") into the thread: a user's text, the model's text, its
//! thinking (kept apart, as reasoning), its tool call with the result — composer bubbles of every
//! `_v` (split storage and inline `conversation`) and the pre-2025 chat pane's (`type`
//! "user"/"ai").

use serde_json::{Map, Value};

use crate::session::Role;
use crate::thread::Thread;

use super::tools::{canonical, unstring};

/// Who wrote a bubble: composer `type` 1 (user) / 2 (assistant), the chat pane's "user" / "ai".
pub fn role(b: &Value) -> Option<Role> {
    match b.get("type") {
        Some(Value::Number(n)) => match n.as_u64() {
            Some(1) => Some(Role::User),
            Some(2) => Some(Role::Assistant),
            _ => None,
        },
        Some(Value::String(s)) => match s.as_str() {
            "1" | "user" => Some(Role::User),
            "2" | "ai" | "assistant" => Some(Role::Assistant),
            _ => None,
        },
        _ => None,
    }
}

/// A bubble's text: `text`, else `rawText`, else the text nodes of its lexical `richText`.
pub fn text_of(b: &Value) -> String {
    for k in ["text", "rawText"] {
        if let Some(t) = b
            .get(k)
            .and_then(Value::as_str)
            .filter(|t| !t.trim().is_empty())
        {
            return t.to_string();
        }
    }
    let rich = unstring(b.get("richText"));
    let mut out = String::new();
    lexical_text(&rich, &mut out);
    out.trim().to_string()
}

fn lexical_text(v: &Value, out: &mut String) {
    match v {
        Value::Object(m) => {
            if let Some(t) = m.get("text").and_then(Value::as_str) {
                out.push_str(t);
            }
            for k in ["root", "children"] {
                if let Some(c) = m.get(k) {
                    lexical_text(c, out);
                }
            }
            if m.get("type").and_then(Value::as_str) == Some("paragraph") {
                out.push('\n');
            }
        }
        Value::Array(a) => a.iter().for_each(|x| lexical_text(x, out)),
        Value::String(s) if s.starts_with('{') => lexical_text(&unstring(Some(v)), out),
        _ => {}
    }
}

/// The model a bubble names.
pub fn model_of(b: &Value) -> Option<&str> {
    b.get("modelInfo")
        .and_then(|m| m.get("modelName"))
        .or_else(|| b.get("modelType"))
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty() && *s != "default")
}

/// Add bubble `b` to `t`; the absolute file paths it names go to `files` (for a project inferred
/// from them).
pub fn apply(t: &mut Thread, b: &Value, files: &mut Vec<String>) {
    if let Some(m) = model_of(b) {
        t.s.add_model(m);
    }
    if let Some(ts) = b.get("createdAt").and_then(crate::many::time_of) {
        t.s.saw_time(&ts);
    }
    match role(b) {
        Some(Role::User) => {
            let text = text_of(b);
            if !text.is_empty() {
                t.s.push_turn(Role::User, &text);
            }
        }
        Some(Role::Assistant) => {
            if let Some(th) = b
                .get("thinking")
                .and_then(|x| x.get("text"))
                .and_then(Value::as_str)
            {
                t.reasoning(th);
            }
            if let Some(tool) = b.get("toolFormerData").filter(|v| v.is_object()) {
                tool_call(t, tool, files);
            }
            let mut text = text_of(b);
            for block in b
                .get("codeBlocks")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                if let Some(code) = block.get("content").and_then(Value::as_str)
                    && !code.trim().is_empty()
                    && !text.contains(code.trim())
                {
                    let lang = block
                        .get("languageId")
                        .and_then(Value::as_str)
                        .unwrap_or("");
                    let fence = brain_doc::blocks::fence_for(code);
                    text.push_str(&format!("\n\n{fence}{lang}\n{}\n{fence}", code.trim_end()));
                }
                if let Some(p) = block
                    .get("uri")
                    .and_then(|u| u.get("fsPath"))
                    .and_then(Value::as_str)
                {
                    files.push(p.to_string());
                }
            }
            let text = text.trim();
            if !text.is_empty() {
                t.s.push_turn(Role::Assistant, text);
            }
        }
        Some(Role::Note) | None => {}
    }
}

/// `params` with the keys of `rawArgs` it lacks (Cursor writes both; names differ by case).
fn merged_input(tool: &Value) -> Value {
    let mut input = match unstring(tool.get("params")) {
        Value::Object(m) => m,
        _ => Map::new(),
    };
    if let Value::Object(raw) = unstring(tool.get("rawArgs")) {
        for (k, v) in raw {
            input.entry(k).or_insert(v);
        }
    }
    Value::Object(input)
}

fn tool_call(t: &mut Thread, tool: &Value, files: &mut Vec<String>) {
    let name = tool.get("name").and_then(Value::as_str).unwrap_or("tool");
    let input = merged_input(tool);
    let (name, input) = canonical(name, &input);
    super::note_paths(&input, files);
    // Call and result are in one bubble: a call without an id pairs with its result by position.
    let id = Some(
        tool.get("toolCallId")
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .map_or_else(
                || format!("cursor-bubble-tool-{}", t.s.tools.len()),
                str::to_string,
            ),
    );
    t.tool_use(id.as_deref(), &name, &input);
    let result = unstring(tool.get("result"));
    let rejected = tool.get("userDecision").and_then(Value::as_str) == Some("rejected")
        || result.get("rejected").and_then(Value::as_bool) == Some(true);
    if rejected {
        t.reject(id.as_deref());
        return;
    }
    let status = tool.get("status").and_then(Value::as_str).unwrap_or("");
    let exit = result.get("exitCode").and_then(Value::as_i64).unwrap_or(0);
    let error = result.get("error").and_then(Value::as_str);
    let failed = matches!(status, "error" | "failed") || exit != 0 || error.is_some();
    let text = match (&result, error) {
        (_, Some(e)) => e.to_string(),
        (Value::String(s), _) => s.clone(),
        (v, _) => v
            .get("output")
            .and_then(Value::as_str)
            .map(str::to_string)
            .unwrap_or_else(|| if failed { v.to_string() } else { String::new() }),
    };
    t.tool_result(id.as_deref(), failed, &text);
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_rejected_call_is_marked_and_a_failed_shell_too() {
        let mut t = Thread::default();
        let mut files = Vec::new();
        apply(
            &mut t,
            &json!({"type": 1, "text": "", "richText": "{\"root\":{\"children\":[{\"children\":[{\"text\":\"hi there\"}],\"type\":\"paragraph\"}]}}"}),
            &mut files,
        );
        apply(
            &mut t,
            &json!({"type": 2, "capabilityType": 15, "toolFormerData": {"name": "run_terminal_cmd", "toolCallId": "c1", "params": "{\"command\":\"rm -rf target\"}", "result": "{\"rejected\":true}", "userDecision": "rejected"}}),
            &mut files,
        );
        apply(
            &mut t,
            &json!({"type": 2, "toolFormerData": {"name": "run_terminal_command_v2", "toolCallId": "c2", "params": "{\"command\":\"cargo test\"}", "result": "{\"output\":\"test x ... FAILED\",\"exitCode\":101}", "status": "completed"}}),
            &mut files,
        );
        let s = t.into_session();
        let turns: Vec<(crate::session::Role, &str)> =
            s.turns.iter().map(|x| (x.role, x.text.as_str())).collect();
        assert_eq!(
            turns[0],
            (crate::session::Role::User, "hi there"),
            "{turns:?}"
        );
        assert_eq!(s.tools[0].summary, "Bash: rm -rf target");
        assert_eq!(s.tools[0].ended, brain_doc::command::Outcome::Declined);
        assert_eq!(s.tools[0].error, None);
        assert!(
            s.tools[1]
                .error
                .as_deref()
                .is_some_and(|e| e.contains("FAILED"))
        );
    }
}
