//! `chrome2md` end to end: the golden cases, the conformance suite over every History in
//! `../shared/corpora/chrome`, incremental runs, WAL snapshots, `--out-dir`, `--profile auto`, locks and
//! damaged files. Every emitted day is parsed back into `brain_doc::Doc`.

use std::path::{Path, PathBuf};

use brain_doc::Doc;
use brain_tests::{command, corpus, golden, parse_lines, run, workspace};

/// Build every database a golden case's `build` file names (`<path in case> <script>`; the script is
/// looked up in the case, then in `golden/chrome2md/`).
fn build_case(case: &Path) {
    let Ok(build) = std::fs::read_to_string(case.join("build")) else {
        return;
    };
    for line in build.lines().filter(|l| !l.trim().is_empty()) {
        let (target, script) = line.split_once(' ').expect("build line: <target> <script>");
        let script = [
            case.join(script),
            workspace().join("golden/chrome2md").join(script),
        ]
        .into_iter()
        .find(|p| p.exists())
        .unwrap_or_else(|| panic!("no script {script}"));
        sql_db(
            &case.join(target),
            &std::fs::read_to_string(script).expect("read script"),
        );
    }
}

fn sql_db(path: &Path, sql: &str) {
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    let _ = std::fs::remove_file(path);
    let conn = rusqlite::Connection::open(path).expect("open");
    conn.execute_batch(sql).expect("sql");
}

fn modern_sql() -> String {
    std::fs::read_to_string(workspace().join("golden/chrome2md/modern.sql")).expect("modern.sql")
}

/// Run chrome2md with `args` in `home`; (docs, stderr, exit code).
fn chrome2md(home: &Path, args: &[&str]) -> (Vec<Doc>, String, i32) {
    let out = run(command("chrome2md", home).args(args), b"");
    let docs: Vec<Doc> = parse_lines(&out.stdout);
    (
        docs,
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code().unwrap_or(-1),
    )
}

/// Every day a doc must satisfy, whatever the input.
fn check_doc(d: &Doc) {
    d.validate().expect("valid meta");
    let day = d.meta["day"].as_str().expect("meta.day");
    assert!(
        d.id.starts_with("chrome__") && d.id.ends_with(&format!("__{day}")),
        "{}",
        d.id
    );
    assert_eq!(d.path, format!("{}.md", d.id));
    assert!(d.collection.is_none());
    assert!(
        d.date.starts_with(day) && d.date.contains("T00:00:00"),
        "{}",
        d.date
    );
    assert_eq!(d.source.kind, "browser");
    assert!(
        d.meta["visits"].as_u64().expect("visits") >= 1 || d.meta["searches"].as_u64() > Some(0)
    );
    assert_eq!(Doc::from_markdown(&d.to_markdown()).expect("markdown"), *d);
}

#[test]
fn golden_cases() {
    golden("chrome2md", "chrome2md", build_case);
}

