//! Memory I (issue #22), end to end on a notes home with `--now` fixed: facts superseded by key or
//! by id are hidden inside the search and come back with `--include-superseded` (marked) or
//! `--as-of`; expired records disappear after `expires_at`; importance decides near-ties and never
//! a literal match; bad memory fields are warnings, never a failed run; `type:` and `tag:` filter.

use brain_doc::Hit;
use brain_tests::{command, run};

use brain_tests::indexed_notes as home;

fn reindex(dir: &tempfile::TempDir) {
    let out = run(
        command("lexindex", &dir.path().join("home")).arg("--all"),
        b"",
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Add the inbox (a collection of its own) to the notes home `h`.
fn with_inbox(h: &std::path::Path) {
    let yaml = std::fs::read_to_string(h.join("brain.yaml")).expect("brain.yaml");
    let yaml = yaml.replace(
        "partition:",
        &format!(
            "  - name: inbox\n    path: {}\n    role: inbox\npartition:",
            h.join("inbox").display()
        ),
    );
    std::fs::write(h.join("brain.yaml"), yaml).expect("brain.yaml");
}

/// The doctor's `memory` check.
fn memory_check(dir: &tempfile::TempDir) -> serde_json::Value {
    brain_tests::doctor_check(&dir.path().join("home"), "memory")
}

/// `brain ask --json ARGS…` at `now`: exit code and hits.
fn ask(dir: &tempfile::TempDir, now: &str, args: &[&str]) -> (Option<i32>, Vec<Hit>) {
    let out = run(
        command("brain", &dir.path().join("home"))
            .args(["ask", "--json", "--no-dedup", "--now", now])
            .args(args),
        b"",
    );
    let env: serde_json::Value =
        serde_json::from_slice(&out.stdout).unwrap_or(serde_json::Value::Null);
    let hits = serde_json::from_value(env["hits"].clone()).unwrap_or_default();
    (out.status.code(), hits)
}

fn paths(hits: &[Hit]) -> Vec<&str> {
    hits.iter().map(|h| h.path.as_str()).collect()
}

fn fact(key: &str, occurred: &str, text: &str) -> String {
    format!("---\ntype: fact\nkey: {key}\noccurred_at: {occurred}\n---\n{text}\n")
}

const A: &str = "we use Postgres as the database for billing";
const B: &str = "the database moved to SQLite, embedded in the binary";

#[test]
fn a_later_fact_of_the_same_key_supersedes_the_earlier_one() {
    let (dir, _) = home(&[
        ("a.md", &fact("db.engine", "2026-01-15", A)),
        ("b.md", &fact("DB.Engine", "2026-06-10", B)),
    ]);
    let now = "2026-07-01T12:00:00Z";
    let (code, hits) = ask(&dir, now, &["which database do we use"]);
    assert_eq!(code, Some(0));
    assert_eq!(paths(&hits), ["b.md"], "A is hidden inside the search");
    let m = hits[0].memory.as_ref().expect("memory");
    assert_eq!(
        (m.kind.as_deref(), m.state.as_str()),
        (Some("fact"), "current")
    );
    // Both, the earlier one marked with its successor.
    let (_, hits) = ask(
        &dir,
        now,
        &["--include-superseded", "which database do we use"],
    );
    let mut got = paths(&hits);
    got.sort();
    assert_eq!(got, ["a.md", "b.md"]);
    let a = hits
        .iter()
        .find(|h| h.path == "a.md")
        .and_then(|h| h.memory.clone());
    let a = a.expect("a's memory");
    assert_eq!(a.state, "superseded");
    assert_eq!(a.superseded_by.as_deref(), Some("notes/b.md"));
    // What did I believe in March: A, and not B (it had not happened yet).
    let (_, hits) = ask(
        &dir,
        now,
        &["--as-of", "2026-03-01", "which database do we use"],
    );
    assert_eq!(paths(&hits), ["a.md"]);
    assert_eq!(
        hits[0].memory.as_ref().map(|m| m.state.as_str()),
        Some("current")
    );
    // The doctor lists the key two records hold, the newest current.
    let memory = memory_check(&dir);
    assert_eq!(memory["outcome"], "pass", "{memory}");
    assert!(
        memory
            .to_string()
            .contains("key `db.engine`: notes/a.md (superseded), notes/b.md (current)"),
        "{memory}"
    );
    // Reading A says what replaced it; the text is still all there.
    let out = run(
        command("brain", &dir.path().join("home")).args(["get", "notes/a.md"]),
        b"",
    );
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).contains("Postgres"));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("notes/a.md is superseded by notes/b.md since 2026-06-10"),
        "{err}"
    );
    // The recency walk and a literal query hide A too.
    let (_, hits) = ask(&dir, now, &["--mode", "recent", "type:fact"]);
    assert_eq!(paths(&hits), ["b.md"]);
    let (_, hits) = ask(&dir, now, &["\"Postgres\""]);
    assert!(hits.is_empty(), "{:?}", paths(&hits));
    // B gone: A is current again (nothing was deleted).
    std::fs::remove_file(dir.path().join("notes/b.md")).expect("rm");
    reindex(&dir);
    let (_, hits) = ask(&dir, now, &["which database do we use"]);
    assert_eq!(paths(&hits), ["a.md"]);
    assert_eq!(
        hits[0].memory.as_ref().map(|m| m.state.as_str()),
        Some("current")
    );
}

