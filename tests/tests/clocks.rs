//! The two clocks and their installers: `pipelines/stop-hook.sh` on a real Claude Code transcript,
//! `brain hook install|remove`, `brain schedule install|remove` (with stand-ins for crontab, systemctl
//! and launchctl — the machine's real schedules are never touched), `brain skills install`, and an
//! installed layout (`make install`'s bin/libexec/share) finding its stages and pipelines.
//!
//! Build first: `cargo build --workspace --bins`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use brain_ops::Explain;
use brain_tests::{bin, command, corpus, run, workspace};

fn stop_hook(home: &Path, brain: &Path, payload: &str, env: &[(&str, &str)]) -> Output {
    // The home `brain hook install` made: a hook never makes one.
    std::fs::create_dir_all(home).expect("home");
    let mut c = Command::new("bash");
    c.arg(workspace().join("pipelines/stop-hook.sh"))
        .env("BRAIN_HOME", home)
        .env("HOME", home)
        .env("BRAIN_BIN", brain)
        .env_remove("BRAIN_TELEMETRY");
    for (k, v) in env {
        c.env(k, v);
    }
    run(&mut c, payload.as_bytes())
}

fn usage_rows(home: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(home.join("logs/usage.jsonl"))
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).expect("whole row"))
        .collect()
}

#[test]
fn the_stop_hook_makes_a_real_session_searchable_and_logs_a_hook_row() {
    let Some(dir) = corpus("claude-code") else {
        return;
    };
    let transcript = dir.join("daaain-claude-code-log/representative_messages.jsonl");
    let t = tempfile::tempdir().expect("tempdir");
    let home = t.path().join("home");
    let payload = format!(
        r#"{{"session_id":"s","transcript_path":{},"cwd":"/tmp","hook_event_name":"Stop","stop_hook_active":false}}"#,
        serde_json::to_string(&transcript.display().to_string()).expect("json")
    );
    let out = stop_hook(&home, &bin("brain"), &payload, &[]);
    assert_eq!(out.status.code(), Some(0));
    assert!(
        out.stdout.is_empty(),
        "the hook prints nothing for Claude Code"
    );
    let ask = run(
        command("brain", &home).args(["ask", "--json", "python", "decorators"]),
        b"",
    );
    assert_eq!(
        ask.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&ask.stderr)
    );
    let env: serde_json::Value = serde_json::from_slice(&ask.stdout).expect("envelope");
    let hit = &env["hits"][0];
    assert_eq!(hit["collection"], "brain");
    assert!(
        hit["uri"]
            .as_str()
            .is_some_and(|u| u.contains("/representative_messages-") && u.ends_with(".md")),
        "{hit}"
    );
    let queue =
        std::fs::read_to_string(home.join("pending_distill.txt")).expect("queued for distillation");
    // The id names its source: the stem does not carry the session id (`test_session`), so a hash
    // of the transcript's place is added.
    assert!(
        queue.trim().starts_with("representative_messages-") && queue.trim().len() == 32,
        "{queue}"
    );
    // A second Stop of the same session indexes nothing new.
    assert_eq!(
        stop_hook(&home, &bin("brain"), &payload, &[]).status.code(),
        Some(0)
    );
    let rows = usage_rows(&home);
    let hook: Vec<_> = rows
        .iter()
        .filter(|r| r["surface"] == "hook" && r["event"] == "stop_hook")
        .collect();
    assert_eq!(hook.len(), 2, "{rows:?}");
    assert_eq!(
        (hook[0]["exit_code"].as_i64(), hook[0]["n_docs"].as_u64()),
        (Some(0), Some(1))
    );
    assert_eq!(
        (hook[1]["exit_code"].as_i64(), hook[1]["n_docs"].as_u64()),
        (Some(0), Some(0))
    );
    assert!(hook[0]["latency_ms"].is_u64());
}

