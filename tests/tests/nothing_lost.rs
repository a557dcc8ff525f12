//! Nothing the user owns is ever destroyed (issue 37): `brain doctor --fix` over a home built from
//! every corpus keeps every document; whatever removes a document removes its vectors too.

use std::path::{Path, PathBuf};

use brain_tests::{command, run};

fn ok(out: &std::process::Output, what: &str) -> String {
    assert!(
        out.status.success(),
        "{what}: exit {:?}\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Every file under the home's collections (the vault's folders, the corpus, the inbox), by
/// path, with its bytes.
fn documents(work: &Path) -> Vec<(String, Vec<u8>)> {
    let mut all = Vec::new();
    for sub in [
        "life",
        "memory",
        "core",
        "notes",
        "sessions",
        "home/corpus",
        "home/inbox",
    ] {
        for (name, bytes) in brain_tests::tree(&work.join(sub)) {
            all.push((format!("{sub}/{name}"), bytes));
        }
    }
    all.sort();
    all
}

/// The vault fixture (notes, daily notes, entity facts, sessions, inbox) plus every agent's and
/// every store's sessions of ../shared/corpora in `brain`, every readable History of the Chrome
/// corpus as browser days, and an inbox capture, indexed. `None` without the corpora.
fn every_corpus_home(work: &Path) -> Option<PathBuf> {
    let corpora = brain_tests::corpus("")?;
    let home = brain_tests::vault_home(work, false)?;
    // The vault's brain.yaml plus the pipeline collections sessions and browser days go to.
    let yaml = std::fs::read_to_string(home.join("brain.yaml")).expect("brain.yaml");
    let yaml = yaml.replace(
        "partition:\n",
        "  - name: brain\n    path: corpus/brain\n    role: sessions\n  - name: chrome-history\n    path: corpus/chrome-history\n    role: browser\n    trust: low\npartition:\n",
    ) + "  rules:\n    - collection: brain\n      kind: session\n    - collection: chrome-history\n      kind: browser\n      layout: year\n";
    std::fs::write(home.join("brain.yaml"), yaml).expect("brain.yaml");
    let agents = brain_tests::agent_folders(&corpora);
    let docs = run(command("jsonl2md", &home).args(&agents), b"");
    ok(&docs, "jsonl2md");
    let mut records = docs.stdout;
    let mut histories = Vec::new();
    for entry in walkdir::WalkDir::new(corpora.join("chrome"))
        .into_iter()
        .flatten()
    {
        let name = entry.file_name().to_string_lossy().into_owned();
        if entry.file_type().is_file() && (name.starts_with("History") || name.ends_with(".sqlite"))
        {
            histories.push(entry.path().to_path_buf());
        }
    }
    let mut days = 0;
    for h in &histories {
        let out = brain_tests::chrome2md_once(&home, h);
        if out.status.success() {
            days += out.stdout.iter().filter(|&&b| b == b'\n').count();
            records.extend_from_slice(&out.stdout);
        }
    }
    assert!(
        days > 0,
        "no browser day from {} History files",
        histories.len()
    );
    ok(
        &run(&mut command("partition", &home), &records),
        "partition",
    );
    ok(
        &run(
            command("brain", &home)
                .args(["inbox", "decided: the release train leaves on Thursdays"]),
            b"",
        ),
        "brain inbox",
    );
    ok(
        &run(command("lexindex", &home).arg("--all"), b""),
        "lexindex --all",
    );
    Some(home)
}

#[test]
fn doctor_fix_over_a_home_of_every_corpus_keeps_every_document() {
    let work = tempfile::tempdir().expect("tempdir");
    let Some(home) = every_corpus_home(work.path()) else {
        return;
    };
    let before = documents(work.path());
    let sessions = before
        .iter()
        .filter(|(n, _)| n.starts_with("home/corpus/brain/"))
        .count();
    let stores = before
        .iter()
        .filter(|(n, _)| {
            n.contains("/cursor__") || n.contains("/opencode__") || n.contains("/aider__")
        })
        .count();
    // 189 sessions on 2026-11-26, 39 of them from Cursor, OpenCode and Aider stores.
    assert!(
        sessions >= 150 && stores >= 30,
        "{sessions} sessions, {stores} from stores"
    );
    assert!(
        before
            .iter()
            .any(|(n, _)| n.starts_with("home/corpus/chrome-history/"))
    );
    assert!(before.iter().any(|(n, _)| n.starts_with("home/inbox/")));
    assert!(before.iter().any(|(n, _)| n.contains("inbox/entities/")));
    let identity = brain_tests::doctor_check(&home, "identity");
    assert_eq!(identity["outcome"], "pass", "{identity}");

    let fixed = run(command("brain", &home).args(["doctor", "--fix"]), b"");
    let stderr = String::from_utf8_lossy(&fixed.stderr);
    assert!(!stderr.contains("moved "), "{stderr}");
    let after = documents(work.path());
    assert_eq!(
        before.iter().map(|(n, _)| n).collect::<Vec<_>>(),
        after.iter().map(|(n, _)| n).collect::<Vec<_>>(),
        "every document is still there"
    );
    assert!(before == after, "and holds the same bytes");
    eprintln!(
        "doctor --fix on a home of every corpus: {} documents before ({sessions} sessions, {stores} of them from stores), {} after, 0 moved",
        before.len(),
        after.len()
    );
    assert!(!home.join("attic").exists());
    let report: serde_json::Value = serde_json::from_slice(
        &run(
            brain_tests::scheduled_brain(&home, work.path()).args(["doctor", "--json"]),
            b"",
        )
        .stdout,
    )
    .expect("doctor json");
    for c in report["checks"].as_array().expect("checks") {
        assert_ne!(c["outcome"], "fail", "{c}");
    }
}

#[test]
fn a_real_copy_of_a_store_conversation_is_moved_to_the_attic_not_deleted() {
    let work = tempfile::tempdir().expect("tempdir");
    let home = work.path().join("home");
    let Some(cursor) = brain_tests::corpus("cursor") else {
        return;
    };
    let docs = run(command("jsonl2md", &home).arg(&cursor), b"");
    ok(&docs, "jsonl2md");
    ok(
        &run(&mut command("partition", &home), &docs.stdout),
        "partition",
    );
    let corpus = home.join("corpus/brain");
    let files: Vec<(String, Vec<u8>)> = brain_tests::tree(&corpus);
    assert!(files.len() > 10, "{}", files.len());
    // One conversation written twice (a copy under an older name, older on disk).
    let (name, bytes) = &files[0];
    let copy = corpus.join(name).with_file_name("old-copy.md");
    std::fs::write(&copy, bytes).expect("copy");
    std::fs::File::options()
        .write(true)
        .open(&copy)
        .and_then(|f| f.set_modified(std::time::UNIX_EPOCH + std::time::Duration::from_secs(1)))
        .expect("older");
    ok(
        &run(command("lexindex", &home).arg("--all"), b""),
        "lexindex",
    );
    let identity = brain_tests::doctor_check(&home, "identity");
    assert_eq!(identity["outcome"], "fail", "{identity}");
    assert!(
        identity["summary"]
            .as_str()
            .is_some_and(|s| s.starts_with("1 conversation held by more than one")),
        "{identity}"
    );
    let fixed = run(
        brain_tests::scheduled_brain(&home, work.path()).args(["doctor", "--fix"]),
        b"",
    );
    assert_eq!(
        fixed.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&fixed.stdout)
    );
    assert!(!copy.exists());
    let attic = brain_tests::tree(&home.join("attic"));
    assert_eq!(attic.len(), 1, "{attic:?}");
    assert!(attic[0].0.ends_with("old-copy.md"));
    assert_eq!(&attic[0].1, bytes);
    // Every other conversation stays where it was.
    assert_eq!(brain_tests::tree(&corpus), files);
}

// ---------------------------------------------------------------------------------------------
// The stop hook under contention: no session is dropped.

const WORDS: [&str; 10] = [
    "alfa", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliett",
];

/// A Claude Code transcript of one exchange naming `word`, at the agent's default place under
/// `home` (the test's HOME).
fn session(home: &Path, i: usize, word: &str) -> PathBuf {
    let dir = home.join(".claude/projects/-w");
    std::fs::create_dir_all(&dir).expect("projects");
    let sid = format!("00000000-0000-4000-8000-{i:012}");
    let path = dir.join(format!("{sid}.jsonl"));
    let text = format!("the contention probe {word}zulu");
    std::fs::write(
        &path,
        format!(
            concat!(
                r#"{{"type":"user","sessionId":"{sid}","timestamp":"2026-03-01T10:00:0{i}Z","cwd":"/w","message":{{"role":"user","content":"{text}"}}}}"#,
                "\n",
                r#"{{"type":"assistant","sessionId":"{sid}","timestamp":"2026-03-01T10:00:0{i}Z","message":{{"role":"assistant","model":"m","content":[{{"type":"text","text":"ok: {text}"}}]}}}}"#,
                "\n"
            ),
            sid = sid,
            i = i % 10,
            text = text
        ),
    )
    .expect("transcript");
    path
}

/// A session of each word of [`WORDS`] under `home`.
fn sessions(home: &Path) -> Vec<PathBuf> {
    WORDS
        .iter()
        .enumerate()
        .map(|(i, w)| session(home, i, w))
        .collect()
}

/// Each session of [`WORDS`] is found by its word, and the index holds each file of the corpus
/// once (no session indexed twice, none left out).
fn every_word_found_once(home: &Path) {
    for w in WORDS {
        let ask = run(
            command("brain", home).args(["ask", "--json", "--mode", "lex", &format!("{w}zulu")]),
            b"",
        );
        let v: serde_json::Value = serde_json::from_slice(&ask.stdout).expect("envelope");
        assert!(
            v["hits"].as_array().is_some_and(|h| !h.is_empty()),
            "{w}: {v}"
        );
    }
    let files = brain_tests::tree(&home.join("corpus/brain")).len();
    let ids = indexed(home);
    assert_eq!(
        ids.iter().filter(|i| i.starts_with("brain/")).count(),
        files
    );
}

fn spawn_hook(home: &Path, transcript: &Path) -> std::process::Child {
    spawn_hook_with(home, transcript, &[])
}

/// [`spawn_hook`] with `env` set for the hook.
fn spawn_hook_with(home: &Path, transcript: &Path, env: &[(&str, &str)]) -> std::process::Child {
    use std::io::Write;
    // The home `brain hook install` made: a hook never makes one.
    std::fs::create_dir_all(home).expect("home");
    let mut c = std::process::Command::new("bash");
    c.arg(brain_tests::workspace().join("pipelines/stop-hook.sh"))
        .env("BRAIN_HOME", home)
        .env("HOME", home)
        .env("BRAIN_BIN", brain_tests::bin("brain"))
        .env_remove("BRAIN_TELEMETRY")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    for (k, v) in env {
        c.env(k, v);
    }
    let mut child = c.spawn().expect("hook");
    let payload = format!(
        r#"{{"session_id":"s","transcript_path":{},"hook_event_name":"Stop"}}"#,
        serde_json::to_string(&transcript.display().to_string()).expect("json")
    );
    if let Some(mut stdin) = child.stdin.take() {
        let _ = stdin.write_all(payload.as_bytes());
    }
    child
}

/// The ids the lexical index holds (one per document).
fn indexed(home: &Path) -> std::collections::BTreeSet<String> {
    let dump = run(command("lexindex", home).arg("--dump"), b"");
    ok(&dump, "lexindex --dump");
    brain_tests::parse_lines::<brain_lex::PassageRecord>(&dump.stdout)
        .into_iter()
        .map(|p| p.id)
        .collect()
}

/// Every session of `WORDS` is in the index once, found by its word, its transcript converted
/// once: `jsonl2md --new` finds nothing left to convert.
fn every_session_searchable_once(home: &Path) {
    let ids = indexed(home);
    let sessions: Vec<&String> = ids.iter().filter(|i| i.starts_with("brain/")).collect();
    assert_eq!(sessions.len(), WORDS.len(), "{ids:?}");
    let corpus = brain_tests::tree(&home.join("corpus/brain"));
    assert_eq!(corpus.len(), WORDS.len(), "one file a session");
    for w in WORDS {
        let ask = run(
            command("brain", home).args(["ask", "--json", "--mode", "lex", &format!("{w}zulu")]),
            b"",
        );
        let v: serde_json::Value = serde_json::from_slice(&ask.stdout).expect("envelope");
        let hits = v["hits"].as_array().map_or(0, Vec::len);
        assert!(hits >= 1, "{w}: {v}");
    }
    let again = run(command("jsonl2md", home).args(["--new", "--quiet"]), b"");
    ok(&again, "jsonl2md --new");
    assert!(
        again.stdout.is_empty(),
        "converted twice: {}",
        String::from_utf8_lossy(&again.stdout)
    );
    assert!(
        !home.join("state").join(brain_lex::queue::FILE).exists(),
        "the queue is emptied"
    );
}

#[test]
fn ten_stop_hooks_at_once_leave_every_session_searchable() {
    let t = tempfile::tempdir().expect("tempdir");
    let home = t.path().join("home");
    let paths = sessions(&home);
    let hooks: Vec<_> = paths.iter().map(|p| spawn_hook(&home, p)).collect();
    for mut h in hooks {
        assert!(h.wait().expect("wait").success());
    }
    // Every one of them, when they have all returned: none gave up on the lock.
    every_session_searchable_once(&home);
}

#[test]
fn stop_hooks_while_another_writer_holds_the_index_queue_their_sessions() {
    let t = tempfile::tempdir().expect("tempdir");
    let home = t.path().join("home");
    let paths = sessions(&home);
    // A writer that holds the index lock past every hook's wait (a long `lexindex --all`).
    let held = brain_store::Lock::try_acquire(&home.join("locks/lexindex.lock")).expect("lock");
    let hooks: Vec<_> = paths.iter().map(|p| spawn_hook(&home, p)).collect();
    for mut h in hooks {
        assert!(h.wait().expect("wait").success());
    }
    drop(held);
    // Nothing was indexed, nothing was lost: all ten are in the queue, each once.
    let (queued, bad) =
        brain_lex::queue::read(&brain_store::Home::at(&home)).expect("the queue reads");
    assert_eq!(bad, 0);
    let ids: std::collections::BTreeSet<String> = queued.iter().map(|e| e.id()).collect();
    assert_eq!(ids.len(), WORDS.len(), "{queued:?}");
    let log = std::fs::read_to_string(home.join("logs/hook.log")).unwrap_or_default();
    assert!(log.contains("records queued"), "{log}");
    // The next run of any writer (here a capture, which indexes one file) indexes them.
    ok(
        &run(
            command("brain", &home).args(["inbox", "a note while the queue waits"]),
            b"",
        ),
        "brain inbox",
    );
    every_session_searchable_once(&home);
}

#[test]
fn stop_hooks_during_a_full_rebuild_lose_no_session() {
    let t = tempfile::tempdir().expect("tempdir");
    let home = t.path().join("home");
    let Some(corpora) = brain_tests::corpus("") else {
        return;
    };
    // A home big enough that a rebuild takes a while.
    let docs = run(
        command("jsonl2md", &home)
            .args(["claude-code", "codex", "gemini", "cursor"].map(|a| corpora.join(a))),
        b"",
    );
    ok(
        &run(&mut command("partition", &home), &docs.stdout),
        "partition",
    );
    let paths = sessions(&home);
    let mut rebuild = command("lexindex", &home)
        .args(["--all", "--rebuild", "--quiet"])
        .stdin(std::process::Stdio::null())
        .spawn()
        .expect("lexindex --all");
    let hooks: Vec<_> = paths.iter().map(|p| spawn_hook(&home, p)).collect();
    for mut h in hooks {
        assert!(h.wait().expect("wait").success());
    }
    assert!(rebuild.wait().expect("wait").success());
    // Whatever was queued behind the rebuild goes in with the next writer's run, whichever it
    // is: here a capture, which indexes one file and walks nothing (the rebuild's own run kept
    // what it read of the queue only when its walk saw the file as it is).
    ok(
        &run(
            command("brain", &home).args(["inbox", "after the rebuild"]),
            b"",
        ),
        "brain inbox",
    );
    every_word_found_once(&home);
    assert!(!home.join("state").join(brain_lex::queue::FILE).exists());
    let sync = brain_tests::doctor_check(&home, "corpus_sync");
    assert_eq!(sync["outcome"], "pass", "{sync}");
}

#[test]
fn files_on_disk_not_indexed_are_named_by_doctor_and_brought_in_by_its_fix() {
    let t = tempfile::tempdir().expect("tempdir");
    let (home, notes) = (t.path().join("home"), t.path().join("notes"));
    brain_tests::notes_home(&home, &notes);
    for (name, text) in [
        ("a.md", "# a\n\nalphaword\n"),
        ("b.md", "# b\n\nbetaword\n"),
    ] {
        std::fs::write(notes.join(name), text).expect("note");
    }
    ok(
        &run(command("lexindex", &home).args(["--all", "--quiet"]), b""),
        "lexindex",
    );
    // Left behind by a run: a new file, a changed one, a deleted one.
    std::fs::write(notes.join("c.md"), "# c\n\ngammaword\n").expect("new");
    std::fs::write(notes.join("a.md"), "# a\n\nalphaword deltaword\n").expect("changed");
    std::fs::remove_file(notes.join("b.md")).expect("gone");
    let sync = brain_tests::doctor_check(&home, "corpus_sync");
    assert_eq!(sync["outcome"], "fail", "{sync}");
    assert!(
        sync["fix"]
            .as_str()
            .is_some_and(|f| f.contains("brain doctor --fix")),
        "{sync}"
    );
    let fixed = run(command("brain", &home).args(["doctor", "--fix"]), b"");
    let said = String::from_utf8_lossy(&fixed.stdout).into_owned() + &ok_or_any(&fixed);
    assert!(
        said.contains("lexindex --all: 1 added, 1 updated, 1 removed"),
        "{said}"
    );
    let sync = brain_tests::doctor_check(&home, "corpus_sync");
    assert_eq!(sync["outcome"], "pass", "{sync}");
    for (word, found) in [
        ("gammaword", true),
        ("deltaword", true),
        ("betaword", false),
    ] {
        let ask = run(
            command("brain", &home).args(["ask", "--json", "--mode", "lex", word]),
            b"",
        );
        let v: serde_json::Value = serde_json::from_slice(&ask.stdout).expect("envelope");
        let hits = v["hits"].as_array().map_or(0, Vec::len);
        assert_eq!(hits > 0, found, "{word}: {v}");
    }
}

/// stderr of a run whatever its exit (doctor --fix exits by its verdict).
fn ok_or_any(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

// ---------------------------------------------------------------------------------------------
// Purge: finished by the next writer whatever stopped it, and it holds.

/// The purged record's secret word: after a purge, no file under the home may hold it.
const SECRET: &str = "zorblaxquint";

/// The files under `home` holding `word`, with how many times each does.
fn holding(home: &Path, word: &str) -> Vec<(String, usize)> {
    brain_tests::tree(home)
        .into_iter()
        .filter_map(|(name, bytes)| {
            let n = bytes
                .windows(word.len())
                .filter(|w| *w == word.as_bytes())
                .count();
            (n > 0).then_some((name, n))
        })
        .collect()
}

/// A notes home of a few notes, one of them holding [`SECRET`], indexed; query text logged (opted
/// in) and the secret asked for, so the usage log names the record too. Returns the home and
/// the secret note's id.
fn purge_home(work: &Path) -> (PathBuf, String) {
    let home = work.join("home");
    let notes = work.join("notes");
    brain_tests::notes_home(&home, &notes);
    let yaml = std::fs::read_to_string(home.join("brain.yaml")).expect("yaml");
    std::fs::write(
        home.join("brain.yaml"),
        yaml + "telemetry:\n  queries: true\n",
    )
    .expect("yaml");
    for i in 0..6 {
        std::fs::write(
            notes.join(format!("n{i}.md")),
            format!("# Note {i}\n\nThe deploy checklist, step {i}: rotate the keys and tag the release.\n"),
        )
        .expect("note");
    }
    std::fs::write(
        notes.join("secret.md"),
        format!("# Private\n\nThe {SECRET} plan: what nobody may keep.\n"),
    )
    .expect("secret");
    ok(
        &run(command("lexindex", &home).arg("--all"), b""),
        "lexindex",
    );
    let ask = run(command("brain", &home).args(["ask", "--json", SECRET]), b"");
    ok(&ask, "ask");
    assert!(!holding(&home, SECRET).is_empty());
    (home, "notes/secret.md".to_string())
}

#[test]
fn a_purge_killed_at_any_point_is_finished_by_the_next_writer() {
    // Kill points from the start of `brain forget --purge` (debug build): before anything, while
    // the intent is written, while the index is opened, purged and merged, after.
    let mut started = 0;
    for delay_ms in [0u64, 4, 7, 10, 13, 16, 19, 22, 25, 28, 32, 40, 60, 120] {
        let work = tempfile::tempdir().expect("tempdir");
        let (home, id) = purge_home(work.path());
        let mut child = command("brain", &home)
            .args(["forget", "--purge", "--yes", &id])
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("forget");
        std::thread::sleep(std::time::Duration::from_millis(delay_ms));
        let _ = child.kill();
        let _ = child.wait();
        let recorded = brain_store::purged::Purged::load(&brain_store::Home::at(&home))
            .expect("purged.json reads whatever the kill")
            .records
            .iter()
            .any(|r| r.id_sha256 == brain_store::purged::id_key(&id));
        if !recorded {
            // Killed before the purge began: nothing of it happened.
            assert!(
                work.path().join("notes/secret.md").exists(),
                "{delay_ms} ms"
            );
            continue;
        }
        started += 1;
        // Between the kill and the next writer, doctor names a purge left half-done (unless it
        // had finished).
        let check = brain_tests::doctor_check(&home, "purges");
        let pending = check["outcome"] == "fail";
        let left = holding(&home, SECRET);
        eprintln!(
            "kill at {delay_ms} ms: purge pending {pending}; before the next writer the text is in {left:?}"
        );
        // The next writer's run (the nightly one) finishes it.
        let next = run(command("lexindex", &home).arg("--all"), b"");
        ok(&next, "lexindex --all");
        if pending {
            assert!(
                String::from_utf8_lossy(&next.stderr)
                    .contains("finished the purge of notes/secret.md"),
                "{}",
                String::from_utf8_lossy(&next.stderr)
            );
        }
        assert_eq!(
            holding(&home, SECRET),
            Vec::<(String, usize)>::new(),
            "{delay_ms} ms"
        );
        assert!(!work.path().join("notes/secret.md").exists());
        assert_eq!(
            brain_tests::doctor_check(&home, "purges")["outcome"],
            "pass"
        );
    }
    assert!(
        started >= 5,
        "only {started} kills landed after the purge began"
    );
}

#[test]
fn a_purged_session_stays_out_when_its_transcript_gains_a_turn() {
    let t = tempfile::tempdir().expect("tempdir");
    let home = t.path().join("home");
    let transcript = session(&home, 1, "kilo");
    let other = session(&home, 2, "lima");
    let hook = |home: &Path| {
        let docs = run(command("jsonl2md", home).args(["--new"]), b"");
        ok(&docs, "jsonl2md");
        let placed = run(&mut command("partition", home), &docs.stdout);
        ok(&placed, "partition");
        ok(
            &run(&mut command("lexindex", home), &placed.stdout),
            "lexindex",
        );
        String::from_utf8_lossy(&docs.stderr).into_owned()
    };
    hook(&home);
    let ids: Vec<String> = indexed(&home)
        .into_iter()
        .filter(|i| i.starts_with("brain/"))
        .collect();
    assert_eq!(ids.len(), 2);
    let ask = run(
        command("brain", &home).args(["ask", "--json", "--mode", "lex", "kilozulu"]),
        b"",
    );
    let v: serde_json::Value = serde_json::from_slice(&ask.stdout).expect("envelope");
    let uri = v["hits"][0]["uri"].as_str().expect("a hit").to_string();
    let id = uri.trim_start_matches("brain://").to_string();
    // The session's record as it was converted before the purge.
    let record = run(command("jsonl2md", &home).arg(&transcript), b"").stdout;
    assert!(!record.is_empty());
    let purge = run(
        command("brain", &home).args(["forget", "--purge", "--yes", &id]),
        b"",
    );
    ok(&purge, "forget --purge");
    let said = String::from_utf8_lossy(&purge.stdout);
    assert!(said.contains("remembered as purged"), "{said}");
    assert!(
        !holding(&home.join("state"), "kilozulu")
            .iter()
            .any(|_| true)
    );
    // The session goes on: a turn more in its transcript, and the other session changes too.
    for (path, word) in [(&transcript, "kilo"), (&other, "lima")] {
        let mut text = std::fs::read_to_string(path).expect("read");
        text.push_str(&format!(
            r#"{{"type":"user","sessionId":"x","timestamp":"2026-03-01T11:00:00Z","cwd":"/w","message":{{"role":"user","content":"and one more {word}zulu turn"}}}}"#
        ));
        text.push('\n');
        std::fs::write(path, text).expect("grow");
    }
    let said = hook(&home);
    assert!(said.contains("1 purged (left out)"), "{said}");
    let after: Vec<String> = indexed(&home)
        .into_iter()
        .filter(|i| i.starts_with("brain/"))
        .collect();
    assert_eq!(after.len(), 1, "{after:?}");
    assert!(!after.contains(&id));
    assert_eq!(
        holding(&home.join("corpus"), "kilozulu"),
        Vec::<(String, usize)>::new()
    );
    assert_eq!(
        holding(&home.join("index"), "kilozulu"),
        Vec::<(String, usize)>::new()
    );
    // And through the stop hook itself (a payload naming the transcript).
    let mut h = spawn_hook(&home, &transcript);
    assert!(h.wait().expect("hook").success());
    assert_eq!(
        holding(&home.join("corpus"), "kilozulu"),
        Vec::<(String, usize)>::new()
    );
    // partition holds it too, fed the session's record from before the purge.
    let placed = run(&mut command("partition", &home), &record);
    assert!(placed.stdout.is_empty());
    assert!(String::from_utf8_lossy(&placed.stderr).contains("1 left out (purged)"));
}

// ---------------------------------------------------------------------------------------------
// `brain mcp --read-only` writes nothing at all.

/// A `brain mcp --read-only` session on a home, spoken to line by line.
struct ReadOnly {
    child: std::process::Child,
    stdin: std::process::ChildStdin,
    stdout: std::io::BufReader<std::process::ChildStdout>,
    id: usize,
}

impl ReadOnly {
    /// Started and initialized.
    fn start(home: &Path) -> ReadOnly {
        let mut child = command("brain", home)
            .args(["mcp", "--read-only"])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("brain mcp");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = std::io::BufReader::new(child.stdout.take().expect("stdout"));
        let mut s = ReadOnly {
            child,
            stdin,
            stdout,
            id: 0,
        };
        s.ask(
            "initialize",
            serde_json::json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}),
        );
        s
    }

    fn ask(&mut self, method: &str, params: serde_json::Value) -> serde_json::Value {
        use std::io::{BufRead, Write};
        self.id += 1;
        let msg = serde_json::json!({"jsonrpc": "2.0", "id": self.id, "method": method, "params": params});
        writeln!(self.stdin, "{msg}").expect("send");
        self.stdin.flush().expect("flush");
        let mut line = String::new();
        self.stdout.read_line(&mut line).expect("read");
        serde_json::from_str::<serde_json::Value>(&line).expect("a JSON reply")
    }

    /// Tool `tool` called with `args`.
    fn call(&mut self, tool: &str, args: &serde_json::Value) -> serde_json::Value {
        self.ask(
            "tools/call",
            serde_json::json!({"name": tool, "arguments": args}),
        )
    }

    /// End the session: the server exits 0 when its input closes.
    fn finish(self) {
        let ReadOnly {
            mut child, stdin, ..
        } = self;
        drop(stdin);
        assert!(child.wait().expect("wait").success());
    }
}

