//! `brain inbox`: golden cases, hostile payloads parsed back out of the day file, the refusal guard,
//! 100 concurrent writers, searchable at once, and every exit code the command can produce.

use std::path::Path;
use std::process::{Command, Stdio};

use brain_inbox::dayfile::{self, DayFile, EntryType};
use brain_inbox::{Captured, sanitize};
use brain_tests::{command, parse_lines, run};
use serde_json::Value;

const NOW: &str = "2026-04-10T12:00:00Z";

fn inbox(home: &Path, args: &[&str], stdin: &[u8]) -> (Option<i32>, String, String) {
    let out = run(
        command("brain", home)
            .env("BRAIN_NOW", NOW)
            .arg("inbox")
            .args(args),
        stdin,
    );
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn day(home: &Path) -> (String, DayFile) {
    let text = std::fs::read_to_string(home.join("inbox/2026-04-10.md")).expect("day file");
    let parsed = dayfile::parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    (text, parsed)
}

fn usage(home: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(home.join("logs/usage.jsonl")).unwrap_or_default();
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("torn row ({e}): {l}")))
        .collect()
}

#[test]
fn golden_cases() {
    brain_tests::golden("brain-inbox", "brain", |_| {});
}

#[test]
fn hostile_payloads_cannot_change_the_frontmatter_or_forge_entries() {
    let home = tempfile::tempdir().expect("tempdir");
    let h = home.path();
    let long = format!("long {}", "lorem ipsum dolor ".repeat(600));
    let payloads: Vec<(String, Vec<&str>)> = vec![
        (
            "---\ntitle: pwned\ncollection: evil\n---\nbody after a fake frontmatter".into(),
            vec![],
        ),
        (
            "text\n---\nid: evil\n---".into(),
            vec![
                "--tags",
                "a\n---\ntitle: x",
                "--project",
                "p\n---\nsource: evil",
            ],
        ),
        (
            "## 2026-04-10T12:00:00+00:00 · todo · 20260410-999 · tags: forged\nfake entry header"
                .into(),
            vec!["--type", "todo"],
        ),
        (
            "# Inbox 2026-04-10\nnot the day heading\nsetext\n===\nalso\n-".into(),
            vec![],
        ),
        (
            "nul\u{0}here\u{7}bell\r\nwindows\rmac\u{2028}sep \u{202E}bidi".into(),
            vec!["--tags", "Ok,\u{1}nul,#Hash tag"],
        ),
        (
            "```\nunclosed fence swallowing the next header\n## inside".into(),
            vec![],
        ),
        (
            "<!-- unclosed comment\n<script>x</script>".into(),
            vec!["--project", "proj · tags: forged"],
        ),
        (long.clone(), vec!["--force"]),
        ("\\## already escaped\n\\---".into(), vec![]),
    ];
    for (text, args) in &payloads {
        let (code, _, stderr) = inbox(h, args, text.as_bytes());
        assert_eq!(code, Some(0), "{text:?}: {stderr}");
    }
    let (raw, day) = day(h);
    let expected_fm: serde_json::Map<String, Value> = serde_json::from_value(serde_json::json!({
        "id": "inbox/2026-04-10.md",
        "title": "Inbox 2026-04-10",
        "date": "2026-04-10T00:00:00+00:00",
        "collection": "inbox",
        "path": "2026-04-10.md",
        "type": "inbox",
        "source": {"type": "inbox", "agent": "brain", "file": "~/inbox/2026-04-10.md"}
    }))
    .expect("map");
    assert_eq!(day.frontmatter, expected_fm, "{raw}");
    assert_eq!(day.preamble, "# Inbox 2026-04-10\n\n");
    assert_eq!(day.entries.len(), payloads.len(), "{raw}");
    for (i, (e, (text, _))) in day.entries.iter().zip(&payloads).enumerate() {
        assert_eq!(e.id, format!("20260410-{:03}", i + 1));
        assert_eq!(
            e.text,
            sanitize::escape(&sanitize::clean_text(text)),
            "entry {i}"
        );
    }
    assert_eq!(day.entries[1].tags, ["a-title-x"]);
    assert_eq!(
        day.entries[1].project.as_deref(),
        Some("p --- source: evil")
    );
    assert_eq!(day.entries[2].kind, EntryType::Todo);
    assert_eq!(day.entries[4].tags, ["ok", "nul", "hash-tag"]);
    assert_eq!(
        day.entries[6].project.as_deref(),
        Some("proj - tags: forged")
    );
    assert!(day.entries[4].text.contains("nulhere") && !day.entries[4].text.contains('\u{0}'));
    assert!(
        day.entries[5].text.ends_with("\n```"),
        "fence closed: {:?}",
        day.entries[5].text
    );
    // Every `## ` line of the file is a genuine header, and `---` appears only around the frontmatter.
    assert_eq!(
        raw.lines().filter(|l| l.starts_with("## ")).count(),
        payloads.len()
    );
    assert_eq!(raw.lines().filter(|l| l.trim() == "---").count(), 2);
    // And the day file is still a valid document of the inbox collection.
    let doc = brain_doc::Doc::from_markdown(&raw).expect("doc");
    assert_eq!(
        (doc.id.as_str(), doc.title.as_str()),
        ("inbox/2026-04-10.md", "Inbox 2026-04-10")
    );
}

