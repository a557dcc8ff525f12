//! `brain timeline ANCHOR` (issue 40, part 5): what happened just before and after a moment — a
//! hit's `brain://…:line`, a session id, a time — in order, bounded by count and window; bad and
//! hostile anchors are refused with the contract's codes.

use brain_tests::{command, indexed_notes, run};
use serde_json::Value;

fn note(day: &str, title: &str) -> String {
    format!(
        "---\ntitle: {title}\ndate: {day}T10:00:00Z\nsession_id: s-{day}\n---\n{title} happened.\n"
    )
}

fn timeline(home: &std::path::Path, args: &[&str]) -> (Option<i32>, Value, String) {
    let out = run(
        command("brain", home)
            .env("BRAIN_NOW", "2026-05-01T00:00:00Z")
            .arg("timeline")
            .args(args),
        b"",
    );
    let v = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    (
        out.status.code(),
        v,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn titles(v: &Value, side: &str) -> Vec<String> {
    v[side]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|h| h["title"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn around_a_hit_a_session_and_a_time() {
    let notes: Vec<(String, String)> = [
        ("2026-04-01", "alpha"),
        ("2026-04-02", "bravo"),
        ("2026-04-03", "charlie"),
        ("2026-04-04", "delta"),
        ("2026-04-05", "echo"),
        ("2026-04-20", "far later"),
    ]
    .iter()
    .map(|(d, t)| (format!("{t}.md"), note(d, t)))
    .collect();
    let refs: Vec<(&str, &str)> = notes
        .iter()
        .map(|(n, t)| (n.as_str(), t.as_str()))
        .collect();
    let (dir, _) = indexed_notes(&refs);
    let home = dir.path().join("home");
    let (code, v, err) = timeline(
        &home,
        &[
            "brain://notes/charlie.md:6",
            "--json",
            "--before",
            "2",
            "--after",
            "2",
        ],
    );
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(v["anchor"]["doc"]["title"], "charlie");
    assert_eq!(titles(&v, "before"), ["alpha", "bravo"]);
    assert_eq!(titles(&v, "after"), ["delta", "echo"]);
    // The window bounds it: "far later" is 17 days after.
    let (_, v, _) = timeline(
        &home,
        &["s-2026-04-05", "--json", "--after", "5", "--window", "72"],
    );
    assert_eq!(v["anchor"]["doc"]["title"], "echo");
    assert!(titles(&v, "after").is_empty(), "{v}");
    // A time.
    let (code, v, _) = timeline(
        &home,
        &[
            "2026-04-03T12:00:00Z",
            "--json",
            "--before",
            "1",
            "--after",
            "1",
        ],
    );
    assert_eq!(code, Some(0));
    assert_eq!(
        (titles(&v, "before"), titles(&v, "after")),
        (vec!["charlie".to_string()], vec!["delta".to_string()])
    );
    // Nothing around, bad and hostile anchors.
    assert_eq!(
        timeline(&home, &["2030-01-01", "--window", "24"]).0,
        Some(67)
    );
    assert_eq!(
        timeline(&home, &["brain://notes/../../etc/passwd"]).0,
        Some(67)
    );
    assert_eq!(timeline(&home, &["#zzzzzz"]).0, Some(67));
    assert_eq!(
        timeline(&home, &["2026-04-03", "--window", "0"]).0,
        Some(64)
    );
    assert_eq!(
        timeline(&home, &["2026-04-03", "--before", "100000"]).0,
        Some(64)
    );
    let long = "x".repeat(10_000);
    assert_eq!(timeline(&home, &[long.as_str()]).0, Some(64));
}
