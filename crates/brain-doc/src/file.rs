//! A markdown file of a collection read as a document: its title, date, kind, agent, project, tags
//! and body. The one reading the lexical index (`brain_lex::Prepared`) and the vector store
//! (`brain_vec::corpus`) share, so both see the same document in the same file.
//!
//! With frontmatter, its fields are used; without (a note of the user's), the title is the first
//! `# ` heading outside code fences, else the file stem, the date is the file's mtime and the kind
//! `note`. A frontmatter that does not parse is indexed as plain text rather than dropped.

use std::path::Path;

use serde_json::{Map, Value};

use crate::blocks::{Class, Lines};
use crate::markdown;

/// What a markdown file says about itself.
#[derive(Debug, Clone, PartialEq)]
pub struct FileFacts<'a> {
    pub title: String,
    /// RFC 3339 as given, or the file's mtime for a file without a valid date.
    pub date: String,
    /// Unix seconds of `date`, if it parses.
    pub date_secs: Option<i64>,
    /// `source.type` (`note` for a file without one).
    pub kind: String,
    /// `source.agent` or `agent`, lowercased.
    pub agent: Option<String>,
    pub project: Option<String>,
    /// Unix seconds of `ended` (a session's last message), if it parses.
    pub ended_secs: Option<i64>,
    /// `session_id` (the agent's own id of a session).
    pub session: Option<String>,
    /// `tags`, lowercased, without `#`.
    pub tags: Vec<String>,
    /// The whole frontmatter (what `crate::memory::Memory::read` reads the memory fields from).
    pub frontmatter: Map<String, Value>,
    /// The body (the text after the frontmatter).
    pub body: &'a str,
    /// 1-based line of the file where the body starts.
    pub body_line: u64,
}

impl<'a> FileFacts<'a> {
    /// Read `text`, the content of the file at `path` (inside its collection) whose mtime is
    /// `mtime_secs`.
    pub fn read(path: &str, text: &'a str, mtime_secs: i64) -> FileFacts<'a> {
        let (fm, body) = match markdown::split(text) {
            Ok((fm, body)) => (fm.unwrap_or_default(), body),
            Err(_) => (Map::new(), text),
        };
        let stem = Path::new(path)
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let title = fm
            .get("title")
            .and_then(meta_string)
            .or_else(|| first_heading(body))
            .unwrap_or(stem);
        let (date, date_secs) = match fm
            .get("date")
            .and_then(meta_string)
            .and_then(|d| parse_date(&d).map(|s| (d, s)))
        {
            Some((d, secs)) => (d, Some(secs)),
            // A daily note (`memory/2026-03-01.md`, seed 001) is about the day in its name, not
            // the day it was last edited.
            None => match day_of_name(path) {
                Some(secs) => (format_secs(secs), Some(secs)),
                None => (format_secs(mtime_secs), Some(mtime_secs)),
            },
        };
        let source = fm.get("source").and_then(Value::as_object);
        let kind = source
            .and_then(|s| s.get("type"))
            .and_then(meta_string)
            .unwrap_or_else(|| "note".into());
        let agent = source
            .and_then(|s| s.get("agent"))
            .and_then(meta_string)
            .or_else(|| fm.get("agent").and_then(meta_string));
        let rest = after_title_heading(body, &title);
        let body_line = markdown::body_start_line(text, body) + lines_before(body, rest);
        FileFacts::with_frontmatter(title, date, date_secs, kind, agent, fm, rest, body_line)
    }

    /// The facts of a parsed doc record whose markdown form is `text` (as `partition` wrote it):
    /// its own title, date and source, the rest from its frontmatter as [`FileFacts::read`] reads
    /// them.
    pub fn of_doc(doc: &'a crate::Doc, text: &str) -> FileFacts<'a> {
        let agent = doc
            .source
            .agent
            .clone()
            .or_else(|| doc.meta.get("agent").and_then(meta_string));
        FileFacts::with_frontmatter(
            doc.title.clone(),
            doc.date.clone(),
            parse_date(&doc.date),
            doc.source.kind.clone(),
            agent,
            doc.meta.clone(),
            &doc.body,
            markdown::body_start_line(text, &doc.body),
        )
    }

    /// The facts the frontmatter `fm` holds besides those given (one reading of `project`,
    /// `ended`, `session_id`, `tags` for files and doc records alike).
    #[allow(clippy::too_many_arguments)]
    fn with_frontmatter(
        title: String,
        date: String,
        date_secs: Option<i64>,
        kind: String,
        agent: Option<String>,
        fm: Map<String, Value>,
        body: &'a str,
        body_line: u64,
    ) -> FileFacts<'a> {
        FileFacts {
            title,
            date,
            date_secs,
            kind,
            agent: agent.map(|a| a.to_lowercase()),
            project: fm.get("project").and_then(meta_string),
            ended_secs: fm
                .get("ended")
                .and_then(meta_string)
                .and_then(|d| parse_date(&d)),
            session: fm.get("session_id").and_then(meta_string),
            tags: meta_tags(fm.get("tags")),
            frontmatter: fm,
            body,
            body_line,
        }
    }
}

/// The day a file named `YYYY-MM-DD.md` (any folder) is about: its midnight, UTC, in Unix seconds.
fn day_of_name(path: &str) -> Option<i64> {
    let stem = Path::new(path).file_stem()?.to_str()?;
    if stem.len() != 10 {
        return None;
    }
    parse_date(stem)
}

/// `body` without its opening `# Title` line when that heading is the title: a note whose first
/// line names it would otherwise hold the title three times (title, heading path, body) and weigh
/// it as much again (SciFact as `# title` files: nDCG@10 0.654 against 0.683 with the title in
/// frontmatter). Anything else is the body as it is.
pub fn after_title_heading<'a>(body: &'a str, title: &str) -> &'a str {
    let mut offset = 0;
    for (raw, _, class) in Lines::new(body) {
        match class {
            Class::Blank => offset += raw.len(),
            Class::Heading { level: 1, text } if text == title => {
                return &body[offset + raw.len()..];
            }
            _ => break,
        }
    }
    body
}

