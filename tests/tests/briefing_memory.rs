//! Memory worth briefing (issue 53), on a small home made by hand: the briefing carries what
//! `brain context` always does (ME.md, MEMORY.md, pinned records) first, then the project's
//! decisions, failures and rejections, then related items of the project — another project's only
//! when it names an entity of the task, and labelled; noise titles are named by their first real
//! line; ages are right after a compaction; a session id still names its session once it is
//! distilled; browser visits sit at their times in a timeline; hooks that fail show in `brain
//! stats` and fail doctor; a hook never makes a home; Codex's hooks feature is turned on; and the
//! extraction holds against hostile transcripts.

use std::path::{Path, PathBuf};

use brain_tests::{command, parse_lines, run, run_ok};
use serde_json::{Value, json};

const NOW: &str = "2026-11-27T12:00:00Z";
const SESSION: &str = "aaaa1111-2222-4333-8444-555566667777";

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(path, text).expect("write");
}

/// A session document as `jsonl2md` renders one.
fn session(id: &str, project: &str, date: &str, title: &str, turns: &[(&str, &str)]) -> String {
    let mut body = String::from("## Conversation\n\n");
    for (who, text) in turns {
        body.push_str(&format!("**{who}**: {text}\n\n"));
    }
    format!(
        "---\ntitle: '{title}'\ndate: {date}\nsession_id: {id}\nproject: {project}\nagent: claude\n---\n{body}"
    )
}

/// A home: ME.md and MEMORY.md in a `memory` collection, a pinned note, sessions of two projects
/// (one titled `[image]`), a distilled summary of one, a browser day; indexed.
fn home() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let h = dir.path().join("home");
    let core = dir.path().join("core");
    write(
        &core.join("ME.md"),
        "---\ntitle: About me\n---\nI am Dana; I review every migration myself.\n",
    );
    write(
        &core.join("MEMORY.md"),
        "---\ntitle: Memory\n---\nReleases are cut on Fridays.\n",
    );
    let s = h.join("corpus/brain/2026/11");
    write(
        &s.join(format!("{SESSION}.md")),
        &session(
            SESSION,
            "~/work/api",
            "2026-11-20T09:00:00Z",
            "[image]",
            &[
                ("User", "[image]"),
                (
                    "User",
                    "why does the ledger migration fail on empty rows? ok, fine, let's use postgres for the ledger.",
                ),
                ("Assistant", "It fails on the NOT NULL constraint."),
            ],
        ),
    );
    write(
        &s.join("other-project.md"),
        &session(
            "bbbb",
            "~/work/web",
            "2026-11-21T09:00:00Z",
            "[image]",
            &[(
                "User",
                "the ledger migration of the web shop broke the checkout page",
            )],
        ),
    );
    write(
        &h.join("corpus/distilled/2026/11")
            .join(format!("{SESSION}.md")),
        &format!(
            "---\ntitle: Ledger migration fix\ndate: 2026-11-20T10:00:00Z\nsession_id: {SESSION}\nproject: ~/work/api\ndistilled: true\nprompt_version: v1\n---\n## Goal\nFix the ledger migration.\n## What Happened\nThe NOT NULL constraint failed.\n"
        ),
    );
    write(
        &h.join("corpus/chrome-history/2026/11/2026-11-20-chrome-default.md"),
        "---\ntitle: Browser history 2026-11-20 (Chrome, Default)\ndate: 2026-11-20T00:00:00+00:00\nday: 2026-11-20\nbrowser: chrome\n---\n# Browser history 2026-11-20 (Chrome, Default)\n\n## Visits\n\n- 08:55 postgresql.org — [NOT NULL constraints](<https://www.postgresql.org/docs/notnull>)\n- 09:05 docs.rs — [sqlx - Rust](<https://docs.rs/sqlx>)\n- 21:40 news.example — [Evening news](<https://news.example/>)\n",
    );
    write(
        &h.join("inbox/2026-11-01.md"),
        "---\ntitle: Pinned rule\ndate: 2026-11-01T09:00:00Z\npinned: true\ntype: preference\n---\nNever run migrations on Fridays.\n",
    );
    run_ok(
        command("brain", &h)
            .args(["collection", "add", "core"])
            .arg(&core)
            .args(["--role", "memory"]),
        b"",
    );
    run_ok(command("lexindex", &h).args(["--all", "-q"]), b"");
    run_ok(
        command("brain", &h)
            .env_remove("BRAIN_DISTILL_COMMAND")
            .args(["extract", "-q"]),
        b"",
    );
    (dir, h)
}

