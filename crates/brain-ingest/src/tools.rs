//! One-line summaries of tool calls, for the `## Tools Used` section.
//!
//! Seed 004's `extract_tool_summary` covers Bash, Read/Edit/Write/Glob/Grep, WebSearch and WebFetch; this
//! extends it to every tool the real corpora show (Task/Agent prompts, TodoWrite, MultiEdit, NotebookEdit,
//! Codex `shell`/`exec_command`/`apply_patch`, Gemini `run_shell_command`/`read_file`/`replace`, MCP tools,
//! …). A later query like "what exact command did I run?" depends on these lines existing as text.

use brain_doc::command::Outcome;
use serde_json::Value;

/// Longest command or argument text kept on one tool line (seed 004 keeps 120 for Bash; a little more
/// keeps whole `cargo test -p … -- --nocapture` lines searchable).
const MAX_ARG: usize = 200;

/// A tool call as rendered in `## Tools Used`.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolLine {
    /// `Bash: cargo test`, `Read: src/main.rs`, …
    pub summary: String,
    /// First line of the error the tool returned, when it failed (a refusal's reason; what the user
    /// said when they declined it, or nothing).
    pub error: Option<String>,
    /// How it ended when `error` is set: failed, refused, or declined by the user.
    pub ended: Outcome,
    /// What the call touched, typed (`file:`, `doc:`, `plan:`, `url:`, `repo:`, `commit:`) — the
    /// session's `refs` ([`crate::refs`]).
    pub refs: Vec<String>,
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
        "codebase_search" | "SemanticSearch" => s("query").map(str::to_string),
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
pub(crate) fn command_text(input: &Value) -> Option<String> {
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
    let files = patch_lines(patch);
    if files.is_empty() {
        one_line(patch)
    } else {
        files.join(", ")
    }
}

