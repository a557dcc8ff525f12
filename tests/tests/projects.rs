//! One project wherever its sessions ran (issue 57): a real git repository with a worktree inside
//! its folder, one beside it and a subfolder, a Claude Code session in each. Every session is the
//! repository's project (`cwd` keeps where it ran); a briefing and `--project` from any of those
//! folders find all four; a folder in no repository is its own project, never a parent's (issue
//! 59: a new folder was briefed as `/tmp`); a transcript from another machine in Claude Code's
//! worktree layout is its repository's.

use std::path::{Path, PathBuf};
use std::process::Command;

use brain_tests::{command, parse_lines, run, run_ok};
use serde_json::{Value, json};

const NOW: &str = "2026-11-26T12:00:00Z";

/// A Claude Code transcript of one exchange in `cwd` about `words`.
fn session(dir: &Path, n: usize, cwd: &str, words: &str) {
    let id = format!("00000000-0000-4000-8000-{n:012}");
    let at = format!("2026-11-2{n}T10:00:00.000Z");
    let line = |uuid: &str, parent: Value, kind: &str, content: &str| {
        json!({"parentUuid": parent, "isSidechain": false, "userType": "external", "cwd": cwd,
            "sessionId": id, "version": "2.1.3", "gitBranch": "main", "uuid": uuid,
            "timestamp": at, "type": kind, "message": {"role": kind, "content": content}})
        .to_string()
    };
    let text = [
        line(
            "u1",
            Value::Null,
            "user",
            &format!("fix the {words} in the ledger"),
        ),
        line(
            "a1",
            json!("u1"),
            "assistant",
            &format!("The {words} is fixed."),
        ),
    ]
    .join("\n");
    std::fs::write(dir.join(format!("{id}.jsonl")), text + "\n").expect("transcript");
}

fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .current_dir(dir)
        .args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "-c",
            "init.defaultBranch=main",
        ])
        .args(args)
        .output()
        .expect("git");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The ids of the documents `brain ask --project P` lists for the sessions' shared word.
fn asked(h: &Path, project: &str) -> Vec<String> {
    let out = run_ok(
        command("brain", h).args([
            "ask",
            "--json",
            "--mode",
            "lex",
            "--project",
            project,
            "ledger",
        ]),
        b"",
    );
    let v: Value = serde_json::from_slice(&out.stdout).expect("ask json");
    let mut ids: Vec<String> = v["hits"]
        .as_array()
        .expect("hits")
        .iter()
        .filter_map(|h| h["session_id"].as_str().map(str::to_string))
        .collect();
    ids.sort();
    ids.dedup();
    ids
}

