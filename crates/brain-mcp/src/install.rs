//! `brain mcp install --claude`: the Claude Code MCP configuration that starts `brain mcp`, printed
//! or merged into a config file.
//!
//! Claude Code reads stdio servers from an `mcpServers` map: the project's `.mcp.json` (shared with
//! the repository) or the user's `~/.claude.json` (all projects). Writing merges our one entry into
//! the file and leaves everything else as it was; an unchanged entry is not rewritten; a changed
//! file is first copied to `<file>.bak`; the new file replaces the old atomically.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};

/// The server's name in `mcpServers`.
pub const SERVER_NAME: &str = "brain";

/// Why the configuration could not be written.
#[derive(Debug, thiserror::Error)]
pub enum InstallError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path} is not a JSON object ({reason}); fix or move it, then run again")]
    NotJson { path: PathBuf, reason: String },
}

impl brain_doc::Classified for InstallError {
    /// The agent's settings file is the user's: one that cannot be read, written or parsed is
    /// theirs to fix (64).
    fn code(&self) -> brain_doc::ErrorCode {
        brain_doc::ErrorCode::BadQuery
    }
}

/// The `mcpServers.brain` entry: run `command mcp`, with `BRAIN_HOME` when one is set.
pub fn entry(command: &str, brain_home: Option<&str>) -> Value {
    let mut e = json!({"type": "stdio", "command": command, "args": ["mcp"]});
    if let Some(h) = brain_home {
        e["env"] = json!({"BRAIN_HOME": h});
    }
    e
}

/// The whole snippet, as printed.
pub fn snippet(entry: &Value) -> Value {
    json!({"mcpServers": {SERVER_NAME: entry}})
}

/// What [`write`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Written {
    /// The file already held this entry; nothing was written.
    Unchanged,
    /// The file was created.
    Created,
    /// The file was updated; the previous content is in this backup.
    Updated { backup: PathBuf },
}

/// Merge `entry` as `mcpServers.brain` into the JSON file at `path` (created if missing).
pub fn write(path: &Path, entry: &Value) -> Result<Written, InstallError> {
    let io = |source| InstallError::Io {
        path: path.to_path_buf(),
        source,
    };
    let old = match std::fs::read_to_string(path) {
        Ok(t) => Some(t),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(io(e)),
    };
    let mut doc: Map<String, Value> = match &old {
        None => Map::new(),
        Some(t) if t.trim().is_empty() => Map::new(),
        Some(t) => match serde_json::from_str(t) {
            Ok(Value::Object(m)) => m,
            Ok(_) => {
                return Err(InstallError::NotJson {
                    path: path.into(),
                    reason: "not an object".into(),
                });
            }
            Err(e) => {
                return Err(InstallError::NotJson {
                    path: path.into(),
                    reason: e.to_string(),
                });
            }
        },
    };
    let servers = doc.entry("mcpServers").or_insert_with(|| json!({}));
    let Some(servers) = servers.as_object_mut() else {
        return Err(InstallError::NotJson {
            path: path.into(),
            reason: "`mcpServers` is not an object".into(),
        });
    };
    if servers.get(SERVER_NAME) == Some(entry) {
        return Ok(Written::Unchanged);
    }
    servers.insert(SERVER_NAME.into(), entry.clone());
    let mut text =
        serde_json::to_string_pretty(&Value::Object(doc)).map_err(|e| InstallError::NotJson {
            path: path.into(),
            reason: e.to_string(),
        })?;
    text.push('\n');
    let outcome = match &old {
        None => Written::Created,
        Some(t) => {
            let mut backup = path.as_os_str().to_owned();
            backup.push(".bak");
            let backup = PathBuf::from(backup);
            brain_doc::atomic::write(&backup, t.as_bytes()).map_err(io)?;
            Written::Updated { backup }
        }
    };
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(io)?;
    }
    brain_doc::atomic::write(path, text.as_bytes()).map_err(io)?;
    Ok(outcome)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writing_merges_backs_up_and_is_idempotent() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join(".mcp.json");
        let e = entry("/bin/brain", None);
        assert_eq!(write(&path, &e).expect("create"), Written::Created);
        assert_eq!(write(&path, &e).expect("again"), Written::Unchanged);
        std::fs::write(
            &path,
            r#"{"mcpServers": {"other": {"command": "x"}}, "keep": 1}"#,
        )
        .expect("seed");
        let done = write(&path, &entry("/bin/brain", Some("/h"))).expect("update");
        assert!(matches!(done, Written::Updated { .. }));
        let v: Value =
            serde_json::from_str(&std::fs::read_to_string(&path).expect("read")).expect("json");
        assert_eq!(v["keep"], 1);
        assert_eq!(v["mcpServers"]["other"]["command"], "x");
        assert_eq!(v["mcpServers"]["brain"]["env"]["BRAIN_HOME"], "/h");
        let bak = std::fs::read_to_string(dir.path().join(".mcp.json.bak")).expect("backup");
        assert!(bak.contains("other") && !bak.contains("brain"));
        std::fs::write(&path, "[1]").expect("seed");
        assert!(matches!(
            write(&path, &e),
            Err(InstallError::NotJson { .. })
        ));
    }
}