#[test]
fn supersedes_by_id_status_and_expiry_hide_records_and_cycles_do_no_harm() {
    let (dir, stderr) = home(&[
        (
            "old.md",
            "---\ntype: decision\ndate: 2026-04-01\n---\ncache the embeddings in redis\n",
        ),
        (
            "new.md",
            "---\ntype: decision\nsupersedes: notes/old.md\noccurred_at: 2026-05-01\n---\ncache the embeddings on disk, not in redis\n",
        ),
        (
            "sprint.md",
            "---\ntype: event\noccurred_at: 2026-06-01\nttl: 14d\n---\nthe embeddings sprint goal\n",
        ),
        (
            "gone.md",
            "---\nstatus: archived\ndate: 2026-04-01\n---\nembeddings notes, archived\n",
        ),
        // Two records that supersede each other: both hidden, no loop, no crash.
        (
            "x.md",
            "---\nsupersedes: [notes/y.md, notes/x.md]\ndate: 2026-04-01\n---\nembeddings cycle one\n",
        ),
        (
            "y.md",
            "---\nsupersedes: notes/x.md\ndate: 2026-04-02\n---\nembeddings cycle two\n",
        ),
    ]);
    assert!(!stderr.contains("warning"), "{stderr}");
    // A supersedes that names nothing the index holds fails the doctor's memory check.
    std::fs::write(
        dir.path().join("notes/dangle.md"),
        "---\nsupersedes: notes/nowhere.md\n---\nembeddings dangling\n",
    )
    .expect("write");
    reindex(&dir);
    let memory = memory_check(&dir);
    assert_eq!(memory["outcome"], "fail", "{memory}");
    assert!(
        memory
            .to_string()
            .contains("notes/dangle.md supersedes `notes/nowhere.md`"),
        "{memory}"
    );
    std::fs::remove_file(dir.path().join("notes/dangle.md")).expect("rm");
    reindex(&dir);
    let (_, hits) = ask(&dir, "2026-06-05T12:00:00Z", &["embeddings"]);
    let got = paths(&hits);
    assert!(
        got.contains(&"new.md") && got.contains(&"sprint.md"),
        "{got:?}"
    );
    for hidden in ["old.md", "gone.md", "x.md", "y.md"] {
        assert!(!got.contains(&hidden), "{hidden}: {got:?}");
    }
    // After its ttl the event is gone; asked for, it is marked expired.
    let (_, hits) = ask(&dir, "2026-06-20T12:00:00Z", &["sprint goal"]);
    assert!(!paths(&hits).contains(&"sprint.md"), "{:?}", paths(&hits));
    let (_, hits) = ask(
        &dir,
        "2026-06-20T12:00:00Z",
        &["--include-superseded", "sprint goal"],
    );
    let sprint = hits.iter().find(|h| h.path == "sprint.md").expect("sprint");
    assert_eq!(
        sprint.memory.as_ref().map(|m| m.state.as_str()),
        Some("expired")
    );
    let (_, hits) = ask(
        &dir,
        "2026-06-05T12:00:00Z",
        &["--include-superseded", "archived"],
    );
    assert_eq!(
        hits.iter()
            .find(|h| h.path == "gone.md")
            .and_then(|h| h.memory.as_ref())
            .map(|m| m.state.as_str()),
        Some("archived")
    );
}

