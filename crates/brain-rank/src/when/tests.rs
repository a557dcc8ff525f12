//! Every form of [`super::find`] against `golden/when/cases.tsv` (now: Wednesday 2026-04-15 12:00
//! UTC): one row per query with how it was read. `GOLDEN_UPDATE=1 cargo test -p brain-rank when`
//! rewrites the table from the code; review the diff.

use super::*;

const NOW: &str = "2026-04-15T12:00:00+00:00[UTC]";

fn now() -> Zoned {
    NOW.parse().expect("now")
}

fn table() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../golden/when/cases.tsv")
}

/// A row: query, then expr, rest, from, to, part, order, margin (hours); `-` for none.
fn row(query: &str) -> String {
    let mut cols = vec![query.to_string()];
    match find(query, &now()) {
        None => cols.push("NONE".into()),
        Some(w) => {
            let t = w.wire();
            let dash = |s: Option<String>| s.unwrap_or_else(|| "-".into());
            cols.extend([
                w.expr.clone(),
                if w.rest.is_empty() {
                    "-".into()
                } else {
                    w.rest.clone()
                },
                dash(t.from),
                dash(t.to),
                dash(t.part),
                dash(t.order),
                dash(t.margin_hours.map(|m| m.to_string())),
            ]);
        }
    }
    cols.join("\t")
}

#[test]
fn every_form_reads_as_its_golden_row() {
    let path = table();
    let text = std::fs::read_to_string(&path).expect("golden/when/cases.tsv");
    let mut out = String::new();
    let mut diffs = Vec::new();
    for line in text.lines() {
        if line.starts_with('#') || line.trim().is_empty() {
            out.push_str(line);
            out.push('\n');
            continue;
        }
        let query = line.split('\t').next().unwrap_or_default();
        let got = row(query);
        if got != line {
            diffs.push(format!("want {line}\n got {got}"));
        }
        out.push_str(&got);
        out.push('\n');
    }
    if std::env::var_os("GOLDEN_UPDATE").is_some() {
        std::fs::write(&path, out).expect("write golden");
        return;
    }
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
}

#[test]
fn proximity_is_one_inside_and_decays_outside() {
    let w = find("what was I fixing on the morning of 3 March", &now()).expect("when");
    let at = |s: &str| s.parse::<Timestamp>().expect("ts");
    // Inside the morning; a session running into it from the night before; one the evening before.
    assert_eq!(
        w.proximity(at("2026-03-03T09:00:00Z"), at("2026-03-03T10:00:00Z")),
        1.0
    );
    assert_eq!(
        w.proximity(at("2026-03-02T23:50:00Z"), at("2026-03-03T06:10:00Z")),
        1.0
    );
    let near = w.proximity(at("2026-03-03T04:00:00Z"), at("2026-03-03T04:30:00Z"));
    let far = w.proximity(at("2026-03-02T18:00:00Z"), at("2026-03-02T19:00:00Z"));
    assert!(near > 0.8 && far < near && far > 0.0, "{near} {far}");
    // A part of the day over several days scores the hour.
    let w = find("deploys in the evenings last week", &now()).expect("when");
    let evening = w.proximity(at("2026-04-07T19:00:00Z"), at("2026-04-07T20:00:00Z"));
    let morning = w.proximity(at("2026-04-07T08:00:00Z"), at("2026-04-07T09:00:00Z"));
    assert!(evening == 1.0 && morning < 0.1, "{evening} {morning}");
}

#[test]
fn a_huge_query_of_connectors_reads_in_one_pass() {
    // Thousands of connectors before a time word all lead into it; before a plain word, none do.
    let into = format!("{}morning", "the ".repeat(20_000));
    let w = find(&into, &now()).expect("a part of the day");
    assert_eq!(w.rest, "");
    let not = format!("{}cache yesterday", "the ".repeat(20_000));
    let w = find(&not, &now()).expect("yesterday");
    assert_eq!(w.expr, "yesterday");
    assert!(w.rest.ends_with("the cache"));
}

#[test]
fn hostile_text_never_panics() {
    let long = "3rd ".repeat(10_000);
    for q in [
        "",
        "   ",
        "the",
        "the 31st",
        "on the 99th",
        "9999999 days ago",
        "the last 99999999999 weeks",
        "february 30",
        "the fifth week of march",
        "since",
        "late at",
        "last",
        "2026-13-45",
        "0000-00-00",
        "first time last time latest",
        long.as_str(),
        "мой вторник morning ☃ 3 März",
    ] {
        let _ = find(q, &now());
    }
}
