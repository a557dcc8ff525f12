//! `brain stats` over fixed usage logs (golden), and telemetry end to end: surfaces, the query-text
//! opt-in, `BRAIN_TELEMETRY=off`, and 100 concurrent writer processes without a torn line.

use std::path::Path;
use std::process::Stdio;

use brain_store::telemetry::stats::Stats;
use brain_tests::{command, parse_lines, run, workspace};
use serde_json::Value;

/// Put the fixture log into the case's home.
fn log(work: &Path) {
    let logs = work.join("home/logs");
    std::fs::create_dir_all(&logs).expect("mkdir");
    std::fs::copy(
        workspace().join("golden/brain-stats/_log/usage.jsonl"),
        logs.join("usage.jsonl"),
    )
    .expect("copy");
}

fn rows(home: &Path) -> Vec<Value> {
    std::fs::read_to_string(home.join("logs/usage.jsonl"))
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("torn row ({e}): {l}")))
        .collect()
}

#[test]
fn golden_cases() {
    brain_tests::golden("brain-stats", "brain", log);
}

#[test]
fn stats_json_parses_into_the_type_with_percentiles_and_zero_hit_rate() {
    let work = tempfile::tempdir().expect("tempdir");
    log(work.path());
    let home = work.path().join("home");
    let out = run(
        command("brain", &home)
            .env("BRAIN_NOW", "2026-04-10T12:00:00Z")
            .args(["stats", "--since", "7d", "--json"]),
        b"",
    );
    assert_eq!(out.status.code(), Some(0));
    let s: Vec<Stats> = parse_lines(&out.stdout);
    let s = &s[0];
    assert_eq!((s.rows, s.malformed, s.days_active), (13, 3, 6));
    let ask = s.events.iter().find(|e| e.event == "ask").expect("ask");
    assert_eq!(
        (ask.count, ask.failures, ask.p50_ms, ask.p95_ms),
        (5, 1, Some(18), Some(363))
    );
    assert_eq!(s.zero_hit_rate, Some(0.5));
    assert_eq!(s.by_surface.get("mcp"), Some(&3));
    assert_eq!(s.errors.get("refused"), Some(&1));
}

#[test]
fn surfaces_opt_in_query_text_and_the_off_switch() {
    let home = tempfile::tempdir().expect("tempdir");
    let h = home.path();
    let ask = |env: &[(&str, &str)]| {
        let mut c = command("brain", h);
        for (k, v) in env {
            c.env(k, v);
        }
        run(c.args(["ask", "secret plans"]), b"")
    };
    // No index: ask fails with 65, and the row says so.
    assert_eq!(ask(&[]).status.code(), Some(65));
    assert_eq!(ask(&[("BRAIN_SURFACE", "hook")]).status.code(), Some(65));
    ask(&[("BRAIN_TELEMETRY_QUERIES", "1")]);
    ask(&[("BRAIN_TELEMETRY", "off")]);
    let r = rows(h);
    assert_eq!(r.len(), 3, "BRAIN_TELEMETRY=off writes nothing");
    assert_eq!(
        (
            r[0]["surface"].as_str(),
            r[0]["error"].as_str(),
            r[0]["query_len"].as_u64()
        ),
        (Some("cli"), Some("index_missing"), Some(12))
    );
    assert!(
        r[0].get("query").is_none() && r[1].get("query").is_none(),
        "query text only on opt-in"
    );
    assert_eq!(r[1]["surface"], "hook");
    assert_eq!(r[2]["query"], "secret plans");
    let mode = std::os::unix::fs::PermissionsExt::mode(
        &std::fs::metadata(h.join("logs/usage.jsonl"))
            .expect("meta")
            .permissions(),
    );
    assert_eq!(mode & 0o777, 0o600);
}

#[test]
fn a_hundred_concurrent_processes_leave_no_torn_line() {
    let home = tempfile::tempdir().expect("tempdir");
    let h = home.path();
    let children: Vec<_> = (0..100)
        .map(|i| {
            command("brain", h)
                .env("BRAIN_SURFACE", if i % 2 == 0 { "cli" } else { "cron" })
                .args(["recent", "-c", if i % 3 == 0 { "nope" } else { "brain" }])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("spawn")
        })
        .collect();
    for c in children {
        let status = c.wait_with_output().expect("wait").status;
        assert!(matches!(status.code(), Some(64 | 65)), "{status}");
    }
    let r = rows(h);
    assert_eq!(r.len(), 100);
    assert!(
        r.iter()
            .all(|row| row["schema"] == 1 && row["event"] == "recent" && row["error"].is_string())
    );
    assert_eq!(r.iter().filter(|row| row["surface"] == "cron").count(), 50);
}