fn brief(h: &Path, args: &[&str]) -> Value {
    let out = run_ok(
        command("brain", h)
            .env("BRAIN_NOW", NOW)
            .args(["brief", "--json"])
            .args(args),
        b"",
    );
    serde_json::from_slice(&out.stdout).expect("json")
}

fn items(b: &Value) -> Vec<(String, String, String)> {
    b["items"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|i| {
                    (
                        i["section"].as_str().unwrap_or("").to_string(),
                        i["title"].as_str().unwrap_or("").to_string(),
                        i["thread"].as_str().unwrap_or("").to_string(),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn the_briefing_carries_what_matters_first_and_no_noise() {
    let (_dir, h) = home();
    let b = brief(&h, &["--project=/home/x/work/api", "--budget", "1500"]);
    let got = items(&b);
    let sections: Vec<&str> = got.iter().map(|(s, _, _)| s.as_str()).collect();
    // What `brain context` always carries comes first: ME.md, MEMORY.md, the pinned record.
    assert_eq!(&sections[..3], ["always"; 3], "{got:?}");
    let always: Vec<&str> = got[..3].iter().map(|(_, t, _)| t.as_str()).collect();
    assert!(
        always.contains(&"About me") && always.contains(&"Memory"),
        "{always:?}"
    );
    assert!(always.contains(&"Pinned rule"), "{always:?}");
    // The decision said in the session is current for the project.
    assert!(
        got.iter()
            .any(|(s, t, _)| s == "decision" && t.contains("let's use postgres")),
        "{got:?}"
    );
    // No title is noise: the `[image]` session is named by what was asked.
    assert!(
        got.iter().all(|(_, t, _)| !brain_doc::title::is_noise(t)),
        "{got:?}"
    );
    assert!(
        got.iter()
            .any(|(_, t, _)| t.starts_with("why does the ledger migration fail")),
        "{got:?}"
    );
    // Another project's session is not in it (the task names no entity they share).
    assert!(
        got.iter().all(|(_, t, _)| !t.contains("web shop")),
        "another project's item: {got:?}"
    );
    assert!(b["tokens"].as_u64().unwrap_or(u64::MAX) <= 1500);
    // The same home's `brain context` carries the same guaranteed records.
    let ctx = run(
        command("brain", &h)
            .env("BRAIN_NOW", NOW)
            .args(["context", "ledger migration", "--json"]),
        b"",
    );
    let c: Value = serde_json::from_slice(&ctx.stdout).expect("context json");
    let always_ctx: Vec<String> = items(&c)
        .into_iter()
        .filter(|(s, _, _)| s == "always")
        .map(|(_, t, _)| t)
        .collect();
    for t in &always {
        assert!(
            always_ctx.iter().any(|c| c == t),
            "{t} not in context: {always_ctx:?}"
        );
    }
}

#[test]
fn another_projects_item_comes_only_with_a_shared_entity_and_labelled() {
    let (dir, h) = home();
    // An entity both projects name.
    let ent = dir.path().join("entities");
    write(
        &ent.join("ledger/summary.md"),
        "---\ntitle: Ledger\nentity: ledger\nkind: concept\naliases: [ledger]\n---\nThe money ledger.\n",
    );
    run_ok(
        command("brain", &h)
            .args(["collection", "add", "ents"])
            .arg(&ent)
            .args(["--role", "para"]),
        b"",
    );
    assert!(
        run(command("lexindex", &h).args(["--all", "-q"]), b"")
            .status
            .success()
    );
    let b = brief(&h, &["--project=/home/x/work/api", "--budget", "4000"]);
    let others: Vec<(String, String, String)> = items(&b)
        .into_iter()
        .filter(|(_, _, th)| th.starts_with("another project"))
        .collect();
    for (s, _, th) in &others {
        assert_eq!(s, "related");
        assert!(th.contains("~/work/web"), "{th}");
    }
    assert!(
        items(&b)
            .iter()
            .filter(|(_, t, _)| t.contains("web shop"))
            .all(|(_, _, th)| th.starts_with("another project")),
        "an unlabelled item of another project: {:?}",
        items(&b)
    );
}

#[test]
fn after_compaction_ages_are_right_and_a_session_id_names_its_session() {
    let (_dir, h) = home();
    let b = brief(
        &h,
        &[
            "--project=/home/x/work/api",
            "--source",
            "compact",
            "--session",
            SESSION,
        ],
    );
    let now: Vec<&Value> = b["items"]
        .as_array()
        .expect("items")
        .iter()
        .filter(|i| i["section"] == "now")
        .collect();
    assert!(!now.is_empty(), "{b}");
    for i in now {
        assert_eq!(i["age"], "7 days ago", "{i}");
        assert!(
            !brain_doc::title::is_noise(i["title"].as_str().unwrap_or("")),
            "{i}"
        );
    }
    // The session id names the transcript, though a distilled summary carries it too; the
    // summary is one `get` away.
    let get = run_ok(command("brain", &h).args(["get", SESSION]), b"");
    let text = String::from_utf8_lossy(&get.stdout);
    assert!(text.contains("## Conversation"), "{text}");
    let err = String::from_utf8_lossy(&get.stderr);
    assert!(
        err.contains(&format!("brain://distilled/2026/11/{SESSION}.md")),
        "{err}"
    );
    let tl = run_ok(
        command("brain", &h)
            .env("BRAIN_NOW", NOW)
            .args(["timeline", SESSION, "--json"]),
        b"",
    );
    let v: Value = serde_json::from_slice(&tl.stdout).expect("timeline");
    assert_eq!(v["anchor"]["doc"]["collection"], "brain", "{v}");
    // Browser visits sit at their times, not at the day's midnight: the two morning visits are
    // around the 09:00 session, the evening one after it.
    let at = |side: &str| -> Vec<String> {
        v[side]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|h| h["date"].as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default()
    };
    assert!(
        at("before").contains(&"2026-11-20T08:55:00+00:00".to_string()),
        "{v}"
    );
    assert!(
        at("after").contains(&"2026-11-20T09:05:00+00:00".to_string()),
        "{v}"
    );
    assert!(
        at("before")
            .iter()
            .chain(&at("after"))
            .all(|d| !d.ends_with("T00:00:00+00:00")),
        "a day at midnight: {v}"
    );
}

fn usage(h: &Path) -> Vec<Value> {
    std::fs::read_to_string(h.join("logs/usage.jsonl"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

#[test]
fn failing_hooks_show_in_stats_and_fail_doctor_until_one_succeeds() {
    let (_dir, h) = home();
    let hook = |input: &str| {
        run(
            command("brain", &h).args(["hook", "run", "session-start"]),
            input.as_bytes(),
        )
    };
    let ok =
        json!({"cwd": "/home/x/work/api", "hook_event_name": "SessionStart", "source": "startup"});
    assert!(hook(&ok.to_string()).status.success());
    // Four runs fail (input that is not the agent's JSON): each still exits 0 and prints nothing.
    for _ in 0..4 {
        let out = hook("not json");
        assert_eq!((out.status.code(), out.stdout.is_empty()), (Some(0), true));
    }
    let rows: Vec<Value> = usage(&h)
        .into_iter()
        .filter(|r| r["event"] == "hook_session-start")
        .collect();
    assert_eq!(rows.len(), 5);
    assert_eq!(rows.iter().filter(|r| r["error"].is_string()).count(), 4);
    let stats = run(command("brain", &h).args(["stats", "--json"]), b"");
    let s: Value = serde_json::from_slice(&stats.stdout).expect("stats");
    let e = s["events"]
        .as_array()
        .and_then(|a| a.iter().find(|e| e["event"] == "hook_session-start"))
        .expect("the hook's event");
    assert_eq!(e["failures"], 4, "{e}");
    assert_eq!(e["reasons"]["input"], 4, "{e}");
    let text = run(command("brain", &h).arg("stats"), b"");
    assert!(
        String::from_utf8_lossy(&text.stdout)
            .contains("hook hook_session-start: 4 of 5 runs failed (input 4)"),
        "{}",
        String::from_utf8_lossy(&text.stdout)
    );
    let check = brain_tests::doctor_check(&h, "hook_runs");
    assert_eq!(check["outcome"], "fail", "{check}");
    assert!(
        check["details"].to_string().contains("4 failures"),
        "{check}"
    );
    assert!(!check["fix"].as_str().unwrap_or("").is_empty(), "{check}");
    // One success clears it.
    assert!(hook(&ok.to_string()).status.success());
    assert_eq!(
        brain_tests::doctor_check(&h, "hook_runs")["outcome"],
        "pass"
    );
    // The Stop hook's failures count too (its pipeline's exit code).
    let log = run(
        command("brain", &h).args(["hook", "log", "--latency-ms", "5", "--exit-code", "124"]),
        b"",
    );
    assert!(log.status.success());
    let last = usage(&h).into_iter().last().expect("row");
    assert_eq!(
        (last["error"].as_str(), last["reason"].as_str()),
        (Some("timeout"), Some("exit 124"))
    );
    assert_eq!(
        brain_tests::doctor_check(&h, "hook_runs")["outcome"],
        "fail"
    );
}

#[test]
fn a_hook_never_makes_a_home() {
    let dir = tempfile::tempdir().expect("tempdir");
    let h = dir.path().join("never");
    let out = run(
        command("brain", &h).args(["hook", "run", "session-start"]),
        br#"{"cwd": "/tmp"}"#,
    );
    assert_eq!((out.status.code(), out.stdout.is_empty()), (Some(0), true));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no brain home"));
    let hook = run(
        std::process::Command::new("bash")
            .arg(brain_tests::workspace().join("pipelines/stop-hook.sh"))
            .env("BRAIN_HOME", &h)
            .env("BRAIN_BIN", brain_tests::bin("brain")),
        b"{}",
    );
    assert_eq!(hook.status.code(), Some(0));
    assert!(!h.exists(), "a hook made {}", h.display());
}

#[test]
fn codex_hooks_are_installed_with_their_feature_on_and_doctor_checks_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let h = dir.path().join("home");
    let codex = dir.path().join("codex");
    std::fs::create_dir_all(&codex).expect("codex");
    std::fs::write(codex.join("config.toml"), "# my settings\nmodel = \"o3\"\n").expect("config");
    run_ok(
        command("brain", &h)
            .env("CODEX_HOME", &codex)
            .args(["hook", "install", "--codex"]),
        b"",
    );
    let config = std::fs::read_to_string(codex.join("config.toml")).expect("config");
    assert!(
        config.contains("# my settings") && config.contains("model = \"o3\""),
        "{config}"
    );
    assert!(
        config.contains("[features]") && config.contains("codex_hooks = true"),
        "{config}"
    );
    let check = |h: &Path| {
        let out = run(
            command("brain", h)
                .env("CODEX_HOME", &codex)
                .args(["doctor", "--json"]),
            b"",
        );
        let r: Value = serde_json::from_slice(&out.stdout).expect("doctor");
        r["checks"]
            .as_array()
            .and_then(|c| c.iter().find(|c| c["name"] == "hooks").cloned())
            .expect("hooks check")
    };
    assert_eq!(check(&h)["outcome"], "pass", "{}", check(&h));
    std::fs::write(codex.join("config.toml"), "model = \"o3\"\n").expect("config");
    let c = check(&h);
    assert_eq!(c["outcome"], "fail", "{c}");
    assert!(c["details"].to_string().contains("codex_hooks"), "{c}");
    assert!(
        c["fix"]
            .as_str()
            .unwrap_or("")
            .contains("brain hook install --codex"),
        "{c}"
    );
}

/// A session file of `turns`, in `home`'s sessions collection, indexed.
fn hostile_home(name: &str, text: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let h = dir.path().join("home");
    write(&h.join("corpus/brain/2026/11").join(name), text);
    (dir, h)
}

fn extract(h: &Path) -> (std::process::Output, Vec<Value>) {
    let out = run(
        command("brain", h)
            .env_remove("BRAIN_DISTILL_COMMAND")
            .args(["extract", "-q"]),
        b"",
    );
    let lines = if out.stdout.is_empty() {
        Vec::new()
    } else {
        parse_lines(&out.stdout)
    };
    (out, lines)
}

#[test]
fn hostile_transcripts_are_bounded_and_nothing_secret_is_kept() {
    // 100,000 turns, a line of 5 MB, a decision in code, one quoted, one in French, a secret.
    let mut turns: Vec<(String, String)> = Vec::new();
    for i in 0..100_000 {
        turns.push(("User".into(), format!("turn {i} says nothing")));
    }
    turns.push(("User".into(), "x".repeat(5 << 20)));
    turns.push(("User".into(), "look:\n```\nlet's use vite\n```".into()));
    turns.push(("User".into(), "he wrote \"let's use webpack\" once".into()));
    turns.push(("User".into(), "Utilisons vite pour le bundler.".into()));
    turns.push((
        "User".into(),
        "let's use the token ghp_abcdefghijklmnopqrstuvwxyz0123456789 for deploys".into(),
    ));
    let refs: Vec<(&str, &str)> = turns
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    let text = session(
        "hostile",
        "~/work/api",
        "2026-11-20T09:00:00Z",
        "hostile",
        &refs,
    );
    let (_dir, h) = hostile_home("hostile.md", &text);
    let started = std::time::Instant::now();
    let (out, lines) = extract(&h);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    eprintln!("100,000 turns and a 5 MB line: {:?}", started.elapsed());
    let said: Vec<&str> = lines
        .iter()
        .filter_map(|l| l["statement"].as_str())
        .collect();
    assert!(
        !said
            .iter()
            .any(|s| s.contains("vite") || s.contains("webpack")),
        "{said:?}"
    );
    let all = brain_tests::tree(&h.join("corpus/distilled"));
    for (path, bytes) in &all {
        let t = String::from_utf8_lossy(bytes);
        assert!(
            !t.contains("ghp_abcdef") && !path.contains("ghp_"),
            "{path}: {t}"
        );
    }
    assert!(said.iter().any(|s| s.contains("[REDACTED")), "{said:?}");
}

#[test]
fn two_sessions_deciding_opposite_things_on_one_day_are_flagged() {
    let dir = tempfile::tempdir().expect("tempdir");
    let h = dir.path().join("home");
    let s = h.join("corpus/brain/2026/11");
    write(
        &s.join("a.md"),
        &session(
            "a",
            "~/work/api",
            "2026-11-20T09:00:00Z",
            "db",
            &[("User", "let's use postgres for the registry")],
        ),
    );
    write(
        &s.join("b.md"),
        &session(
            "b",
            "~/work/api",
            "2026-11-20T15:00:00Z",
            "db",
            &[("User", "let's use sqlite for the registry")],
        ),
    );
    let (out, lines) = extract(&h);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let decided: Vec<&str> = lines
        .iter()
        .filter_map(|l| l["decision"].as_str())
        .collect();
    assert_eq!(decided, ["ADD", "CONFLICT"], "{lines:?}");
    assert_eq!(lines[1]["key"], "api:database");
    assert!(
        run(command("lexindex", &h).args(["--all", "-q"]), b"")
            .status
            .success()
    );
    let memory = brain_tests::doctor_check(&h, "memory");
    assert!(memory.to_string().contains("contradict"), "{memory}");
}

#[test]
fn a_damaged_extract_log_is_named_and_the_briefing_still_answers() {
    let (_dir, h) = home();
    std::fs::write(
        h.join("logs/extract.jsonl"),
        "{\"kind\":\"extract\"}\n{torn\n",
    )
    .expect("log");
    std::fs::write(h.join("state/extract-sessions.json"), "not json").expect("state");
    let b = brief(&h, &["--project=/home/x/work/api"]);
    assert!(!items(&b).is_empty());
    let memory = brain_tests::doctor_check(&h, "memory");
    assert_eq!(memory["outcome"], "fail", "{memory}");
    let details = memory["details"].to_string();
    assert!(
        details.contains("extract.jsonl") && details.contains("line 2"),
        "{details}"
    );
    assert!(details.contains("extract-sessions.json"), "{details}");
    // The next extraction reads every session again and writes nothing new.
    let (out, lines) = extract(&h);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(lines.iter().all(|l| l["decision"] == "NOOP"), "{lines:?}");
}

#[test]
fn the_stop_hook_reads_the_finished_session_for_decisions() {
    let dir = tempfile::tempdir().expect("tempdir");
    let h = dir.path().join("home");
    std::fs::create_dir_all(&h).expect("home");
    let t = dir.path().join("work/api/.claude/session.jsonl");
    let line = |kind: &str, text: &str, uuid: &str| {
        json!({"type": kind, "uuid": uuid, "sessionId": "cccc0000-1111-4222-8333-444455556666",
               "cwd": "/home/x/work/api", "timestamp": "2026-11-26T10:00:00Z",
               "message": {"role": kind, "content": text}})
        .to_string()
    };
    write(
        &t,
        &format!(
            "{}\n{}\n",
            line(
                "user",
                "the lockfile keeps changing. ok, let's use pnpm for this repo.",
                "u1"
            ),
            line("assistant", "Switched the scripts to pnpm.", "u2")
        ),
    );
    let payload = json!({"session_id": "cccc0000-1111-4222-8333-444455556666",
        "transcript_path": t, "cwd": "/home/x/work/api", "hook_event_name": "Stop"});
    let out = run(
        std::process::Command::new("bash")
            .arg(brain_tests::workspace().join("pipelines/stop-hook.sh"))
            .env("BRAIN_HOME", &h)
            .env("HOME", &h)
            .env("BRAIN_BIN", brain_tests::bin("brain")),
        payload.to_string().as_bytes(),
    );
    assert_eq!(out.status.code(), Some(0));
    let records = brain_tests::tree(&h.join("corpus/distilled/records"));
    assert!(
        records.iter().any(|(p, _)| p.contains("package-manager")),
        "{:?}\n{}",
        records.iter().map(|(p, _)| p).collect::<Vec<_>>(),
        std::fs::read_to_string(h.join("logs/hook.log")).unwrap_or_default()
    );
    let b = brief(&h, &["--project=/home/x/work/api"]);
    assert!(
        items(&b)
            .iter()
            .any(|(s, t, _)| s == "decision" && t.contains("let's use pnpm")),
        "{b}"
    );
}
