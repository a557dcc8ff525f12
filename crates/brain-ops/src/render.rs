//! Human text for `status`, `explain` and `doctor` (the `--json` forms are the serde records).

use std::fmt::Write;

use crate::doctor::{DoctorReport, Outcome};
use crate::{Explain, Status};

/// `12 s ago`, `5 min ago`, `3 h ago`, `2 days ago` for an RFC 3339 time; empty when unparsable.
pub fn ago(ts: &str) -> String {
    let Ok(t) = ts.parse::<jiff::Timestamp>() else {
        return String::new();
    };
    let s = (jiff::Timestamp::now().as_second() - t.as_second()).max(0);
    match s {
        0..60 => format!("{s} s ago"),
        60..3600 => format!("{} min ago", s / 60),
        3600..86_400 => format!("{} h ago", s / 3600),
        _ => format!("{} days ago", s / 86_400),
    }
}

fn when(ts: &Option<String>) -> String {
    ts.as_deref()
        .map_or("never".into(), |t| format!("{t} ({})", ago(t)))
}

fn yes(b: bool) -> &'static str {
    if b { "yes" } else { "no" }
}

/// `brain status` as text.
pub fn status(s: &Status) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "home {}", s.home);
    if let Some(e) = &s.config_error {
        let _ = writeln!(o, "brain.yaml does not parse (showing defaults): {e}");
    }
    for c in &s.collections {
        let _ = writeln!(
            o,
            "  {:<16} {:>7} docs  {:>6} need embeddings  indexed {}",
            c.name,
            c.docs,
            c.need_embeddings,
            when(&c.last_indexed)
        );
    }
    let model = match s.model.present {
        Some(true) => "present",
        Some(false) => "missing",
        None => "server",
    };
    let drain = s.drain_secs.map_or(String::new(), |d| {
        format!(
            " ({} to embed at the last run's rate)",
            brain_vec::store::human_secs(d)
        )
    });
    let _ = writeln!(
        o,
        "{} docs; lexical index {}; vector store {}; {} docs need embeddings{drain}; {} sessions wait for distillation; model {} {model}",
        s.docs,
        yes(s.lexical_index),
        yes(s.vector_store),
        s.need_embeddings,
        s.distill_pending,
        s.model.id
    );
    if let Some(w) = &s.switch {
        let _ = writeln!(
            o,
            "model switch: searches use {}'s vectors until {} holds every document ({} so far; `vecindex --all`)",
            w.from, w.to, w.done
        );
    }
    let t = &s.tiers;
    let _ = writeln!(
        o,
        "memory tiers: hot {}  warm {}  cold {} (cold stays searchable)",
        t.hot, t.warm, t.cold
    );
    let _ = writeln!(o, "last update {}", when(&s.last_update));
    o
}

/// `brain explain` as text: where things are, each collection, the indexes and the model, what
/// is installed, telemetry and the last doctor run.
pub fn explain(e: &Explain) -> String {
    let mut o = String::new();
    explain_places(&mut o, e);
    explain_collections(&mut o, e);
    explain_indexes(&mut o, e);
    explain_installed(&mut o, e);
    explain_telemetry(&mut o, e);
    o
}

/// The version, errors, binaries and the home's files.
fn explain_places(w: &mut String, e: &Explain) {
    let _ = writeln!(w, "brain {}", e.version);
    for err in &e.errors {
        let _ = writeln!(w, "ERROR: {err}");
    }
    let _ = writeln!(w, "\nbinaries");
    for b in &e.binaries {
        let _ = writeln!(
            w,
            "  {:<16} {}",
            b.name,
            b.path.as_deref().unwrap_or("NOT FOUND")
        );
    }
    let _ = writeln!(
        w,
        "  {:<16} {}",
        "pipelines",
        e.pipelines.as_deref().unwrap_or("NOT FOUND")
    );
    let _ = writeln!(w, "\nhome");
    let src = if e.home.from_env {
        "$BRAIN_HOME"
    } else {
        "default"
    };
    let _ = writeln!(
        w,
        "  BRAIN_HOME       {} ({src}{})",
        e.home.path,
        if e.home.exists { "" } else { ", MISSING" }
    );
    let cfg = match (&e.config.error, e.config.exists) {
        (Some(err), _) => format!("BROKEN: {err}"),
        (None, true) => "ok".into(),
        (None, false) => "absent: built-in defaults".into(),
    };
    let _ = writeln!(w, "  config           {} ({cfg})", e.config.path);
    let _ = writeln!(w, "  inbox            {}", e.inbox.today);
    let _ = writeln!(
        w,
        "  distill queue    {} ({} waiting)",
        e.distill_queue.path, e.distill_queue.entries
    );
}

fn explain_collections(w: &mut String, e: &Explain) {
    let _ = writeln!(w, "\ncollections");
    for c in &e.collections {
        let fresh = if c.lexical_fresh {
            "fresh".to_string()
        } else {
            format!(
                "STALE: {} not indexed, {} changed, {} gone",
                c.drift.not_indexed, c.drift.changed, c.drift.missing_files
            )
        };
        let _ = writeln!(
            w,
            "  {:<16} {:>7} docs  {:<10} {:<6} lexical {fresh}; {} need embeddings; indexed {}{}",
            c.name,
            c.docs,
            c.role,
            c.trust,
            c.need_embeddings,
            when(&c.last_indexed),
            if c.exists { "" } else { "; folder absent" }
        );
    }
}

