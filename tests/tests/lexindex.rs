//! `lexindex`: golden dumps, incremental runs (unchanged, touched, edited, deleted), the stdin path
//! agreeing with `--all`, and lock contention.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, SystemTime};

use brain_tests::{command, golden, parse_lines, run};
use serde::Deserialize;

/// `lexindex --json` summary (mirrors `brain_lex::Summary`).
#[derive(Debug, Deserialize, PartialEq)]
struct Summary {
    kind: String,
    added: u64,
    updated: u64,
    removed: u64,
    unchanged: u64,
    skipped: u64,
    passages: u64,
}

/// `lexindex --dump` record, the fields these tests look at.
#[derive(Debug, Deserialize, PartialEq)]
struct Passage {
    id: String,
    passage: u64,
    line: u64,
    title: String,
    text: String,
    sha256: String,
}

/// A fixed mtime for golden inputs (2026-04-01T00:00:00Z), so dates of frontmatter-less notes are stable.
const FIXED_MTIME: u64 = 1_775_001_600;

fn set_mtimes(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            set_mtimes(&p);
        } else if let Ok(f) = std::fs::File::options().append(true).open(&p) {
            let _ = f.set_modified(SystemTime::UNIX_EPOCH + Duration::from_secs(FIXED_MTIME));
        }
    }
}

