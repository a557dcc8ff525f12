//! `partition`: golden cases, and the files it writes parse back into the records it prints.

use brain_doc::Doc;
use brain_tests::{command, golden, parse_lines, run, workspace};

#[test]
fn golden_cases() {
    golden("partition", "partition", |_| {});
}

#[test]
fn written_files_round_trip_to_the_printed_records_and_rerun_writes_nothing() {
    let home = tempfile::tempdir().expect("tempdir");
    let input =
        std::fs::read(workspace().join("golden/partition/default-rules/stdin")).expect("stdin");
    let out = run(&mut command("partition", home.path()), &input);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let docs: Vec<Doc> = parse_lines(&out.stdout);
    assert_eq!(
        docs.len(),
        4,
        "two sessions, a browser day, a note; the bad line and the unknown collection skipped"
    );
    for d in &docs {
        let collection = d.collection.as_deref().expect("collection set");
        assert_eq!(d.id, format!("{collection}/{}", d.path));
        assert!(!d.path.contains(".."), "{}", d.path);
        let file = home.path().join("corpus").join(collection).join(&d.path);
        let text =
            std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        assert_eq!(&Doc::from_markdown(&text).expect("markdown"), d);
    }
    let kinds: Vec<(&str, &str)> = docs
        .iter()
        .map(|d| {
            (
                d.source.kind.as_str(),
                d.collection.as_deref().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(
        kinds,
        [
            ("session", "brain"),
            ("session", "brain"),
            ("browser", "chrome-history"),
            ("note", "brain")
        ]
    );

    // Re-partitioning the output is a no-op: same records, no file rewritten.
    let again = run(&mut command("partition", home.path()), &out.stdout);
    assert_eq!(parse_lines::<Doc>(&again.stdout), docs);
    let stderr = String::from_utf8_lossy(&again.stderr);
    assert!(
        stderr.contains("0 written, 4 unchanged, 0 skipped"),
        "{stderr}"
    );
}

/// A minimal Claude Code transcript of session `sid` saying `text`.
fn transcript(sid: &str, text: &str) -> String {
    format!(
        concat!(
            r#"{{"type":"user","sessionId":"{sid}","timestamp":"2026-03-01T10:00:00Z","cwd":"/w","message":{{"role":"user","content":"{text}"}}}}"#,
            "\n",
            r#"{{"type":"assistant","sessionId":"{sid}","timestamp":"2026-03-01T10:00:05Z","message":{{"role":"assistant","model":"m","content":[{{"type":"text","text":"ok: {text}"}}]}}}}"#,
            "\n"
        ),
        sid = sid,
        text = text
    )
}

fn ok(out: &std::process::Output) -> String {
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    stderr
}

/// `jsonl2md <paths> | partition | lexindex` in `home`, run from `cwd`; the partition stderr.
fn pipeline(home: &std::path::Path, cwd: &std::path::Path, paths: &[&std::path::Path]) -> String {
    let mut j = command("jsonl2md", home);
    j.current_dir(cwd).args(paths);
    let docs = run(&mut j, b"");
    ok(&docs);
    let placed = run(&mut command("partition", home), &docs.stdout);
    let stderr = ok(&placed);
    ok(&run(&mut command("lexindex", home), &placed.stdout));
    stderr
}

fn corpus_files(home: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![home.join("corpus")];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

#[test]
fn two_sessions_stored_under_one_file_name_are_two_documents_on_every_run_from_any_folder() {
    let home = tempfile::tempdir().expect("tempdir");
    let src = tempfile::tempdir().expect("tempdir");
    let (a, b) = (src.path().join("a"), src.path().join("b"));
    for (dir, sid, text) in [
        (&a, "sid-aaaa", "alpha words"),
        (&b, "sid-bbbb", "bravo words"),
    ] {
        std::fs::create_dir_all(dir).expect("mkdir");
        std::fs::write(dir.join("turn-1.jsonl"), transcript(sid, text)).expect("write");
    }
    pipeline(home.path(), src.path(), &[std::path::Path::new(".")]);
    let files = corpus_files(home.path());
    assert_eq!(files.len(), 2, "{files:?}");
    let bodies: Vec<String> = files
        .iter()
        .map(|f| std::fs::read_to_string(f).expect("read"))
        .collect();
    assert!(bodies.iter().any(|b| b.contains("alpha words")));
    assert!(bodies.iter().any(|b| b.contains("bravo words")));
    // The same files again, named from another folder by absolute paths: the same two documents.
    pipeline(home.path(), home.path(), &[&a, &b]);
    assert_eq!(corpus_files(home.path()), files);
    let doctor = run(
        command("brain", home.path()).args(["doctor", "--json"]),
        b"",
    );
    let report: serde_json::Value = serde_json::from_slice(&doctor.stdout).expect("report");
    let identity = report["checks"]
        .as_array()
        .and_then(|c| c.iter().find(|c| c["name"] == "identity"))
        .expect("identity check");
    assert_eq!(identity["outcome"], "pass", "{identity}");
}

#[test]
fn a_document_never_overwrites_another_sources_file_it_moves_aside_and_stays_there() {
    let home = tempfile::tempdir().expect("tempdir");
    let record = |file: &str, body: &str| {
        let mut d = Doc::new(
            "same",
            "T",
            "2026-03-01T10:00:00Z",
            brain_doc::Source::new("session", file),
        );
        d.body = body.into();
        serde_json::to_string(&d).expect("json")
    };
    let input = format!(
        "{}\n{}\n",
        record("~/a/same.jsonl", "first body"),
        record("~/b/same.jsonl", "second body")
    );
    let out = run(&mut command("partition", home.path()), input.as_bytes());
    let stderr = ok(&out);
    assert!(stderr.contains("1 moved aside"), "{stderr}");
    let docs: Vec<Doc> = parse_lines(&out.stdout);
    assert_eq!(docs.len(), 2);
    assert_ne!(docs[0].id, docs[1].id);
    assert!(
        docs[1].path.starts_with("2026/03/same-"),
        "{}",
        docs[1].path
    );
    for d in &docs {
        let file = home.path().join("corpus/brain").join(&d.path);
        let text = std::fs::read_to_string(&file).expect("on disk");
        assert_eq!(&Doc::from_markdown(&text).expect("doc"), d);
    }
    // Every later run settles the same way and rewrites nothing.
    let again = run(&mut command("partition", home.path()), input.as_bytes());
    assert!(ok(&again).contains("0 written, 2 unchanged"));
    assert_eq!(parse_lines::<Doc>(&again.stdout), docs);
    // lexindex given both under one id (no partition between) indexes the first, refuses the second.
    let clash = input.replace("\"collection\":null", "\"collection\":\"brain\"");
    let lex = run(&mut command("lexindex", home.path()), clash.as_bytes());
    let stderr = String::from_utf8_lossy(&lex.stderr);
    assert!(
        stderr.contains("has the id of the doc from ~/a/same.jsonl"),
        "{stderr}"
    );
    assert!(stderr.contains("1 added"), "{stderr}");
}

#[test]
fn doctor_fails_with_65_when_one_transcript_is_held_by_two_session_documents() {
    let home = tempfile::tempdir().expect("tempdir");
    let src = tempfile::tempdir().expect("tempdir");
    std::fs::write(
        src.path().join("turn-1.jsonl"),
        transcript("sid-x", "words"),
    )
    .expect("write");
    pipeline(
        home.path(),
        src.path(),
        &[std::path::Path::new("turn-1.jsonl")],
    );
    // A home indexed before ids named their source: the old file name holds the same transcript.
    let files = corpus_files(home.path());
    assert_eq!(files.len(), 1);
    let old = files[0].with_file_name("turn-1.md");
    std::fs::copy(&files[0], &old).expect("copy");
    std::fs::File::options()
        .write(true)
        .open(&old)
        .and_then(|f| {
            f.set_modified(std::time::UNIX_EPOCH + std::time::Duration::from_secs(1e9 as u64))
        })
        .expect("an older file");
    ok(&run(command("lexindex", home.path()).arg("--all"), b""));
    let doctor = run(command("brain", home.path()).arg("doctor"), b"");
    assert_eq!(doctor.status.code(), Some(65));
    let text = String::from_utf8_lossy(&doctor.stdout);
    assert!(
        text.contains("1 conversation held by more than one session document"),
        "{text}"
    );
    assert!(text.contains("turn-1.md"), "{text}");
    // --fix keeps the newest copy, moves the older to the attic (never deletes it) and
    // re-indexes: doctor passes again.
    let old_bytes = std::fs::read(&old).expect("old copy");
    let stand = tempfile::tempdir().expect("tempdir");
    let fixed = run(
        brain_tests::scheduled_brain(home.path(), stand.path()).args(["doctor", "--fix"]),
        b"",
    );
    let stderr = String::from_utf8_lossy(&fixed.stderr);
    assert!(
        stderr.contains("moved") && stderr.contains("turn-1.md") && stderr.contains("attic"),
        "{stderr}"
    );
    let kept: Vec<Vec<u8>> = brain_tests::tree(&home.path().join("attic"))
        .into_iter()
        .filter(|(name, _)| name.ends_with("turn-1.md"))
        .map(|(_, bytes)| bytes)
        .collect();
    assert_eq!(
        kept,
        [old_bytes],
        "the older copy is in the attic, byte for byte"
    );
    assert_eq!(
        fixed.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&fixed.stdout)
    );
    assert_eq!(corpus_files(home.path()), files);
}

#[test]
fn every_session_of_the_real_corpora_is_on_disk_after_partition() {
    let home = tempfile::tempdir().expect("tempdir");
    let Some((written, placed)) = brain_tests::real_sessions(home.path()) else {
        return;
    };
    let ids: std::collections::BTreeSet<String> = parse_lines::<Doc>(&placed)
        .into_iter()
        .map(|d| d.id)
        .collect();
    assert_eq!(
        ids.len(),
        written.len(),
        "one document per session, none merged"
    );
    assert_eq!(corpus_files(home.path()).len(), written.len());
    // 136 on 2026-11-25: orphan subagents are grouped under their absent parent session and
    // warm-up probes are housekeeping (149 before).
    assert!(written.len() >= 130, "{}", written.len());
}