/// Lines of `body` before its suffix `rest`.
fn lines_before(body: &str, rest: &str) -> u64 {
    let skipped = &body[..body.len() - rest.len()];
    skipped.bytes().filter(|b| *b == b'\n').count() as u64
}

/// A frontmatter value as a non-empty trimmed string (numbers included).
pub fn meta_string(v: &Value) -> Option<String> {
    match v {
        Value::String(s) if !s.trim().is_empty() => Some(s.trim().to_string()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// A frontmatter `tags` value (a list, or a comma/space-separated string) as lowercase tags without
/// `#`.
pub fn meta_tags(v: Option<&Value>) -> Vec<String> {
    let mut out: Vec<String> = match v {
        Some(Value::Array(items)) => items.iter().filter_map(meta_string).collect(),
        Some(Value::String(s)) => s.split([',', ' ']).map(str::to_string).collect(),
        _ => Vec::new(),
    };
    for t in &mut out {
        *t = t.trim().trim_start_matches('#').to_lowercase();
    }
    out.retain(|t| !t.is_empty());
    out
}

/// The first `# ` heading of a body outside code fences, if any.
fn first_heading(body: &str) -> Option<String> {
    Lines::new(body).find_map(|(_, _, class)| match class {
        Class::Heading { level: 1, text } if !text.is_empty() => Some(text.to_string()),
        _ => None,
    })
}

/// RFC 3339 timestamp or plain `YYYY-MM-DD` (midnight UTC) → unix seconds.
pub fn parse_date(s: &str) -> Option<i64> {
    let s = s.trim();
    if let Ok(ts) = s.parse::<jiff::Timestamp>() {
        return Some(ts.as_second());
    }
    let date = s.parse::<jiff::civil::Date>().ok()?;
    date.to_zoned(jiff::tz::TimeZone::UTC)
        .ok()
        .map(|z| z.timestamp().as_second())
}

/// Unix seconds → RFC 3339 in UTC.
pub fn format_secs(secs: i64) -> String {
    jiff::Timestamp::from_second(secs)
        .map(|t| t.to_string())
        .unwrap_or_default()
}

/// A file's modification time in nanoseconds since the Unix epoch (0 when the system cannot say):
/// the one reading the registry's freshness, `brain recent` and the extraction's state compare.
pub fn mtime_ns(meta: &std::fs::Metadata) -> i64 {
    meta.modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .and_then(|d| i64::try_from(d.as_nanos()).ok())
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_daily_note_without_a_date_is_dated_by_its_name() {
        let f = FileFacts::read("memory/2026-03-01.md", "- shipped the fix\n", 1_800_000_000);
        assert_eq!(f.date_secs, parse_date("2026-03-01"));
        assert!(f.date.starts_with("2026-03-01"));
        // A date in the frontmatter wins; a name that is not a date changes nothing.
        let f = FileFacts::read("memory/2026-03-01.md", "---\ndate: 2026-03-02\n---\nx\n", 0);
        assert_eq!(f.date_secs, parse_date("2026-03-02"));
        let f = FileFacts::read("notes/2026-03-01-plan.md", "x\n", 1_800_000_000);
        assert_eq!(f.date_secs, Some(1_800_000_000));
        let f = FileFacts::read("notes/2026-13-45.md", "x\n", 1_800_000_000);
        assert_eq!(f.date_secs, Some(1_800_000_000));
    }

    #[test]
    fn a_plain_note_gets_its_title_from_the_first_heading_outside_fences() {
        let text = "intro\n```sh\n# not the title\n```\n# Rust tips\nuse `cargo nextest`\n";
        let f = FileFacts::read("kb/tips.md", text, 1_775_000_000);
        assert_eq!(f.title, "Rust tips");
        assert_eq!(f.date_secs, Some(1_775_000_000));
        assert_eq!(f.kind, "note");
        assert_eq!(f.body_line, 1);
    }

    #[test]
    fn frontmatter_fields_are_used() {
        let text = "---\ntitle: T\ndate: 2026-04-02\nproject: brain\ntags: [Rust, '#cli']\nsource:\n  type: session\n  agent: Claude\n  file: x\n---\nbody\n";
        let f = FileFacts::read("a.md", text, 0);
        assert_eq!(
            (f.title.as_str(), f.project.as_deref(), f.agent.as_deref()),
            ("T", Some("brain"), Some("claude"))
        );
        assert_eq!(f.tags, ["rust", "cli"]);
        assert_eq!(f.date_secs, parse_date("2026-04-02T00:00:00Z"));
        assert_eq!((f.body, f.body_line), ("body\n", 11));
    }

    #[test]
    fn a_bad_date_falls_back_to_mtime_and_a_bad_frontmatter_to_plain_text() {
        let f = FileFacts::read("n.md", "---\ndate: someday\n---\nx\n", 5);
        assert_eq!((f.date_secs, f.title.as_str()), (Some(5), "n"));
        let f = FileFacts::read("n.md", "---\n: [\n---\nx\n", 5);
        assert_eq!(f.body, "---\n: [\n---\nx\n");
    }
}