#[test]
fn importance_decides_near_ties_but_never_a_literal_match() {
    let note = |importance: u8, text: &str| format!("---\nimportance: {importance}\n---\n{text}\n");
    let (dir, _) = home(&[
        ("minor.md", &note(1, "the deploy checklist for staging")),
        ("major.md", &note(5, "the deploy checklist for staging")),
        (
            "cold.md",
            "---\nimportance: 1\ndate: 2024-01-01\n---\nrunbook: rotate the flamingo-7 signing key yearly\n",
        ),
        (
            "hot.md",
            &note(5, "rotate the signing key, see the runbook"),
        ),
    ]);
    let now = "2026-07-01T12:00:00Z";
    let (_, hits) = ask(&dir, now, &["deploy checklist"]);
    assert_eq!(paths(&hits)[..2], ["major.md", "minor.md"]);
    let memory = &hits[0].signals["memory"];
    assert_eq!(memory["importance"], 0.1, "{memory}");
    // A literal query ranks by relevance alone: the cold, unimportant record that holds it first.
    let (_, hits) = ask(&dir, now, &["\"flamingo-7 signing key\""]);
    assert_eq!(paths(&hits)[0], "cold.md");
    let (_, hits) = ask(&dir, now, &["flamingo-7 signing key rotate"]);
    assert_eq!(paths(&hits)[0], "cold.md");
}

#[test]
fn bad_memory_fields_are_warnings_and_type_and_tag_filter() {
    let (dir, stderr) = home(&[
        (
            "bad.md",
            "---\ntype: fact\nimportance: 9.5\nconfidence: sure\nexpires_at: never\nttl: soon\nstatus: maybe\npinned: yes\nkey: [a, b]\ntags: [infra]\n---\nthe bad fields note about queues\n",
        ),
        (
            "pref.md",
            "---\ntype: preference\ntags: [style]\nimportance: 100\nexpires_at: 9999-12-31\n---\nqueues should be named in kebab case\n",
        ),
    ]);
    for field in [
        "importance",
        "confidence",
        "expires_at",
        "status",
        "pinned",
        "key",
    ] {
        assert!(
            stderr.contains(&format!("notes/bad.md: `{field}:")),
            "{field}: {stderr}"
        );
    }
    let now = "2026-07-01T12:00:00Z";
    let (code, hits) = ask(&dir, now, &["queues"]);
    assert_eq!(code, Some(0));
    assert_eq!(hits.len(), 2);
    let pref = hits
        .iter()
        .find(|h| h.path == "pref.md")
        .and_then(|h| h.memory.clone());
    let pref = pref.expect("pref memory");
    assert_eq!((pref.importance, pref.state.as_str()), (5, "current"));
    let (_, hits) = ask(&dir, now, &["queues type:preference"]);
    assert_eq!(paths(&hits), ["pref.md"]);
    let (_, hits) = ask(&dir, now, &["--type", "FACT", "queues"]);
    assert_eq!(paths(&hits), ["bad.md"]);
    let (_, hits) = ask(&dir, now, &["queues tag:#infra"]);
    assert_eq!(paths(&hits), ["bad.md"]);
    let (code, _) = ask(&dir, now, &["queues type:person"]);
    assert_eq!(code, Some(67));
    // A date no index can hold (tantivy's dates end in 2262) is held as "never", not a crash.
    let (code, _) = ask(&dir, now, &["--as-of", "9999-01-01", "queues"]);
    assert_eq!(code, Some(0));
    let (code, _) = ask(&dir, now, &["--as-of", "whenever", "queues"]);
    assert_eq!(code, Some(64));
}