#[test]
fn a_hung_stage_is_killed_by_the_timeout_and_the_agent_is_not_failed() {
    let t = tempfile::tempdir().expect("tempdir");
    // A brain whose jsonl2md never finishes: brain and the real stages linked beside a hanging one.
    let fake = t.path().join("bin");
    std::fs::create_dir_all(&fake).expect("mkdir");
    std::fs::write(fake.join("jsonl2md"), "#!/bin/sh\nexec sleep 60\n").expect("write");
    for (f, target) in [
        ("jsonl2md", None),
        ("partition", Some("partition")),
        ("lexindex", Some("lexindex")),
        ("brain", Some("brain")),
    ] {
        match target {
            Some(name) => std::os::unix::fs::symlink(bin(name), fake.join(f)).expect("link"),
            None => std::fs::set_permissions(
                fake.join(f),
                std::os::unix::fs::PermissionsExt::from_mode(0o755),
            )
            .expect("chmod"),
        }
    }
    let home = t.path().join("home");
    let out = stop_hook(
        &home,
        &fake.join("brain"),
        r#"{"transcript_path":"/nowhere.jsonl"}"#,
        &[("BRAIN_HOOK_TIMEOUT", "1")],
    );
    assert_eq!(out.status.code(), Some(0));
    let rows = usage_rows(&home);
    assert_eq!(
        rows.last().and_then(|r| r["exit_code"].as_i64()),
        Some(124),
        "{rows:?}"
    );
    let log = std::fs::read_to_string(home.join("logs/hook.log")).expect("hook.log");
    assert!(log.contains("timed out after 1s"), "{log}");
}

#[test]
fn without_its_stages_the_hook_logs_why_and_still_exits_0() {
    let t = tempfile::tempdir().expect("tempdir");
    let home = t.path().join("home");
    // A copy outside any checkout or install, with no brain anywhere to be found.
    let script = t.path().join("stop-hook.sh");
    std::fs::copy(workspace().join("pipelines/stop-hook.sh"), &script).expect("copy");
    std::fs::create_dir_all(&home).expect("home");
    let out = run(
        Command::new("bash")
            .arg(&script)
            .env("BRAIN_HOME", &home)
            .env("BRAIN_BIN", "/nowhere/brain")
            .env("PATH", "/usr/bin:/bin"),
        b"{}",
    );
    assert_eq!(out.status.code(), Some(0));
    let log = std::fs::read_to_string(home.join("logs/hook.log")).expect("hook.log");
    assert!(log.contains("stage binaries not found"), "{log}");
}

const SETTINGS: &str = r#"{
  "model": "opus",
  "hooks": {
    "Stop": [{"matcher": "", "hooks": [{"type": "command", "command": "afplay done.aiff"}]}],
    "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "guard.sh"}]}]
  }
}
"#;

fn backups(dir: &Path) -> Vec<PathBuf> {
    let mut b: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("ls")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.to_string_lossy().contains("settings.json.brain-backup-"))
        .collect();
    b.sort();
    b
}