/// The briefing for `project`: the `task` it names, and its text. Exit 67 (nothing in memory for
/// that project) is an answer too.
fn briefed(h: &Path, project: &Path) -> (String, String) {
    let out = run(
        command("brain", h)
            .env("BRAIN_NOW", NOW)
            .args(["brief", "--project"])
            .arg(project),
        b"",
    );
    assert!(
        matches!(out.status.code(), Some(0 | 67)),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let task = text
        .split("task=\"")
        .nth(1)
        .and_then(|t| t.split('"').next())
        .unwrap_or_default()
        .to_string();
    assert!(!task.is_empty(), "{text}");
    (task, text)
}

#[test]
fn worktrees_and_subfolders_of_one_repository_are_one_project_with_its_rules() {
    let t = tempfile::tempdir().expect("tempdir");
    let work = t.path().join("work");
    let app = work.join("app");
    std::fs::create_dir_all(app.join("crates/core")).expect("app");
    git(&app, &["init", "-q"]);
    std::fs::write(app.join("README"), "app\n").expect("readme");
    // The project's rules, committed (every checkout has them), with a secret planted.
    std::fs::write(
        app.join("AGENTS.md"),
        "Run cargo test before a commit.\nThe staging password=Hunter.Two is for CI only.\n",
    )
    .expect("agents");
    git(&app, &["add", "README", "AGENTS.md"]);
    git(&app, &["commit", "-q", "-m", "first"]);
    git(
        &app,
        &["worktree", "add", "-q", "-b", "fix", ".worktrees/fix"],
    );
    git(
        &app,
        &["worktree", "add", "-q", "-b", "side", "../app-side"],
    );
    let plain = work.join("plain");
    std::fs::create_dir_all(plain.join("new")).expect("plain");

    let transcripts = t.path().join("transcripts");
    std::fs::create_dir_all(&transcripts).expect("transcripts");
    let ran: Vec<PathBuf> = vec![
        app.clone(),
        app.join("crates/core"),
        app.join(".worktrees/fix"),
        work.join("app-side"),
    ];
    let topics = [
        "rounding error",
        "currency parser",
        "tax table",
        "audit trail",
    ];
    for (n, (cwd, topic)) in ran.iter().zip(topics).enumerate() {
        session(&transcripts, n + 1, &cwd.display().to_string(), topic);
    }
    session(
        &transcripts,
        5,
        &plain.display().to_string(),
        "weekly report",
    );
    session(
        &transcripts,
        6,
        "/elsewhere/web/.claude/worktrees/agent-a4",
        "cache key",
    );
    session(&transcripts, 7, "/elsewhere/web", "session cookie");

    let h = t.path().join("home");
    let converted = run_ok(command("jsonl2md", &h).arg(&transcripts), b"");
    let docs: Vec<brain_doc::Doc> = parse_lines(&converted.stdout);
    assert_eq!(docs.len(), 7);
    let meta = |n: usize, field: &str| -> Option<String> {
        let id = format!("{n:012}");
        let d = docs
            .iter()
            .find(|d| {
                d.meta
                    .get("session_id")
                    .and_then(Value::as_str)
                    .is_some_and(|s| s.ends_with(&id))
            })
            .unwrap_or_else(|| panic!("session {n}"));
        d.meta
            .get(field)
            .and_then(Value::as_str)
            .map(str::to_string)
    };
    let shown = app.display().to_string();
    for (n, cwd) in ran.iter().enumerate() {
        assert_eq!(
            meta(n + 1, "project").as_deref(),
            Some(shown.as_str()),
            "{cwd:?}"
        );
        let kept = (n > 0).then(|| cwd.display().to_string());
        assert_eq!(meta(n + 1, "cwd"), kept, "where it ran is kept: {cwd:?}");
    }
    assert_eq!(meta(5, "project"), Some(plain.display().to_string()));
    assert_eq!(meta(6, "project").as_deref(), Some("/elsewhere/web"));
    assert_eq!(
        meta(6, "cwd").as_deref(),
        Some("/elsewhere/web/.claude/worktrees/agent-a4")
    );

    run_ok(&mut command("partition", &h), &converted.stdout);
    run_ok(command("lexindex", &h).args(["--all", "--quiet"]), b"");

    // From the repository, a subfolder, either worktree or by name: the four sessions.
    let mut four: Vec<String> = docs
        .iter()
        .filter(|d| d.meta.get("project").and_then(Value::as_str) == Some(shown.as_str()))
        .filter_map(|d| d.meta.get("session_id").and_then(Value::as_str))
        .map(str::to_string)
        .collect();
    assert_eq!(four.len(), 4);
    four.sort();
    for from in [
        app.clone(),
        app.join("crates"),
        app.join(".worktrees/fix"),
        work.join("app-side"),
    ] {
        assert_eq!(
            asked(&h, &from.display().to_string()),
            four,
            "--project {from:?}"
        );
        let (task, text) = briefed(&h, &from);
        assert_eq!(task, format!("briefing: project {shown}"), "{from:?}");
        // The sessions of both worktrees are the project's.
        assert!(
            text.contains("tax table") && text.contains("audit trail"),
            "{text}"
        );
    }
    assert_eq!(asked(&h, "app"), four, "--project app");

    // The rules files of the checkout the agent runs in: the worktree's own CLAUDE.md, the
    // committed AGENTS.md; fenced, the secret redacted; the file the agent loads itself left out.
    std::fs::write(
        app.join(".worktrees/fix/CLAUDE.md"),
        "In this worktree, touch the rounding code only.\n",
    )
    .expect("claude.md");
    let (_, text) = briefed(&h, &app.join(".worktrees/fix"));
    assert!(
        text.contains("AGENTS.md (this project's rules)")
            && text.contains("Run cargo test before a commit")
            && text.contains("touch the rounding code only"),
        "{text}"
    );
    assert!(text.contains("<untrusted"), "{text}");
    assert!(
        !text.contains("Hunter.Two"),
        "a secret in a rules file: {text}"
    );
    let (_, root) = briefed(&h, &app);
    assert!(
        !root.contains("touch the rounding code only"),
        "another checkout's rules: {root}"
    );
    let hook = run(
        command("brain", &h)
            .env("BRAIN_NOW", NOW)
            .args(["hook", "run", "session-start"]),
        json!({"session_id": "s", "cwd": app.join(".worktrees/fix"), "source": "startup",
            "hook_event_name": "SessionStart",
            "transcript_path": h.join(".claude/projects/x/s.jsonl")})
        .to_string()
        .as_bytes(),
    );
    let said = String::from_utf8_lossy(&hook.stdout);
    assert!(
        said.contains("Run cargo test before a commit") && !said.contains("rounding code only"),
        "Claude Code loads CLAUDE.md itself: {said}"
    );

    // A new folder in no repository is itself, not the parent the index knows.
    let fresh = plain.join("new");
    let (task, text) = briefed(&h, &fresh);
    assert_eq!(task, format!("briefing: project {}", fresh.display()));
    assert!(
        !text.contains("weekly report"),
        "the parent's session: {text}"
    );
    let (task, text) = briefed(&h, &plain);
    assert_eq!(task, format!("briefing: project {}", plain.display()));
    assert!(text.contains("weekly report"), "{text}");
    // Doctor lists the project with its three folders.
    let check = brain_tests::doctor_check(&h, "projects");
    assert_eq!(check["outcome"], "pass", "{check}");
    let side = work.join("app-side").display().to_string();
    let fix = app.join(".worktrees/fix").display().to_string();
    assert_eq!(
        check["details"],
        json!([format!("{shown}: {shown}, {fix}, {side}")]),
        "{check}"
    );
    // Another machine's worktree layout: one project.
    assert_eq!(asked(&h, "/elsewhere/web").len(), 2);

    // Merged by the user in brain.yaml: the plain folder's session is the repository's too, and
    // a name of one's own names the other project.
    let mut cfg = brain_store::Config::defaults(&brain_store::Home::at(&h));
    cfg.projects = Some(brain_store::ProjectsSection {
        merge: [
            (plain.display().to_string(), shown.clone()),
            ("/elsewhere/web".to_string(), "storefront".to_string()),
        ]
        .into(),
    });
    cfg.save().expect("brain.yaml");
    assert_eq!(
        asked(&h, &shown).len(),
        5,
        "the merged folder's session joins"
    );
    assert_eq!(asked(&h, "storefront").len(), 2, "a rename");
    let check = brain_tests::doctor_check(&h, "projects");
    let listed = |prefix: &str| {
        check["details"].as_array().is_some_and(|d| {
            d.iter()
                .any(|l| l.as_str().is_some_and(|l| l.starts_with(prefix)))
        })
    };
    assert!(listed("storefront: /elsewhere/web"), "{check}");
    // A merge into itself: the section is not used, and doctor's config check says why.
    let yaml = std::fs::read_to_string(h.join("brain.yaml")).expect("brain.yaml");
    let (head, _) = yaml.split_once("projects:").expect("the section");
    std::fs::write(
        h.join("brain.yaml"),
        format!("{head}projects:\n  merge:\n    {shown}: {shown}\n"),
    )
    .expect("brain.yaml");
    let check = brain_tests::doctor_check(&h, "config");
    assert_eq!(check["outcome"], "fail", "{check}");
    assert!(check.to_string().contains("projects.merge"), "{check}");
    assert_eq!(asked(&h, &shown).len(), 4, "the merges are not used");
}