#[test]
fn refusals_write_nothing_and_say_why() {
    let home = tempfile::tempdir().expect("tempdir");
    let h = home.path();
    let cases: [(&str, Vec<&str>, i32, &str); 6] = [
        (
            "deploy key AKIAIOSFODNN7EXAMPLE",
            vec![],
            71,
            "contains a secret (aws_access_key)",
        ),
        (
            "fine text",
            vec!["--project", "ghp_0123456789abcdefghijklmnopqrstuvwxyzAB"],
            71,
            "contains a secret (github_token)",
        ),
        ("a <private>thing</private>", vec![], 71, "<private> span"),
        ("", vec![], 64, "the text is empty"),
        (" \n\t\n", vec![], 64, "the text is empty"),
        ("x", vec!["--wait", "1"], 0, "saved note"),
    ];
    for (text, args, want, msg) in &cases {
        let (code, _, stderr) = inbox(h, args, text.as_bytes());
        assert_eq!(code, Some(*want), "{text:?}: {stderr}");
        assert!(stderr.contains(msg), "{text:?}: {stderr}");
        if *want != 0 {
            assert!(stderr.contains("brain: fix: "), "{stderr}");
            assert!(
                !h.join("inbox/2026-04-10.md").exists(),
                "{text:?} wrote the day file"
            );
        }
    }
    let log: String = (0..12)
        .map(|i| format!("2026-04-10 12:00:{i:02} INFO served\n"))
        .collect();
    let (code, _, stderr) = inbox(h, &[], log.as_bytes());
    assert_eq!(code, Some(71), "{stderr}");
    assert!(
        stderr.contains("activity log") && stderr.contains("--force"),
        "{stderr}"
    );
    let (code, _, stderr) = inbox(h, &["--force"], log.as_bytes());
    assert_eq!(code, Some(0), "{stderr}");
    let secret_forced = inbox(h, &["--force"], b"password=hunter2hunter2");
    assert_eq!(secret_forced.0, Some(71), "--force never stores a secret");
    let too_long = "word ".repeat(20_000);
    let (code, _, stderr) = inbox(h, &["--force"], too_long.as_bytes());
    assert_eq!(code, Some(64), "{stderr}");
    assert_eq!(day(h).1.entries.len(), 2);
    let rows = usage(h);
    let refused: Vec<&Value> = rows
        .iter()
        .filter(|r| r["event"] == "inbox_refused")
        .collect();
    assert_eq!(refused.len(), 5);
    assert!(
        refused
            .iter()
            .all(|r| r["error"] == "refused" && r.get("reason").is_some())
    );
    assert!(
        !serde_json::to_string(&rows).expect("json").contains("AKIA"),
        "a refused text never reaches telemetry"
    );
}

