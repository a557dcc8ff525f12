//! The hooks' settings edits: install, replace, remove, per agent.
use super::*;

const OTHER: &str = r#"{"model": "opus", "hooks": {"Stop": [{"matcher": "", "hooks": [{"type": "command", "command": "say done"}]}],
    "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "guard.sh"}]}]}}"#;

fn stop(cmd: &str) -> Vec<Wanted> {
    vec![Wanted {
        hook: Hook::Stop,
        command: cmd.into(),
    }]
}

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
    let first = install(&p, Agent::Claude, &stop(&cmd)).expect("install");
    assert_eq!(first.change, Change::Added);
    assert_eq!(
        std::fs::read_to_string(first.backup.expect("backup")).expect("read"),
        OTHER
    );
    assert_eq!(
        install(&p, Agent::Claude, &stop(&cmd))
            .expect("again")
            .change,
        Change::Unchanged
    );
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&p).expect("read")).expect("json");
    assert_eq!(v["hooks"]["Stop"].as_array().map(Vec::len), Some(2));
    assert_eq!(v["hooks"]["Stop"][0]["hooks"][0]["command"], "say done");
    assert_eq!(
        v["hooks"]["PreToolUse"][0]["hooks"][0]["command"],
        "guard.sh"
    );
    let found = installed(&p, Agent::Claude).expect("installed");
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].brain.as_deref(), Some("/b/brain"));
    assert_eq!(found[0].script.as_deref(), Some("/s/stop-hook.sh"));
    let newer = command(
        Path::new("/h"),
        Path::new("/b2/brain"),
        Path::new("/s/stop-hook.sh"),
    );
    assert_eq!(
        install(&p, Agent::Claude, &stop(&newer))
            .expect("replace")
            .change,
        Change::Replaced
    );
    assert_eq!(installed(&p, Agent::Claude).expect("installed").len(), 1);
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
    let err = install(&p, Agent::Claude, &stop("x stop-hook.sh")).expect_err("refused");
    assert!(matches!(err, OpsError::BadSettings { .. }), "{err}");
    assert_eq!(std::fs::read_to_string(&p).expect("read"), "{ not json");
    std::fs::write(&p, r#"{"hooks": {"Stop": {}}}"#).expect("write");
    assert!(install(&p, Agent::Claude, &stop("x stop-hook.sh")).is_err());
}

#[test]
fn a_missing_file_is_created_and_emptied_sections_go() {
    let dir = tempfile::tempdir().expect("tempdir");
    let p = dir.path().join("sub/settings.json");
    let out = install(&p, Agent::Claude, &stop("'/s/stop-hook.sh'")).expect("install");
    assert_eq!((out.change, out.backup), (Change::Added, None));
    remove(&p).expect("remove");
    assert_eq!(std::fs::read_to_string(&p).expect("read"), "{}\n");
}

#[test]
fn each_agent_gets_its_events_and_opt_ins_come_and_go() {
    let dir = tempfile::tempdir().expect("tempdir");
    let run = |h: Hook| Wanted {
        hook: h,
        command: run_command(Path::new("/h"), Path::new("/b/brain"), h, None),
    };
    let all = [
        Wanted {
            hook: Hook::Stop,
            command: "'/s/stop-hook.sh'".into(),
        },
        run(Hook::SessionStart),
        run(Hook::Prompt),
        run(Hook::PreTool),
    ];
    let claude = dir.path().join("claude.json");
    let out = install(&claude, Agent::Claude, &all).expect("claude");
    assert_eq!(
        out.events,
        ["Stop", "SessionStart", "UserPromptSubmit", "PreToolUse"]
    );
    let v: Value =
        serde_json::from_str(&std::fs::read_to_string(&claude).expect("read")).expect("json");
    assert_eq!(
        v["hooks"]["PreToolUse"][0]["matcher"],
        "Bash|Edit|Write|MultiEdit"
    );
    assert_eq!(
        v["hooks"]["SessionStart"][0]["hooks"][0]["command"],
        "BRAIN_HOME='/h' '/b/brain' hook run session-start"
    );
    assert_eq!(installed(&claude, Agent::Claude).expect("read").len(), 4);
    // Installing without the opt-ins takes them out again; other hooks are never touched.
    let out = install(&claude, Agent::Claude, &all[..2]).expect("again");
    assert_eq!(out.change, Change::Replaced);
    assert_eq!(installed(&claude, Agent::Claude).expect("read").len(), 2);
    let gemini = dir.path().join("gemini.json");
    std::fs::write(&gemini, r#"{"hooks": {"enabled": true}}"#).expect("write");
    let out = install(&gemini, Agent::Gemini, &all).expect("gemini");
    assert_eq!(out.events, ["SessionStart", "BeforeAgent"]);
    let v: Value =
        serde_json::from_str(&std::fs::read_to_string(&gemini).expect("read")).expect("json");
    assert_eq!(v["hooks"]["SessionStart"][0]["hooks"][0]["timeout"], 10_000);
    assert_eq!(v["hooks"]["enabled"], true);
    assert_eq!(remove(&gemini).expect("remove").change, Change::Removed(2));
    let back: Value =
        serde_json::from_str(&std::fs::read_to_string(&gemini).expect("read")).expect("json");
    assert_eq!(back, json!({"hooks": {"enabled": true}}));
    let codex = dir.path().join("hooks.json");
    let out = install(&codex, Agent::Codex, &all).expect("codex");
    assert_eq!(
        out.events,
        ["SessionStart", "UserPromptSubmit", "PreToolUse"]
    );
    // A hook of someone else that merely mentions `hook run` with no event of ours is theirs.
    assert!(!is_ours(&json!({"command": "git hook run pre-commit"})));
}
