//! The Claude Code Stop hook in `settings.json`: find ours, add it, remove it — keeping every other
//! hook, backing the file up first, validating the JSON we write, and replacing the file atomically.
//!
//! Claude Code's shape: `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": …, "timeout":
//! secs}]}]}}`. Our entry is the command hook whose command runs `stop-hook.sh`; it is written as
//! `BRAIN_HOME='…' BRAIN_BIN='…' '…/stop-hook.sh'` so the hook finds this home and this `brain` whatever
//! PATH Claude Code runs it with.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use crate::settings::{backup, read, write};
use crate::{OpsError, shell};

/// The Claude Code hook event the fast clock runs on.
pub const EVENT: &str = "Stop";

/// Claude Code's own timeout for our hook, in seconds: a backstop above the script's inner timeout
/// (`BRAIN_HOOK_TIMEOUT`, 10 s), so a hung hook is killed twice over and never blocks the agent long.
pub const TIMEOUT_SECS: u64 = 30;

/// The script name that marks a hook command as ours.
pub const SCRIPT: &str = "stop-hook.sh";

/// One installed hook of ours, as read back from settings.json.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HookInfo {
    /// The agent (`claude`).
    pub agent: String,
    /// The settings file it is in.
    pub settings: String,
    /// The hook event (`Stop`).
    pub event: String,
    /// The command as written.
    pub command: String,
    /// The script it runs.
    pub script: Option<String>,
    /// `BRAIN_BIN` it pins, if any.
    pub brain: Option<String>,
    /// `BRAIN_HOME` it pins, if any.
    pub home: Option<String>,
    /// What is wrong with it (script or brain missing or not executable), or null.
    pub problem: Option<String>,
}

/// The command line of our hook.
pub fn command(home: &Path, brain: &Path, script: &Path) -> String {
    format!(
        "BRAIN_HOME={} BRAIN_BIN={} {}",
        shell::quote(&home.display().to_string()),
        shell::quote(&brain.display().to_string()),
        shell::quote(&script.display().to_string())
    )
}

fn is_ours(hook: &Value) -> bool {
    hook.get("command")
        .and_then(Value::as_str)
        .is_some_and(|c| c.contains(SCRIPT))
}

fn describe(settings: &Path, cmd: &str) -> HookInfo {
    let words = shell::split(cmd);
    let (env, rest) = shell::assignments(&words);
    let get = |k: &str| env.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
    let script = rest.iter().find(|w| w.ends_with(SCRIPT)).cloned();
    let brain = get("BRAIN_BIN");
    let problem = match (&script, &brain) {
        (None, _) => Some(format!("the command names no {SCRIPT}")),
        (Some(s), _) if !crate::bins::is_executable(Path::new(s)) => {
            Some(format!("{s} is missing or not executable"))
        }
        (_, Some(b)) if !crate::bins::is_executable(Path::new(b)) => {
            Some(format!("BRAIN_BIN {b} is missing or not executable"))
        }
        _ => None,
    };
    HookInfo {
        agent: "claude".into(),
        settings: settings.display().to_string(),
        event: EVENT.into(),
        command: cmd.to_string(),
        script,
        brain,
        home: get("BRAIN_HOME"),
        problem,
    }
}

/// The `hooks.Stop` array of a settings object (created when `create`).
fn stop_groups<'a>(
    path: &Path,
    root: &'a mut Map<String, Value>,
    create: bool,
) -> Result<Option<&'a mut Vec<Value>>, OpsError> {
    let bad = |reason: &str| OpsError::BadSettings {
        path: path.to_path_buf(),
        reason: reason.into(),
    };
    if !root.contains_key("hooks") {
        if !create {
            return Ok(None);
        }
        root.insert("hooks".into(), json!({}));
    }
    let Some(hooks) = root.get_mut("hooks").and_then(Value::as_object_mut) else {
        return Err(bad("`hooks` is not an object"));
    };
    if !hooks.contains_key(EVENT) {
        if !create {
            return Ok(None);
        }
        hooks.insert(EVENT.into(), json!([]));
    }
    match hooks.get_mut(EVENT).and_then(Value::as_array_mut) {
        Some(a) => Ok(Some(a)),
        None => Err(bad("`hooks.Stop` is not an array")),
    }
}

