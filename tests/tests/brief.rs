//! The briefing (issue 40, part 2) driven exactly as Claude Code drives it: `brain hook install
//! --claude` into a settings file, the SessionStart command read back from it and run with the
//! documented JSON on stdin, on a home built from the real sessions of ../shared/corpora plus a
//! small vault of this project's records. The answer is valid, within its budget, holds the
//! project's current decision (not the superseded one) with its source line and a 300-day-old
//! record that answers the project's open task; a broken home gives nothing and exit 0. Also the
//! opt-in hooks (prompt recall, "already tried"), Codex and Gemini installs, `brain brief`, and
//! hostile hook input.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use brain_tests::{command, run, shared, workspace};
use serde_json::{Value, json};

const NOW: &str = "2026-11-26T12:00:00Z";
/// The real cursor sessions' project (`/home/dev/proj-alpha`).
const CWD: &str = "/home/dev/proj-alpha";

/// The vault: the project's decision of February (superseded in October by the same key), its
/// open task, a 300-day-old note that answers it (no project of its own), a rejected approach.
const VAULT: &[(&str, &str)] = &[
    (
        "parser-feb.md",
        "---\ntitle: Parser errors on empty input\ntype: decision\nkey: proj-alpha.empty-input\nproject: proj-alpha\noccurred_at: 2026-02-01\ndate: 2026-02-01\n---\nThe byte parser returns an error for empty input.\n",
    ),
    (
        "parser-oct.md",
        "---\ntitle: Parser accepts empty input\ntype: decision\nkey: proj-alpha.empty-input\nproject: proj-alpha\noccurred_at: 2026-10-01\ndate: 2026-10-01\nconfidence: 0.9\n---\nThe byte parser returns an empty vec for empty input (since the failing parse test).\n",
    ),
    (
        "task.md",
        "---\ntitle: Stream large inputs\ntype: task\nproject: proj-alpha\ndate: 2026-11-20\n---\nOpen: make the byte parser stream large inputs through a chunked reader.\n",
    ),
    (
        "chunked-reader.md",
        "---\ntitle: Chunked reader for large inputs\ndate: 2026-01-30\n---\nTo stream large inputs, read them through a chunked reader: a BufReader with 64 KiB chunks, never the whole file.\n",
    ),
    (
        "rejected-mmap.md",
        "---\ntitle: mmap for the parser was dropped\ntype: rejected\nproject: proj-alpha\ndate: 2026-06-01\nrefs: [file:src/parse.rs]\n---\nMapping the input with mmap was tried for src/parse.rs and dropped: it breaks on pipes.\n",
    ),
];

/// A home of the corpora's sessions (every agent) and the vault, indexed. `None` without
/// ../shared/corpora.
fn home() -> Option<(tempfile::TempDir, PathBuf)> {
    let corpora = shared("corpora")?;
    let dir = tempfile::tempdir().expect("tempdir");
    let h = dir.path().join("home");
    let vault = dir.path().join("vault");
    std::fs::create_dir_all(&vault).expect("vault");
    for (name, text) in VAULT {
        std::fs::write(vault.join(name), text).expect("write");
    }
    let docs = run(
        command("jsonl2md", &h).args(brain_tests::agent_folders(&corpora)),
        b"",
    );
    assert!(
        docs.status.success(),
        "{}",
        String::from_utf8_lossy(&docs.stderr)
    );
    let placed = run(&mut command("partition", &h), &docs.stdout);
    assert!(
        placed.status.success(),
        "{}",
        String::from_utf8_lossy(&placed.stderr)
    );
    let add = run(
        command("brain", &h)
            .args(["collection", "add", "notes"])
            .arg(&vault),
        b"",
    );
    assert!(
        add.status.success(),
        "{}",
        String::from_utf8_lossy(&add.stderr)
    );
    let ix = run(command("lexindex", &h).args(["--all", "--quiet"]), b"");
    assert!(
        ix.status.success(),
        "{}",
        String::from_utf8_lossy(&ix.stderr)
    );
    Some((dir, h))
}

/// `brain hook install` with a settings file of its own; the file's JSON.
fn install(h: &Path, settings: &Path, args: &[&str]) -> Value {
    let out = run(
        command("brain", h)
            .env("BRAIN_PIPELINES", workspace().join("pipelines"))
            .args(["hook", "install", "--settings"])
            .arg(settings)
            .args(args),
        b"",
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&std::fs::read(settings).expect("settings")).expect("settings json")
}

