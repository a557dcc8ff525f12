//! Cursor's tool calls as the calls every agent makes (shell, read, edit, search, fetch), so they
//! are summarised, and their files and URLs become refs, exactly like Claude Code's. Cursor names
//! the same call differently in its IDE (`run_terminal_command_v2`, `read_file_v2` with camelCase
//! `params` and snake_case `rawArgs`), its CLI (`Shell`, `StrReplace`, `Glob`) and over versions.

use serde_json::{Map, Value, json};

/// The first string of `input` under one of `keys`.
fn first<'a>(input: &'a Value, keys: &[&str]) -> Option<&'a str> {
    keys.iter()
        .find_map(|k| input.get(*k).and_then(Value::as_str))
        .map(str::trim)
        .filter(|s| !s.is_empty())
}

const FILE_KEYS: [&str; 8] = [
    "targetFile",
    "target_file",
    "filePath",
    "file_path",
    "path",
    "relativeWorkspacePath",
    "relative_workspace_path",
    "absolutePath",
];

/// `(tool name, input)` in the vocabulary of [`crate::tools::summarize`] and [`crate::refs`].
pub fn canonical(name: &str, input: &Value) -> (String, Value) {
    let lower = name.to_lowercase();
    let file = || first(input, &FILE_KEYS).map(str::to_string);
    let with = |tool: &str, key: &str, v: Option<String>| -> (String, Value) {
        match v {
            Some(v) => (tool.to_string(), json!({ key: v })),
            None => (tool.to_string(), input.clone()),
        }
    };
    match lower.as_str() {
        "run_terminal_command_v2"
        | "run_terminal_cmd"
        | "run_terminal_command"
        | "shell"
        | "bash"
        | "terminal" => with(
            "Bash",
            "command",
            first(input, &["command", "cmd"]).map(str::to_string),
        ),
        "read_file" | "read_file_v2" | "read" | "readfile" => with("Read", "file_path", file()),
        "edit_file" | "edit_file_v2" | "search_replace" | "strreplace" | "str_replace"
        | "apply_patch" | "multiedit" | "edit" => with("Edit", "file_path", file()),
        "write" | "write_file" | "create_file" => with("Write", "file_path", file()),
        "delete_file" | "delete" => with("Delete", "file_path", file()),
        "grep" | "grep_search" | "ripgrep" | "rg" | "search" => {
            let mut m = Map::new();
            if let Some(p) = first(input, &["pattern", "query", "regex"]) {
                m.insert("pattern".into(), Value::from(p));
            }
            if let Some(p) = first(input, &["path", "target_directory", "targetDirectory"]) {
                m.insert("path".into(), Value::from(p));
            }
            ("Grep".into(), Value::Object(m))
        }
        "glob" | "glob_file_search" | "file_search" => {
            let mut m = Map::new();
            if let Some(p) = first(input, &["glob_pattern", "globPattern", "pattern", "query"]) {
                m.insert("pattern".into(), Value::from(p));
            }
            if let Some(p) = first(input, &["target_directory", "targetDirectory", "path"]) {
                m.insert("path".into(), Value::from(p));
            }
            ("Glob".into(), Value::Object(m))
        }
        "list_dir" | "list_directory" | "ls" => with(
            "LS",
            "path",
            file().or_else(|| {
                first(input, &["target_directory", "targetDirectory"]).map(str::to_string)
            }),
        ),
        "web_search" | "websearch" => with(
            "WebSearch",
            "query",
            first(input, &["search_term", "searchTerm", "query"]).map(str::to_string),
        ),
        "fetch" | "web_fetch" | "webfetch" | "fetch_url" => with(
            "WebFetch",
            "url",
            first(input, &["url", "uri"]).map(str::to_string),
        ),
        "codebase_search" | "semantic_search" => with(
            "codebase_search",
            "query",
            first(input, &["query", "explanation"]).map(str::to_string),
        ),
        "todo_write" | "todowrite" => ("TodoWrite".into(), input.clone()),
        _ => (name.to_string(), input.clone()),
    }
}

/// A JSON value that Cursor stores as a JSON string (`params`, `rawArgs`, `result`), parsed; the
/// value itself otherwise.
pub fn unstring(v: Option<&Value>) -> Value {
    match v {
        Some(Value::String(s)) => {
            serde_json::from_str(s).unwrap_or_else(|_| Value::String(s.clone()))
        }
        Some(v) => v.clone(),
        None => Value::Null,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursor_calls_read_as_every_agents_calls() {
        let (n, i) = canonical(
            "run_terminal_command_v2",
            &json!({"command": "cargo test -p alpha"}),
        );
        assert_eq!(
            (n.as_str(), i),
            ("Bash", json!({"command": "cargo test -p alpha"}))
        );
        let (n, i) = canonical(
            "read_file_v2",
            &json!({"targetFile": "/p/src/parse.rs", "offset": 1}),
        );
        assert_eq!(
            (n.as_str(), i),
            ("Read", json!({"file_path": "/p/src/parse.rs"}))
        );
        let (n, i) = canonical("StrReplace", &json!({"path": "/p/a.rs", "old_string": "x"}));
        assert_eq!((n.as_str(), i), ("Edit", json!({"file_path": "/p/a.rs"})));
        let (n, i) = canonical(
            "Glob",
            &json!({"glob_pattern": "**/*.rs", "target_directory": "/p"}),
        );
        assert_eq!(
            (n.as_str(), i),
            ("Glob", json!({"pattern": "**/*.rs", "path": "/p"}))
        );
        let (n, _) = canonical("mystery_tool", &json!({"x": 1}));
        assert_eq!(n, "mystery_tool");
        assert_eq!(unstring(Some(&Value::from("{\"a\":1}"))), json!({"a": 1}));
    }
}
