//! `distill-prompt` golden cases, and `brain distill` end to end with deterministic stand-in LLM
//! commands (`tests/fixtures/distill/`): a valid answer, a malformed one, a rate-limited first call,
//! a hang.

use std::path::{Path, PathBuf};

use brain_doc::{Doc, Source};
use brain_tests::{command, golden, parse_lines, run, workspace};
use serde::Deserialize;

const SID: &str = "02b3c2d7-22e2-4f22-b270-bb14c60e1c87";

#[test]
fn golden_cases() {
    golden("distill-prompt", "distill-prompt", |_| {});
}

#[derive(Debug, Deserialize)]
struct PromptRecord {
    id: String,
    session_id: String,
    prompt_version: String,
    prompt: String,
    cut: Option<Cut>,
}

#[derive(Debug, Deserialize)]
struct Cut {
    chars_before: usize,
    chars_after: usize,
    lines_dropped: usize,
}

#[test]
fn the_long_session_is_cut_to_the_budget_keeping_its_late_decision() {
    let stdin =
        std::fs::read(workspace().join("golden/distill-prompt/long-session/stdin")).expect("stdin");
    let home = tempfile::tempdir().expect("tempdir");
    let out = run(
        command("distill-prompt", home.path()).args(["--budget", "4000"]),
        &stdin,
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let recs: Vec<PromptRecord> = parse_lines(&out.stdout);
    assert_eq!(recs.len(), 1);
    let r = &recs[0];
    assert_eq!(
        (r.id.as_str(), r.session_id.as_str()),
        ("5f0e1c2a-long", "5f0e1c2a-long")
    );
    let cut = r.cut.as_ref().expect("cut recorded");
    assert!(
        cut.chars_after <= 4000 && cut.chars_before > 4000 && cut.lines_dropped > 0,
        "{cut:?}"
    );
    assert!(
        r.prompt.contains("**User**: step 39:"),
        "the last user turn is kept"
    );
    assert!(
        r.prompt.contains("keep the hand-written lexer"),
        "a late decision is kept"
    );
    assert!(
        r.prompt.contains("- Bash: cargo test -p parser case_9"),
        "tool lines are kept"
    );
    assert!(r.prompt_version.starts_with("v1-"));
}

/// A brain home holding one partitioned session and a queue naming it.
fn home_with_session() -> tempfile::TempDir {
    let home = tempfile::tempdir().expect("tempdir");
    let mut doc = Doc::new(
        format!("brain/2026/04/{SID}.md"),
        "Diagnose the gemini startup delay",
        "2026-04-02T10:00:00.000Z",
        Source {
            kind: "session".into(),
            agent: Some("claude".into()),
            file: "~/x.jsonl".into(),
            lines: None,
            sha256: None,
            parts: vec![],
        },
    );
    doc.collection = Some("brain".into());
    doc.path = format!("2026/04/{SID}.md");
    doc.meta.insert("session_id".into(), SID.into());
    doc.meta
        .insert("project".into(), "~/Projects/travel-agent".into());
    doc.body = "## Conversation\n\n**User**: why is `gemini -yolo` slow to start?\n\n**Assistant**: The IDE integration times out.\n".into();
    let file = home.path().join("corpus/brain").join(&doc.path);
    std::fs::create_dir_all(file.parent().expect("parent")).expect("mkdir");
    std::fs::write(&file, doc.to_markdown()).expect("session");
    std::fs::write(queue(home.path()), format!("{SID}\n")).expect("queue");
    home
}

fn queue(home: &Path) -> PathBuf {
    home.join("pending_distill.txt")
}

fn artifact(home: &Path) -> PathBuf {
    home.join(format!("corpus/distilled/2026/04/{SID}.md"))
}

fn fixture(name: &str) -> String {
    format!(
        "sh {}",
        workspace()
            .join("tests/fixtures/distill")
            .join(name)
            .display()
    )
}

fn distill(home: &Path, args: &[&str]) -> std::process::Output {
    run(command("brain", home).arg("distill").args(args), b"")
}

#[test]
fn a_valid_answer_is_written_stamped_indexed_and_dequeued_and_a_new_template_makes_it_stale() {
    let home = home_with_session();
    let out = distill(
        home.path(),
        &["--command", &fixture("good.sh"), "--label", "stand-in"],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("1 done / 0 failed / 0 skipped; 1 indexed"),
        "{stderr}"
    );
    let printed: Vec<Doc> = parse_lines(&out.stdout);
    assert_eq!(printed.len(), 1);
    let text = std::fs::read_to_string(artifact(home.path())).expect("artifact written");
    let doc = Doc::from_markdown(&text).expect("artifact parses");
    assert_eq!(doc, printed[0]);
    assert_eq!(doc.id, format!("distilled/2026/04/{SID}.md"));
    assert_eq!(doc.source.kind, "distilled");
    assert_eq!(doc.title, "Diagnose the startup delay of `gemini -yolo`.");
    assert_eq!(doc.meta["session_id"], SID);
    assert_eq!(doc.meta["distilled"], true);
    assert_eq!(doc.meta["distilled_by"], "stand-in");
    assert_eq!(doc.meta["confidence"], "High");
    let version = doc.meta["prompt_version"]
        .as_str()
        .expect("prompt_version")
        .to_string();
    assert!(version.starts_with("v1-"), "{version}");
    assert!(doc.body.starts_with("## Goal\n") && doc.body.contains("## Tags\n"));
    assert_eq!(
        std::fs::read_to_string(queue(home.path())).expect("queue"),
        "",
        "dequeued"
    );

    let dump = run(command("lexindex", home.path()).arg("--dump"), b"");
    let ids: Vec<serde_json::Value> = parse_lines(&dump.stdout);
    assert!(
        ids.iter().any(|p| p["id"] == doc.id.as_str()),
        "artifact indexed"
    );

    let again = distill(home.path(), &["--command", &fixture("good.sh")]);
    assert_eq!(again.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&again.stderr).contains("0 done / 0 failed / 0 skipped"));

    let tpl = home.path().join("t.txt");
    std::fs::write(&tpl, "session_id: {session_id}\n{session}").expect("template");
    let tpl = tpl.display().to_string();
    let list = distill(home.path(), &["--template", &tpl, "--list"]);
    assert_eq!(
        String::from_utf8_lossy(&list.stdout),
        format!("{SID}\n"),
        "stale artifact is pending"
    );
    let redo = distill(
        home.path(),
        &["--template", &tpl, "--command", &fixture("good.sh")],
    );
    assert_eq!(
        redo.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&redo.stderr)
    );
    let doc =
        Doc::from_markdown(&std::fs::read_to_string(artifact(home.path())).expect("artifact"))
            .expect("parse");
    assert_ne!(doc.meta["prompt_version"].as_str(), Some(version.as_str()));
}