/// The lexical index, the vector store, the model, the last update.
fn explain_indexes(w: &mut String, e: &Explain) {
    let l = &e.lexical;
    let _ = writeln!(
        w,
        "\nlexical index    {} ({} docs, {})",
        l.path,
        l.docs,
        if !l.exists {
            "MISSING"
        } else if l.fresh {
            "fresh"
        } else {
            "stale"
        }
    );
    let v = &e.vectors;
    let _ = writeln!(
        w,
        "vector store     {} ({})",
        v.path,
        if v.exists {
            format!(
                "{} docs, {} chunks, {} documents need embeddings, {}",
                v.docs,
                v.chunks,
                v.need_embeddings,
                v.fingerprint.as_deref().unwrap_or("")
            )
        } else {
            format!("none; {} documents need embeddings", v.need_embeddings)
        }
    );
    let m = &e.model;
    let state = match (m.present, m.hash_ok()) {
        (None, _) => "server".to_string(),
        (Some(false), _) => "MISSING".into(),
        (Some(true), Some(true)) => "present, sha256 ok".into(),
        (Some(true), Some(false)) => "present, sha256 WRONG".into(),
        (Some(true), None) => "present".into(),
    };
    let _ = writeln!(w, "model            {} at {} ({state})", m.id, m.location);
    let _ = writeln!(w, "last update      {}", when(&e.last_update));
}

/// Hooks, schedules and skills.
fn explain_installed(w: &mut String, e: &Explain) {
    let _ = writeln!(w, "\nhooks");
    if e.hooks.is_empty() {
        let _ = writeln!(w, "  none (brain hook install --claude)");
    }
    for h in &e.hooks {
        let _ = writeln!(
            w,
            "  {} {} in {}: {}{}",
            h.agent,
            h.event,
            h.settings,
            h.command,
            h.problem
                .as_ref()
                .map(|p| format!(" — PROBLEM: {p}"))
                .unwrap_or_default()
        );
    }
    let _ = writeln!(w, "schedules");
    if e.schedules.is_empty() {
        let _ = writeln!(w, "  none (brain schedule install)");
    }
    for s in &e.schedules {
        let _ = writeln!(
            w,
            "  {} {}: {}{}",
            s.kind.name(),
            s.location,
            s.entry,
            s.problem
                .as_ref()
                .map(|p| format!(" — PROBLEM: {p}"))
                .unwrap_or_default()
        );
    }
    let _ = writeln!(w, "skills");
    if e.skills.is_empty() {
        let _ = writeln!(w, "  none (brain skills install)");
    }
    for s in &e.skills {
        let _ = writeln!(
            w,
            "  {:<16} scope {}",
            s.name,
            s.scope.as_deref().unwrap_or("(none stated)")
        );
    }
}

/// Telemetry and the last doctor run.
fn explain_telemetry(w: &mut String, e: &Explain) {
    let t = &e.telemetry;
    let _ = writeln!(
        w,
        "\ntelemetry        {} ({}, mode {}, {} bytes)",
        t.path,
        if t.enabled {
            "on"
        } else {
            "off: BRAIN_TELEMETRY"
        },
        t.mode.as_deref().unwrap_or("-"),
        t.bytes
    );
    for r in &t.last_events {
        let _ = writeln!(w, "  {r}");
    }
    let _ = match &e.last_doctor {
        None => writeln!(w, "last doctor      never ran (brain doctor)"),
        Some(d) if d.ok => writeln!(
            w,
            "last doctor      {} ({}): all checks passed",
            d.ts,
            ago(&d.ts)
        ),
        Some(d) => writeln!(
            w,
            "last doctor      {} ({}): FAILED {}",
            d.ts,
            ago(&d.ts),
            d.failures.join(", ")
        ),
    };
}

/// The passing checks whose details are what they report (the others' are for `--json`).
const LISTED_WHEN_PASSING: [&str; 2] = ["projects", "corpus_sync"];

/// `brain doctor` as text.
pub fn doctor(r: &DoctorReport) -> String {
    let mut o = String::new();
    let count = |k: Outcome| r.checks.iter().filter(|c| c.outcome == k).count();
    let _ = writeln!(
        o,
        "brain doctor: {} passed, {} failed, {} skipped",
        count(Outcome::Pass),
        count(Outcome::Fail),
        count(Outcome::Skip)
    );
    for c in &r.checks {
        let tag = match c.outcome {
            Outcome::Pass => "ok  ",
            Outcome::Fail => "FAIL",
            Outcome::Skip => "skip",
        };
        let _ = writeln!(o, "  {tag}  {:<14} {}", c.name, c.summary);
        if c.outcome == Outcome::Pass && LISTED_WHEN_PASSING.contains(&c.name.as_str()) {
            for d in &c.details {
                let _ = writeln!(o, "        {d}");
            }
        } else if c.outcome == Outcome::Fail {
            for d in &c.details {
                let _ = writeln!(o, "        {d}");
            }
            if !c.fix.is_empty() {
                let _ = writeln!(o, "        fix: {}", c.fix);
            }
        } else if c.outcome == Outcome::Skip && !c.fix.is_empty() {
            let _ = writeln!(o, "        to enable: {}", c.fix);
        }
    }
    o
}