#[test]
fn hook_install_and_remove_round_trip_keeps_other_hooks_and_backs_up() {
    let t = tempfile::tempdir().expect("tempdir");
    let (home, user) = (t.path().join("home"), t.path().join("user"));
    let claude = user.join(".claude");
    std::fs::create_dir_all(&claude).expect("mkdir");
    std::fs::write(claude.join("settings.json"), SETTINGS).expect("write");
    let brain = |args: &[&str]| run(command("brain", &home).env("HOME", &user).args(args), b"");
    let out = brain(&["hook", "install", "--claude"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(backups(&claude).len(), 1);
    assert_eq!(
        std::fs::read_to_string(&backups(&claude)[0]).expect("backup"),
        SETTINGS
    );
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(claude.join("settings.json")).expect("read"))
            .expect("valid JSON");
    assert_eq!(v["model"], "opus");
    assert_eq!(
        v["hooks"]["Stop"][0]["hooks"][0]["command"],
        "afplay done.aiff"
    );
    assert_eq!(
        v["hooks"]["PreToolUse"][0]["hooks"][0]["command"],
        "guard.sh"
    );
    let ours = &v["hooks"]["Stop"][1]["hooks"][0];
    assert!(
        ours["command"]
            .as_str()
            .is_some_and(|c| c.ends_with("/pipelines/stop-hook.sh'")),
        "{ours}"
    );
    assert_eq!(ours["timeout"], 30);
    // Idempotent: nothing written, no new backup.
    let out = brain(&["hook", "install", "--claude"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("unchanged"));
    assert_eq!(backups(&claude).len(), 1);
    let e: Explain =
        serde_json::from_slice(&brain(&["explain", "--json"]).stdout).expect("explain");
    // The Stop hook and the SessionStart briefing (issue 40).
    let events: Vec<&str> = e.hooks.iter().map(|h| h.event.as_str()).collect();
    assert_eq!(events, ["Stop", "SessionStart"]);
    assert!(e.hooks.iter().all(|h| h.problem.is_none()), "{:?}", e.hooks);
    assert_eq!(
        e.hooks[0].brain.as_deref(),
        Some(bin("brain").display().to_string().as_str())
    );
    assert_eq!(brain(&["hook", "remove"]).status.code(), Some(0));
    let back: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(claude.join("settings.json")).expect("read"))
            .expect("json");
    assert_eq!(
        back,
        serde_json::from_str::<serde_json::Value>(SETTINGS).expect("json"),
        "remove restores the user's hooks exactly"
    );
    assert_eq!(backups(&claude).len(), 2);
}

#[test]
fn hook_install_refuses_invalid_settings_and_reports_io_failures() {
    let t = tempfile::tempdir().expect("tempdir");
    let home = t.path().join("home");
    let settings = t.path().join("settings.json");
    std::fs::write(&settings, "{ \"hooks\": ").expect("write");
    let s = settings.display().to_string();
    let out = run(
        command("brain", &home).args(["hook", "install", "--claude", "--settings", &s]),
        b"",
    );
    assert_eq!(out.status.code(), Some(64));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not valid JSON"));
    assert_eq!(
        std::fs::read_to_string(&settings).expect("read"),
        "{ \"hooks\": ",
        "untouched"
    );
    let dir = t.path().display().to_string();
    let out = run(
        command("brain", &home).args(["hook", "install", "--claude", "--settings", &dir]),
        b"",
    );
    // A folder where a file belongs is storage the command cannot use: 65 with its fix (issue 37).
    assert_eq!(
        out.status.code(),
        Some(65),
        "a settings path that is a folder"
    );
    let out = run(command("brain", &home).args(["hook", "install"]), b"");
    assert_eq!(out.status.code(), Some(64), "--claude is required");
}

/// BRAIN_HOOK_EMBED=1: a small session gets its vectors in the hook itself; one over
/// BRAIN_HOOK_EMBED_MAX_CHUNKS is left to the nightly run (nothing half-written), and no
/// temporary copy of the session is left in the home.
#[test]
fn the_stop_hook_embeds_a_small_session_when_asked_and_leaves_a_big_one() {
    let (Some(dir), Some(model)) = (corpus("claude-code"), brain_tests::model_dir()) else {
        return;
    };
    let transcript = dir.join("daaain-claude-code-log/representative_messages.jsonl");
    let payload = format!(
        r#"{{"session_id":"s","transcript_path":{},"cwd":"/tmp","hook_event_name":"Stop","stop_hook_active":false}}"#,
        serde_json::to_string(&transcript.display().to_string()).expect("json")
    );
    let spec = format!("local:{}", model.display());
    for (cap, embedded) in [("1", false), ("48", true)] {
        let t = tempfile::tempdir().expect("tempdir");
        let home = t.path().join("home");
        let env = [
            ("BRAIN_HOOK_EMBED", "1"),
            ("BRAIN_HOOK_EMBED_MAX_CHUNKS", cap),
            ("BRAIN_EMBEDDER", spec.as_str()),
        ];
        let out = stop_hook(&home, &bin("brain"), &payload, &env);
        assert_eq!(out.status.code(), Some(0));
        assert!(out.stdout.is_empty());
        let manifest = home.join("index/vec/manifest.json");
        assert_eq!(manifest.is_file(), embedded, "cap {cap}");
        let log = std::fs::read_to_string(home.join("logs/hook.log")).unwrap_or_default();
        if embedded {
            let store = brain_vec::store::Store::open(&home.join("index/vec")).expect("store");
            assert_eq!(store.docs.len(), 1);
            assert!(store.len() >= 2, "{} chunks", store.len());
            let lex = run(
                command("brain", &home).env("BRAIN_EMBEDDER", &spec).args([
                    "ask",
                    "--mode",
                    "hybrid",
                    "--json",
                    "python decorators",
                ]),
                b"",
            );
            assert_eq!(
                lex.status.code(),
                Some(0),
                "{}",
                String::from_utf8_lossy(&lex.stderr)
            );
        } else {
            assert!(log.contains("\"over_cap\""), "{log}");
        }
        let leftovers: Vec<_> = std::fs::read_dir(home.join("logs"))
            .expect("logs")
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().starts_with(".hook-docs"))
            .collect();
        assert!(leftovers.is_empty(), "{leftovers:?}");
    }
}