/// Our hooks in the settings file at `path` (empty when the file or the section is absent).
pub fn installed(path: &Path) -> Result<Vec<HookInfo>, OpsError> {
    let Some(mut root) = read(path)? else {
        return Ok(Vec::new());
    };
    let Some(groups) = stop_groups(path, &mut root, false)? else {
        return Ok(Vec::new());
    };
    Ok(groups
        .iter()
        .filter_map(|g| g.get("hooks").and_then(Value::as_array))
        .flatten()
        .filter(|h| is_ours(h))
        .filter_map(|h| h.get("command").and_then(Value::as_str))
        .map(|c| describe(path, c))
        .collect())
}

/// Our hooks, or one entry carrying the reason the settings file cannot be read (for `explain`).
pub fn installed_or_problem(path: &Path) -> Vec<HookInfo> {
    installed(path).unwrap_or_else(|e| {
        vec![HookInfo {
            agent: "claude".into(),
            settings: path.display().to_string(),
            event: EVENT.into(),
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
    /// The hook was added.
    Added,
    /// An older hook of ours was replaced by the new command.
    Replaced,
    /// The same hook was already there; nothing written.
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
}

/// Add our Stop hook running `cmd` to the settings file at `path` (created if absent). Idempotent: an
/// identical hook means no write; an older one of ours is replaced in place; other hooks are kept.
pub fn install(path: &Path, cmd: &str) -> Result<Outcome, OpsError> {
    let existed = path.exists();
    let mut root = read(path)?.unwrap_or_default();
    let entry = json!({"type": "command", "command": cmd, "timeout": TIMEOUT_SECS});
    let groups = stop_groups(path, &mut root, true)?.ok_or_else(|| OpsError::BadSettings {
        path: path.to_path_buf(),
        reason: "no `hooks.Stop`".into(),
    })?;
    let ours: Vec<&Value> = groups
        .iter()
        .filter_map(|g| g.get("hooks").and_then(Value::as_array))
        .flatten()
        .filter(|h| is_ours(h))
        .collect();
    let change = match ours.as_slice() {
        [only] if **only == entry => Change::Unchanged,
        [] => {
            groups.push(json!({"hooks": [entry]}));
            Change::Added
        }
        _ => {
            let mut first = Some(entry);
            for h in groups
                .iter_mut()
                .filter_map(|g| g.get_mut("hooks").and_then(Value::as_array_mut))
                .flatten()
                .filter(|h| is_ours(h))
            {
                *h = first.take().unwrap_or(Value::Null);
            }
            Change::Replaced
        }
    };
    if change == Change::Unchanged {
        return Ok(Outcome {
            settings: path.to_path_buf(),
            change,
            backup: None,
        });
    }
    prune(groups);
    let backup = if existed { Some(backup(path)?) } else { None };
    write(path, &root)?;
    Ok(Outcome {
        settings: path.to_path_buf(),
        change,
        backup,
    })
}

/// Remove every Stop hook of ours from the settings file at `path`; other hooks are kept, and groups,
/// the `Stop` array and the `hooks` object are dropped only when we emptied them.
pub fn remove(path: &Path) -> Result<Outcome, OpsError> {
    let not_found = || Outcome {
        settings: path.to_path_buf(),
        change: Change::NotFound,
        backup: None,
    };
    let Some(mut root) = read(path)? else {
        return Ok(not_found());
    };
    let Some(groups) = stop_groups(path, &mut root, false)? else {
        return Ok(not_found());
    };
    let mut n = 0;
    for h in groups
        .iter_mut()
        .filter_map(|g| g.get_mut("hooks").and_then(Value::as_array_mut))
        .flatten()
        .filter(|h| is_ours(h))
    {
        *h = Value::Null;
        n += 1;
    }
    if n == 0 {
        return Ok(not_found());
    }
    prune(groups);
    if groups.is_empty()
        && let Some(hooks) = root.get_mut("hooks").and_then(Value::as_object_mut)
    {
        hooks.remove(EVENT);
        if hooks.is_empty() {
            root.remove("hooks");
        }
    }
    let backup = Some(backup(path)?);
    write(path, &root)?;
    Ok(Outcome {
        settings: path.to_path_buf(),
        change: Change::Removed(n),
        backup,
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
mod tests {
    use super::*;

    const OTHER: &str = r#"{"model": "opus", "hooks": {"Stop": [{"matcher": "", "hooks": [{"type": "command", "command": "say done"}]}],
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "guard.sh"}]}]}}"#;

    #[test]
    fn install_keeps_other_hooks_is_idempotent_and_remove_restores() {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = dir.path().join("settings.json");
        std::fs::write(&p, OTHER).expect("write");
        let cmd = command(
            Path::new("/h"),
            Path::new("/b/brain"),
            Path::new("/s/stop-hook.sh"),
        );
        let first = install(&p, &cmd).expect("install");
        assert_eq!(first.change, Change::Added);
        assert_eq!(
            std::fs::read_to_string(first.backup.expect("backup")).expect("read"),
            OTHER
        );
        assert_eq!(install(&p, &cmd).expect("again").change, Change::Unchanged);
        let v: Value =
            serde_json::from_str(&std::fs::read_to_string(&p).expect("read")).expect("json");
        assert_eq!(v["hooks"]["Stop"].as_array().map(Vec::len), Some(2));
        assert_eq!(v["hooks"]["Stop"][0]["hooks"][0]["command"], "say done");
        assert_eq!(
            v["hooks"]["PreToolUse"][0]["hooks"][0]["command"],
            "guard.sh"
        );
        let found = installed(&p).expect("installed");
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].brain.as_deref(), Some("/b/brain"));
        assert_eq!(found[0].script.as_deref(), Some("/s/stop-hook.sh"));
        let newer = command(
            Path::new("/h"),
            Path::new("/b2/brain"),
            Path::new("/s/stop-hook.sh"),
        );
        assert_eq!(
            install(&p, &newer).expect("replace").change,
            Change::Replaced
        );
        assert_eq!(installed(&p).expect("installed").len(), 1);
        assert_eq!(remove(&p).expect("remove").change, Change::Removed(1));
        let back: Value =
            serde_json::from_str(&std::fs::read_to_string(&p).expect("read")).expect("json");
        assert_eq!(back, serde_json::from_str::<Value>(OTHER).expect("json"));
        assert_eq!(remove(&p).expect("again").change, Change::NotFound);
    }

    #[test]
    fn invalid_settings_are_refused_untouched() {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = dir.path().join("settings.json");
        std::fs::write(&p, "{ not json").expect("write");
        let err = install(&p, "x stop-hook.sh").expect_err("refused");
        assert!(matches!(err, OpsError::BadSettings { .. }), "{err}");
        assert_eq!(std::fs::read_to_string(&p).expect("read"), "{ not json");
        std::fs::write(&p, r#"{"hooks": {"Stop": {}}}"#).expect("write");
        assert!(install(&p, "x stop-hook.sh").is_err());
    }

    #[test]
    fn a_missing_file_is_created_and_emptied_sections_go() {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = dir.path().join("sub/settings.json");
        let out = install(&p, "'/s/stop-hook.sh'").expect("install");
        assert_eq!((out.change, out.backup), (Change::Added, None));
        remove(&p).expect("remove");
        assert_eq!(std::fs::read_to_string(&p).expect("read"), "{}\n");
    }
}
