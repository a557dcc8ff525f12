//! `brain tune report`: a run's experiment table and its scores before and after, whole and per
//! query class, read back from `tune-log.jsonl`.

use std::fmt::Write;

use serde_json::Value;

use super::log::{Experiment, Summary};

/// The experiments and the summary of run `run` (else the newest run) of `records`.
pub fn select(records: &[Value], run: Option<&str>) -> Option<(Vec<Experiment>, Option<Summary>)> {
    let wanted = match run {
        Some(r) => r.to_string(),
        None => records
            .iter()
            .rev()
            .find_map(|r| r.get("run").and_then(Value::as_str))?
            .to_string(),
    };
    // The newest run of that id: after its last baseline.
    let mine: Vec<&Value> = records
        .iter()
        .filter(|r| r.get("run").and_then(Value::as_str) == Some(wanted.as_str()))
        .collect();
    let from = mine
        .iter()
        .rposition(|r| r.get("decision").and_then(Value::as_str) == Some("baseline"))?;
    let mut exps = Vec::new();
    let mut summary = None;
    for r in &mine[from..] {
        match r.get("kind").and_then(Value::as_str) {
            Some("tune_experiment") => exps.extend(serde_json::from_value((*r).clone()).ok()),
            Some("tune_summary") => summary = serde_json::from_value((*r).clone()).ok(),
            _ => {}
        }
    }
    Some((exps, summary))
}

fn changes(e: &Experiment) -> String {
    if e.changes.is_empty() {
        return "-".into();
    }
    e.changes
        .iter()
        .map(|(k, (a, b))| format!("{k} {a} → {b}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The table, and the before/after.
pub fn render(exps: &[Experiment], summary: Option<&Summary>) -> String {
    let mut out = String::new();
    if let Some(s) = summary {
        let _ = writeln!(
            out,
            "run {} on {} · {} · mode {} · seed {} · {}",
            s.run, s.set, s.objective, s.mode, s.seed, s.parts
        );
    }
    let _ = writeln!(
        out,
        "{:>4}  {:<8} {:>9} {:>9} {:>8}  change",
        "#", "decision", "train", "dev", "delta"
    );
    for e in exps {
        let _ = writeln!(
            out,
            "{:>4}  {:<8} {:>9.4} {:>9.4} {:>+8.4}  {}{}",
            e.iteration,
            e.decision,
            e.train,
            e.dev,
            e.delta,
            changes(e),
            e.reason
                .as_deref()
                .map(|r| format!(" ({r})"))
                .unwrap_or_default()
        );
    }
    let Some(s) = summary else {
        out.push_str(
            "(no summary: the run was interrupted; the strategy file holds its last kept change)\n",
        );
        return out;
    };
    let _ = writeln!(
        out,
        "\n{} experiments, {} kept, stopped by {}",
        s.iterations, s.kept, s.stopped
    );
    for part in ["train", "dev"] {
        if let (Some(b), Some(a)) = (s.before.get(part), s.after.get(part)) {
            let _ = writeln!(
                out,
                "{part:<5} {:.4} → {:.4} ({:+.4}), {} queries",
                b.score,
                a.score,
                a.score - b.score,
                a.queries
            );
        }
    }
    if let Some((b, a)) = &s.test {
        let _ = writeln!(
            out,
            "test  {:.4} → {:.4} ({:+.4}), {} queries (scored once, at the end)",
            b.score,
            a.score,
            a.score - b.score,
            a.queries
        );
    }
    for part in ["train", "dev"] {
        let (Some(b), Some(a)) = (s.before.get(part), s.after.get(part)) else {
            continue;
        };
        if b.classes.is_empty() {
            continue;
        }
        let _ = writeln!(out, "\n{part} by class:");
        for (class, before) in &b.classes {
            let after = a.classes.get(class).copied().unwrap_or(*before);
            let _ = writeln!(
                out,
                "  {class:<14} {before:.4} → {after:.4} ({:+.4})",
                after - before
            );
        }
    }
    if s.moved.is_empty() {
        out.push_str("\nno knob moved\n");
    } else {
        out.push_str("\nknobs moved:\n");
        for (k, (a, b)) in &s.moved {
            let _ = writeln!(out, "  {k}: {a} → {b}");
        }
    }
    if let Some(p) = &s.strategy {
        let _ = writeln!(
            out,
            "written to {p} (the file before: {p}.prev; relative paths are in $BRAIN_HOME)"
        );
    }
    out
}
