//! `fmt`: golden cases for every format (golden/fmt), and the `--json` envelope parsed back.
//!
//! Build first: `cargo build -p fmt`.

use brain_doc::Hit;
use brain_tests::{command, golden, run, workspace};

#[test]
fn golden_fmt() {
    golden("fmt", "fmt", |_| {});
}

fn hits_input() -> Vec<u8> {
    std::fs::read(workspace().join("golden/fmt/terminal-plain/stdin")).expect("fixture hits")
}

#[test]
fn json_envelope_carries_query_hits_and_freshness_warnings() {
    let home = tempfile::tempdir().expect("tempdir");
    let out = run(
        command("fmt", home.path()).args([
            "--json",
            "--query",
            "lock contention",
            "--stale-after",
            "1",
        ]),
        &hits_input(),
    );
    assert_eq!(out.status.code(), Some(0));
    let env: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON envelope");
    assert_eq!(env["kind"], "results");
    assert_eq!(env["query"], "lock contention");
    assert_eq!(env["count"], 3);
    assert!(env["took_ms"].is_u64());
    let hits: Vec<Hit> = serde_json::from_value(env["hits"].clone()).expect("hits parse back");
    assert_eq!(hits.len(), 3);
    assert_eq!(hits[0].docid, "#3f9a1c");
    let warnings: Vec<String> = serde_json::from_value(env["warnings"].clone()).expect("warnings");
    assert_eq!(
        warnings,
        [
            "1 of 3 results is older than a day: a session or a page says what happened then; check the current state before relying on it"
        ],
        "only the 40-day-old hit is past a day, and it says what happened: one line for the list"
    );
    // Without --stale-after (issue 38) a session's age is no warning: on a personal history
    // nearly every hit is older than a day.
    let plain = run(
        command("fmt", home.path()).args(["--json", "--query", "lock contention"]),
        &hits_input(),
    );
    let env: serde_json::Value = serde_json::from_slice(&plain.stdout).expect("envelope");
    assert_eq!(env["warnings"], serde_json::json!([]));
}

#[test]
fn records_whose_age_changes_the_answer_are_flagged_on_their_own_line() {
    let home = tempfile::tempdir().expect("tempdir");
    let mut hits: Vec<Hit> = brain_tests::parse_lines(&hits_input());
    let memory = |kind: &str, state: &str| brain_doc::HitMemory {
        kind: Some(kind.into()),
        importance: 3,
        confidence: 1.0,
        pinned: false,
        key: None,
        occurred_at: None,
        expires_at: None,
        state: state.into(),
        superseded_by: (state == "superseded").then(|| "notes/new.md".to_string()),
    };
    // A fact of 40 days (past its 30), a status of today, a superseded preference.
    hits[2].memory = Some(memory("fact", "current"));
    hits[0].memory = Some(memory("status", "current"));
    hits[1].memory = Some(memory("preference", "superseded"));
    let input: Vec<u8> = hits
        .iter()
        .flat_map(|h| {
            let mut l = serde_json::to_vec(h).expect("hit");
            l.push(b'\n');
            l
        })
        .collect();
    let out = run(command("fmt", home.path()).arg("--json"), &input);
    let env: serde_json::Value = serde_json::from_slice(&out.stdout).expect("envelope");
    let warnings: Vec<String> = serde_json::from_value(env["warnings"].clone()).expect("warnings");
    assert_eq!(warnings.len(), 2, "{warnings:?}");
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("is superseded by notes/new.md: no longer current"))
    );
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("is a fact of 40 days ago"))
    );
    let out = run(
        command("fmt", home.path()).args(["--color", "never"]),
        &input,
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("! a fact of 40 days ago: check it against the current state"),
        "{text}"
    );
    assert!(!text.contains("older than a day"), "{text}");
}

#[test]
fn empty_json_is_an_explicit_empty_result_with_exit_67() {
    let home = tempfile::tempdir().expect("tempdir");
    let out = run(command("fmt", home.path()).arg("--json"), b"");
    assert_eq!(out.status.code(), Some(67));
    let env: serde_json::Value = serde_json::from_slice(&out.stdout).expect("envelope");
    assert_eq!(env["count"], 0);
    assert_eq!(env["hits"], serde_json::json!([]));
}

#[test]
fn no_color_is_respected_and_color_always_overrides() {
    let home = tempfile::tempdir().expect("tempdir");
    let plain = run(&mut command("fmt", home.path()), &hits_input());
    assert!(
        !plain.stdout.contains(&0x1b),
        "NO_COLOR=1 (and not a TTY): no escapes"
    );
    let colored = run(
        command("fmt", home.path()).args(["--color", "always"]),
        &hits_input(),
    );
    assert!(colored.stdout.contains(&0x1b));
}

#[test]
fn csv_parses_back_with_one_row_per_hit() {
    let home = tempfile::tempdir().expect("tempdir");
    let out = run(command("fmt", home.path()).arg("--csv"), &hits_input());
    let text = String::from_utf8(out.stdout).expect("utf8");
    let rows: Vec<Vec<String>> = text
        .lines()
        .map(|l| l.split(',').map(str::to_string).collect())
        .collect();
    assert_eq!(rows.len(), 4, "header + 3 hits");
    assert_eq!(rows[0][0], "rank");
    assert!(
        text.contains("\"Index sessions, with \"\"qmd\"\"\""),
        "quotes escaped: {text}"
    );
}
