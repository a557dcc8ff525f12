//! One-line summaries of tool calls, for the `## Tools Used` section.
//!
//! Seed 004's `extract_tool_summary` covers Bash, Read/Edit/Write/Glob/Grep, WebSearch and WebFetch; this
//! extends it to every tool the real corpora show (Task/Agent prompts, TodoWrite, MultiEdit, NotebookEdit,
//! Codex `shell`/`exec_command`/`apply_patch`, Gemini `run_shell_command`/`read_file`/`replace`, MCP tools,
//! …). A later query like "what exact command did I run?" depends on these lines existing as text.

use serde_json::Value;

/// Longest command or argument text kept on one tool line (seed 004 keeps 120 for Bash; a little more
/// keeps whole `cargo test -p … -- --nocapture` lines searchable).
const MAX_ARG: usize = 200;

/// A tool call as rendered in `## Tools Used`.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolLine {
    /// `Bash: cargo test`, `Read: src/main.rs`, …
    pub summary: String,
    /// First line of the error the tool returned, when it failed.
    pub error: Option<String>,
}

/// Summarize a call of tool `name` with JSON `input`.
pub fn summarize(name: &str, input: &Value) -> String {
    let s = |k: &str| {
        input
            .get(k)
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|v| !v.is_empty())
    };
    let arg = match name {
        "Bash" | "Monitor" | "run_shell_command" | "exec_command" | "shell" | "local_shell" => {
            command_text(input).map(|c| one_line(&c))
        }
        "Read" | "Edit" | "Write" | "MultiEdit" | "NotebookEdit" | "read_file" | "write_file"
        | "replace" | "edit" | "Artifact" => s("file_path")
            .or(s("notebook_path"))
            .or(s("path"))
            .or(s("absolute_path"))
            .map(str::to_string),
        "Grep" | "search_file_content" | "grep" => {
            s("pattern").map(|p| match s("path").or(s("dir_path")) {
                Some(path) => format!("{p} in {path}"),
                None => p.to_string(),
            })
        }
        "Glob" | "glob" => s("pattern").map(|p| match s("path").or(s("dir_path")) {
            Some(path) => format!("{p} in {path}"),
            None => p.to_string(),
        }),
        "LS" | "list_directory" => s("path").or(s("dir_path")).map(str::to_string),
        "WebFetch" | "web_fetch" => s("url").or(s("prompt")).map(str::to_string),
        "WebSearch" | "google_web_search" | "web_search" => s("query").map(str::to_string),
        "Task" | "Agent" => {
            let kind = s("subagent_type").or(s("name")).unwrap_or("agent");
            let what = s("description").or(s("prompt")).unwrap_or("");
            Some(format!("{kind}: {}", one_line(what)))
        }
        "TodoWrite" | "write_todos" => input.get("todos").and_then(Value::as_array).map(|todos| {
            let items: Vec<&str> = todos
                .iter()
                .filter_map(|t| {
                    t.get("content")
                        .or_else(|| t.get("description"))
                        .and_then(Value::as_str)
                })
                .collect();
            format!("{} items: {}", items.len(), items.join("; "))
        }),
        "TaskCreate" => s("subject").or(s("description")).map(str::to_string),
        "ExitPlanMode" | "exit_plan_mode" => s("plan").map(one_line),
        "Skill" => s("skill").map(str::to_string),
        "SendMessage" => {
            s("recipient").map(|r| format!("to {r}: {}", one_line(s("content").unwrap_or(""))))
        }
        "apply_patch" => input
            .as_str()
            .map(patch_files)
            .or_else(|| s("input").map(patch_files)),
        _ => None,
    };
    let arg = arg.or_else(|| first_string_arg(input));
    match arg {
        Some(a) if !a.is_empty() => format!("{name}: {}", clip(&a, MAX_ARG)),
        _ => name.to_string(),
    }
}