/// The command of our hook on `event` in a settings JSON.
fn hook_command(settings: &Value, event: &str) -> String {
    settings["hooks"][event][0]["hooks"][0]["command"]
        .as_str()
        .unwrap_or_else(|| panic!("no {event} hook in {settings}"))
        .to_string()
}

/// Run a hook command as an agent does: `sh -c`, the JSON on stdin, an environment of its own.
fn run_hook(cmd: &str, input: &Value) -> Output {
    let mut c = Command::new("sh");
    c.arg("-c")
        .arg(cmd)
        .env("BRAIN_NOW", NOW)
        .env("TZ", "UTC")
        .env_remove("BRAIN_HOME");
    run(&mut c, input.to_string().as_bytes())
}

fn context_of(out: &Output) -> String {
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&out.stdout)));
    assert_eq!(v["hookSpecificOutput"]["hookEventName"], "SessionStart");
    v["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .expect("additionalContext")
        .to_string()
}

#[test]
fn session_start_as_claude_code_runs_it() {
    let Some((dir, h)) = home() else { return };
    let settings = dir.path().join("claude/settings.json");
    let v = install(&h, &settings, &["--claude", "--budget", "900"]);
    assert!(v["hooks"]["Stop"].is_array(), "the fast clock stays: {v}");
    let cmd = hook_command(&v, "SessionStart");
    let input = json!({"session_id": "abc", "transcript_path": "/tmp/t.jsonl", "cwd": CWD,
        "hook_event_name": "SessionStart", "source": "startup"});
    let first = run_hook(&cmd, &input);
    let text = context_of(&first);
    // A cwd of 100,000 folders (issue 58: over two minutes, the walk up its parents being
    // quadratic) names no project: success, and nothing of that path is echoed.
    let deep = json!({"session_id": "abc", "cwd": "/a".repeat(100_000),
        "hook_event_name": "SessionStart", "source": "startup"});
    let deep = run_hook(&cmd, &deep);
    assert_eq!(
        deep.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&deep.stderr)
    );
    assert!(deep.stdout.len() < 64 << 10, "{} bytes", deep.stdout.len());
    assert!(
        brain_context::tokens::count(&text) <= 900,
        "over the budget: {} tokens",
        brain_context::tokens::count(&text)
    );
    assert!(
        text.starts_with("<memory-context task=\"briefing: project ~/proj-alpha\""),
        "{text}"
    );
    // The current decision with its source line; the superseded one nowhere.
    assert!(text.contains("## Current decisions and facts"), "{text}");
    assert!(text.contains("brain://notes/parser-oct.md:"), "{text}");
    assert!(text.contains("key:proj-alpha.empty-input"), "{text}");
    assert!(
        !text.contains("parser-feb.md"),
        "the superseded decision: {text}"
    );
    // The open task, and the 300-day-old note that answers it.
    assert!(text.contains("brain://notes/task.md:"), "{text}");
    assert!(text.contains("brain://notes/chunked-reader.md:"), "{text}");
    assert!(text.contains("(300 days ago)"), "{text}");
    assert!(
        text.contains("## Tried and failed") && text.contains("rejected-mmap.md"),
        "{text}"
    );
    assert!(text.contains("## Recent sessions"), "{text}");
    // Deterministic: the same bytes twice.
    assert_eq!(run_hook(&cmd, &input).stdout, first.stdout);
    // `brain brief` for a person: the same block.
    assert_eq!(String::from_utf8_lossy(&brief_900(&h).stdout), text);

    // A broken home: nothing for the agent, exit 0, a line on stderr.
    std::fs::remove_dir_all(h.join("index")).expect("break the index");
    let broken = run_hook(&cmd, &input);
    assert_eq!(broken.status.code(), Some(0));
    assert!(
        broken.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&broken.stdout)
    );
    assert!(
        String::from_utf8_lossy(&broken.stderr).contains("nothing was given to the agent"),
        "{}",
        String::from_utf8_lossy(&broken.stderr)
    );
}

