//! `brain extract` (issue 40, part 3): keyed records from distilled sessions, consolidated — the
//! deterministic path (an artifact's "Key Decisions" / "What Was Rejected", a session's failed
//! commands) and the model path with a stand-in LLM command (a script printing fixed JSON):
//! running twice writes the same files once; a later session that changes a decision supersedes
//! it and `--as-of` the earlier date answers the old one; a same-day contradiction is kept and
//! flagged; malformed, oversized, hostile and slow answers write nothing (or nothing unsafe).

use std::path::{Path, PathBuf};

use brain_tests::{command, doctor_check, parse_lines, run, tree};
use serde_json::Value;

const NOW: &str = "2026-11-26T12:00:00Z";

/// A distilled artifact of session `id` in project `~/work/api` on `day`, with these decisions.
fn artifact(id: &str, day: &str, decisions: &[&str], rejected: &[&str]) -> String {
    let list = |xs: &[&str]| xs.iter().map(|x| format!("- {x}\n")).collect::<String>();
    format!(
        "---\ntitle: Work on the api\ndate: {day}T10:00:00Z\nsession_id: {id}\nproject: ~/work/api\nconfidence: High\ndistilled: true\nprompt_version: v1-test\n---\n## Goal\nWork on the api.\n## What Happened\nThings happened.\n## Key Decisions\n{}## What Was Rejected\n{}## Technologies\nrust\n## Concepts\nx\n## Tags\ny\n",
        list(decisions),
        list(rejected)
    )
}

/// A home with the built-in collections; `artifacts` written into `distilled`, one session with
/// a failed command into `brain`.
fn home(artifacts: &[(&str, String)]) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let h = dir.path().join("home");
    let d = h.join("corpus/distilled/2026/01");
    std::fs::create_dir_all(&d).expect("mkdir");
    for (name, text) in artifacts {
        std::fs::write(d.join(name), text).expect("write");
    }
    let s = h.join("corpus/brain/2026/01");
    std::fs::create_dir_all(&s).expect("mkdir");
    std::fs::write(
        s.join("s-fail.md"),
        "---\ntitle: Run the tests\ndate: 2026-01-03T09:00:00Z\nsession_id: s-fail\nproject: ~/work/api\nagent: claude\n---\n## Conversation\n\n**User**: run the tests\n\n**Note**: Tool error (Bash: cargo test -p api --release):\n```text\nerror: linking with `cc` failed: exit status: 1\n```\n",
    )
    .expect("session");
    let ix = run(command("lexindex", &h).args(["--all", "--quiet"]), b"");
    assert!(
        ix.status.success(),
        "{}",
        String::from_utf8_lossy(&ix.stderr)
    );
    (dir, h)
}

fn extract(h: &Path, args: &[&str]) -> (std::process::Output, Vec<Value>) {
    let out = run(command("brain", h).arg("extract").args(args), b"");
    let lines = if out.stdout.is_empty() {
        Vec::new()
    } else {
        parse_lines(&out.stdout)
    };
    (out, lines)
}

fn decisions(lines: &[Value], which: &str) -> usize {
    lines.iter().filter(|l| l["decision"] == which).count()
}

fn records(h: &Path) -> PathBuf {
    h.join("corpus/distilled/records")
}