/// Every call of `calls` (tool, arguments) in one `brain mcp --read-only` session on `home`; the
/// results.
fn read_only_session(home: &Path, calls: &[(&str, serde_json::Value)]) -> Vec<serde_json::Value> {
    let mut session = ReadOnly::start(home);
    session.ask("tools/list", serde_json::json!({}));
    let out = calls
        .iter()
        .map(|(tool, args)| session.call(tool, args))
        .collect();
    session.finish();
    out
}

/// The registry as every writer closing cleanly leaves it: no `-wal`, no `-shm` (the WAL moved into
/// state.sqlite by a last connection that closes).
fn without_wal(home: &Path) {
    let db = home.join("state.sqlite");
    let conn = rusqlite::Connection::open(&db).expect("open");
    conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
        .expect("checkpoint");
    drop(conn);
    for side in ["state.sqlite-wal", "state.sqlite-shm"] {
        assert!(!home.join(side).exists(), "{side} left");
    }
}

#[test]
fn a_read_only_mcp_session_changes_no_byte_of_the_home() {
    read_only_session_changes_nothing(true);
}

#[test]
fn a_read_only_mcp_session_changes_no_byte_of_a_home_without_wal() {
    read_only_session_changes_nothing(false);
}

/// Twenty calls of every tool in a read-only session change no byte of the home, SQLite's side
/// files included; `wal_left`: the last writer left its WAL (else the home has none).
fn read_only_session_changes_nothing(wal_left: bool) {
    let work = tempfile::tempdir().expect("tempdir");
    let embed = brain_tests::model_dir().is_some();
    let Some(home) = brain_tests::vault_home(work.path(), embed) else {
        return;
    };
    if let Some(model) = brain_tests::model_dir() {
        let yaml = std::fs::read_to_string(home.join("brain.yaml")).expect("yaml");
        let _ = model;
        std::fs::write(
            home.join("brain.yaml"),
            yaml + "telemetry:\n  queries: true\n",
        )
        .expect("yaml");
    }
    for note in ["pinned note on the release", "a short-lived note"] {
        ok(
            &run(command("brain", &home).args(["wm", "add", note]), b""),
            "wm add",
        );
    }
    ok(
        &run(command("brain", &home).args(["wm", "pin", "1"]), b""),
        "wm pin",
    );
    // A first query, so caches a read may fill exist already and the registry has its WAL.
    ok(
        &run(
            command("brain", &home).args(["ask", "--json", "billing"]),
            b"",
        ),
        "ask",
    );
    // And a writer last, which leaves the registry's WAL for the next reader (issue 58: the
    // read-only server checkpointed it, rewriting state.sqlite).
    ok(
        &run(
            command("brain", &home).args(["inbox", "a capture before the session"]),
            b"",
        ),
        "inbox",
    );
    match wal_left {
        true => assert!(
            home.join("state.sqlite-wal").exists(),
            "the writer left its WAL"
        ),
        false => without_wal(&home),
    }
    let before = brain_tests::tree(&home);
    let mut calls: Vec<(&str, serde_json::Value)> = vec![
        ("query", serde_json::json!({"query": "billing invoices"})),
        (
            "query",
            serde_json::json!({"query": "what did we decide about billing"}),
        ),
        ("recent", serde_json::json!({})),
        ("status", serde_json::json!({})),
        ("wm_list", serde_json::json!({})),
        ("entity", serde_json::json!({"name": "Sarah Chen"})),
        ("related", serde_json::json!({"what": "Sarah Chen"})),
        ("remember", serde_json::json!({"text": "decided: nothing"})),
        ("wm_add", serde_json::json!({"text": "nope"})),
    ];
    for _ in 0..6 {
        calls.push((
            "context",
            serde_json::json!({"task": "the billing project"}),
        ));
    }
    let results = read_only_session(&home, &calls);
    // The first query's hits, read back with get and multi_get.
    let uri = results[0]["result"]["structuredContent"]["results"][0]["uri"]
        .as_str()
        .unwrap_or_else(|| panic!("a hit: {}", results[0]))
        .to_string();
    let read = read_only_session(
        &home,
        &[
            ("get", serde_json::json!({"file": uri})),
            ("multi_get", serde_json::json!({"pattern": uri})),
        ],
    );
    assert!(
        read.iter().all(|r| r["result"]["isError"] != true),
        "{read:?}"
    );
    for r in results[..7].iter().chain(&results[9..]) {
        assert!(r["result"]["isError"] != true, "{r}");
    }
    // Every context call still shows both notes: no turn was spent.
    let last = &results[results.len() - 1]["result"]["structuredContent"];
    assert_eq!(last["working"].as_array().map(Vec::len), Some(2), "{last}");
    // The writing tools are refused.
    for r in &results[7..9] {
        assert!(
            r.get("error").is_some() || r["result"]["isError"] == true,
            "{r}"
        );
    }
    let after = brain_tests::tree(&home);
    let names = |t: &[(String, Vec<u8>)]| t.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>();
    assert_eq!(names(&before), names(&after), "no file made or removed");
    for ((n, a), (_, b)) in before.iter().zip(&after) {
        assert!(a == b, "{n} changed");
    }
}