/// Golden setup: fix the mtimes under `home/`, then run `lexindex` with `setup-args` / `setup-stdin`.
fn setup(work: &Path) {
    let home = work.join("home");
    set_mtimes(&home);
    let Ok(args) = std::fs::read_to_string(work.join("setup-args")) else {
        return;
    };
    let stdin = std::fs::read(work.join("setup-stdin")).unwrap_or_default();
    let mut cmd = command("lexindex", &home);
    cmd.args(args.lines().filter(|l| !l.is_empty()));
    let out = run(&mut cmd, &stdin);
    assert!(
        out.status.success(),
        "setup: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn golden_cases() {
    golden("lexindex", "lexindex", setup);
}

fn lexindex(home: &Path, args: &[&str], stdin: &[u8]) -> (Option<i32>, Vec<u8>, String) {
    let out = run(command("lexindex", home).args(args), stdin);
    (
        out.status.code(),
        out.stdout,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn summary(home: &Path, args: &[&str]) -> Summary {
    let mut all = vec!["--json", "-q"];
    all.extend_from_slice(args);
    let (code, stdout, stderr) = lexindex(home, &all, b"");
    assert_eq!(code, Some(0), "{stderr}");
    let mut s: Vec<Summary> = parse_lines(&stdout);
    assert_eq!(s.len(), 1);
    s.remove(0)
}

fn dump(home: &Path) -> Vec<Passage> {
    let (code, stdout, stderr) = lexindex(home, &["--dump"], b"");
    assert_eq!(code, Some(0), "{stderr}");
    parse_lines(&stdout)
}

fn note(home: &Path, rel: &str, text: &str) {
    let p = home.join("corpus/brain").join(rel);
    std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
    std::fs::write(p, text).expect("write");
}

#[test]
fn incremental_runs_add_update_skip_and_remove() {
    let home = tempfile::tempdir().expect("tempdir");
    let h = home.path();
    note(h, "a.md", "# Alpha\nparse_config fails\n");
    note(h, "x/b.md", "# Beta\nretry the writer lock\n");
    note(
        h,
        "x/c.md",
        "# Gamma\nsecond passage later\n# Delta\nmore\n",
    );
    let first = summary(h, &["--all"]);
    assert_eq!(
        (first.kind.as_str(), first.added, first.passages),
        ("lexindex_summary", 3, 4)
    );
    let before = dump(h);
    assert_eq!(before.len(), 4);

    // Nothing changed: nothing is re-indexed and the index holds the same passages.
    let again = summary(h, &["--all"]);
    assert_eq!(
        (
            again.added,
            again.updated,
            again.removed,
            again.unchanged,
            again.passages
        ),
        (0, 0, 0, 3, 0)
    );
    assert_eq!(dump(h), before);

    // Touched but identical: unchanged; edited: updated; deleted: removed with all its passages.
    let a = h.join("corpus/brain/a.md");
    std::fs::File::options()
        .append(true)
        .open(&a)
        .expect("open")
        .set_modified(SystemTime::now() + Duration::from_secs(5))
        .expect("touch");
    note(h, "x/b.md", "# Beta\nretry the writer lock twice\n");
    std::fs::remove_file(h.join("corpus/brain/x/c.md")).expect("rm");
    let third = summary(h, &["--all"]);
    assert_eq!(
        (third.added, third.updated, third.removed, third.unchanged),
        (0, 1, 1, 1)
    );
    let after = dump(h);
    assert!(after.iter().all(|p| p.id != "brain/x/c.md"), "{after:?}");
    let b: Vec<&Passage> = after.iter().filter(|p| p.id == "brain/x/b.md").collect();
    assert_eq!(b.len(), 1);
    assert!(b[0].text.contains("twice"));
}

#[test]
fn the_stop_hook_path_and_all_agree() {
    let home = tempfile::tempdir().expect("tempdir");
    let h = home.path();
    let record = br###"{"schema":1,"kind":"doc","id":"s1","collection":null,"path":"s1.md","title":"Session one","date":"2026-04-02T10:00:00Z","source":{"type":"session","agent":"claude","file":"~/s1.jsonl"},"meta":{"project":"brain"},"body":"## Conversation\n\n**User**: fix ENOENT in src/main.rs\n"}"###;
    let parted = run(&mut command("partition", h), record);
    assert!(parted.status.success());
    let (code, stdout, stderr) = lexindex(h, &["--json", "-q"], &parted.stdout);
    assert_eq!(code, Some(0), "{stderr}");
    let s: Vec<Summary> = parse_lines(&stdout);
    assert_eq!((s[0].added, s[0].passages), (1, 1));
    let passages = dump(h);
    assert_eq!(passages.len(), 1);
    assert_eq!(
        (passages[0].id.as_str(), passages[0].title.as_str()),
        ("brain/2026/04/s1.md", "Session one")
    );
    let file = h.join("corpus/brain/2026/04/s1.md");
    let text = std::fs::read_to_string(&file).expect("partition wrote the file");
    assert_eq!(passages[0].sha256, brain_doc::sha256_hex(text.as_bytes()));
    let line_text = text
        .lines()
        .nth(passages[0].line as usize - 1)
        .expect("line");
    assert_eq!(line_text, "## Conversation");
    // `--all` sees the file the hook indexed as unchanged.
    let all = summary(h, &["--all"]);
    assert_eq!(
        (all.added, all.updated, all.removed, all.unchanged),
        (0, 0, 0, 1)
    );
}

#[test]
fn a_rebuild_holds_each_document_once() {
    let home = tempfile::tempdir().expect("tempdir");
    let h = home.path();
    note(h, "a.md", "# Alpha\nparse_config fails\n");
    note(h, "b.md", "# Beta\nretry the writer lock\n# Gamma\nmore\n");
    summary(h, &["--all"]);
    let before = dump(h);
    assert_eq!(before.len(), 3);
    // A rebuild starts from an empty index (it skips the delete of an id it has not put yet):
    // the same passages, none twice.
    let rebuilt = summary(h, &["--all", "--rebuild"]);
    assert_eq!((rebuilt.added, rebuilt.passages), (2, 3));
    assert_eq!(dump(h), before);
    // The same document twice in one rebuild from stdin: the second replaces the first.
    let rec = |body: &str| {
        format!(
            r#"{{"schema":1,"kind":"doc","id":"s1","collection":"brain","path":"s1.md","title":"S","date":"2026-04-02T10:00:00Z","source":{{"type":"session","agent":"claude","file":"~/s1.jsonl"}},"meta":{{}},"body":"{body}"}}"#
        )
    };
    let stdin = format!(
        "{}\n{}\n",
        rec("first version\\n"),
        rec("second version\\n")
    );
    let (code, _, stderr) = lexindex(h, &["--rebuild", "-q"], stdin.as_bytes());
    assert_eq!(code, Some(0), "{stderr}");
    let after = dump(h);
    let s1: Vec<&Passage> = after.iter().filter(|p| p.id == "brain/s1.md").collect();
    assert_eq!(s1.len(), 1, "{after:?}");
    assert!(s1[0].text.contains("second version"), "{:?}", s1[0]);
}

#[test]
fn an_index_of_an_older_schema_is_refused_by_readers_and_rebuilt_by_a_full_run() {
    let home = tempfile::tempdir().expect("tempdir");
    let h = home.path();
    note(h, "a.md", "# Alpha\nparse_config fails\n");
    summary(h, &["--all"]);
    // As an older brain left it.
    std::fs::write(h.join("index/lex/SCHEMA_VERSION"), "1\n").expect("write");
    let out = run(command("rank", h).arg("parse_config"), b"");
    assert_eq!(out.status.code(), Some(65));
    assert!(String::from_utf8_lossy(&out.stderr).contains("lexindex --all"));
    // A stdin run cannot rebuild what it is not given: it refuses too.
    let (code, _, _) = lexindex(h, &["-q"], b"");
    assert_eq!(code, Some(65));
    let (code, _, stderr) = lexindex(h, &["--all"], b"");
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stderr.contains("rebuilding it"), "{stderr}");
    let out = run(command("rank", h).arg("parse_config"), b"");
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(dump(h).len(), 1);
}

#[test]
fn a_record_without_collection_is_skipped_with_a_warning() {
    let home = tempfile::tempdir().expect("tempdir");
    let record = br###"{"schema":1,"kind":"doc","id":"s1","collection":null,"path":"s1.md","title":"t","date":"","source":{"type":"note","file":""},"meta":{},"body":"x\n"}"###;
    let (code, _, stderr) = lexindex(home.path(), &[], record);
    assert_eq!(code, Some(0));
    assert!(
        stderr.contains("lexindex: warning: <stdin>: doc `s1` has no collection"),
        "{stderr}"
    );
    assert!(stderr.contains("1 skipped"), "{stderr}");
    let (code, _, stderr) = lexindex(home.path(), &["--collection", "inbox", "-q"], record);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(dump(home.path()).len(), 1);
}

#[test]
fn a_second_writer_exits_70() {
    let home = tempfile::tempdir().expect("tempdir");
    let lock = home.path().join("locks/lexindex.lock");
    std::fs::create_dir_all(lock.parent().expect("parent")).expect("mkdir");
    // flock(1) takes the same flock(2) lock std's File::try_lock does.
    let mut holder = Command::new("flock")
        .arg(&lock)
        .args(["sh", "-c", "echo held; read _"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("flock");
    let mut first = [0u8; 5];
    std::io::Read::read_exact(holder.stdout.as_mut().expect("stdout"), &mut first).expect("held");
    let (code, _, stderr) = lexindex(home.path(), &["--all"], b"");
    drop(holder.stdin.take());
    let _ = holder.wait();
    assert_eq!(code, Some(70), "{stderr}");
    assert!(
        stderr.contains("fix: wait for the running lexindex"),
        "{stderr}"
    );
}

/// A home with one `notes` collection of `n` generated notes, indexed.
fn big_home(n: usize) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    let home = dir.path().join("home");
    let notes = dir.path().join("notes");
    brain_tests::notes_home(&home, &notes);
    // Every note scores differently for the test query (its own counts of the two words and its
    // own length), so the answer does not depend on how ties at the candidate cut fall.
    for i in 0..n {
        let mut body = format!("---\ntitle: Note {i}\n---\n# Note {i}\n\n");
        body.push_str(&"segment ".repeat(i % 13 + 1));
        body.push_str(&"merge ".repeat(i % 7 + 1));
        body.push('\n');
        for j in 0..(20 + i % 53) {
            body.push_str(&format!(
                "Line {j} of note {i}: the writer waits (case {}).\n",
                i * 100 + j
            ));
        }
        std::fs::write(notes.join(format!("n{i:05}.md")), body).expect("note");
    }
    dir
}

fn ranked(home: &Path) -> (Option<i32>, Vec<String>, String) {
    let out = run(
        command("rank", home).args(["segment", "merge", "-n", "20"]),
        b"",
    );
    let hits: Vec<brain_doc::Hit> = parse_lines(&out.stdout);
    (
        out.status.code(),
        hits.into_iter().map(|h| h.uri).collect(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_rebuild_killed_at_any_moment_leaves_the_old_index_answering_and_readers_never_see_a_gap() {
    let dir = big_home(600);
    let home = dir.path().join("home");
    let out = run(command("lexindex", &home).args(["--all", "--quiet"]), b"");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (code, before, _) = ranked(&home);
    assert_eq!(code, Some(0));
    assert_eq!(before.len(), 20);
    for delay_ms in [0u64, 10, 30, 80, 150, 300, 600] {
        let mut child = command("lexindex", &home)
            .args(["--all", "--rebuild", "--quiet"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn");
        // Readers during the rebuild see the old index, whole.
        let start = std::time::Instant::now();
        while start.elapsed() < Duration::from_millis(delay_ms) {
            let (code, now, stderr) = ranked(&home);
            assert_eq!(code, Some(0), "during a rebuild: {stderr}");
            assert_eq!(now, before, "during a rebuild");
        }
        let _ = child.kill(); // SIGKILL
        let _ = child.wait();
        let (code, after, stderr) = ranked(&home);
        assert_eq!(code, Some(0), "after a kill at {delay_ms} ms: {stderr}");
        assert_eq!(after, before, "after a kill at {delay_ms} ms");
    }
    // A rebuild that runs to the end replaces the index in one step and leaves nothing aside.
    let out = run(
        command("lexindex", &home).args(["--all", "--rebuild", "--json"]),
        b"",
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let s: Summary = serde_json::from_slice(&out.stdout).expect("summary");
    assert_eq!((s.added, s.removed), (600, 0));
    assert!(!home.join("index/lex.next").exists());
    assert_eq!(ranked(&home).1, before);
    let doctor = run(command("brain", &home).arg("doctor"), b"");
    let text = String::from_utf8_lossy(&doctor.stdout);
    assert!(
        text.contains("opens: 600 documents, the same as the registry"),
        "{text}"
    );
}

#[test]
fn a_first_build_killed_midway_is_reported_as_under_way_not_as_no_results() {
    let dir = big_home(600);
    let home = dir.path().join("home");
    let mut child = command("lexindex", &home)
        .args(["--all", "--quiet"])
        .stdin(Stdio::null())
        .spawn()
        .expect("spawn");
    // Wait until the build has started aside, then kill it.
    let start = std::time::Instant::now();
    while !home.join("index/lex.next").exists() && start.elapsed() < Duration::from_secs(20) {
        std::thread::sleep(Duration::from_millis(2));
    }
    let _ = child.kill();
    let _ = child.wait();
    if home.join("index/lex/meta.json").exists() {
        return; // it finished first: nothing to observe on this machine
    }
    let (code, hits, stderr) = ranked(&home);
    assert_eq!(code, Some(65), "{stderr}");
    assert!(hits.is_empty());
    assert!(
        stderr.contains("first build is under way, or was interrupted"),
        "{stderr}"
    );
    let ask = run(command("brain", &home).args(["ask", "segment"]), b"");
    assert_eq!(ask.status.code(), Some(65));
    assert!(String::from_utf8_lossy(&ask.stderr).contains("under way"));
    // Running it again completes it.
    let out = run(command("lexindex", &home).args(["--all", "--quiet"]), b"");
    assert!(out.status.success());
    assert_eq!(ranked(&home).1.len(), 20);
    assert!(!home.join("index/lex.next").exists());
}

#[test]
fn a_schema_upgrade_killed_at_any_moment_leaves_the_old_index_whole_and_the_next_run_finishes_it() {
    let dir = big_home(600);
    let home = dir.path().join("home");
    let out = run(command("lexindex", &home).args(["--all", "--quiet"]), b"");
    assert!(out.status.success());
    let (_, before, _) = ranked(&home);
    assert_eq!(before.len(), 20);
    let version = home.join("index/lex/SCHEMA_VERSION");
    let current = std::fs::read_to_string(&version).expect("version");
    for delay_ms in [0u64, 20, 60, 150, 400] {
        // As an older brain left it: readers refuse it and say how to upgrade.
        std::fs::write(&version, "1\n").expect("write");
        let mut child = command("lexindex", &home)
            .args(["--all", "--quiet"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn");
        std::thread::sleep(Duration::from_millis(delay_ms));
        let _ = child.kill(); // SIGKILL, mid-upgrade (or after it finished)
        let _ = child.wait();
        let now = std::fs::read_to_string(&version).expect("version after a kill");
        let (code, hits, stderr) = ranked(&home);
        if now == current {
            // The upgrade finished before the kill: the new index answers whole.
            assert_eq!((code, &hits), (Some(0), &before), "{delay_ms} ms: {stderr}");
        } else {
            // Killed before the swap: the old index is still there, whole, and still refused
            // with the fix — never a half-built index, never "no results".
            assert_eq!(now, "1\n", "{delay_ms} ms");
            assert_eq!(code, Some(65), "{delay_ms} ms: {stderr}");
            assert!(stderr.contains("lexindex --all"), "{stderr}");
        }
        // The next full run finishes the upgrade.
        let out = run(command("lexindex", &home).args(["--all", "--quiet"]), b"");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(std::fs::read_to_string(&version).expect("version"), current);
        assert_eq!(
            ranked(&home).1,
            before,
            "after the upgrade resumed at {delay_ms} ms"
        );
        assert!(!home.join("index/lex.next").exists());
    }
}

/// A stop-hook record of 150 sections (one passage each) that all hold `quokka`.
fn hook_record(i: usize) -> Vec<u8> {
    let body: String = (0..150)
        .map(|s| format!("## Part {s}\\n\\nquokka {i} part {s}\\n\\n"))
        .collect();
    format!(
        r#"{{"schema":1,"kind":"doc","id":"h{i}","collection":"notes","path":"h{i}.md","title":"Hook {i}","date":"2026-04-02T10:00:00Z","source":{{"type":"session","agent":"claude","file":"~/h{i}.jsonl"}},"meta":{{}},"body":"{body}"}}"#
    )
    .into_bytes()
}

/// Stdin runs merge the small segments the runs before them wrote (`SMALL_SEGMENTS_BEFORE_MERGE`).
/// One killed at any moment — while it indexes, commits or merges — leaves the index answering
/// with every record a finished run wrote; fed again, its record is indexed once.
#[test]
fn a_stdin_run_killed_while_it_merges_small_segments_loses_nothing() {
    use std::io::Write;
    let dir = big_home(200);
    let home = dir.path().join("home");
    let out = run(command("lexindex", &home).args(["--all", "--quiet"]), b"");
    assert!(out.status.success());
    let feed = |i: usize| {
        let out = run(command("lexindex", &home).arg("--quiet"), &hook_record(i));
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    let mut done: Vec<usize> = Vec::new();
    let mut i = 0;
    for delay_ms in [5u64, 15, 30, 50, 80, 120] {
        // Finished runs: their small segments pile up towards a merge.
        for _ in 0..3 {
            feed(i);
            done.push(i);
            i += 1;
        }
        let mut child = command("lexindex", &home)
            .arg("--quiet")
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn");
        let mut stdin = child.stdin.take().expect("stdin");
        let _ = stdin.write_all(&hook_record(i));
        drop(stdin);
        std::thread::sleep(Duration::from_millis(delay_ms));
        let _ = child.kill(); // SIGKILL
        let _ = child.wait();
        let out = run(command("rank", &home).args(["quokka", "-n", "1000"]), b"");
        assert_eq!(
            out.status.code(),
            Some(0),
            "after a kill at {delay_ms} ms: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let hits: Vec<brain_doc::Hit> = parse_lines(&out.stdout);
        for d in &done {
            let want = format!("/h{d}.md");
            assert!(
                hits.iter().any(|h| h.uri.ends_with(&want)),
                "after a kill at {delay_ms} ms: h{d} lost"
            );
        }
        feed(i);
        done.push(i);
        i += 1;
    }
    // Nothing lost, nothing twice: the index opens with as many documents as the registry holds.
    let doctor = run(command("brain", &home).arg("doctor"), b"");
    let text = String::from_utf8_lossy(&doctor.stdout);
    let want = format!(
        "opens: {} documents, the same as the registry",
        200 + done.len()
    );
    assert!(text.contains(&want), "{text}");
    let lex = brain_lex::LexIndex::open(&brain_store::Home::at(&home)).expect("open");
    let small = lex
        .index()
        .searchable_segment_metas()
        .expect("metas")
        .iter()
        .filter(|m| m.num_docs() <= brain_lex::SMALL_SEGMENT_PASSAGES)
        .count();
    assert!(
        small < brain_lex::SMALL_SEGMENTS_BEFORE_MERGE,
        "{small} small segments"
    );
}