#[test]
fn modern_schema_days_cover_searches_visits_topics_and_every_cut() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("Default/History");
    sql_db(&db, &modern_sql());
    let (docs, err, code) = chrome2md(
        dir.path(),
        &["--history", db.to_str().expect("utf8"), "--no-state"],
    );
    assert_eq!(code, 0, "{err}");
    let days: Vec<&str> = docs
        .iter()
        .map(|d| d.meta["day"].as_str().expect("day"))
        .collect();
    assert_eq!(days, ["2026-11-19", "2026-11-20", "2026-11-21"]);
    docs.iter().for_each(check_doc);
    let d19 = &docs[0];
    assert_eq!(d19.id, "chrome__chrome-default__2026-11-19");
    assert_eq!(d19.title, "Browser history 2026-11-19 (Chrome, Default)");
    assert_eq!(d19.source.agent.as_deref(), Some("chrome"));
    // docs.rs three times, folded; GitHub without its tracking parameters; the Bing search of the
    // same terms is a duplicate; the cluster is a topic with its keywords by score.
    assert!(
        d19.body
            .contains("docs.rs — [tantivy - Rust](<https://docs.rs/tantivy/latest/tantivy/>) ×3"),
        "{}",
        d19.body
    );
    assert!(
        d19.body
            .contains("<https://github.com/quickwit-oss/tantivy>"),
        "{}",
        d19.body
    );
    assert!(
        d19.body.contains("- 09:12 Google: rust bm25 tantivy\n"),
        "{}",
        d19.body
    );
    assert!(!d19.body.contains("Bing"), "{}", d19.body);
    assert!(
        d19.body
            .contains("## Topics\n\n- Rust search engines — bm25, tantivy (4 visits)"),
        "{}",
        d19.body
    );
    assert_eq!(d19.meta["top_domains"][0], "docs.rs");
    assert!(
        !d19.body.contains("localhost")
            && !d19.body.contains("chrome://")
            && !d19.body.contains("youtube")
    );
    let d20 = &docs[1];
    assert!(d20.body.contains("日本語 - Wikipedia"), "{}", d20.body);
    assert!(
        d20.body
            .contains("example.com — <https://example.com/untitled>"),
        "{}",
        d20.body
    );
    assert!(
        d20.body
            .contains(r"Show HN: \[brain\] \<a second brain\> for \`agents\`"),
        "{}",
        d20.body
    );
    assert!(
        !d20.body.contains("gclid")
            && !d20.body.contains("ignore previous")
            && !d20.body.contains("porn")
    );
    for gone in [
        "doubleclick",
        "file://",
        "data:",
        "chrome-extension",
        "192.168",
    ] {
        assert!(!d20.body.contains(gone), "{gone} in {}", d20.body);
    }
    let d21 = &docs[2];
    assert!(
        d21.body.contains("Google: sqlite wal mode"),
        "content annotation search: {}",
        d21.body
    );
    for want in [
        "4 internal",
        "2 local",
        "1 denied",
        "2 nsfw",
        "1 subframe",
        "1 junk search pages",
        "1 odd rows",
        "1 duplicate",
        "1 injected",
        "tracking parameters stripped: 5",
    ] {
        assert!(err.contains(want), "summary lacks {want}: {err}");
    }
}

#[test]
fn conformance_over_the_shared_chrome_corpus() {
    let Some(root) = corpus("chrome") else { return };
    let home = tempfile::tempdir().expect("tempdir");
    // (file, browser guessed from the path, days with the default policy)
    let cases: [(&str, &str, usize); 11] = [
        ("plaso/History", "chrome", 5),
        ("plaso/History-57.0.2987.133", "chrome", 1),
        ("plaso/History-58.0.3029.96", "chrome", 1),
        ("plaso/History-59.0.3071.86", "chrome", 1),
        ("plaso/History-59_added-fake-column", "chrome", 1),
        ("browserexport/chrome.sqlite", "chrome", 1),
        ("browserexport/chromium.sqlite", "chromium", 1),
        ("browserexport/brave.sqlite", "brave", 1),
        ("browserexport/vivaldi.sqlite", "vivaldi", 1),
        ("chromium156_headless_generated/History", "chromium", 0),
        (
            "chromium_test_data/History-v70-schema-only.sqlite",
            "chrome",
            0,
        ),
    ];
    for (file, browser, want_days) in cases {
        let path = root.join(file);
        let (docs, err, code) = chrome2md(
            home.path(),
            &["--history", path.to_str().expect("utf8"), "--no-state"],
        );
        assert_eq!(code, 0, "{file}: {err}");
        assert!(!err.contains("panicked"), "{file}: {err}");
        assert_eq!(docs.len(), want_days, "{file}: {err}");
        for d in &docs {
            check_doc(d);
            assert_eq!(d.meta["browser"], browser, "{file}");
        }
    }
    // plaso's History: 69 visits over 5 days (2011-04-07..2011-05-23), searches "funny cats".
    let plaso = root.join("plaso/History");
    let (docs, err, _) = chrome2md(
        home.path(),
        &["--history", plaso.to_str().expect("utf8"), "--no-state"],
    );
    assert!(err.contains("69 read"), "{err}");
    assert_eq!(
        docs.first().map(|d| d.meta["day"].clone()),
        Some("2011-04-07".into())
    );
    assert_eq!(
        docs.last().map(|d| d.meta["day"].clone()),
        Some("2011-05-23".into())
    );
    assert!(docs.iter().any(|d| d.body.contains("funny cats")));
    assert!(docs.iter().all(|d| d.meta["history_version"] == 20));
    // The headless chromium profile visited only 127.0.0.1: kept when the policy allows local pages,
    // with its non-ASCII and missing titles.
    let policy = home.path().join("local.yaml");
    std::fs::write(&policy, "keep_local: true\n").expect("policy");
    let headless = root.join("chromium156_headless_generated/History");
    let args = [
        "--history",
        headless.to_str().expect("utf8"),
        "--no-state",
        "--policy",
        policy.to_str().expect("utf8"),
    ];
    let (docs, err, code) = chrome2md(home.path(), &args);
    assert_eq!((code, docs.len()), (0, 1), "{err}");
    check_doc(&docs[0]);
    assert_eq!(docs[0].meta["visits"], 5);
    assert_eq!(docs[0].meta["pages"], 4);
    assert!(
        docs[0].body.contains("Ünïcödé title 日本語")
            && docs[0]
                .body
                .contains("<http://127.0.0.1:8765/notitle.html>")
    );
}