#[test]
fn five_reads_lift_a_record_among_near_ties_never_over_a_clearly_better_one() {
    let note = |text: &str| format!("---\ndate: 2026-06-01\n---\n{text}\n");
    let (dir, _) = home(&[
        ("best.md", &note("retry budget queue")),
        (
            "one.md",
            &note(
                "the retry budget of the worker queue was raised after the incident of last week in the staging cluster, and the alerts were tuned",
            ),
        ),
        (
            "two.md",
            &note(
                "the retry budget of the worker queue was raised after the incident of last week in the staging cluster, and the alerts were tuned",
            ),
        ),
    ]);
    let h = dir.path().join("home");
    let now = "2026-07-01T12:00:00Z";
    let order = |dir: &tempfile::TempDir| {
        let (_, hits) = ask(dir, now, &["retry budget queue"]);
        hits.into_iter().map(|h| h.path).collect::<Vec<_>>()
    };
    let before = order(&dir);
    assert_eq!(before[0], "best.md");
    // Clearly better: the near-ties score well below the bound's 0.74 of it.
    let (_, hits) = ask(&dir, now, &["retry budget queue"]);
    assert!(hits[1].score < 0.74, "{}", hits[1].score);
    // Read the near-tie that ranks last; being listed (every ask above) counts for nothing.
    let last = before[2].clone();
    for _ in 0..5 {
        let out = run(
            command("brain", &h).args(["get", &format!("notes/{last}")]),
            b"",
        );
        assert_eq!(out.status.code(), Some(0));
    }
    let fold = run(command("brain", &h).args(["memory", "fold", "--json"]), b"");
    assert_eq!(fold.status.code(), Some(0));
    let r: serde_json::Value = serde_json::from_slice(&fold.stdout).expect("fold report");
    assert!(r["lines"].as_u64().unwrap_or(0) >= 5, "{r}");
    let after = order(&dir);
    assert_eq!(after[0], "best.md", "{after:?}");
    assert_eq!(after[1], last, "{after:?}");
    let (_, hits) = ask(&dir, now, &["retry budget queue"]);
    assert_eq!(
        hits[1].signals["memory"]["rehearsal"], 0.1,
        "{:?}",
        hits[1].signals
    );
    // A literal query ranks by relevance alone.
    let (_, hits) = ask(&dir, now, &["\"retry budget of the worker queue\""]);
    assert!(hits.iter().all(|h| !h.signals.contains_key("memory")));
    // The access log is private and empty after the fold; the tiers count what was read as hot.
    assert!(
        !h.join("logs/access.jsonl").exists()
            || std::fs::read(h.join("logs/access.jsonl")).map_or(0, |b| b.len()) > 0
    );
    let tiers = run(
        command("brain", &h)
            .args(["memory", "tiers", "--json"])
            .env("BRAIN_NOW", now),
        b"",
    );
    let t: serde_json::Value = serde_json::from_slice(&tiers.stdout).expect("tiers");
    assert_eq!(
        t["hot"].as_u64().unwrap_or(0)
            + t["warm"].as_u64().unwrap_or(0)
            + t["cold"].as_u64().unwrap_or(0),
        3,
        "{t}"
    );
    assert!(t["hot"].as_u64().unwrap_or(0) >= 1, "{t}");
}