/// The `Update File: …`, `Add File: …` and `Delete File: …` lines of a Codex patch.
pub(crate) fn patch_lines(patch: &str) -> Vec<&str> {
    patch
        .lines()
        .filter_map(|l| l.strip_prefix("*** "))
        .filter(|l| {
            l.starts_with("Update File:")
                || l.starts_with("Add File:")
                || l.starts_with("Delete File:")
        })
        .collect()
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
/// Most lines of a failed tool's output kept in its turn (with their context).
pub const ERROR_EXCERPT_LINES: usize = 20;
/// Longest line of such an excerpt.
const ERROR_LINE_MAX: usize = 200;

/// Lines that say a command failed: what people search for afterwards.
const ERROR_MARKERS: [&str; 12] = [
    "error",
    "Error",
    "ERROR",
    "FAILED",
    "FAIL ",
    "failed",
    "panicked at",
    "Traceback",
    "Exception",
    "fatal:",
    "Segmentation fault",
    "command not found",
];

/// What agents say when their permissions or sandbox keep a call from running (Claude Code's
/// approval prompts and folder guard, a sandboxed shell's exec refusal, Browser Use's policy).
const REFUSALS: [&str; 5] = [
    "requires approval",
    "haven't granted it yet",
    "was blocked. For security",
    "rejected this action due to",
    "operation not permitted: ",
];

/// How a call whose result is an error ended, from the result's text: declined by the user
/// (Claude Code's "The user doesn't want to …", with the user's words after it when they gave
/// some), refused (an approval that was not given, a sandbox that blocked it), else failed.
/// `exit_codes`: the agent starts every failed shell command's output with `Exit code N`
/// (Claude Code 2.x), so a shell error without it that is no refusal, timeout or tool error is
/// the user's own words turning the call down (Claude Code 2.0 sent them as the result).
pub fn outcome(text: &str, shell: bool, exit_codes: bool) -> (Outcome, Option<String>) {
    let t = text.trim_start();
    if t.starts_with("The user doesn't want to") {
        let lower = t.to_ascii_lowercase();
        let said = ["the user said:", "reason for the rejection:"]
            .iter()
            .find_map(|m| lower.find(m).map(|i| i + m.len()))
            .map(|i| t[i..].trim().to_string())
            .filter(|s| !s.is_empty());
        return (Outcome::Declined, said.map(|s| clip(&s, DECLINE_MAX)));
    }
    let first = t.lines().next().unwrap_or("");
    if REFUSALS.iter().any(|r| first.contains(r)) {
        return (Outcome::Refused, None);
    }
    if shell
        && exit_codes
        && !t.is_empty()
        && !t.starts_with("Exit code")
        && !t.starts_with('<')
        && !t.to_ascii_lowercase().contains("timed out")
        && !shows_failure(t)
    {
        return (Outcome::Declined, Some(clip(t.trim(), DECLINE_MAX)));
    }
    (Outcome::Failed, None)
}

/// Longest text of the user's kept with a declined call.
const DECLINE_MAX: usize = 500;

/// Does a shell tool's output show a failure its exit status did not flag (a traceback, `FAILED`,
/// `panicked at`, `error:` lines)?
pub fn shows_failure(text: &str) -> bool {
    text.lines().any(|l| {
        let l = l.trim_start();
        l.starts_with("error:")
            || l.starts_with("error[")
            || l.starts_with("Error:")
            || l.starts_with("FAILED")
            || l.starts_with("Traceback (most recent call last)")
            || l.contains("panicked at")
            || l.starts_with("fatal:")
    })
}

/// The evidence of a failed tool call, bounded: every error line with one line before and two
/// after, at most [`ERROR_EXCERPT_LINES`] lines of at most 200 bytes; without an error line, the
/// output's first and last lines. `None` for an empty output.
pub fn error_excerpt(text: &str) -> Option<String> {
    let lines: Vec<&str> = text.lines().map(str::trim_end).collect();
    if lines.iter().all(|l| l.trim().is_empty()) {
        return None;
    }
    let mut keep = vec![false; lines.len()];
    for (i, l) in lines.iter().enumerate() {
        if ERROR_MARKERS.iter().any(|m| l.contains(m)) {
            let from = i.saturating_sub(1);
            let to = (i + 3).min(lines.len());
            keep[from..to].iter_mut().for_each(|k| *k = true);
        }
    }
    if !keep.contains(&true) {
        let n = lines.len();
        for (i, k) in keep.iter_mut().enumerate() {
            *k = i < 5 || i + 5 >= n;
        }
    }
    let mut out: Vec<String> = Vec::new();
    let mut last: Option<usize> = None;
    for (i, l) in lines.iter().enumerate() {
        if !keep[i] || l.trim().is_empty() {
            continue;
        }
        if out.len() == ERROR_EXCERPT_LINES {
            out.push("…".into());
            break;
        }
        if last.is_some_and(|j| i > j + 1) {
            out.push("…".into());
        }
        out.push(clip(l, ERROR_LINE_MAX));
        last = Some(i);
    }
    Some(out.join("\n"))
}

/// `s` as one line: its words, single-spaced.
pub fn one_paragraph(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

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
    use brain_doc::command::Outcome;

    #[test]
    fn failed_refused_or_declined() {
        let o = |t: &str, shell: bool, codes: bool| outcome(t, shell, codes);
        assert_eq!(
            o("Exit code 1\nerror: x", true, true),
            (Outcome::Failed, None)
        );
        assert_eq!(o("test x ... FAILED", true, false), (Outcome::Failed, None));
        assert_eq!(
            o(
                "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). The user provided the following reason for the rejection:  use pnpm",
                true,
                true
            ),
            (Outcome::Declined, Some("use pnpm".into()))
        );
        assert_eq!(
            o(
                "The user doesn't want to take this action right now. STOP what you are doing",
                false,
                true
            )
            .0,
            Outcome::Declined
        );
        assert_eq!(
            o("This command requires approval", true, true).0,
            Outcome::Refused
        );
        assert_eq!(
            o("zsh:1: operation not permitted: ps", true, false).0,
            Outcome::Refused
        );
        assert_eq!(
            o(
                "Claude requested permissions to use WebSearch, but you haven't granted it yet.",
                false,
                true
            )
            .0,
            Outcome::Refused
        );
        // Claude Code 2.0: the user's words as the shell's result.
        assert_eq!(
            o("please add transformer.js too first", true, true),
            (
                Outcome::Declined,
                Some("please add transformer.js too first".into())
            )
        );
        // The same words from an agent without that convention, or a tool error, are failures.
        assert_eq!(
            o("please add transformer.js too first", true, false).0,
            Outcome::Failed
        );
        assert_eq!(
            o("<tool_use_error>x</tool_use_error>", true, true).0,
            Outcome::Failed
        );
        assert_eq!(
            o("Command timed out after 2m 0.0s", true, true).0,
            Outcome::Failed
        );
        assert_eq!(
            o("Traceback (most recent call last):\n x", true, true).0,
            Outcome::Failed
        );
    }

    use super::*;

    #[test]
    fn an_error_excerpt_keeps_the_error_lines_with_context_and_stays_bounded() {
        let mut out = String::new();
        for i in 0..500 {
            out.push_str(&format!("compiling crate {i}\n"));
        }
        out.push_str("error[E0432]: unresolved import `memchr`\n --> src/lib.rs:3:5\n  |\n");
        let e = error_excerpt(&out).expect("excerpt");
        assert!(e.contains("compiling crate 499"), "one line before");
        assert!(e.contains("error[E0432]") && e.contains("src/lib.rs:3:5"));
        assert!(!e.contains("compiling crate 10\n"));
        // Hundreds of error lines: at most 20 kept, the cut marked.
        let many = "FAILED test_x\n".repeat(1000);
        let e = error_excerpt(&many).expect("excerpt");
        assert!(
            e.lines().count() <= ERROR_EXCERPT_LINES + 1,
            "{}",
            e.lines().count()
        );
        assert!(e.ends_with('…'));
        // A huge line is clipped.
        let e = error_excerpt(&format!("error: {}", "x".repeat(10_000))).expect("excerpt");
        assert!(e.len() < 300);
        // No error line: the first and last lines.
        let plain: String = (0..100).map(|i| format!("line {i}\n")).collect();
        let e = error_excerpt(&plain).expect("excerpt");
        assert!(e.contains("line 0") && e.contains("line 99") && !e.contains("line 50"));
        assert_eq!(error_excerpt("  \n\n"), None);
    }

    #[test]
    fn a_shell_output_shows_a_failure_by_its_error_lines_only() {
        assert!(shows_failure(
            "running 3 tests\nthread 'x' panicked at src/a.rs:1:1"
        ));
        assert!(shows_failure(
            "Traceback (most recent call last):\n  File \"a.py\""
        ));
        assert!(shows_failure("error: could not compile `brain`"));
        assert!(!shows_failure("3 passed, 0 failed\nno errors found"));
    }
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
