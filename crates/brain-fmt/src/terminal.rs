//! The terminal format: for a person reading results.
//!
//! ```text
//! 1. Fix the tantivy lock contention                                  0.93
//!    brain://brain/2026/04/abc.md:42  #a1b2c3  3 days ago
//!    the writer lock is taken with try_lock so a second lexindex exits 70
//!    signals: rrf 0.0655 · ranks lex 1, vec 2 · bm25 11.2 · vec 0.58       (with --explain)
//!    ! a decision of 120 days ago: check it against the current state before relying on it
//!
//! ! 3 of 10 results are older than a day: a session or a page says what happened then; …
//! ```

use std::io::{self, Write};

use brain_doc::Hit;

use crate::{Options, Paint, age_label};

pub(crate) fn render(hits: &[Hit], opts: &Options, out: &mut dyn Write) -> io::Result<()> {
    let paint = Paint {
        color: opts.color,
        hyperlinks: opts.hyperlinks,
    };
    if hits.is_empty() {
        return writeln!(out, "{}", paint.dim("no results"));
    }
    for (i, h) in hits.iter().enumerate() {
        if i > 0 {
            writeln!(out)?;
        }
        let title = if h.title.is_empty() {
            h.path.as_str()
        } else {
            h.title.as_str()
        };
        let sure = strength(h);
        let sure = if sure.is_empty() {
            sure
        } else {
            format!("  {}", paint.dim(&sure))
        };
        writeln!(out, "{}. {}{sure}", h.rank, paint.bold(title))?;
        // A document beyond markdown also names its page or section (`§ page-3`).
        let location = match &h.anchor {
            Some(a) => format!("{}:{} § {a}", h.uri, h.line),
            None => format!("{}:{}", h.uri, h.line),
        };
        let warning = crate::stale_warning(h, &opts.freshness);
        let stale = warning.is_some()
            || (h.memory.is_none()
                && opts.freshness.history > 0
                && h.age_days > opts.freshness.history);
        let age = age_label(h.age_days);
        let age = if stale {
            paint.yellow(&age)
        } else {
            paint.green(&age)
        };
        let trust = if h.untrusted {
            format!("  {}", paint.yellow("untrusted"))
        } else {
            String::new()
        };
        // Through a team engine: who wrote it, and on which machine.
        let by = match (
            h.signals.get("author").and_then(|v| v.as_str()),
            h.signals.get("machine").and_then(|v| v.as_str()),
        ) {
            (Some(a), Some(m)) => format!("  by {a} on {m}"),
            (Some(a), None) => format!("  by {a}"),
            _ => String::new(),
        };
        writeln!(
            out,
            "   {}  {}  {}{by}{trust}",
            paint.cyan(&paint.link(h.file.as_deref(), &location)),
            paint.magenta(&h.docid),
            age
        )?;
        for line in h.snippet.lines().filter(|l| !l.trim().is_empty()) {
            writeln!(out, "   {}", line.trim_end())?;
        }
        if let Some(link) = &h.link {
            writeln!(out, "   {}", paint.cyan(link))?;
        }
        if opts.explain && !h.signals.is_empty() {
            writeln!(out, "   {}", paint.dim(&signals_line(&h.signals)))?;
        }
        if let Some(w) = warning {
            let line = format!("! {}", crate::age::own_line(&w));
            writeln!(out, "   {}", paint.yellow(&line))?;
        }
    }
    if let Some(w) = crate::history_warning(hits, &opts.freshness) {
        writeln!(out, "\n{}", paint.yellow(&format!("! {w}")))?;
    }
    Ok(())
}

/// How sure a hit is: its match strength as a word and a number (`strong 0.92`), the same scale
/// for every query; a hit without one (a recency walk, ordered by time) shows none.
fn strength(h: &Hit) -> String {
    brain_doc::strength_text(h).unwrap_or_default()
}

/// `signals: bm25 12.3 · vec 0.61 · rrf 0.0333 · ranks lex 2, vec 1` — every score component.
pub(crate) fn signals_line(signals: &serde_json::Map<String, serde_json::Value>) -> String {
    let parts: Vec<String> = signals
        .iter()
        .map(|(k, v)| match v {
            serde_json::Value::Object(m) => {
                let inner: Vec<String> = m.iter().map(|(a, b)| format!("{a} {b}")).collect();
                format!("{k} {}", inner.join(", "))
            }
            other => format!("{k} {other}"),
        })
        .collect();
    format!("signals: {}", parts.join(" · "))
}