#[test]
fn incremental_runs_reemit_only_changed_days_whole() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("Default/History");
    sql_db(&db, &modern_sql());
    let h = db.to_str().expect("utf8");
    let (first, _, _) = chrome2md(dir.path(), &["--history", h]);
    assert_eq!(first.len(), 3);
    let state: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("state/chrome2md.json")).expect("state"),
    )
    .expect("json");
    assert_eq!(state["profiles"].as_object().map(|o| o.len()), Some(1));
    let (again, err, code) = chrome2md(dir.path(), &["--history", h]);
    assert_eq!((code, again.len()), (0, 0), "{err}");
    // One new visit on the 20th: that day comes back whole, with one more visit.
    let conn = rusqlite::Connection::open(&db).expect("open");
    conn.execute(
        "INSERT INTO visits (id, url, visit_time, transition) VALUES \
         (26, 2, (strftime('%s', '2026-11-20 12:00:00') + 11644473600) * 1000000, 805306368)",
        [],
    )
    .expect("insert");
    drop(conn);
    let (changed, _, _) = chrome2md(dir.path(), &["--history", h]);
    assert_eq!(changed.len(), 1);
    assert_eq!(changed[0].id, first[1].id);
    assert_eq!(
        changed[0].meta["visits"].as_u64(),
        first[1].meta["visits"].as_u64().map(|v| v + 1)
    );
    // --no-state ignores the state; --since limits the days.
    let (all, _, _) = chrome2md(
        dir.path(),
        &["--history", h, "--no-state", "--since", "2026-11-21"],
    );
    assert_eq!(
        all.iter()
            .map(|d| d.meta["day"].as_str().unwrap_or(""))
            .collect::<Vec<_>>(),
        ["2026-11-21"]
    );
}

#[test]
fn newest_visits_in_the_wal_of_a_running_browser_are_read() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("Default/History");
    sql_db(&db, &modern_sql());
    let h = db.to_str().expect("utf8");
    // The "browser" keeps its connection open in WAL mode with checkpoints off: the new visit lives
    // only in History-wal while chrome2md runs.
    let conn = rusqlite::Connection::open(&db).expect("open");
    conn.pragma_update(None, "journal_mode", "WAL")
        .expect("wal");
    conn.pragma_update(None, "wal_autocheckpoint", 0)
        .expect("no checkpoints");
    let insert = |c: &rusqlite::Connection, id: i64, day: &str| {
        let sql = format!(
            "INSERT INTO visits (id, url, visit_time, transition) VALUES \
             ({id}, 2, (strftime('%s', '{day} 07:00:00') + 11644473600) * 1000000, 805306368)"
        );
        c.execute(&sql, []).expect("insert");
    };
    insert(&conn, 30, "2026-11-22");
    assert!(dir.path().join("Default/History-wal").exists());
    let (docs, err, code) = chrome2md(dir.path(), &["--history", h]);
    assert_eq!(code, 0, "{err}");
    let last = docs.last().expect("days");
    assert_eq!(last.meta["day"], "2026-11-22", "{err}");
    assert_eq!(last.source.parts.len(), 1);
    assert!(last.source.parts[0].file.ends_with("History-wal"));
    // The browser checkpoints and exits (the WAL is gone), then records one more visit. The kept
    // snapshot must not mix the stale WAL copy with the new database.
    drop(conn);
    let conn = rusqlite::Connection::open(&db).expect("open");
    insert(&conn, 31, "2026-11-23");
    drop(conn);
    assert!(!dir.path().join("Default/History-wal").exists());
    let (docs, err, code) = chrome2md(dir.path(), &["--history", h]);
    assert_eq!(code, 0, "{err}");
    let days: Vec<&str> = docs.iter().filter_map(|d| d.meta["day"].as_str()).collect();
    assert_eq!(days, ["2026-11-23"], "{err}");
    assert!(docs[0].source.parts.is_empty());
}