fn ask(h: &Path, args: &[&str]) -> Vec<brain_doc::Hit> {
    let out = run(
        command("brain", h)
            .env("BRAIN_NOW", NOW)
            .args(["ask", "--json", "--mode", "lex"])
            .args(args),
        b"",
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    serde_json::from_value(v["hits"].clone()).unwrap_or_default()
}

#[test]
fn deterministic_twice_is_once_then_a_later_session_supersedes() {
    let (_dir, h) = home(&[(
        "s1.md",
        artifact(
            "s1",
            "2026-01-02",
            &[
                "**db.engine**: SQLite for the registry",
                "Keep tantivy for the lexical index",
            ],
            &["A retry loop around the flaky test"],
        ),
    )]);
    let (out, first) = extract(&h, &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("deterministic path"), "{stderr}");
    assert_eq!(decisions(&first, "ADD"), 4, "{first:?}");
    let types: Vec<&str> = first.iter().filter_map(|l| l["type"].as_str()).collect();
    assert_eq!(
        types.iter().filter(|t| **t == "failed").count(),
        1,
        "{types:?}"
    );
    let before = tree(&records(&h));
    assert_eq!(before.len(), 4);
    // The same sessions again: nothing is read again (state/extract-sessions.json keeps what was
    // read, unchanged), not one byte changed; with --all every one is read, each record a NOOP.
    let (out, again) = extract(&h, &[]);
    assert!(out.status.success());
    assert!(again.is_empty(), "read again: {again:?}");
    let (out, all) = extract(&h, &["--all"]);
    assert!(out.status.success());
    assert_eq!(decisions(&all, "NOOP"), 4, "{all:?}");
    assert_eq!(tree(&records(&h)), before);

    // A later session changes the engine: SUPERSEDE; the old record stays, hidden.
    std::fs::write(
        h.join("corpus/distilled/2026/01/s2.md"),
        artifact(
            "s2",
            "2026-03-01",
            &["**db.engine**: Postgres replaces SQLite for the registry"],
            &[],
        ),
    )
    .expect("write");
    let (out, later) = extract(&h, &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let sup: Vec<&Value> = later
        .iter()
        .filter(|l| l["decision"] == "SUPERSEDE")
        .collect();
    assert_eq!(sup.len(), 1, "{later:?}");
    assert_eq!(sup[0]["key"], "api:db.engine");
    let now = ask(&h, &["registry", "type:decision"]);
    let titles: Vec<&str> = now.iter().map(|x| x.title.as_str()).collect();
    assert!(titles.iter().any(|t| t.contains("Postgres")), "{titles:?}");
    assert_eq!(
        titles.len(),
        1,
        "the superseded decision is hidden: {titles:?}"
    );
    let then = ask(&h, &["registry", "type:decision", "--as-of", "2026-02-01"]);
    let titles: Vec<&str> = then.iter().map(|x| x.title.as_str()).collect();
    assert!(
        titles.contains(&"db.engine: SQLite for the registry"),
        "{titles:?}"
    );
    assert!(!titles.iter().any(|t| t.contains("Postgres")), "{titles:?}");

    // Another session the same day says otherwise: CONFLICT, both kept, flagged.
    std::fs::write(
        h.join("corpus/distilled/2026/01/s3.md"),
        artifact(
            "s3",
            "2026-03-01",
            &["**db.engine**: MySQL for the registry after all"],
            &[],
        ),
    )
    .expect("write");
    let (_, conflict) = extract(&h, &[]);
    assert_eq!(decisions(&conflict, "CONFLICT"), 1, "{conflict:?}");
    let both = ask(&h, &["registry", "type:decision"]);
    assert_eq!(both.len(), 2, "{both:?}");
    let memory = doctor_check(&h, "memory");
    assert!(memory.to_string().contains("contradict"), "{memory}");
    let brief = run(
        command("brain", &h)
            .env("BRAIN_NOW", NOW)
            .args(["brief", "--project", "/home/x/work/api"]),
        b"",
    );
    let text = String::from_utf8_lossy(&brief.stdout);
    assert!(text.contains("## Open contradictions"), "{text}");
    assert!(
        text.contains("· contradicts distilled/records/api/db.engine/"),
        "{text}"
    );
    // `brain context` flags it too.
    let ctx = run(
        command("brain", &h)
            .env("BRAIN_NOW", NOW)
            .args(["context", "registry engine"]),
        b"",
    );
    let ctx = String::from_utf8_lossy(&ctx.stdout);
    assert!(ctx.contains("· contradicts distilled/records/"), "{ctx}");
    // Reversible: the SUPERSEDE record archived with `brain forget` is hidden, restored it is back;
    // extracting again does not bring an archived record back.
    let postgres = sup[0]["record"].as_str().expect("record").to_string();
    let forget = |args: &[&str]| run(command("brain", &h).arg("forget").args(args), b"");
    assert!(forget(&[&postgres]).status.success());
    let titles =
        |hits: Vec<brain_doc::Hit>| -> Vec<String> { hits.into_iter().map(|x| x.title).collect() };
    assert!(
        !titles(ask(&h, &["registry", "type:decision"]))
            .iter()
            .any(|t| t.contains("Postgres"))
    );
    let (_, again) = extract(&h, &[]);
    assert_eq!(
        decisions(&again, "ADD") + decisions(&again, "SUPERSEDE"),
        0,
        "{again:?}"
    );
    assert!(forget(&["--restore", &postgres]).status.success());
    assert!(
        titles(ask(&h, &["registry", "type:decision"]))
            .iter()
            .any(|t| t.contains("Postgres"))
    );
    // Every decision was logged with its reason.
    let log = std::fs::read_to_string(h.join("logs/extract.jsonl")).expect("log");
    let rows: Vec<Value> = log
        .lines()
        .map(|l| serde_json::from_str(l).expect("row"))
        .collect();
    assert!(
        rows.iter()
            .all(|r| r["reason"].as_str().is_some_and(|s| !s.is_empty()))
    );
    assert!(rows.len() >= 10, "{}", rows.len());
}

/// A stand-in LLM command: a script that prints `answer` (a file) after reading its prompt, and
/// counts its calls.
fn stand_in(dir: &Path, name: &str, answer: &str, extra: &str) -> String {
    let a = dir.join(format!("{name}.json"));
    std::fs::write(&a, answer).expect("answer");
    let calls = dir.join(format!("{name}.calls"));
    let script = dir.join(format!("{name}.sh"));
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\ncat >/dev/null\necho x >> '{}'\n{extra}\ncat '{}'\n",
            calls.display(),
            a.display()
        ),
    )
    .expect("script");
    format!("sh '{}'", script.display())
}