#[test]
fn a_hostile_or_torn_index_queue_is_dropped_line_by_line_and_escapes_nothing() {
    let work = tempfile::tempdir().expect("tempdir");
    let (home, _) = purge_home(work.path());
    // A file outside every collection, and a queue naming it, with garbage and a cut line.
    std::fs::write(
        work.path().join("outside.md"),
        format!("# Outside\n\n{SECRET}x outside\n"),
    )
    .expect("outside");
    let q = home.join("state").join(brain_lex::queue::FILE);
    std::fs::create_dir_all(home.join("state")).expect("state");
    std::fs::write(
        &q,
        "{\"collection\":\"notes\",\"path\":\"../outside.md\"}\nnot json\n{\"collection\":\"notes\",\"path\":\"/etc/passwd\"}\n{\"collection\":\"notes\",\"pa",
    )
    .expect("queue");
    // A stdin run (the stop hook's kind: a walk reads the disk itself and skips references).
    let out = run(&mut command("lexindex", &home), b"");
    let said = ok(&out, "lexindex");
    assert!(said.contains("not a path inside its collection"), "{said}");
    assert!(said.contains("2 lines are not queue entries"), "{said}");
    assert!(!q.exists(), "the queue is emptied");
    assert!(
        !indexed(&home)
            .iter()
            .any(|i| i.contains("outside") || i.contains("passwd"))
    );
}