#[test]
fn a_malformed_answer_writes_nothing_and_stays_queued() {
    let home = home_with_session();
    let out = distill(home.path(), &["--command", &fixture("malformed.sh")]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(64), "{stderr}");
    assert!(
        stderr.contains("invalid artifact: no YAML frontmatter"),
        "{stderr}"
    );
    assert!(
        stderr.contains("0 done / 1 failed / 0 skipped; 1 retried after an invalid answer"),
        "{stderr}"
    );
    // The run is logged, counts only.
    let usage = std::fs::read_to_string(home.path().join("logs/usage.jsonl")).expect("usage.jsonl");
    let row: serde_json::Value =
        serde_json::from_str(usage.lines().last().expect("a row")).expect("json row");
    assert_eq!(
        (
            row["event"].as_str(),
            row["surface"].as_str(),
            row["failed"].as_u64()
        ),
        (Some("distill"), Some("cli"), Some(1))
    );
    assert!(out.stdout.is_empty());
    assert!(!artifact(home.path()).exists());
    assert_eq!(
        std::fs::read_to_string(queue(home.path())).expect("queue"),
        format!("{SID}\n")
    );
}

#[test]
fn a_rate_limited_first_call_is_retried_after_the_backoff() {
    let home = home_with_session();
    let counter = home.path().join("calls");
    let cmd = format!("{} {}", fixture("ratelimit.sh"), counter.display());
    // Seed 004's spelling: `--cmd` and `--from-pending`.
    let out = distill(
        home.path(),
        &["--from-pending", "--cmd", &cmd, "--backoff", "10ms"],
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        std::fs::read_to_string(&counter)
            .expect("counter")
            .lines()
            .count(),
        2
    );
    assert!(artifact(home.path()).exists());
}

#[test]
fn an_invalid_answer_is_asked_for_once_more_before_it_counts_as_failed() {
    let home = home_with_session();
    let counter = home.path().join("calls");
    let cmd = format!("{} {}", fixture("flaky.sh"), counter.display());
    let out = distill(home.path(), &["--command", &cmd]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(
        std::fs::read_to_string(&counter)
            .expect("counter")
            .lines()
            .count(),
        2
    );
    assert!(
        stderr.contains("1 done / 0 failed / 0 skipped; 1 retried after an invalid answer"),
        "{stderr}"
    );
    assert!(artifact(home.path()).exists());
}

#[test]
fn a_hanging_command_is_killed_at_the_timeout_and_the_session_stays_queued() {
    let home = home_with_session();
    let out = distill(
        home.path(),
        &["--command", &fixture("hang.sh"), "--timeout", "1s"],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(66), "{stderr}");
    assert!(
        stderr.contains("did not finish within 1.0 s") && stderr.contains("(1 timed out)"),
        "{stderr}"
    );
    assert!(!artifact(home.path()).exists());
    assert_eq!(
        std::fs::read_to_string(queue(home.path())).expect("queue"),
        format!("{SID}\n")
    );
}

#[test]
fn no_command_is_a_usage_error() {
    let home = home_with_session();
    let out = run(
        command("brain", home.path())
            .arg("distill")
            .env_remove("BRAIN_DISTILL_COMMAND"),
        b"",
    );
    assert_eq!(out.status.code(), Some(64));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--command"));
}