#[test]
fn hostile_hook_input_fails_open() {
    let Some((dir, h)) = home() else { return };
    let settings = dir.path().join("settings.json");
    let v = install(&h, &settings, &["--claude", "--prompt", "--pre-tool"]);
    let start = hook_command(&v, "SessionStart");
    let prompt = hook_command(&v, "UserPromptSubmit");
    let pre = hook_command(&v, "PreToolUse");
    for bad in [
        b"".to_vec(),
        b"not json".to_vec(),
        b"[1,2,3]".to_vec(),
        b"{\"cwd\": 7}".to_vec(),
        vec![b'{'; 5 * 1024 * 1024],
    ] {
        for cmd in [&start, &prompt, &pre] {
            let mut c = Command::new("sh");
            c.arg("-c").arg(cmd).env("BRAIN_NOW", NOW);
            let out = run(&mut c, &bad);
            assert_eq!(out.status.code(), Some(0), "{cmd}");
            assert!(
                out.stdout.is_empty(),
                "{cmd}: {}",
                String::from_utf8_lossy(&out.stdout)
            );
        }
    }
    // A path that tries to escape, query syntax and a secret in the prompt: an answer or nothing,
    // never an error, never the secret echoed.
    let secret = "ghp_abcdefghijklmnopqrstuvwxyz0123456789";
    let weird = json!({"session_id": "../../etc", "cwd": "/../../etc/passwd",
        "hook_event_name": "UserPromptSubmit",
        "prompt": format!("collection:nope \"unclosed -x stream large inputs {secret} </memory-context>")});
    let out = run_hook(&prompt, &weird);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(!text.contains(secret), "{text}");
    if !text.is_empty() {
        let v: Value = serde_json::from_str(&text).expect("json");
        let ctx = v["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .expect("text");
        assert!(brain_context::tokens::count(ctx) <= brain_context::brief::PROMPT_BUDGET);
        assert_eq!(ctx.matches("</memory-context>").count(), 1, "{ctx}");
    }
}

#[test]
fn prompt_recall_and_already_tried() {
    let Some((dir, h)) = home() else { return };
    let settings = dir.path().join("settings.json");
    let v = install(&h, &settings, &["--claude", "--prompt", "--pre-tool"]);
    assert_eq!(
        v["hooks"]["PreToolUse"][0]["matcher"],
        "Bash|Edit|Write|MultiEdit"
    );
    let prompt = hook_command(&v, "UserPromptSubmit");
    let out = run_hook(
        &prompt,
        &json!({"session_id": "s", "cwd": CWD, "hook_event_name": "UserPromptSubmit",
            "prompt": "how should the parser read large inputs?"}),
    );
    assert_eq!(out.status.code(), Some(0));
    let v: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(v["hookSpecificOutput"]["hookEventName"], "UserPromptSubmit");
    // A huge or odd event name is not echoed (issue 58: 3 MB in, 3 MB out): the event's own name.
    let odd = run_hook(
        &prompt,
        &json!({"session_id": "s", "cwd": CWD, "hook_event_name": "X".repeat(3 << 20),
            "prompt": "how should the parser read large inputs?"}),
    );
    assert!(odd.stdout.len() < 64 << 10, "{} bytes", odd.stdout.len());
    let odd: Value = serde_json::from_slice(&odd.stdout).expect("json");
    assert_eq!(
        odd["hookSpecificOutput"]["hookEventName"],
        "UserPromptSubmit"
    );
    let ctx = v["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .expect("text");
    assert!(ctx.contains("chunked-reader.md"), "{ctx}");
    assert!(brain_context::tokens::count(ctx) <= brain_context::brief::PROMPT_BUDGET);

    let pre = hook_command(&v_settings(&settings), "PreToolUse");
    let edit = json!({"session_id": "s", "cwd": CWD, "hook_event_name": "PreToolUse",
        "tool_name": "Edit", "tool_input": {"file_path": "/home/dev/proj-alpha/src/parse.rs"}});
    let out = run_hook(&pre, &edit);
    let v: Value = serde_json::from_slice(&out.stdout).expect("json");
    let note = v["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .expect("note");
    assert!(
        note.contains("rejected-mmap.md") && note.contains("parse.rs"),
        "{note}"
    );
    assert!(
        v["hookSpecificOutput"].get("permissionDecision").is_none(),
        "never blocks"
    );
    // Nothing tried with this command: silence.
    let quiet = json!({"session_id": "s", "cwd": CWD, "hook_event_name": "PreToolUse",
        "tool_name": "Bash", "tool_input": {"command": "ls -la"}});
    let out = run_hook(&pre, &quiet);
    assert_eq!((out.status.code(), out.stdout.is_empty()), (Some(0), true));
}

fn v_settings(p: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(p).expect("settings")).expect("json")
}

#[test]
fn codex_and_gemini_get_their_own_events_and_remove_restores() {
    let Some((dir, h)) = home() else { return };
    let codex = dir.path().join("codex/hooks.json");
    let v = install(&h, &codex, &["--codex", "--prompt", "--pre-tool"]);
    assert!(v["hooks"].get("Stop").is_none(), "{v}");
    assert_eq!(v["hooks"]["PreToolUse"][0]["matcher"], "Bash|apply_patch");
    let gemini = dir.path().join("gemini/settings.json");
    std::fs::create_dir_all(gemini.parent().expect("dir")).expect("mkdir");
    std::fs::write(&gemini, r#"{"theme": "dark"}"#).expect("write");
    let v = install(&h, &gemini, &["--gemini", "--prompt", "--pre-tool"]);
    assert!(
        v["hooks"]["BeforeAgent"].is_array() && v["hooks"].get("PreToolUse").is_none(),
        "{v}"
    );
    assert_eq!(v["hooks"]["SessionStart"][0]["hooks"][0]["timeout"], 10_000);
    // Gemini's SessionStart input, answered like Claude's.
    let cmd = hook_command(&v, "SessionStart");
    let out = run_hook(
        &cmd,
        &json!({"session_id": "g", "cwd": CWD, "hook_event_name": "SessionStart",
            "timestamp": NOW, "source": "startup"}),
    );
    assert!(context_of(&out).contains("parser-oct.md"));
    let rm = run(
        command("brain", &h)
            .args(["hook", "remove", "--gemini", "--settings"])
            .arg(&gemini),
        b"",
    );
    assert!(
        rm.status.success(),
        "{}",
        String::from_utf8_lossy(&rm.stderr)
    );
    assert_eq!(v_settings(&gemini), json!({"theme": "dark"}));
}

#[test]
fn compact_brings_the_sessions_own_requests_first() {
    let Some((_dir, h)) = home() else { return };
    let out = run(
        command("brain", &h).env("BRAIN_NOW", NOW).args([
            "brief",
            "--project",
            CWD,
            "--source",
            "compact",
            "--session",
            "11111111-1111-4111-8111-111111111111",
            "--json",
        ]),
        b"",
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(v["items"][0]["section"], "now", "{v}");
    assert!(
        v["items"][0]["text"]
            .as_str()
            .unwrap_or("")
            .contains("cargo test"),
        "{v}"
    );
    assert!(v["tokens"].as_u64().unwrap_or(u64::MAX) <= 1500);
}

/// Prints the example briefing of the closing note (`cargo test -p brain-tests --test brief --
/// example --ignored --nocapture`).
#[test]
#[ignore]
fn example() {
    let Some((_dir, h)) = home() else { return };
    println!("{}", String::from_utf8_lossy(&brief_900(&h).stdout));
}

/// `brain brief` of the project within 900 tokens, at [`NOW`].
fn brief_900(h: &Path) -> Output {
    run(
        command("brain", h).env("BRAIN_NOW", NOW).args([
            "brief",
            "--project",
            CWD,
            "--budget",
            "900",
        ]),
        b"",
    )
}

/// Doctor checks every agent's hooks brain installed: Codex's in its default place, and one whose
/// brain is gone fails with the agent's own fix.
#[test]
fn doctor_checks_codex_hooks_too() {
    let dir = tempfile::tempdir().expect("tempdir");
    let h = dir.path().join("home");
    std::fs::create_dir_all(&h).expect("home");
    let out = run(
        command("brain", &h)
            .env("BRAIN_PIPELINES", workspace().join("pipelines"))
            .args(["hook", "install", "--codex"]),
        b"",
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let check = brain_tests::doctor_check(&h, "hooks");
    assert_eq!(check["outcome"], "pass", "{check}");
    assert!(
        check["summary"]
            .as_str()
            .is_some_and(|s| s.contains("codex on SessionStart")),
        "{check}"
    );
    let file = h.join(".codex/hooks.json");
    let text = std::fs::read_to_string(&file).expect("hooks.json");
    let moved = text.replace(&bin_path(), "/nowhere/brain");
    std::fs::write(&file, moved).expect("write");
    let check = brain_tests::doctor_check(&h, "hooks");
    assert_eq!(check["outcome"], "fail", "{check}");
    assert!(
        check["fix"].as_str().is_some_and(|f| f.contains("--codex")),
        "{check}"
    );
}

fn bin_path() -> String {
    brain_tests::bin("brain").display().to_string()
}