#[test]
fn forget_archives_a_record_kept_on_disk_and_restore_brings_it_back() {
    let (dir, _) = home(&[
        (
            "keep.md",
            "---\ntitle: Keep\n---\nthe gateway token rotation\n",
        ),
        ("drop.md", "the gateway token leak notes\n"),
    ]);
    let h = dir.path().join("home");
    let now = "2026-07-01T12:00:00Z";
    let forget = |args: &[&str]| run(command("brain", &h).arg("forget").args(args), b"");
    let out = forget(&["notes/drop.md"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Kept on disk, the text whole; hidden from searches at once.
    let text = std::fs::read_to_string(dir.path().join("notes/drop.md")).expect("kept");
    assert!(text.starts_with("---\nstatus: archived\n---\n") && text.contains("leak notes"));
    let (_, hits) = ask(&dir, now, &["gateway token"]);
    assert_eq!(paths(&hits), ["keep.md"]);
    let (_, hits) = ask(&dir, now, &["--include-superseded", "gateway token leak"]);
    let dropped = hits
        .iter()
        .find(|h| h.path == "drop.md")
        .expect("still there");
    assert_eq!(
        dropped.memory.as_ref().map(|m| m.state.as_str()),
        Some("archived")
    );
    // A full run keeps it archived; --restore undoes it.
    reindex(&dir);
    let (_, hits) = ask(&dir, now, &["gateway token"]);
    assert_eq!(paths(&hits), ["keep.md"]);
    assert_eq!(
        forget(&["--restore", "notes/drop.md"]).status.code(),
        Some(0)
    );
    let (_, hits) = ask(&dir, now, &["gateway token"]);
    assert_eq!(paths(&hits).len(), 2);
    // What is not a document of a collection is never touched.
    for bad in [
        "notes/none.md",
        "../../etc/passwd",
        "/etc/passwd",
        "#ffffff",
    ] {
        let out = forget(&[bad]);
        assert_ne!(out.status.code(), Some(0), "{bad}");
    }
    assert!(
        std::fs::read_to_string("/etc/passwd").map_or(true, |t| !t.contains("status: archived"))
    );
}

#[test]
fn a_keyed_fact_captured_by_inbox_or_remember_supersedes_the_earlier_one() {
    let (dir, _) = home(&[("other.md", "unrelated note about queues\n")]);
    let h = dir.path().join("home");
    // The inbox is a collection of its own.
    with_inbox(&h);
    let inbox = |args: &[&str], now: &str| {
        run(
            command("brain", &h)
                .env("BRAIN_NOW", now)
                .args(["inbox", "--json", "--type", "fact"])
                .args(args),
            b"",
        )
    };
    let out = inbox(
        &[
            "--key",
            "db.engine",
            "--importance",
            "4",
            "we use Postgres for the database",
        ],
        "2026-01-15T10:00:00Z",
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let first: serde_json::Value = serde_json::from_slice(&out.stdout).expect("captured");
    let uri = first["uri"].as_str().expect("uri").to_string();
    assert!(uri.starts_with("brain://inbox/records/20260115-"), "{uri}");
    // Its own record, with the fields in its frontmatter, searchable at once.
    let text = std::fs::read_to_string(first["path"].as_str().expect("path")).expect("record");
    assert!(
        text.contains("key: db.engine") && text.contains("importance: 4"),
        "{text}"
    );
    let line = first["line"].as_u64().expect("line") as usize;
    assert_eq!(
        text.lines().nth(line - 1),
        Some("we use Postgres for the database")
    );
    // Over MCP, months later: the newer fact of the same key is current, the first hidden.
    let requests = [
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"remember","arguments":{"text":"the database moved to SQLite","type":"fact","key":"db.engine","occurredAt":"2026-06-10"}}}"#,
    ]
    .join("\n");
    let out = run(
        command("brain", &h)
            .env("BRAIN_NOW", "2026-06-11T10:00:00Z")
            .arg("mcp"),
        requests.as_bytes(),
    );
    let lines: Vec<serde_json::Value> = brain_tests::parse_lines(&out.stdout);
    let result = &lines.iter().find(|l| l["id"] == 2).expect("remember")["result"];
    assert_ne!(result["isError"], true, "{result}");
    let (_, hits) = ask(&dir, "2026-07-01T12:00:00Z", &["database"]);
    assert_eq!(hits.len(), 1, "{:?}", paths(&hits));
    assert!(hits[0].snippet.contains("SQLite"), "{}", hits[0].snippet);
    let (_, hits) = ask(
        &dir,
        "2026-07-01T12:00:00Z",
        &["--include-superseded", "database"],
    );
    assert_eq!(hits.len(), 2);
    // Bad fields are refused before anything is written (64); a secret in a key is refused (71).
    let before = std::fs::read_dir(dir.path().join("home/inbox/records")).map_or(0, |d| d.count());
    for (args, code) in [
        (&["--importance", "9", "x is y"][..], 64),
        (&["--ttl", "forever", "x is y"][..], 64),
        (&["--occurred", "someday", "x is y"][..], 64),
        (&["--key", "AKIAABCDEFGHIJKLMNOP", "x is y"][..], 71),
    ] {
        let out = inbox(args, "2026-07-01T10:00:00Z");
        assert_eq!(
            out.status.code(),
            Some(code),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let after = std::fs::read_dir(dir.path().join("home/inbox/records")).map_or(0, |d| d.count());
    assert_eq!(before, after, "nothing written");
}

#[test]
fn concurrent_keyed_captures_each_get_a_record_and_huge_fields_do_no_harm() {
    let (dir, _) = home(&[(
        "huge.md",
        &format!(
            "---\nsupersedes: {}\nkey: {}\ntype: {}\nstatus: {}\n---\nhuge fields note\n",
            "x".repeat(70_000),
            "k".repeat(300),
            "t".repeat(300),
            "s".repeat(70_000)
        ),
    )]);
    let h = dir.path().join("home");
    // Over-long key, type and status are warnings and ignored; the record is indexed and found.
    let (code, hits) = ask(&dir, "2026-07-01T12:00:00Z", &["huge fields"]);
    assert_eq!((code, paths(&hits)), (Some(0), vec!["huge.md"]));
    with_inbox(&h);
    // Twelve captures at once: twelve records, twelve distinct ids, none lost or torn.
    let children: Vec<_> = (0..12)
        .map(|i| {
            command("brain", &h)
                .env("BRAIN_NOW", "2026-07-01T10:00:00Z")
                .args(["inbox", "--json", "--type", "fact", "--key"])
                .arg(format!("subject.{i}"))
                .arg(format!("fact number {i} about the queue"))
                .stdin(std::process::Stdio::null())
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .expect("spawn")
        })
        .collect();
    let mut ids = std::collections::BTreeSet::new();
    for c in children {
        let out = c.wait_with_output().expect("wait");
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("captured");
        ids.insert(v["entry_id"].as_str().expect("id").to_string());
    }
    assert_eq!(ids.len(), 12);
    let records = std::fs::read_dir(h.join("inbox/records"))
        .expect("records")
        .count();
    assert_eq!(records, 12);
    for entry in std::fs::read_dir(h.join("inbox/records")).expect("records") {
        let text = std::fs::read_to_string(entry.expect("entry").path()).expect("record");
        assert!(
            text.starts_with("---\n") && text.contains("about the queue\n"),
            "{text}"
        );
    }
}
