//! `brain recent`: golden cases over a corpus with fixed mtimes, and the walk's behaviour when files
//! land without being indexed or disappear.

use std::path::Path;
use std::time::{Duration, SystemTime};

use brain_rank::recent::RecentReport;
use brain_tests::{command, parse_lines, run, workspace};

const NOW: &str = "2026-04-10T12:00:00Z";

fn copy(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for e in std::fs::read_dir(from).expect("read_dir").flatten() {
        let target = to.join(e.file_name());
        if e.path().is_dir() {
            copy(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), target).expect("copy");
        }
    }
}

fn set_mtime(path: &Path, rfc3339: &str) {
    let ts: jiff::Timestamp = rfc3339.parse().expect("time");
    let t = SystemTime::UNIX_EPOCH + Duration::from_secs(ts.as_second() as u64);
    std::fs::File::options()
        .write(true)
        .open(path)
        .expect("open")
        .set_modified(t)
        .expect("mtime");
}

/// Copy the fixture corpus into `work`, give every file the mtime `mtimes` names, index it.
fn corpus(work: &Path) {
    let src = workspace().join("golden/brain-recent/_corpus");
    copy(&src, work);
    let mtimes = std::fs::read_to_string(src.join("mtimes")).expect("mtimes");
    for line in mtimes.lines().filter(|l| !l.trim().is_empty()) {
        let (file, when) = line.split_once(' ').expect("path time");
        set_mtime(&work.join(file), when);
    }
    let out = run(
        command("lexindex", &work.join("home")).args(["--all", "--quiet"]),
        b"",
    );
    assert!(
        out.status.success(),
        "lexindex: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn recent(home: &Path, args: &[&str]) -> (Option<i32>, RecentReport) {
    let out = run(
        command("brain", home)
            .env("BRAIN_NOW", NOW)
            .arg("recent")
            .arg("--json")
            .args(args),
        b"",
    );
    let r: Vec<RecentReport> = parse_lines(&out.stdout);
    (
        out.status.code(),
        r.into_iter()
            .next()
            .unwrap_or_else(|| panic!("{}", String::from_utf8_lossy(&out.stderr))),
    )
}

#[test]
fn golden_cases() {
    brain_tests::golden("brain-recent", "brain", corpus);
}

#[test]
fn landed_but_unindexed_files_are_pending_and_deleted_ones_gone() {
    let work = tempfile::tempdir().expect("tempdir");
    let w = work.path();
    corpus(w);
    let home = w.join("home");
    let (code, r) = recent(&home, &["--since", "7d"]);
    assert_eq!(code, Some(0));
    assert_eq!((r.n_total, r.pending), (4, 0));
    assert_eq!(
        r.collections.iter().map(|c| c.count).sum::<usize>(),
        r.n_total
    );
    let order: Vec<&str> = r.items.iter().map(|i| i.uri.as_str()).collect();
    assert_eq!(
        order,
        [
            "brain://inbox/2026-04-10.md",
            "brain://brain/2026/04/s2.md",
            "brain://notes/kb/tantivy-locks.md",
            "brain://brain/2026/04/s1.md"
        ]
    );
    // A new note lands (not indexed), an indexed one changes, a session is deleted.
    std::fs::write(w.join("notes/kb/new.md"), "# New note\n").expect("write");
    set_mtime(&w.join("notes/kb/new.md"), "2026-04-10T11:30:00Z");
    std::fs::write(
        w.join("notes/kb/tantivy-locks.md"),
        "# Tantivy writer lock contention\nchanged\n",
    )
    .expect("write");
    set_mtime(&w.join("notes/kb/tantivy-locks.md"), "2026-04-10T11:45:00Z");
    std::fs::remove_file(w.join("sessions/2026/04/s1.md")).expect("rm");
    let (_, r) = recent(&home, &["--since", "7d"]);
    assert_eq!((r.n_total, r.pending), (4, 2));
    let first = &r.items[0];
    assert_eq!(
        (first.uri.as_str(), first.title.as_str(), first.indexed),
        (
            "brain://notes/kb/tantivy-locks.md",
            "Tantivy writer lock contention",
            false
        )
    );
    assert_eq!(
        (first.age.as_str(), first.visible_at.as_str()),
        ("15 min ago", "2026-04-10T11:45:00+00:00")
    );
    let new = r
        .items
        .iter()
        .find(|i| i.path == "kb/new.md")
        .expect("new note listed");
    assert_eq!(
        (new.title.as_str(), new.date.as_str(), new.indexed),
        ("new", "", false)
    );
    assert!(
        r.items.iter().all(|i| i.path != "2026/04/s1.md"),
        "deleted file listed"
    );
    // After indexing, nothing is pending.
    assert!(
        run(command("lexindex", &home).args(["--all", "--quiet"]), b"")
            .status
            .success()
    );
    let (_, r) = recent(&home, &["--since", "7d"]);
    assert_eq!(r.pending, 0);
    // The walk logged a telemetry row with walk_ms and n_total.
    let log = std::fs::read_to_string(home.join("logs/usage.jsonl")).expect("usage");
    let rows: Vec<serde_json::Value> = log
        .lines()
        .map(|l| serde_json::from_str(l).expect("row"))
        .collect();
    assert!(
        rows.iter()
            .all(|r| r["event"] == "recent" && r["walk_ms"].is_u64() && r["n_total"] == 4)
    );
}

#[test]
fn a_corrupt_registry_is_an_internal_error() {
    let home = tempfile::tempdir().expect("tempdir");
    std::fs::write(
        home.path().join("state.sqlite"),
        "this is not a database, it is a text file of some length",
    )
    .expect("write");
    let out = run(
        command("brain", home.path()).args(["recent", "--json"]),
        b"",
    );
    assert_eq!(
        out.status.code(),
        Some(99),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let err: Vec<brain_doc::ErrorRecord> = parse_lines(&out.stdout);
    assert_eq!(err[0].error, brain_doc::ErrorCode::Internal);
}