#[test]
fn out_dir_writes_markdown_that_round_trips_and_auto_finds_profiles() {
    let home = tempfile::tempdir().expect("tempdir");
    let sql = modern_sql();
    sql_db(
        &home.path().join(".config/google-chrome/Default/History"),
        &sql,
    );
    sql_db(
        &home
            .path()
            .join(".config/BraveSoftware/Brave-Browser/Profile 1/History"),
        &sql,
    );
    let out = home.path().join("out");
    let (docs, err, code) = chrome2md(
        home.path(),
        &[
            "--profile",
            "auto",
            "--no-state",
            "--out-dir",
            out.to_str().expect("utf8"),
        ],
    );
    assert_eq!((code, docs.len()), (0, 0), "{err}");
    assert!(err.contains("6 days from 2 profile(s)"), "{err}");
    let (ndjson, _, _) = chrome2md(home.path(), &["--no-state"]);
    assert_eq!(ndjson.len(), 6);
    for d in &ndjson {
        let slug = d.id.split("__").nth(1).expect("slug");
        let file = out
            .join(slug)
            .join(format!("{}.md", d.meta["day"].as_str().expect("day")));
        let md =
            std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        assert_eq!(Doc::from_markdown(&md).expect("parse"), *d);
    }
    let slugs: std::collections::BTreeSet<&str> = ndjson
        .iter()
        .filter_map(|d| d.id.split("__").nth(1))
        .collect();
    assert_eq!(
        slugs.into_iter().collect::<Vec<_>>(),
        ["brave-profile-1", "chrome-default"]
    );
    let empty = tempfile::tempdir().expect("tempdir");
    let (_, err, code) = chrome2md(empty.path(), &["--profile", "auto"]);
    assert_eq!(code, 65, "{err}");
}

#[test]
fn a_held_lock_is_exit_70_and_damaged_files_are_exit_64() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("Default/History");
    sql_db(&db, &modern_sql());
    let h = db.to_str().expect("utf8");
    std::fs::create_dir_all(dir.path().join("locks")).expect("mkdir");
    let lock = std::fs::File::create(dir.path().join("locks/chrome2md.lock")).expect("lock file");
    lock.lock().expect("lock");
    let (_, err, code) = chrome2md(dir.path(), &["--history", h]);
    assert_eq!(code, 70, "{err}");
    let (docs, _, code) = chrome2md(dir.path(), &["--history", h, "--no-state"]);
    assert_eq!((code, docs.len()), (0, 3), "--no-state takes no lock");
    drop(lock);
    // A History whose pages after the header are garbage.
    let mut bytes = std::fs::read(&db).expect("read");
    for b in bytes.iter_mut().skip(100) {
        *b = 0xA5;
    }
    let bad: PathBuf = dir.path().join("Broken/History");
    std::fs::create_dir_all(bad.parent().expect("parent")).expect("mkdir");
    std::fs::write(&bad, &bytes).expect("write");
    let (_, err, code) = chrome2md(
        dir.path(),
        &["--history", bad.to_str().expect("utf8"), "--no-state"],
    );
    assert_eq!(code, 64, "{err}");
    assert!(!err.contains("panicked"), "{err}");
    let (_, err, code) = chrome2md(
        dir.path(),
        &["--history", h, "--no-state", "--tz", "Mars/Olympus_Mons"],
    );
    assert_eq!(code, 64, "{err}");
}

