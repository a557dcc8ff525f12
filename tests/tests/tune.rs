//! `brain tune` and `brain strategy` (issue #24): the planted fault brought back, the same log
//! twice for one seed, the test split refused, proposals from a command checked against the knob
//! registry, an interrupted run leaving the last kept strategy, clicks from use becoming a judged
//! set, and a strategy file checked key by key.

use std::path::{Path, PathBuf};

use brain_tests::{command, parse_lines, run, workspace};
use serde_json::Value;

fn set() -> PathBuf {
    workspace().join("golden/tune/set")
}

fn brain(home: &Path, args: &[&str]) -> std::process::Output {
    run(command("brain", home).args(args), b"")
}

fn tune(home: &Path, extra: &[&str]) -> std::process::Output {
    let set = set();
    let mut a = vec!["tune", "--set", set.to_str().expect("utf-8"), "--json"];
    a.extend_from_slice(extra);
    brain(home, &a)
}

fn ok(out: &std::process::Output) {
    assert!(
        out.status.success(),
        "exit {:?}: {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
}

fn summary(out: &std::process::Output) -> Value {
    ok(out);
    parse_lines::<Value>(&out.stdout)
        .into_iter()
        .find(|v| v["kind"] == "tune_summary")
        .expect("a summary")
}

#[test]
fn a_planted_fault_is_brought_back_and_the_test_split_scored_once_at_the_end() {
    let home = tempfile::tempdir().expect("tempdir");
    let h = home.path();
    std::fs::write(h.join("search_strategy.yaml"), "lex:\n  title: 0.05\n").expect("strategy");
    let s = summary(&tune(
        h,
        &[
            "--knobs",
            "lex.title",
            "--iterations",
            "12",
            "--patience",
            "4",
            "--final-test",
        ],
    ));
    // Within 12 experiments the title weighs again, and the dev part says so.
    let title = s["moved"]["lex.title"][1].as_f64().expect("title moved");
    assert!((1.0..=2.5).contains(&title), "{title}");
    let (before, after) = (
        s["before"]["dev"]["score"].as_f64().expect("before"),
        s["after"]["dev"]["score"].as_f64().expect("after"),
    );
    assert!(after > before + 0.3, "{before} → {after}");
    assert!(s["iterations"].as_u64() <= Some(12));
    // The test split, once, apart: better too.
    let test = &s["test"];
    assert!(
        test[1]["score"].as_f64() > test[0]["score"].as_f64(),
        "{test}"
    );
    // The file holds only what moved, and the one before is kept.
    let file = std::fs::read_to_string(h.join("search_strategy.yaml")).expect("file");
    assert_eq!(file, format!("lex:\n  title: {title}\n"));
    assert_eq!(
        std::fs::read_to_string(h.join("search_strategy.yaml.prev")).expect("prev"),
        "lex:\n  title: 0.05\n"
    );
    // The report reads it back.
    let out = brain(h, &["tune", "report"]);
    ok(&out);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("lex.title: 0.05 →"), "{text}");
    assert!(text.contains("test "), "{text}");
}

/// The log without what differs between two runs: when each line was written and how long it
/// took.
fn without_timings(log: &str) -> Vec<Value> {
    log.lines()
        .map(|l| {
            let mut v: Value = serde_json::from_str(l).expect("json line");
            if let Some(o) = v.as_object_mut() {
                o.remove("ts");
                o.remove("duration_ms");
            }
            v
        })
        .collect()
}

#[test]
fn one_seed_gives_the_same_log_byte_for_byte_but_for_timings() {
    let (a, b) = (
        tempfile::tempdir().expect("a"),
        tempfile::tempdir().expect("b"),
    );
    for h in [a.path(), b.path()] {
        std::fs::write(h.join("search_strategy.yaml"), "lex:\n  title: 0.3\n").expect("strategy");
        ok(&tune(
            h,
            &["--seed", "7", "--iterations", "10", "--patience", "10"],
        ));
    }
    let read = |h: &Path| std::fs::read_to_string(h.join("tune-log.jsonl")).expect("log");
    let (la, lb) = (read(a.path()), read(b.path()));
    assert!(la.lines().count() >= 5, "{la}");
    assert_eq!(without_timings(&la), without_timings(&lb));
    // Another seed searches in another order.
    let c = tempfile::tempdir().expect("c");
    std::fs::write(
        c.path().join("search_strategy.yaml"),
        "lex:\n  title: 0.3\n",
    )
    .expect("s");
    ok(&tune(
        c.path(),
        &["--seed", "8", "--iterations", "10", "--patience", "10"],
    ));
    assert_ne!(without_timings(&la), without_timings(&read(c.path())));
}