#[test]
fn an_unreadable_record_of_purges_stops_conversion_and_doctor_names_it() {
    let t = tempfile::tempdir().expect("tempdir");
    let home = t.path().join("home");
    let transcript = session(&home, 1, "mike");
    std::fs::create_dir_all(home.join("state")).expect("state");
    std::fs::write(
        home.join("state").join(brain_store::purged::FILE),
        "{\"records\": [{\"id_sha",
    )
    .expect("torn");
    let out = run(command("jsonl2md", &home).arg(&transcript), b"");
    assert_eq!(
        out.status.code(),
        Some(65),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.stdout.is_empty(),
        "nothing converted that a purge may hold"
    );
    let check = brain_tests::doctor_check(&home, "purges");
    assert_eq!(check["outcome"], "fail", "{check}");
}

// ---------------------------------------------------------------------------------------------
// Whatever removes a document removes its vectors.

#[test]
fn a_document_removed_from_the_index_leaves_the_vector_store_and_every_hybrid_answer() {
    let work = tempfile::tempdir().expect("tempdir");
    let Some(home) = brain_tests::vault_home(work.path(), true) else {
        return;
    };
    let model = brain_tests::model_dir().expect("the model vault_home embedded with");
    let embedder = format!("local:{}", model.display());
    let ask = |q: &str| -> serde_json::Value {
        let out = run(
            command("brain", &home)
                .env("BRAIN_EMBEDDER", &embedder)
                .args(["ask", "--json", "--mode", "vec", "-n", "50", q]),
            b"",
        );
        serde_json::from_slice(&out.stdout).expect("envelope")
    };
    let docids = |v: &serde_json::Value| -> Vec<String> {
        v["hits"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|h| h["docid"].as_str().map(str::to_string))
            .collect()
    };
    let gone = "notes/dup-a.md";
    let docid = brain_doc::docid(gone);
    let before = ask("paraphrased duplicate note");
    assert!(docids(&before).contains(&docid), "{before}");
    let store = |h: &Path| -> Vec<String> {
        brain_vec::store::Store::open(&h.join("index/vec"))
            .map(|s| s.docs.iter().map(|d| d.id.to_string()).collect())
            .unwrap_or_default()
    };
    assert!(store(&home).iter().any(|i| i == gone));
    // The user deletes the note; the next walk removes it from the index, and its vectors with it.
    std::fs::remove_file(work.path().join(gone)).expect("rm");
    let lex = run(command("lexindex", &home).arg("--all"), b"");
    ok(&lex, "lexindex --all");
    assert!(
        !store(&home).iter().any(|i| i == gone),
        "its vectors are gone at once"
    );
    let after = ask("paraphrased duplicate note");
    assert!(!docids(&after).contains(&docid), "{after}");
    let get = run(command("brain", &home).args(["get", &docid]), b"");
    assert_ne!(get.status.code(), Some(0));
}

