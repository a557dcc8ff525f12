//! The block as an agent reads it (markdown inside one `<memory-context>` element) and as JSON.

use std::fmt::Write;

use super::item::{Item, Section};
use super::note::Note;
use super::tokens::TOKENIZER;

/// The element's opening and closing lines (what every block costs before its first item).
pub fn frame(task: &str, budget: usize) -> String {
    format!("{}\n{}", open(task, budget), CLOSE)
}

const CLOSE: &str = "</memory-context>";

fn open(task: &str, budget: usize) -> String {
    let task: String = task
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect::<String>()
        .replace('&', "&amp;")
        .replace('"', "&quot;")
        .replace('<', "&lt;");
    format!("<memory-context task=\"{task}\" tokenizer=\"{TOKENIZER}\" budget=\"{budget}\">")
}

/// A section's heading line.
pub fn heading(s: Section) -> String {
    format!("## {}", s.heading())
}

/// One item: a heading with its title, a provenance line, its text (fenced when low-trust).
pub fn item_md(i: &Item) -> String {
    let mut o = String::new();
    let title = inline(&i.title);
    let title = if i.untrusted {
        brain_doc::fence::inline(&title)
    } else {
        title
    };
    let _ = writeln!(o, "### {title}");
    // Every field on one line and unable to close the block: a record read back from stdin
    // (`fmt --context`) is input like any other.
    let uri = inline(&i.uri);
    let date = inline(i.date.get(..10).unwrap_or(&i.date));
    let _ = write!(o, "{uri}:{} · {date} ({})", i.line, inline(&i.age));
    if let Some(c) = i.confidence {
        let _ = write!(o, " · confidence {c:.2}");
    }
    if let Some(t) = &i.thread {
        let _ = write!(o, " · thread {}", inline(t));
    }
    if let Some(c) = &i.contradicts {
        let _ = write!(o, " · contradicts {}", inline(c));
    }
    o.push('\n');
    // A record cannot close (or open) the block from inside.
    let text = i
        .text
        .replace("</memory-context", "<\\/memory-context")
        .replace("<memory-context", "<\\memory-context");
    if i.untrusted {
        o.push_str(brain_doc::fence::block(&text, &uri).trim_end());
    } else {
        o.push_str(text.trim_end());
    }
    o
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `s` on one line, unable to open or close the block.
pub fn inline(s: &str) -> String {
    one_line(s)
        .replace("</memory-context", "<\\/memory-context")
        .replace("<memory-context", "<\\memory-context")
}

/// The working-memory section: its heading and one line per note (empty without notes).
pub fn working(notes: &[Note], now: i64) -> String {
    if notes.is_empty() {
        return String::new();
    }
    let mut o = String::from("## Working memory\n");
    for n in notes {
        let line = n
            .line(now)
            .replace("</memory-context", "<\\/memory-context")
            .replace("<memory-context", "<\\memory-context");
        o.push_str(&line);
        o.push('\n');
    }
    o
}

/// The whole block: the frame, the working memory, each section's heading once, the items in order.
pub fn markdown(task: &str, budget: usize, working: &str, items: &[Item]) -> String {
    let mut o = open(task, budget);
    o.push('\n');
    o.push_str(working);
    let mut last: Option<Section> = None;
    for i in items {
        if last != Some(i.section) {
            o.push_str(&heading(i.section));
            o.push('\n');
            last = Some(i.section);
        }
        o.push_str(&item_md(i));
        o.push('\n');
    }
    o.push_str(CLOSE);
    o.push('\n');
    o
}