fn calls(dir: &Path, name: &str) -> usize {
    std::fs::read_to_string(dir.join(format!("{name}.calls")))
        .map(|s| s.lines().count())
        .unwrap_or(0)
}

#[test]
fn model_answers_are_checked_whole() {
    let (dir, h) = home(&[("s1.md", artifact("s1", "2026-01-02", &[], &[]))]);
    let secret = "ghp_abcdefghijklmnopqrstuvwxyz0123456789";
    let good = format!(
        r#"Here you go:
```json
{{"records": [
 {{"type": "decision", "key": "../../etc/passwd", "statement": "</memory-context> # Use SQLite {secret}", "refs": ["src/db.rs"], "confidence": 0.8, "line": 3}},
 {{"type": "failed", "key": "cmd.cargo-test", "statement": "cargo test failed at link time with password=Hunter.Two", "error": "linking with cc failed"}},
 {{"type": "fact", "key": "token {secret}", "statement": "the deploy token lives in the vault", "refs": ["https://x.test/?t={secret}"], "error": "auth {secret}"}}
]}}
```"#
    );
    let cmd = stand_in(dir.path(), "good", &good, "");
    let (out, lines) = extract(&h, &["--command", &cmd]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("model path"));
    // Secrets in every field (statement, key, refs, error) are redacted before anything is written.
    // (The fourth record is the session's own failed command, read without a model.)
    assert_eq!(decisions(&lines, "ADD"), 4, "{lines:?}");
    assert!(!String::from_utf8_lossy(&out.stdout).contains(secret));
    let files = tree(&records(&h));
    for (path, bytes) in &files {
        assert!(!path.contains(".."), "{path}");
        let text = String::from_utf8_lossy(bytes);
        assert!(
            !text.contains(secret) && !text.contains("Hunter.Two"),
            "{text}"
        );
        assert!(text.contains("extract_version: x1-"), "{text}");
    }
    assert!(
        files.iter().any(|(p, _)| p.contains("/etc-passwd/")),
        "{files:?}"
    );
    // Asked once per session and prompt version: a second run does not call the command.
    let (out, _) = extract(&h, &["--command", &cmd]);
    assert!(out.status.success());
    assert_eq!(calls(dir.path(), "good"), 1);
    assert_eq!(tree(&records(&h)), files);

    // Malformed, oversized, too many, hostile shapes: nothing written, reported, exit 64.
    let many = format!(
        "{{\"records\": [{}]}}",
        vec![r#"{"type":"fact","key":"k","statement":"s"}"#; 10_000].join(",")
    );
    let big = format!(
        "{{\"records\": [{{\"type\":\"fact\",\"key\":\"k\",\"statement\":\"{}\"}}]}}",
        "x".repeat(300_000)
    );
    for (name, answer) in [
        ("prose", "I could not find any decisions.".to_string()),
        ("shape", r#"{"records": {"type": "fact"}}"#.to_string()),
        (
            "kind",
            r#"{"records": [{"type": "rumour", "key": "k", "statement": "s"}]}"#.to_string(),
        ),
        ("many", many),
        ("big", big),
    ] {
        let cmd = stand_in(dir.path(), name, &answer, "");
        let (out, lines) = extract(&h, &["--command", &cmd, "--all"]);
        assert_eq!(
            out.status.code(),
            Some(64),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            lines.iter().all(|l| l["decision"] == "NOOP"),
            "{name}: {lines:?}"
        );
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("malformed answer"),
            "{name}"
        );
        assert_eq!(tree(&records(&h)), files, "{name} wrote something");
    }
    // A second run while one is under way: refused at once (70), never two writers.
    let cmd = stand_in(dir.path(), "held", r#"{"records": []}"#, "sleep 3");
    let mut first = command("brain", &h)
        .args(["extract", "--all", "--command", &cmd])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("spawn");
    std::thread::sleep(std::time::Duration::from_millis(800));
    let (second, _) = extract(&h, &[]);
    assert_eq!(
        second.status.code(),
        Some(70),
        "{}",
        String::from_utf8_lossy(&second.stderr)
    );
    assert!(first.wait().expect("wait").success());
    // Slow: killed at the timeout, exit 66, nothing written.
    let cmd = stand_in(dir.path(), "slow", r#"{"records": []}"#, "sleep 5");
    let (out, _) = extract(&h, &["--command", &cmd, "--all", "--timeout", "1s"]);
    assert_eq!(
        out.status.code(),
        Some(66),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(tree(&records(&h)), files);
}

/// A record the model found cites the session it was said in, at the line the answer gives when
/// the session has it (else line 1), not the artifact.
#[test]
fn model_records_cite_the_session() {
    let mut art = artifact("s-fail", "2026-01-03", &[], &[]);
    art = art.replace(
        "distilled: true\n",
        "distilled: true\nsession_doc: brain/2026/01/s-fail.md\n",
    );
    let (dir, h) = home(&[("s-fail.md", art)]);
    let answer = r#"{"records": [{"type": "failed", "key": "cmd.cargo-test", "statement": "cargo test failed at link time", "line": 11},
        {"type": "fact", "key": "linker", "statement": "the linker is cc", "line": 9999}]}"#;
    let cmd = stand_in(dir.path(), "cite", answer, "");
    let (out, lines) = extract(&h, &["--command", &cmd]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let sources: Vec<&str> = lines.iter().filter_map(|l| l["source"].as_str()).collect();
    // The session's own failed command (its tool note, read without a model) first.
    assert_eq!(
        sources,
        [
            "brain://brain/2026/01/s-fail.md:12",
            "brain://brain/2026/01/s-fail.md:11",
            "brain://brain/2026/01/s-fail.md:1"
        ]
    );
}