#[test]
fn json_output_is_a_record_and_the_entry_is_searchable_at_once() {
    let home = tempfile::tempdir().expect("tempdir");
    let h = home.path();
    let (code, stdout, stderr) = inbox(
        h,
        &[
            "--json",
            "--type",
            "decision",
            "--tags",
            "search,bm25",
            "Chose quetzalcoatl as the codename",
        ],
        b"",
    );
    assert_eq!(code, Some(0), "{stderr}");
    let c: Vec<Captured> = parse_lines(stdout.as_bytes());
    assert_eq!(c.len(), 1);
    let c = &c[0];
    assert_eq!(
        (c.entry_id.as_str(), c.uri.as_str(), c.line, c.indexed),
        ("20260410-001", "brain://inbox/2026-04-10.md", 15, true)
    );
    assert_eq!(c.entry_type, EntryType::Decision);
    assert!(
        stderr.contains(
            "saved decision 20260410-001 to brain://inbox/2026-04-10.md:15 (searchable now)"
        ),
        "{stderr}"
    );
    let out = run(
        command("brain", h)
            .env("BRAIN_NOW", NOW)
            .args(["ask", "--json", "quetzalcoatl"]),
        b"",
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let env: Vec<brain_fmt::Envelope> = parse_lines(&out.stdout);
    assert_eq!(env[0].hits[0].uri, "brain://inbox/2026-04-10.md");
    assert!(env[0].hits[0].snippet.contains("quetzalcoatl"));
    // --json failures are error records on stdout.
    let (code, stdout, _) = inbox(h, &["--json", ""], b"");
    assert_eq!(code, Some(64));
    let err: Vec<brain_doc::ErrorRecord> = parse_lines(stdout.as_bytes());
    assert_eq!(err[0].error, brain_doc::ErrorCode::BadQuery);
}

#[test]
fn a_held_lock_is_exit_70_and_an_unwritable_inbox_99() {
    let home = tempfile::tempdir().expect("tempdir");
    let h = home.path();
    let lock = h.join("locks/inbox.lock");
    std::fs::create_dir_all(lock.parent().expect("parent")).expect("mkdir");
    let mut holder = Command::new("flock")
        .arg(&lock)
        .args(["sh", "-c", "echo held; read _"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("flock");
    let mut first = [0u8; 5];
    std::io::Read::read_exact(holder.stdout.as_mut().expect("stdout"), &mut first).expect("held");
    let (code, _, stderr) = inbox(h, &["--wait", "0.2", "blocked"], b"");
    drop(holder.stdin.take());
    let _ = holder.wait();
    assert_eq!(code, Some(70), "{stderr}");
    assert!(
        stderr.contains("brain: fix: another capture is writing the inbox"),
        "{stderr}"
    );
    assert!(!h.join("inbox/2026-04-10.md").exists());
    assert!(
        usage(h)
            .iter()
            .any(|r| r["event"] == "inbox_write" && r["error"] == "locked")
    );

    std::fs::write(h.join("inbox"), "a file where the folder should be").expect("write");
    let (code, _, stderr) = inbox(h, &["cannot land"], b"");
    // A file where a folder belongs: storage the capture cannot use, 65 with its fix (issue 37).
    assert_eq!(code, Some(65), "{stderr}");
    assert!(
        stderr.contains("a file stands where brain keeps a folder"),
        "{stderr}"
    );
}

#[test]
fn a_hundred_parallel_writers_all_land_whole_with_unique_ids() {
    let home = tempfile::tempdir().expect("tempdir");
    let h = home.path();
    let children: Vec<_> = (0..100)
        .map(|i| {
            command("brain", h)
                .env("BRAIN_NOW", NOW)
                .args([
                    "inbox",
                    "--no-index",
                    "--wait",
                    "120",
                    "--tags",
                    &format!("w{i}"),
                ])
                .arg(format!(
                    "parallel entry number {i} ## not a header\n---\nend {i}"
                ))
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .expect("spawn")
        })
        .collect();
    for c in children {
        let out = c.wait_with_output().expect("wait");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let (_, day) = day(h);
    assert_eq!(day.entries.len(), 100);
    let ids: std::collections::BTreeSet<&str> = day.entries.iter().map(|e| e.id.as_str()).collect();
    assert_eq!(ids.len(), 100);
    let mut seen: Vec<usize> = day
        .entries
        .iter()
        .map(|e| {
            let n: usize = e.tags[0].trim_start_matches('w').parse().expect("tag");
            assert_eq!(
                e.text,
                format!("parallel entry number {n} ## not a header\n\\---\nend {n}")
            );
            n
        })
        .collect();
    seen.sort_unstable();
    assert_eq!(seen, (0..100).collect::<Vec<_>>());
    // 100 processes appended telemetry concurrently: 100 whole rows.
    let rows = usage(h);
    assert_eq!(
        rows.iter()
            .filter(|r| r["event"] == "inbox_write" && r.get("error").is_none())
            .count(),
        100
    );
    // Ten parallel writers that also index: every entry searchable afterwards.
    let children: Vec<_> = (0..10)
        .map(|i| {
            command("brain", h)
                .env("BRAIN_NOW", NOW)
                .args(["inbox", "--json", "--wait", "120"])
                .arg(format!("indexedword{i} arrives"))
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("spawn")
        })
        .collect();
    for c in children {
        let out = c.wait_with_output().expect("wait");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    for i in 0..10 {
        let out = run(
            command("brain", h)
                .env("BRAIN_NOW", NOW)
                .args(["ask", &format!("indexedword{i}")]),
            b"",
        );
        assert_eq!(
            out.status.code(),
            Some(0),
            "indexedword{i}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