#[test]
fn a_hot_journal_copied_mid_transaction_is_rolled_back_in_the_snapshot() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("live/History");
    sql_db(&db, &modern_sql());
    // The "browser" is mid-transaction with a tiny cache, so changed pages already sit in History
    // and the originals in History-journal (a hot journal) when the profile is copied.
    let conn = rusqlite::Connection::open(&db).expect("open");
    conn.execute_batch("PRAGMA journal_mode=TRUNCATE; PRAGMA cache_size=1; BEGIN;")
        .expect("begin");
    for i in 100..3000 {
        let url = format!("https://uncommitted{i}.example/{}", "a".repeat(200));
        conn.execute(
            "INSERT INTO urls (id, url, title, last_visit_time) VALUES (?1, ?2, 'T', 0)",
            rusqlite::params![i, url],
        )
        .expect("insert");
        conn.execute(
            "INSERT INTO visits (id, url, visit_time, transition) VALUES \
             (?1, ?1, (strftime('%s', '2026-11-25 10:00:00') + 11644473600) * 1000000, 805306368)",
            [i],
        )
        .expect("insert visit");
    }
    let copy = dir.path().join("Default/History");
    std::fs::create_dir_all(copy.parent().expect("parent")).expect("mkdir");
    std::fs::copy(&db, &copy).expect("copy");
    std::fs::copy(
        dir.path().join("live/History-journal"),
        dir.path().join("Default/History-journal"),
    )
    .expect("copy journal");
    conn.execute_batch("ROLLBACK").expect("rollback");
    let before = std::fs::read(&copy).expect("read");
    let (docs, err, code) = chrome2md(
        dir.path(),
        &["--history", copy.to_str().expect("utf8"), "--no-state"],
    );
    assert_eq!((code, docs.len()), (0, 3), "{err}");
    assert!(docs.iter().all(|d| !d.body.contains("uncommitted")));
    assert_eq!(
        std::fs::read(&copy).expect("read"),
        before,
        "the original is never written"
    );
}

#[test]
fn a_browser_writing_all_the_time_never_makes_a_run_fail_or_read_a_torn_copy() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("Default/History");
    sql_db(&db, &modern_sql());
    // Grow the database so a copy takes a while, then write continuously in rollback-journal mode
    // (Chrome's default), with a small cache so pages hit the file mid-transaction.
    {
        let conn = rusqlite::Connection::open(&db).expect("open");
        conn.execute_batch("PRAGMA journal_mode=DELETE; BEGIN;")
            .expect("begin");
        for i in 100..60_000 {
            conn.execute(
                "INSERT INTO urls (id, url, title, last_visit_time) VALUES (?1, ?2, 'T', 0)",
                rusqlite::params![i, format!("https://site{i}.example/{}", "p".repeat(150))],
            )
            .expect("insert");
        }
        conn.execute_batch("COMMIT").expect("commit");
    }
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let writer = {
        let (db, stop) = (db.clone(), stop.clone());
        std::thread::spawn(move || {
            let conn = rusqlite::Connection::open(&db).expect("open");
            conn.execute_batch("PRAGMA journal_mode=DELETE; PRAGMA cache_size=2;")
                .expect("pragma");
            let mut i = 100_000i64;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                let _ = conn.execute_batch("BEGIN IMMEDIATE");
                // Inserts and deletes all over the file: pages split and merge mid-transaction.
                for _ in 0..200 {
                    i += 1;
                    let _ = conn.execute(
                        "UPDATE urls SET title = ?1, visit_count = visit_count + 1 WHERE id = ?2",
                        rusqlite::params![
                            format!("t{i}{}", "x".repeat((i % 300) as usize)),
                            100 + (i * 7919) % 59_900
                        ],
                    );
                    let _ = conn.execute(
                        "INSERT INTO urls (id, url, title, last_visit_time) VALUES (?1, ?2, 'N', 0)",
                        rusqlite::params![i, format!("https://new{}.example/{}", i * 31 % 99_991, "q".repeat(120))],
                    );
                    let _ = conn.execute(
                        "INSERT INTO visits (id, url, visit_time, transition) VALUES \
                         (?1, ?1, (strftime('%s', '2026-11-20 10:00:00') + 11644473600 + ?1 % 3600) * 1000000, 805306368)",
                        [i],
                    );
                    let _ = conn.execute("DELETE FROM urls WHERE id = ?1", [i - 150]);
                    let _ = conn.execute("DELETE FROM visits WHERE id = ?1", [i - 150]);
                }
                let _ = conn.execute_batch("COMMIT");
            }
        })
    };
    let h = db.to_str().expect("utf8");
    let mut failed = Vec::new();
    let runs = 25;
    for _ in 0..runs {
        let (docs, err, code) = chrome2md(dir.path(), &["--history", h, "--no-state"]);
        if code != 0 || docs.len() != 3 {
            failed.push(format!("exit {code}, {} docs: {err}", docs.len()));
        }
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    writer.join().expect("writer");
    eprintln!(
        "{} of {runs} runs failed with a writer active",
        failed.len()
    );
    assert!(failed.is_empty(), "{failed:#?}");
}