#[test]
fn stop_hooks_during_a_vecindex_run_lose_no_session() {
    let Some(model) = brain_tests::model_dir() else {
        return;
    };
    let Some(corpora) = brain_tests::corpus("") else {
        return;
    };
    let t = tempfile::tempdir().expect("tempdir");
    let home = t.path().join("home");
    // Enough sessions that the embedding runs while the hooks end (a few seconds on 2 cores).
    let docs = run(
        command("jsonl2md", &home).args([corpora.join("gemini"), corpora.join("claude-code")]),
        b"",
    );
    ok(
        &run(&mut command("partition", &home), &docs.stdout),
        "partition",
    );
    ok(
        &run(command("lexindex", &home).arg("--all"), b""),
        "lexindex",
    );
    let paths = sessions(&home);
    let embedder = format!("local:{}", model.display());
    let mut vec_all = command("vecindex", &home)
        .env("BRAIN_EMBEDDER", &embedder)
        .args(["--all", "--quiet"])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("vecindex --all");
    // Let it take its lock first.
    std::thread::sleep(std::time::Duration::from_millis(300));
    // The hooks embed too (BRAIN_HOOK_EMBED=1): their vecindex meets the running one's lock.
    let hooks: Vec<_> = paths
        .iter()
        .map(|p| {
            spawn_hook_with(
                &home,
                p,
                &[("BRAIN_HOOK_EMBED", "1"), ("BRAIN_EMBEDDER", &embedder)],
            )
        })
        .collect();
    for mut h in hooks {
        assert!(h.wait().expect("hook").success());
    }
    let overlapped = vec_all.try_wait().expect("vecindex").is_none();
    eprintln!(
        "hooks during vecindex --all: the embedding was still running when they returned: {overlapped}"
    );
    assert!(vec_all.wait().expect("vecindex").success());
    // Every session is lexically searchable when the hooks return, each once.
    every_word_found_once(&home);
}

