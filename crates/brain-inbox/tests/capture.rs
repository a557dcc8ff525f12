//! The library entry point the MCP `remember` tool calls: the surface reaches telemetry, an inbox
//! that brain.yaml does not declare still takes entries (with a warning), and ids keep counting in a
//! day file the user edited.

use brain_doc::Classified;
use brain_inbox::{Capture, EntryType, InboxError, capture};
use brain_store::Home;
use brain_store::telemetry::Surface;

fn at(ts: &str) -> jiff::Zoned {
    ts.parse::<jiff::Timestamp>()
        .expect("ts")
        .to_zoned(jiff::tz::TimeZone::UTC)
}

fn rows(home: &Home) -> Vec<serde_json::Value> {
    std::fs::read_to_string(home.usage_log())
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).expect("row"))
        .collect()
}

#[test]
fn the_surface_reaches_telemetry_and_refusals_carry_their_reason() {
    let dir = tempfile::tempdir().expect("tempdir");
    let home = Home::at(dir.path());
    let mut req = Capture::new("remember the zanzibar plan", at("2026-04-10T09:00:00Z"));
    req.kind = EntryType::Fact;
    req.surface = Surface::Mcp;
    req.index = false;
    let c = capture(&home, &req).expect("captured");
    assert_eq!((c.entry_id.as_str(), c.indexed), ("20260410-001", false));
    let mut bad = req.clone();
    bad.text = "token ghp_0123456789abcdefghijklmnopqrstuvwxyzAB".into();
    let err = capture(&home, &bad).expect_err("refused");
    assert!(matches!(err, InboxError::Refused(_)));
    assert_eq!((err.code().exit_code(), err.reason()), (71, Some("secret")));
    let r = rows(&home);
    assert_eq!(
        (
            r[0]["surface"].as_str(),
            r[0]["event"].as_str(),
            r[0]["type"].as_str()
        ),
        (Some("mcp"), Some("inbox_write"), Some("fact"))
    );
    assert_eq!(
        (r[1]["event"].as_str(), r[1]["reason"].as_str()),
        (Some("inbox_refused"), Some("secret"))
    );
}

#[test]
fn an_undeclared_inbox_still_takes_entries_and_edited_files_keep_counting() {
    let dir = tempfile::tempdir().expect("tempdir");
    let home = Home::at(dir.path());
    std::fs::write(
        home.config(),
        "version: 1\ncollections:\n  - {name: notes, path: notes}\npartition: {default: notes}\n",
    )
    .expect("brain.yaml");
    let c = capture(&home, &Capture::new("first", at("2026-04-10T09:00:00Z"))).expect("captured");
    assert!(!c.indexed);
    assert!(
        c.warnings[0].contains("declares no `inbox` collection"),
        "{:?}",
        c.warnings
    );
    assert_eq!(
        c.path,
        home.inbox().join("2026-04-10.md").display().to_string()
    );
    // The user deletes entry 001 and adds a heading of their own; the next id is still new.
    let file = home.inbox().join("2026-04-10.md");
    let text = std::fs::read_to_string(&file).expect("read");
    let edited = text.replace(
        "## 2026-04-10T09:00:00+00:00 · note · 20260410-001",
        "## my own heading",
    );
    std::fs::write(
        &file,
        format!("{edited}\n## 2026-04-10T09:05:00+00:00 · todo · 20260410-007\n\nlater\n"),
    )
    .expect("write");
    let c = capture(&home, &Capture::new("second", at("2026-04-10T10:00:00Z"))).expect("captured");
    assert_eq!(c.entry_id, "20260410-008");
}