/// The shell command of a Bash-like call: a string, or an argv array (`["bash","-lc","…"]`).
fn command_text(input: &Value) -> Option<String> {
    let v = input.get("command").or_else(|| input.get("cmd"))?;
    match v {
        Value::String(s) => Some(s.trim().to_string()),
        Value::Array(parts) => {
            let words: Vec<&str> = parts.iter().filter_map(Value::as_str).collect();
            // `bash -lc "<script>"`: the script is what the user wants to find again.
            match words.as_slice() {
                [sh, flag, script] if sh.ends_with("sh") && flag.starts_with('-') => {
                    Some(script.trim().to_string())
                }
                _ => Some(words.join(" ")),
            }
        }
        _ => None,
    }
}

/// `apply_patch` input → the files it touches (`Update File: a.rs, Add File: b.rs`).
fn patch_files(patch: &str) -> String {
    let files: Vec<&str> = patch
        .lines()
        .filter_map(|l| l.strip_prefix("*** "))
        .filter(|l| {
            l.starts_with("Update File:")
                || l.starts_with("Add File:")
                || l.starts_with("Delete File:")
        })
        .collect();
    if files.is_empty() {
        one_line(patch)
    } else {
        files.join(", ")
    }
}

/// The first short string argument of an unknown tool (MCP tools and the like), as `key=value`.
fn first_string_arg(input: &Value) -> Option<String> {
    let obj = input.as_object()?;
    obj.iter().find_map(|(k, v)| {
        v.as_str()
            .filter(|s| !s.trim().is_empty())
            .map(|s| format!("{k}={}", one_line(s)))
    })
}

/// First non-empty line of `s`, trimmed.
pub fn one_line(s: &str) -> String {
    let line = s
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("");
    if s.trim().lines().nth(1).is_some() && line.len() < s.trim().len() {
        format!("{line} …")
    } else {
        line.to_string()
    }
}

/// `s` cut to at most `max` bytes on a char boundary, with an ellipsis when cut.
pub fn clip(s: &str, max: usize) -> String {
    if s.len() <= max {
        return s.to_string();
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &s[..end])
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn common_tools_get_their_key_argument() {
        assert_eq!(
            summarize(
                "Bash",
                &json!({"command": "cargo test\n", "description": "x"})
            ),
            "Bash: cargo test"
        );
        assert_eq!(
            summarize("Read", &json!({"file_path": "/a/b.rs"})),
            "Read: /a/b.rs"
        );
        assert_eq!(
            summarize("Grep", &json!({"pattern": "fn main", "path": "src"})),
            "Grep: fn main in src"
        );
        assert_eq!(
            summarize("WebFetch", &json!({"url": "https://x.dev", "prompt": "p"})),
            "WebFetch: https://x.dev"
        );
        assert_eq!(
            summarize(
                "Task",
                &json!({"subagent_type": "Explore", "description": "find the bug"})
            ),
            "Task: Explore: find the bug"
        );
        assert_eq!(summarize("TaskList", &json!({})), "TaskList");
    }

    #[test]
    fn codex_shell_argv_keeps_the_script() {
        assert_eq!(
            summarize("shell", &json!({"command": ["bash", "-lc", "rg -n foo"]})),
            "shell: rg -n foo"
        );
        assert_eq!(
            summarize("exec_command", &json!({"cmd": "ls -la"})),
            "exec_command: ls -la"
        );
    }

    #[test]
    fn apply_patch_lists_files() {
        let p = "*** Begin Patch\n*** Update File: src/a.rs\n@@\n-x\n+y\n*** Add File: b.rs\n*** End Patch";
        assert_eq!(
            summarize("apply_patch", &json!(p)),
            "apply_patch: Update File: src/a.rs, Add File: b.rs"
        );
    }

    #[test]
    fn long_arguments_are_clipped_on_a_char_boundary() {
        let cmd = "é".repeat(300);
        let s = summarize("Bash", &json!({ "command": cmd }));
        assert!(s.len() <= "Bash: ".len() + MAX_ARG + "…".len());
        assert!(s.ends_with('…'));
    }

    #[test]
    fn unknown_tools_show_their_first_string_argument() {
        assert_eq!(
            summarize("mcp__db__query", &json!({"sql": "select 1", "n": 3})),
            "mcp__db__query: sql=select 1"
        );
    }
}