/// `brain inbox` is a writer like the others (issue 58: it was the one that did not finish a purge
/// left pending): a purge whose intent is written but not carried out is finished before the
/// capture, and the purged text is gone from the index.
#[test]
fn brain_inbox_finishes_a_pending_purge_first() {
    let work = tempfile::tempdir().expect("tempdir");
    let (home, id) = purge_home(work.path());
    brain_store::purged::begin(&brain_store::Home::at(&home), &id, None).expect("intent");
    assert_eq!(
        brain_tests::doctor_check(&home, "purges")["outcome"],
        "fail"
    );
    let out = run(
        command("brain", &home).args(["inbox", "a note about the garden"]),
        b"",
    );
    ok(&out, "inbox");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains(&format!("finished the purge of {id}")),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(holding(&home, SECRET), Vec::<(String, usize)>::new());
    assert_eq!(
        brain_tests::doctor_check(&home, "purges")["outcome"],
        "pass"
    );
}

/// `brain mcp --read-only` serves a home on a read-only mount (a shared snapshot): a bind mount
/// remounted read-only in a mount namespace of the test's own, with the registry's WAL a writer
/// left. Skipped where mounting is not allowed (not root).
#[test]
fn a_read_only_mcp_session_serves_a_home_on_a_read_only_mount() {
    read_only_mount_serves(true);
}