#[test]
fn bad_runs_are_refused_before_anything_is_written() {
    let home = tempfile::tempdir().expect("tempdir");
    let h = home.path();
    for (args, code) in [
        (vec!["--split", "test"], 64),
        (vec!["--objective", "map@10"], 64),
        (vec!["--knobs", "lex.nope"], 64),
        (vec!["--min-gain", "2"], 64),
        (vec!["--split", "nope"], 64),
    ] {
        let out = tune(h, &args);
        assert_eq!(
            out.status.code(),
            Some(code),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let err = String::from_utf8_lossy(&tune(h, &["--split", "test"]).stderr).into_owned();
    assert!(err.contains("never tuned on"), "{err}");
    assert_eq!(brain(h, &["tune"]).status.code(), Some(64));
    assert!(!h.join("search_strategy.yaml").exists());
    assert_eq!(brain(h, &["tune", "report"]).status.code(), Some(67));
}

/// A proposer that answers the lines of `answers` in turn (one per call; the last repeats).
fn proposer(dir: &Path, answers: &[&str]) -> String {
    for (i, a) in answers.iter().enumerate() {
        std::fs::write(dir.join(format!("a{i}")), a).expect("answer");
    }
    let script = dir.join("propose.sh");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\ncat > /dev/null\nn=$(cat {d}/n 2>/dev/null || echo 0)\necho $((n + 1)) > {d}/n\nf={d}/a$n\n[ -f \"$f\" ] || f={d}/a{last}\nsh -c \"$(cat $f)\"\n",
            d = dir.display(),
            last = answers.len() - 1
        ),
    )
    .expect("script");
    format!("sh {}", script.display())
}

#[test]
fn a_command_proposes_and_what_breaks_the_registry_is_rejected_not_applied() {
    let home = tempfile::tempdir().expect("tempdir");
    let h = home.path();
    std::fs::write(h.join("search_strategy.yaml"), "lex:\n  title: 0.05\n").expect("strategy");
    let cmd = proposer(
        h,
        &[
            r#"echo 'Try this: {"changes": {"lex.title": 1.5}, "hypothesis": "titles name the topic"}'"#,
            r#"echo '{"changes": {"lex.nope": 1}, "hypothesis": "x"}'"#,
            r#"echo '{"changes": {"lex.title": 99}, "hypothesis": "more"}'"#,
            "echo oops; exit 3",
        ],
    );
    let out = tune(
        h,
        &["--proposer", &cmd, "--iterations", "4", "--patience", "5"],
    );
    ok(&out);
    let lines: Vec<Value> = parse_lines(&out.stdout);
    let decisions: Vec<&str> = lines
        .iter()
        .filter(|v| v["kind"] == "tune_experiment")
        .map(|v| v["decision"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(
        decisions,
        ["baseline", "keep", "rejected", "rejected", "rejected"]
    );
    let reasons: Vec<String> = lines
        .iter()
        .filter(|v| v["decision"] == "rejected")
        .map(|v| v["reason"].as_str().unwrap_or("").to_string())
        .collect();
    assert!(reasons[0].contains("unknown key `lex.nope`"), "{reasons:?}");
    assert!(reasons[1].contains("out of range"), "{reasons:?}");
    assert!(reasons[2].contains("exited with status 3"), "{reasons:?}");
    assert_eq!(
        std::fs::read_to_string(h.join("search_strategy.yaml")).expect("file"),
        "lex:\n  title: 1.5\n"
    );
}

#[test]
fn an_interrupted_run_leaves_the_last_kept_strategy() {
    let home = tempfile::tempdir().expect("tempdir");
    let h = home.path();
    std::fs::write(h.join("search_strategy.yaml"), "lex:\n  title: 0.05\n").expect("strategy");
    let cmd = proposer(
        h,
        &[
            r#"echo '{"changes": {"lex.title": 1.5}, "hypothesis": "first"}'"#,
            "sleep 60",
        ],
    );
    let set = set();
    let mut child = command("brain", h)
        .args([
            "tune",
            "--set",
            set.to_str().expect("utf-8"),
            "--proposer",
            &cmd,
        ])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("spawn");
    let kept = || {
        std::fs::read_to_string(h.join("tune-log.jsonl"))
            .is_ok_and(|l| l.contains("\"decision\":\"keep\""))
    };
    let t = std::time::Instant::now();
    while !kept() && t.elapsed().as_secs() < 60 {
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    assert!(kept(), "the first change was never kept");
    // Ctrl-C — or, where this test runs with SIGINT ignored (started in the background by a
    // non-interactive shell, which the child inherits), the other signal whose default is to end it.
    let ignored = std::fs::read_to_string("/proc/self/status").is_ok_and(|s| {
        s.lines()
            .find_map(|l| l.strip_prefix("SigIgn:"))
            .and_then(|m| u64::from_str_radix(m.trim(), 16).ok())
            .is_some_and(|m| m & (1 << (2 - 1)) != 0)
    });
    let _ = std::process::Command::new("kill")
        .args([
            if ignored { "-TERM" } else { "-INT" },
            &child.id().to_string(),
        ])
        .status();
    let _ = child.wait();
    let file = std::fs::read_to_string(h.join("search_strategy.yaml")).expect("file");
    assert_eq!(file, "lex:\n  title: 1.5\n");
    ok(&brain(h, &["strategy", "diff"]));
    let out = brain(h, &["tune", "report"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("interrupted"));
}

#[test]
fn gets_of_hits_are_clicks_and_enough_of_them_are_a_judged_set() {
    let home = tempfile::tempdir().expect("tempdir");
    let h = home.path().join("home");
    let notes = home.path().join("notes");
    brain_tests::notes_home(&h, &notes);
    let topics = [
        "raft",
        "vacuum",
        "kafka",
        "tantivy",
        "tokio",
        "nginx",
        "redis",
        "grpc",
        "terraform",
        "kubernetes",
        "sqlite",
        "borrow",
        "asyncio",
        "rebase",
        "docker",
        "bloom",
        "jwt",
        "pkce",
        "multipart",
        "dns",
        "slowstart",
        "surrogate",
    ];
    for (i, t) in topics.iter().enumerate() {
        std::fs::write(
            notes.join(format!("n{i}.md")),
            format!(
                "---\ndate: 2026-03-0{}\n---\n# {t} notes\n\nwhat we learned about {t}\n",
                1 + i % 9
            ),
        )
        .expect("note");
    }
    ok(&run(
        command("lexindex", &h).args(["--all", "--quiet"]),
        b"",
    ));
    // Without the text of queries in the log there is nothing to learn from.
    let ask = |t: &str, opt_in: bool| -> String {
        let mut c = command("brain", &h);
        if opt_in {
            c.env("BRAIN_TELEMETRY_QUERIES", "1");
        }
        let out = run(c.args(["ask", "--json", &format!("{t} notes")]), b"");
        let v: Value = serde_json::from_slice(&out.stdout).expect("results");
        v["hits"][0]["docid"].as_str().expect("a hit").to_string()
    };
    let d = ask(topics[0], false);
    ok(&brain(&h, &["get", &d]));
    let out = brain(&h, &["tune", "--from-usage"]);
    assert_eq!(out.status.code(), Some(67));
    assert!(String::from_utf8_lossy(&out.stderr).contains("needs 20"));
    for t in &topics {
        let d = ask(t, true);
        ok(&brain(&h, &["get", &d]));
    }
    let log = std::fs::read_to_string(h.join("logs/usage.jsonl")).expect("usage");
    let clicks = log
        .lines()
        .filter(|l| l.contains("\"event\":\"click\""))
        .count();
    assert_eq!(clicks, topics.len() + 1);
    let out = brain(&h, &["tune", "--from-usage", "--iterations", "2", "--json"]);
    let s = summary(&out);
    assert!(
        s["parts"]
            .as_str()
            .is_some_and(|p| p.contains("22 queries")),
        "{s}"
    );
    assert_eq!(s["set"], "usage");
}

#[test]
fn a_strategy_file_is_checked_key_by_key_and_shown_against_the_defaults() {
    let home = tempfile::tempdir().expect("tempdir");
    let h = home.path();
    let file = h.join("search_strategy.yaml");
    for (yaml, named) in [
        ("lex:\n  titel: 2\n", "unknown key `lex.titel`"),
        (
            "fusion:\n  k: 0\n",
            "`fusion.k: 0` is out of range (1 to 200)",
        ),
        (
            "limit: many\n",
            "`limit: \"many\"`: expected a whole number",
        ),
    ] {
        std::fs::write(&file, yaml).expect("strategy");
        for args in [vec!["ask", "anything"], vec!["strategy", "show"]] {
            let out = brain(h, &args);
            assert_eq!(out.status.code(), Some(64), "{yaml} {args:?}");
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(err.contains(named), "{yaml}: {err}");
        }
    }
    std::fs::write(&file, "lex:\n  title: 2.5\nfusion:\n  k: 30\n").expect("strategy");
    let out = brain(h, &["strategy", "diff"]);
    ok(&out);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "lex.title: 1.0 → 2.5\nfusion.k: 60.0 → 30.0\n"
    );
    let shown: Vec<Value> = parse_lines(&brain(h, &["strategy", "show", "--json"]).stdout);
    let title = shown
        .iter()
        .find(|k| k["key"] == "lex.title")
        .expect("lex.title");
    assert_eq!(title["changed"], true);
    assert_eq!(title["value"], 2.5);
    assert!(shown.len() >= 40, "{}", shown.len());
    ok(&brain(h, &["strategy", "reset", "fusion.k"]));
    assert_eq!(
        std::fs::read_to_string(&file).expect("file"),
        "lex:\n  title: 2.5\n"
    );
    ok(&brain(h, &["strategy", "reset"]));
    assert!(!file.exists());
    assert_eq!(
        String::from_utf8_lossy(&brain(h, &["strategy", "diff"]).stdout),
        "every knob at its default\n"
    );
}
