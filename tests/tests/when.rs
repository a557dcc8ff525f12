//! Time in questions, end to end (`brain ask` in auto mode, no vectors): a window is a soft signal —
//! sessions inside rank first, sessions just outside are not lost, a window never empties what
//! lexical search fills, "latest" orders the relevant hits by session time, and the `--json`
//! envelope says how the words were read.

use brain_doc::Hit;
use brain_tests::{command, run};

/// Now: Wednesday 2026-04-15 12:00 UTC.
const NOW: &str = "2026-04-15T12:00:00Z";

/// A notes home with one note per `(name, date, body)`, indexed.
fn home(notes: &[(&str, &str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    let home = dir.path().join("home");
    let folder = dir.path().join("notes");
    brain_tests::notes_home(&home, &folder);
    for (name, date, body) in notes {
        let text = format!("---\ntitle: {name}\ndate: {date}\n---\n{body}\n");
        std::fs::write(folder.join(format!("{name}.md")), text).expect("write");
    }
    let out = run(command("lexindex", &home).arg("--all"), b"");
    assert!(out.status.success());
    dir
}

/// `brain ask --json QUERY` at [`NOW`]: the envelope.
fn ask(dir: &tempfile::TempDir, query: &str) -> serde_json::Value {
    let out = run(
        command("brain", &dir.path().join("home"))
            .env("BRAIN_NOW", NOW)
            .args(["ask", "--json", "--no-dedup", query]),
        b"",
    );
    assert!(
        out.status.success(),
        "{query}: exit {:?}\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout)
    );
    serde_json::from_slice(&out.stdout).expect("envelope")
}

fn paths(env: &serde_json::Value) -> Vec<String> {
    let hits: Vec<Hit> = serde_json::from_value(env["hits"].clone()).expect("hits");
    hits.into_iter().map(|h| h.path).collect()
}

#[test]
fn the_morning_of_a_day_finds_that_mornings_session_first_and_keeps_the_one_from_the_night_before()
{
    let dir = home(&[
        (
            "morning",
            "2026-03-03T09:10:00Z",
            "fixing the flaky login test",
        ),
        (
            "evening",
            "2026-03-03T20:00:00Z",
            "fixing the flaky login test again",
        ),
        (
            "night-before",
            "2026-03-03T04:30:00Z",
            "fixing the flaky login test, early",
        ),
        (
            "week-before",
            "2026-02-24T09:00:00Z",
            "fixing the flaky login test, first try",
        ),
    ]);
    let env = ask(&dir, "what was I fixing on the morning of 3 March");
    let got = paths(&env);
    assert_eq!(got[0], "morning.md", "{got:?}");
    // Just before the window beats the same day's evening and the week before.
    let pos = |p: &str| got.iter().position(|x| x == p).unwrap_or(usize::MAX);
    assert!(pos("night-before.md") < pos("evening.md"), "{got:?}");
    assert!(pos("evening.md") < pos("week-before.md"), "{got:?}");
    let time = &env["time"];
    assert_eq!(time["expr"], "morning of 3 March");
    assert_eq!(time["from"], "2026-03-03T05:00:00+00:00");
    assert_eq!(time["to"], "2026-03-03T11:59:59+00:00");
    assert_eq!(time["soft"], true);
    assert_eq!(time["part"], "morning 05:00-12:00");
}

#[test]
fn a_window_ranks_its_sessions_first_but_never_empties_a_result_lexical_search_fills() {
    let dir = home(&[
        // A strong match long ago, a weaker one inside "last week".
        (
            "old",
            "2025-11-02T10:00:00Z",
            "cache eviction bug cache eviction bug in the cache layer",
        ),
        (
            "last-week",
            "2026-04-08T10:00:00Z",
            "the cache bug came back",
        ),
    ]);
    let got = paths(&ask(&dir, "cache bug last week"));
    assert_eq!(got, ["last-week.md", "old.md"]);
    // The window holds nothing about sqlite: the lexical answer stands.
    let dir = home(&[
        (
            "sqlite",
            "2025-06-01T10:00:00Z",
            "we moved the registry to sqlite",
        ),
        (
            "recent",
            "2026-04-10T10:00:00Z",
            "unrelated notes about the build",
        ),
    ]);
    let env = ask(&dir, "when did we move to sqlite in the past month");
    assert_eq!(paths(&env)[0], "sqlite.md");
    assert_eq!(env["time"]["expr"], "past month");
    // "past month" is the last 30 days, not the previous calendar month.
    assert_eq!(env["time"]["from"], "2026-03-15T00:00:00+00:00");
}

#[test]
fn latest_orders_the_relevant_sessions_newest_first() {
    let dir = home(&[
        (
            "jan",
            "2026-01-05T10:00:00Z",
            "touched the release workflow yaml and the release workflow job",
        ),
        (
            "mar",
            "2026-03-20T10:00:00Z",
            "touched the release workflow",
        ),
        (
            "feb",
            "2026-02-11T10:00:00Z",
            "touched the release workflow once more",
        ),
        ("other", "2026-04-14T10:00:00Z", "lunch plans"),
    ]);
    let env = ask(
        &dir,
        "the latest session where we touched the release workflow",
    );
    assert_eq!(paths(&env), ["mar.md", "feb.md", "jan.md"]);
    assert_eq!(env["time"]["order"], "latest");
    let env = ask(&dir, "the first time we touched the release workflow");
    assert_eq!(paths(&env), ["jan.md", "feb.md", "mar.md"]);
}

#[test]
fn only_time_words_walk_the_sessions_nearest_the_window() {
    let dir = home(&[
        ("sat", "2026-04-11T15:00:00Z", "weekend hacking"),
        ("sun", "2026-04-12T21:00:00Z", "more weekend hacking"),
        ("mon", "2026-04-13T09:00:00Z", "monday standup"),
        ("old", "2026-01-01T09:00:00Z", "new year"),
    ]);
    let got = paths(&ask(&dir, "what did I do over the weekend"));
    assert_eq!(&got[..2], ["sun.md", "sat.md"], "{got:?}");
    // A window that holds nothing still answers with the sessions nearest it.
    let got = paths(&ask(&dir, "what did I do the first week of February"));
    assert_eq!(got.first().map(String::as_str), Some("old.md"), "{got:?}");
}

#[test]
fn hard_filters_stay_hard_and_a_forced_mode_keeps_the_words() {
    let dir = home(&[
        ("in", "2026-04-08T10:00:00Z", "cache bug"),
        ("out", "2025-04-08T10:00:00Z", "cache bug"),
    ]);
    let out = run(
        command("brain", &dir.path().join("home"))
            .env("BRAIN_NOW", NOW)
            .args([
                "ask",
                "--json",
                "--since",
                "2026-04-01",
                "cache bug last week",
            ]),
        b"",
    );
    let env: serde_json::Value = serde_json::from_slice(&out.stdout).expect("envelope");
    // With --since the words are not read as time: they are searched, and the filter is hard.
    assert!(env.get("time").is_none());
    assert_eq!(paths(&env), ["in.md"]);
}

#[test]
fn a_session_spanning_two_days_matches_both_and_hits_carry_its_session() {
    let dir = tempfile::tempdir().expect("tempdir");
    let home = dir.path().join("home");
    let folder = dir.path().join("notes");
    brain_tests::notes_home(&home, &folder);
    let session = "---\ntitle: Late migration\ndate: 2026-03-02T23:10:00Z\nended: 2026-03-03T01:40:00Z\nsession_id: 7f3c-late\nproject: billing\nsource:\n  type: session\n  agent: claude\n  file: /x/7f3c-late.jsonl\n---\n## Conversation\n\n**User**: the sqlite migration fails on the billing table\n";
    std::fs::write(folder.join("late.md"), session).expect("write");
    std::fs::write(
        folder.join("other.md"),
        "---\ntitle: Other\ndate: 2026-03-01T10:00:00Z\n---\nsqlite migration notes\n",
    )
    .expect("write");
    assert!(
        run(command("lexindex", &home).arg("--all"), b"")
            .status
            .success()
    );
    let ask = |args: &[&str]| -> Vec<Hit> {
        let out = run(
            command("brain", &home)
                .env("BRAIN_NOW", NOW)
                .args(["ask", "--json", "--no-dedup"])
                .args(args),
            b"",
        );
        let env: serde_json::Value = serde_json::from_slice(&out.stdout).expect("envelope");
        serde_json::from_value(env["hits"].clone()).expect("hits")
    };
    // Hard windows on either day find it: the session overlaps both.
    for (since, until) in [("2026-03-02", "2026-03-02"), ("2026-03-03", "2026-03-03")] {
        let hits = ask(&["--since", since, "--until", until, "sqlite migration"]);
        assert_eq!(
            hits.iter().map(|h| h.path.as_str()).collect::<Vec<_>>(),
            ["late.md"],
            "{since}"
        );
    }
    // And so does a soft one, first.
    let hits = ask(&["sqlite migration on 3 March"]);
    assert_eq!(hits[0].path, "late.md");
    let h = &hits[0];
    assert_eq!(h.session_id.as_deref(), Some("7f3c-late"));
    assert_eq!(h.project.as_deref(), Some("billing"));
    assert_eq!(h.agent.as_deref(), Some("claude"));
    assert_eq!(h.started.as_deref(), Some("2026-03-02T23:10:00Z"));
    assert_eq!(h.ended.as_deref(), Some("2026-03-03T01:40:00Z"));
    // `brain get` opens it by its session id.
    let out = run(command("brain", &home).args(["get", "7f3c-late"]), b"");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("the sqlite migration fails"));
    let out = run(
        command("brain", &home).args(["get", "no-such-session"]),
        b"",
    );
    assert_eq!(
        out.status.code(),
        Some(67),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // A "session id" that tries to climb out serves nothing (a plain file path is `brain get`'s to
    // serve on the command line by design; these are not files).
    for escape in [
        "..",
        ".",
        "7f3c-late/../../x",
        "brain://notes/../../etc/passwd",
    ] {
        let out = run(
            command("brain", &home)
                .current_dir(&home)
                .args(["get", escape]),
            b"",
        );
        assert_ne!(out.status.code(), Some(0), "{escape}");
        assert!(out.stdout.is_empty(), "{escape}");
    }
}

#[test]
fn a_now_that_is_no_time_is_a_bad_query() {
    let dir = home(&[("a", "2026-04-08T10:00:00Z", "cache bug")]);
    for bad in ["yesterday-ish", "2026-13-40", ""] {
        let out = run(
            command("brain", &dir.path().join("home")).args(["ask", "--now", bad, "cache"]),
            b"",
        );
        assert_eq!(out.status.code(), Some(64), "{bad:?}");
        let out = run(
            command("rank", &dir.path().join("home")).args(["--now", bad, "cache"]),
            b"",
        );
        assert_eq!(out.status.code(), Some(64), "{bad:?}");
    }
    // A bare date is noon of that day: "yesterday" is the day before.
    let out = run(
        command("brain", &dir.path().join("home")).args([
            "ask",
            "--json",
            "--now",
            "2026-04-09",
            "cache bug yesterday",
        ]),
        b"",
    );
    let env: serde_json::Value = serde_json::from_slice(&out.stdout).expect("envelope");
    assert_eq!(env["time"]["from"], "2026-04-08T00:00:00+00:00");
}

#[test]
fn mcp_query_carries_the_time_reading_and_each_hits_session() {
    let dir = home(&[
        (
            "morning",
            "2026-03-03T09:10:00Z",
            "fixing the flaky login test",
        ),
        (
            "later",
            "2026-04-01T09:00:00Z",
            "fixing the flaky login test again",
        ),
    ]);
    let requests = [
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"query","arguments":{"query":"what was I fixing on the morning of 3 March"}}}"#,
        r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"query","arguments":{"query":"flaky login"}}}"#,
    ]
    .join("\n");
    let out = run(
        command("brain", &dir.path().join("home"))
            .env("BRAIN_NOW", NOW)
            .arg("mcp"),
        requests.as_bytes(),
    );
    let lines: Vec<serde_json::Value> = brain_tests::parse_lines(&out.stdout);
    let result = |id: u64| {
        lines
            .iter()
            .find(|l| l["id"] == id)
            .map(|l| l["result"]["structuredContent"].clone())
            .expect("answer")
    };
    let timed = result(2);
    assert_eq!(timed["time"]["expr"], "morning of 3 March");
    assert_eq!(timed["time"]["soft"], true);
    assert_eq!(timed["time"]["part"], "morning 05:00-12:00");
    assert_eq!(timed["results"][0]["file"], "notes/morning.md");
    assert_eq!(timed["results"][0]["started"], "2026-03-03T09:10:00Z");
    // No time words, no `time`.
    let plain = result(3);
    assert!(plain.get("time").is_none(), "{plain}");
    assert_eq!(plain["results"].as_array().map(Vec::len), Some(2));
}