/// The same with no WAL: every writer closed cleanly (SQLite's plain read-only open could not
/// make the `-wal` it wanted there: "unable to open database file").
#[test]
fn a_read_only_mcp_session_serves_a_home_without_wal_on_a_read_only_mount() {
    read_only_mount_serves(false);
}

fn read_only_mount_serves(wal_left: bool) {
    let work = tempfile::tempdir().expect("tempdir");
    let Some(home) = brain_tests::vault_home(work.path(), brain_tests::model_dir().is_some())
    else {
        return;
    };
    ok(
        &run(
            command("brain", &home).args(["inbox", "a capture before the mount"]),
            b"",
        ),
        "inbox",
    );
    if !wal_left {
        without_wal(&home);
    }
    let probe = std::process::Command::new("unshare")
        .args(["-m", "--propagation", "private", "sh", "-c"])
        .arg(format!(
            "mount --bind {0} {0} && mount -o remount,ro,bind {0}",
            home.display()
        ))
        .output();
    if !probe.is_ok_and(|o| o.status.success()) {
        brain_tests::skip("cannot mount here (unshare -m needs root)");
        return;
    }
    let before = brain_tests::tree(&home);
    let mut lines = vec![
        serde_json::json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}),
    ];
    let calls = [
        ("query", serde_json::json!({"query": "billing invoices"})),
        (
            "query",
            serde_json::json!({"query": "capture before the mount"}),
        ),
        ("recent", serde_json::json!({})),
        ("status", serde_json::json!({})),
        (
            "context",
            serde_json::json!({"task": "the billing project"}),
        ),
        ("entity", serde_json::json!({"name": "Sarah Chen"})),
    ];
    for (i, (tool, args)) in calls.iter().enumerate() {
        lines.push(serde_json::json!({"jsonrpc": "2.0", "id": i + 1, "method": "tools/call", "params": {"name": tool, "arguments": args}}));
    }
    let input: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let mut c = std::process::Command::new("unshare");
    c.args(["-m", "--propagation", "private", "bash", "-c"])
        .arg("mount --bind \"$H\" \"$H\" && mount -o remount,ro,bind \"$H\" && brain mcp --read-only")
        .env("H", &home)
        .env("BRAIN_HOME", &home)
        .env(
            "PATH",
            format!(
                "{}:{}",
                brain_tests::bin_dir().display(),
                std::env::var("PATH").unwrap_or_default()
            ),
        )
        .env_remove("BRAIN_TELEMETRY");
    if let Some(model) = brain_tests::model_dir() {
        // Hybrid queries: the vector store read from the mount too.
        c.env("BRAIN_EMBEDDER", format!("local:{}", model.display()));
    }
    let out = run(&mut c, input.as_bytes());
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "exit {:?}: {said}", out.status.code());
    let replies: Vec<serde_json::Value> = out
        .stdout
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).expect("a JSON reply"))
        .collect();
    assert_eq!(replies.len(), calls.len() + 1, "{said}");
    for r in &replies[1..] {
        assert!(
            r.get("error").is_none() && r["result"]["isError"] != true,
            "{r}"
        );
    }
    let hits = &replies[2]["result"]["structuredContent"]["results"];
    assert!(
        hits.as_array().is_some_and(|h| !h.is_empty()),
        "the capture the WAL holds is found: {}",
        replies[2]
    );
    assert_eq!(
        brain_tests::tree(&home),
        before,
        "nothing changed under the mount"
    );
}

