//! Decay tiers (issue #22, seed 001) as a filter and as counts: `--tier` / `tier:` keep only the
//! records of a tier inside the search, a read warms a record, and `brain status` / `brain stats`
//! / `brain memory tiers` count the same records the same way.

use brain_doc::Hit;
use brain_tests::{command, indexed_notes, run};

fn day(days_ago: i64) -> String {
    let t = jiff::Timestamp::now() - jiff::SignedDuration::from_hours(24 * days_ago);
    t.strftime("%Y-%m-%d").to_string()
}

fn note(days_ago: i64, text: &str) -> String {
    format!("---\ndate: {}\n---\n{text}\n", day(days_ago))
}

fn ask(home: &std::path::Path, args: &[&str]) -> (Option<i32>, Vec<Hit>) {
    let out = run(
        command("brain", home).args(["ask", "--json"]).args(args),
        b"",
    );
    let env: serde_json::Value =
        serde_json::from_slice(&out.stdout).unwrap_or(serde_json::Value::Null);
    (
        out.status.code(),
        serde_json::from_value(env["hits"].clone()).unwrap_or_default(),
    )
}

fn paths(hits: &[Hit]) -> Vec<&str> {
    let mut p: Vec<&str> = hits.iter().map(|h| h.path.as_str()).collect();
    p.sort_unstable();
    p
}

#[test]
fn tier_filters_inside_the_search_and_counts_agree_everywhere() {
    let (dir, _) = indexed_notes(&[
        ("fresh.md", &note(2, "the heron deploy checklist")),
        ("mid.md", &note(20, "the heron deploy rollback")),
        ("old.md", &note(90, "the heron deploy history")),
        ("older.md", &note(400, "the heron deploy first draft")),
    ]);
    let h = dir.path().join("home");
    let (code, hits) = ask(&h, &["--tier", "hot", "heron deploy"]);
    assert_eq!(code, Some(0));
    assert_eq!(paths(&hits), ["fresh.md"]);
    let (_, hits) = ask(&h, &["tier:warm heron deploy"]);
    assert_eq!(paths(&hits), ["mid.md"]);
    let (_, hits) = ask(&h, &["--tier", "cold", "heron"]);
    assert_eq!(paths(&hits), ["old.md", "older.md"]);
    // Any of several; a filter alone lists the tier newest first.
    let (_, hits) = ask(&h, &["--tier", "hot", "--tier", "warm", "heron"]);
    assert_eq!(paths(&hits), ["fresh.md", "mid.md"]);
    let (code, hits) = ask(&h, &["tier:cold"]);
    assert_eq!(code, Some(0));
    assert_eq!(
        hits.iter().map(|h| h.path.as_str()).collect::<Vec<_>>(),
        ["old.md", "older.md"]
    );
    // Cold records stay searchable without the filter.
    let (_, hits) = ask(&h, &["heron deploy"]);
    assert_eq!(hits.len(), 4);
    // Not a tier: a bad query, naming it.
    for bad in [
        &["--tier", "lukewarm", "heron"][..],
        &["tier:lukewarm heron"][..],
    ] {
        let out = run(command("brain", &h).arg("ask").args(bad), b"");
        assert_eq!(out.status.code(), Some(64), "{bad:?}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("lukewarm"));
    }

    // A read warms a record: read now, it is hot once the log is folded.
    assert_eq!(
        run(command("brain", &h).args(["get", "notes/old.md"]), b"")
            .status
            .code(),
        Some(0)
    );
    run(command("brain", &h).args(["memory", "fold"]), b"");
    let (_, hits) = ask(&h, &["--tier", "hot", "heron"]);
    assert_eq!(paths(&hits), ["fresh.md", "old.md"]);

    // The same counts on every surface.
    let status = run(command("brain", &h).args(["status", "--json"]), b"");
    let status: serde_json::Value = serde_json::from_slice(&status.stdout).expect("status json");
    assert_eq!(
        status["tiers"],
        serde_json::json!({"hot": 2, "warm": 1, "cold": 1})
    );
    let tiers = run(
        command("brain", &h).args(["memory", "tiers", "--json"]),
        b"",
    );
    let tiers: serde_json::Value = serde_json::from_slice(&tiers.stdout).expect("tiers json");
    assert_eq!(
        (tiers["hot"].clone(), tiers["cold"].clone()),
        (2.into(), 1.into())
    );
    let text = run(command("brain", &h).arg("status"), b"");
    assert!(
        String::from_utf8_lossy(&text.stdout).contains("memory tiers: hot 2  warm 1  cold 1"),
        "{}",
        String::from_utf8_lossy(&text.stdout)
    );
    let stats = run(command("brain", &h).args(["stats", "--json"]), b"");
    if let Ok(v) = serde_json::from_slice::<serde_json::Value>(&stats.stdout) {
        assert_eq!(v["tiers"]["hot"], 2);
    }
}
