//! The terminal forms of `brain entity` and `brain related` (the JSON forms are the records
//! themselves); the MCP tools return the same text.

use std::fmt::Write;

use crate::graph::ReachedRecord;
use crate::names::Entity;
use crate::suggest::Suggestion;
use crate::view::EntityView;

fn day(date: &str) -> &str {
    date.get(..10).unwrap_or(date)
}

/// One line per related record: depth, relation, id, title, date, where it is said.
pub fn related(start: &str, records: &[ReachedRecord]) -> String {
    let mut out = format!("{start}\n");
    if records.is_empty() {
        out.push_str("  (nothing related)\n");
    }
    for r in records {
        let _ = writeln!(
            out,
            "  {}  {:<15} {}  {}  {}  (from {}; said at {})",
            r.depth,
            r.relation,
            r.id,
            if r.title.is_empty() { "-" } else { &r.title },
            if r.date.is_empty() { "-" } else { day(&r.date) },
            r.from,
            r.said_at
        );
    }
    out
}

/// The entity page.
pub fn view(v: &EntityView) -> String {
    let e = &v.entity;
    let mut out = format!(
        "{} ({}{})  {}\n",
        e.name,
        e.kind,
        if e.archived { ", archived" } else { "" },
        e.id
    );
    let _ = writeln!(out, "names: {}", v.names.join(" · "));
    if let Some(d) = &e.doc {
        let _ = writeln!(out, "defined in: {d}");
    }
    if let Some(s) = v.summary.as_deref().filter(|s| !s.is_empty()) {
        out.push_str("\nsummary:\n");
        for l in s.lines() {
            let _ = writeln!(out, "  {l}");
        }
    }
    if !v.facts.is_empty() {
        out.push_str("\nfacts:\n");
        for f in &v.facts {
            let first = f.text.lines().next().unwrap_or_default();
            let _ = write!(out, "  {:<10} {}  {first}", f.status, day(&f.date));
            if let Some(by) = &f.superseded_by {
                let _ = write!(out, "  → superseded by {by}");
            }
            out.push('\n');
        }
    }
    out.push_str("\nrelated:\n");
    if v.related.is_empty() {
        out.push_str("  (nothing yet)\n");
    }
    for r in &v.related {
        let _ = writeln!(
            out,
            "  {:<15} {}  {}  {}",
            r.relation,
            r.id,
            r.title,
            day(&r.date)
        );
    }
    if !v.timeline.is_empty() {
        out.push_str("\ntimeline:\n");
        for t in &v.timeline {
            let _ = writeln!(
                out,
                "  {}  {:<15} {}  ({})",
                day(&t.date),
                t.relation,
                t.title,
                t.id
            );
        }
    }
    out
}

/// One line per entity.
pub fn list(entities: &[&Entity]) -> String {
    let mut out = String::new();
    for e in entities {
        let _ = writeln!(
            out,
            "{:<8} {}{}  [{}]  {}",
            e.kind,
            e.name,
            if e.archived { " (archived)" } else { "" },
            e.aliases.join(", "),
            e.id
        );
    }
    out
}

/// One line per suggestion.
pub fn suggestions(s: &[Suggestion]) -> String {
    let mut out = String::new();
    for x in s {
        let _ = writeln!(
            out,
            "{:<4} {:<8} {}  ({})",
            x.mentions,
            x.kind,
            x.name,
            x.docs.join(", ")
        );
    }
    out
}