#[test]
fn a_history_torn_midway_prints_no_partial_days() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("Default/History");
    sql_db(&db, &modern_sql());
    {
        let conn = rusqlite::Connection::open(&db).expect("open");
        conn.execute_batch("BEGIN").expect("begin");
        for i in 100..6000i64 {
            conn.execute(
                "INSERT INTO urls (id, url, title, last_visit_time) VALUES (?1, ?2, ?3, 0)",
                rusqlite::params![
                    i,
                    format!("https://s{i}.example/{}", "p".repeat(100)),
                    format!("Page {i}")
                ],
            )
            .expect("url");
            conn.execute(
                "INSERT INTO visits (id, url, visit_time, transition) VALUES \
                 (?1, ?1, (strftime('%s', '2026-10-01 10:00:00') + 11644473600 + ?1 * 400) * 1000000, 805306368)",
                [i],
            )
            .expect("visit");
        }
        conn.execute_batch("COMMIT; VACUUM;").expect("commit");
    }
    // Tear pages in the last third of the file: the first days read fine, a later one does not.
    let mut bytes = std::fs::read(&db).expect("read");
    let page = 4096;
    let pages = bytes.len() / page;
    for p in (pages * 2 / 3..pages).step_by(3) {
        for b in &mut bytes[p * page + 8..p * page + 200] {
            *b = 0xA5;
        }
    }
    std::fs::write(&db, &bytes).expect("write");
    let out = brain_tests::chrome2md_once(dir.path(), &db);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_ne!(out.status.code(), Some(0), "the tear was read: {stderr}");
    assert!(
        stderr.contains("corrupt") || stderr.contains("malformed"),
        "{stderr}"
    );
    assert!(
        out.stdout.is_empty(),
        "no partial days on stdout: {} bytes",
        out.stdout.len()
    );
}

#[test]
fn impossible_visit_times_are_counted_and_warned_never_dropped_silently() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("Default/History");
    sql_db(&db, &modern_sql());
    let conn = rusqlite::Connection::open(&db).expect("open");
    for (id, time) in [
        (901, "9223372036854775807"),
        (902, "-9223372036854775808"),
        (903, "1.5"),
        (904, "'yesterday'"),
        (905, "X'00'"),
    ] {
        conn.execute_batch(&format!(
            "INSERT INTO visits (id, url, visit_time, transition) VALUES ({id}, 2, {time}, 805306368);"
        ))
        .expect("insert");
    }
    drop(conn);
    let (docs, err, code) = chrome2md(
        dir.path(),
        &["--history", db.to_str().expect("utf8"), "--no-state"],
    );
    assert_eq!((code, docs.len()), (0, 3), "{err}");
    for id in 901..=905 {
        assert!(
            err.contains(&format!("visit {id}:")),
            "visit {id} not named: {err}"
        );
    }
    // The one odd row of the fixture plus these five.
    assert!(err.contains("6 odd rows"), "{err}");
}
