//! `brain status`, `explain`, `doctor`: golden cases (one doctor case per breakage), the records parsed
//! back into brain-ops types, the doctor's telemetry row and recorded verdict, and every exit code.
//!
//! Build first: `cargo build --workspace --bins`.

use std::path::Path;

use brain_ops::{DoctorReport, Explain, Status};
use brain_tests::{bin, command, golden, run};

mod fixture;

#[test]
fn golden_status() {
    golden("brain-status", "brain", fixture::ops_home);
}

#[test]
fn golden_explain() {
    golden("brain-explain", "brain", fixture::ops_home);
}

#[test]
fn golden_doctor() {
    golden("brain-doctor", "brain", fixture::doctor_home);
}

fn brain(work: &Path, args: &[&str]) -> std::process::Output {
    run(
        command("brain", &work.join("home"))
            .env("HOME", work.join("user"))
            .env("BRAIN_CRONTAB", work.join("bin/crontab"))
            .args(args),
        b"",
    )
}

fn home() -> tempfile::TempDir {
    let work = tempfile::tempdir().expect("tempdir");
    fixture::doctor_home(work.path());
    work
}

#[test]
fn status_and_explain_agree_on_counts_and_parse_back() {
    let work = home();
    let out = brain(work.path(), &["status", "--json"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        out.stdout.iter().filter(|b| **b == b'\n').count(),
        1,
        "one line for scripts"
    );
    let s: Status = serde_json::from_slice(&out.stdout).expect("status record");
    let out = brain(work.path(), &["explain", "--json"]);
    assert_eq!(out.status.code(), Some(0));
    let e: Explain = serde_json::from_slice(&out.stdout).expect("explain record");
    assert_eq!((s.docs, e.lexical.docs), (5, 5));
    let from_status: Vec<(&str, u64)> = s
        .collections
        .iter()
        .map(|c| (c.name.as_str(), c.docs))
        .collect();
    let from_explain: Vec<(&str, u64)> = e
        .collections
        .iter()
        .map(|c| (c.name.as_str(), c.docs))
        .collect();
    assert_eq!(from_status, vec![("brain", 2), ("notes", 3)]);
    assert_eq!(from_status, from_explain);
    assert!(e.lexical.fresh && !e.vectors.fresh);
    assert_eq!(
        e.vectors.need_embeddings, 5,
        "no store: every document needs embeddings"
    );
    // brain and every stage.
    assert_eq!(
        e.binaries.iter().filter(|b| b.path.is_some()).count(),
        brain_ops::bins::STAGES.len() + 1
    );
}

#[test]
fn explain_sees_a_file_added_after_indexing_until_lexindex_runs() {
    let work = home();
    std::fs::write(
        work.path().join("corpus-notes/kb/late.md"),
        "---\ntitle: Late\n---\nlate words\n",
    )
    .expect("write");
    let e: Explain = serde_json::from_slice(&brain(work.path(), &["explain", "--json"]).stdout)
        .expect("explain");
    let notes = e
        .collections
        .iter()
        .find(|c| c.name == "notes")
        .expect("notes");
    assert_eq!((notes.lexical_fresh, notes.drift.not_indexed), (false, 1));
    assert_eq!(notes.drift.examples, ["not indexed: notes/kb/late.md"]);
    let out = run(
        command("lexindex", &work.path().join("home")).args(["--all", "--quiet"]),
        b"",
    );
    assert!(out.status.success());
    let e: Explain = serde_json::from_slice(&brain(work.path(), &["explain", "--json"]).stdout)
        .expect("explain");
    assert!(e.lexical.fresh, "{:?}", e.collections);
}

#[test]
fn after_lexindex_catches_up_with_a_deleted_file_doctor_passes_again() {
    let work = home();
    std::fs::remove_file(work.path().join("corpus-sessions/2026/04/s1.md")).expect("rm");
    assert_eq!(brain(work.path(), &["doctor"]).status.code(), Some(65));
    // The deleted document's id stays in its segment's term dictionary until a merge drops it: the
    // index check counts ids of live passages only (Searcher::document_ids).
    let out = run(
        command("lexindex", &work.path().join("home")).args(["--all", "--quiet"]),
        b"",
    );
    assert!(out.status.success());
    let out = brain(work.path(), &["doctor", "--json"]);
    let r: DoctorReport = serde_json::from_slice(&out.stdout).expect("report");
    assert!(
        r.ok,
        "{:?}",
        r.checks
            .iter()
            .filter(|c| c.outcome == brain_ops::doctor::Outcome::Fail)
            .collect::<Vec<_>>()
    );
}

#[test]
fn doctor_logs_a_row_with_its_failures_and_explain_shows_the_verdict() {
    let work = home();
    std::fs::write(
        work.path().join("home/locks/lexindex.lock"),
        "pid 999999999",
    )
    .expect("write");
    let out = brain(work.path(), &["doctor", "--json"]);
    assert_eq!(
        out.status.code(),
        Some(65),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r: DoctorReport = serde_json::from_slice(&out.stdout).expect("report");
    assert_eq!(r.failures, ["locks"]);
    let names: Vec<&str> = r.checks.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, brain_ops::doctor::CHECKS, "every check ran");
    let log = std::fs::read_to_string(work.path().join("home/logs/usage.jsonl")).expect("usage");
    let row: serde_json::Value =
        serde_json::from_str(log.lines().last().expect("row")).expect("json");
    assert_eq!(
        (row["event"].as_str(), row["surface"].as_str()),
        (Some("doctor_run"), Some("cli"))
    );
    assert_eq!(row["failures"], serde_json::json!(["locks"]));
    let e: Explain = serde_json::from_slice(&brain(work.path(), &["explain", "--json"]).stdout)
        .expect("explain");
    let last = e.last_doctor.expect("verdict recorded");
    assert_eq!((last.ok, last.failures), (false, vec!["locks".to_string()]));
    std::fs::write(work.path().join("home/locks/lexindex.lock"), "").expect("write");
    assert_eq!(brain(work.path(), &["doctor"]).status.code(), Some(0));
    let e: Explain = serde_json::from_slice(&brain(work.path(), &["explain", "--json"]).stdout)
        .expect("explain");
    assert!(e.last_doctor.is_some_and(|d| d.ok));
}

#[test]
fn a_brain_without_its_stages_fails_the_binaries_check() {
    let work = home();
    let lone = work.path().join("lone");
    std::fs::create_dir_all(&lone).expect("mkdir");
    std::fs::copy(bin("brain"), lone.join("brain")).expect("copy brain alone");
    let out = run(
        command("brain", &work.path().join("home"))
            .env("HOME", work.path().join("user"))
            .env("PATH", "/usr/bin:/bin")
            .env("BRAIN_CRONTAB", work.path().join("bin/crontab"))
            .args(["doctor", "--json"]),
        b"",
    );
    // The built brain still finds its stages beside it; the lone copy does not.
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let out = run(
        std::process::Command::new(lone.join("brain"))
            .env("BRAIN_HOME", work.path().join("home"))
            .env("HOME", work.path().join("user"))
            .env("PATH", "/usr/bin:/bin")
            .env("BRAIN_CRONTAB", work.path().join("bin/crontab"))
            .args(["doctor", "--json"]),
        b"",
    );
    assert_eq!(out.status.code(), Some(65));
    let r: DoctorReport = serde_json::from_slice(&out.stdout).expect("report");
    assert_eq!(r.failures, ["binaries"]);
    let check = r
        .checks
        .iter()
        .find(|c| c.name == "binaries")
        .expect("binaries");
    assert!(
        check.summary.starts_with(&format!(
            "{} of {} binaries do not resolve",
            brain_ops::bins::STAGES.len(),
            brain_ops::bins::STAGES.len() + 1
        )),
        "{}",
        check.summary
    );
    assert!(check.fix.contains("make install"));
}

#[test]
fn exit_codes_of_status_explain_and_doctor() {
    let empty = tempfile::tempdir().expect("tempdir");
    let nowhere = empty.path().join("no-home");
    let code = |args: &[&str]| {
        run(command("brain", &nowhere).args(args), b"")
            .status
            .code()
    };
    assert_eq!(
        code(&["status"]),
        Some(0),
        "an empty home is a state, not an error"
    );
    assert_eq!(code(&["explain", "--json"]), Some(0));
    assert_eq!(code(&["doctor"]), Some(65), "a failed check");
    assert!(
        !nowhere.exists(),
        "status, explain and doctor create nothing in a missing home"
    );
    assert_eq!(
        code(&["status", "--bogus"]),
        Some(64),
        "usage errors are bad input"
    );
    assert_eq!(code(&["--version"]), Some(0));
    let work = home();
    let db = work.path().join("home/state.sqlite");
    for f in ["state.sqlite-wal", "state.sqlite-shm"] {
        let _ = std::fs::remove_file(work.path().join("home").join(f));
    }
    std::fs::write(&db, "garbage, not a database").expect("write");
    let out = brain(work.path(), &["status"]);
    assert_eq!(
        out.status.code(),
        Some(99),
        "an unreadable registry is internal"
    );
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("brain doctor"),
        "names the fix"
    );
    let out = brain(work.path(), &["explain", "--json"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "explain reports what it cannot read and shows the rest"
    );
    let e: Explain = serde_json::from_slice(&out.stdout).expect("explain");
    assert!(
        e.errors.iter().any(|m| m.contains("state.sqlite")),
        "{:?}",
        e.errors
    );
    assert_eq!(
        brain(work.path(), &["doctor"]).status.code(),
        Some(65),
        "doctor reports it as a check"
    );
}