/// A read-only server beside writers (a hook or `brain inbox` while an agent asks): every call is
/// answered while captures commit, their WAL appears and is checkpointed away, and a capture is
/// found by the next call after it committed. The registry's open follows the files on disk
/// (`immutable` without a WAL, the `-shm` read-only with one) and is tried again when a writer
/// moves them between the look and the open.
#[test]
fn a_read_only_session_answers_while_writers_commit() {
    let work = tempfile::tempdir().expect("tempdir");
    let Some(home) = brain_tests::vault_home(work.path(), false) else {
        return;
    };
    let mut session = ReadOnly::start(&home);
    const WRITES: usize = 12;
    let writer = {
        let home = home.clone();
        std::thread::spawn(move || {
            for i in 0..WRITES {
                ok(
                    &run(
                        command("brain", &home)
                            .args(["inbox", &format!("zebrafinch capture number {i}")]),
                        b"",
                    ),
                    "inbox",
                );
            }
        })
    };
    let calls = [
        ("query", serde_json::json!({"query": "zebrafinch capture"})),
        ("recent", serde_json::json!({})),
        ("status", serde_json::json!({})),
    ];
    let mut answered = 0;
    while !writer.is_finished() {
        for (tool, args) in &calls {
            let r = session.call(tool, args);
            assert!(
                r.get("error").is_none() && r["result"]["isError"] != true,
                "{tool} while writers commit: {r}"
            );
            answered += 1;
        }
    }
    writer.join().expect("writer");
    assert!(answered >= calls.len(), "calls answered: {answered}");
    // Every capture committed is found by the next call.
    let r = session.call(
        "query",
        &serde_json::json!({"query": "zebrafinch capture", "limit": 20}),
    );
    let found = r["result"]["structuredContent"]["results"]
        .as_array()
        .map_or(0, Vec::len);
    assert!(found >= 1, "the captures are found: {r}");
    session.finish();
}
