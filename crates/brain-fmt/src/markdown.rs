//! `--md`: a markdown list, for notes and agent context.
//!
//! ```markdown
//! 1. **Fix the lock contention** — `brain://brain/abc.md:42` #a1b2c3, 3 days ago, score 0.93
//!    > the writer lock is taken with try_lock
//! ```

use std::io::{self, Write};

use brain_doc::Hit;

use crate::{Options, age_label};

pub(crate) fn render(hits: &[Hit], opts: &Options, out: &mut dyn Write) -> io::Result<()> {
    if let Some(q) = &opts.query {
        writeln!(out, "## Results for: {q}\n")?;
    }
    if hits.is_empty() {
        return writeln!(out, "_No results._");
    }
    for h in hits {
        let title = if h.title.is_empty() {
            h.path.as_str()
        } else {
            h.title.as_str()
        };
        let title = if h.untrusted {
            brain_doc::fence::inline(title)
        } else {
            title.to_string()
        };
        writeln!(
            out,
            "{}. **{}** — `{}:{}`{} {}, {}{}{}",
            h.rank,
            title.replace('*', "\\*"),
            h.uri,
            h.line,
            h.anchor
                .as_deref()
                .map(|a| format!(" § {a}"))
                .unwrap_or_default(),
            h.docid,
            age_label(h.age_days),
            match (h.strength, h.signals.get(brain_doc::SEMANTIC)) {
                (Some(s), Some(serde_json::Value::Bool(true))) =>
                    format!(", semantic neighbour {s:.2}"),
                (Some(s), _) => format!(", {} match {s:.2}", brain_doc::strength_label(s)),
                (None, _) => String::new(),
            },
            h.link
                .as_deref()
                .map(|l| format!(" — [open]({l})"))
                .unwrap_or_default()
        )?;
        if h.untrusted {
            for line in brain_doc::fence::block(&h.snippet, &h.uri).lines() {
                writeln!(out, "   {}", line.trim_end())?;
            }
        } else {
            for line in h.snippet.lines().filter(|l| !l.trim().is_empty()) {
                writeln!(out, "   > {}", line.trim_end())?;
            }
        }
        if opts.explain && !h.signals.is_empty() {
            writeln!(out, "   _{}_", crate::terminal::signals_line(&h.signals))?;
        }
        if let Some(w) = crate::stale_warning(h, &opts.freshness) {
            writeln!(out, "   ⚠ {}", crate::age::own_line(&w))?;
        }
    }
    if let Some(w) = crate::history_warning(hits, &opts.freshness) {
        writeln!(out, "\n⚠ {w}")?;
    }
    Ok(())
}
