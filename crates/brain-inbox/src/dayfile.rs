//! The day file `inbox/YYYY-MM-DD.md`: a document of the `inbox` collection whose frontmatter holds
//! no user data at all, then `# Inbox YYYY-MM-DD`, then one section per entry:
//!
//! ```markdown
//! ---
//! id: inbox/2026-04-10.md
//! title: Inbox 2026-04-10
//! date: 2026-04-10T00:00:00+00:00
//! collection: inbox
//! path: 2026-04-10.md
//! type: inbox
//! source:
//!   type: inbox
//!   agent: brain
//!   file: ~/.brain/inbox/2026-04-10.md
//! ---
//! # Inbox 2026-04-10
//!
//! ## 2026-04-10T14:03:22+00:00 · decision · 20260410-001 · tags: search, bm25 · project: brain
//!
//! Keep BM25 as the default path; vectors lag by a night.
//! ```
//!
//! An entry header is the only line of the file starting with `## `: entry text is escaped
//! ([`crate::sanitize::escape`]) so none of its lines can start that way, and tags and project are
//! one-line values without the ` · ` separator.

use brain_doc::{Doc, DocError, Source, markdown};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The kinds of entry (`--type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum EntryType {
    /// Anything worth remembering (the default).
    #[default]
    Note,
    /// A choice made, and why.
    Decision,
    /// Something to do.
    Todo,
    /// A URL worth keeping, with a word on why.
    Link,
    /// A fact about the world, a system, a person.
    Fact,
}

impl EntryType {
    /// Every type, in `--help` order.
    pub const ALL: [EntryType; 5] = [
        EntryType::Note,
        EntryType::Decision,
        EntryType::Todo,
        EntryType::Link,
        EntryType::Fact,
    ];

    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            EntryType::Note => "note",
            EntryType::Decision => "decision",
            EntryType::Todo => "todo",
            EntryType::Link => "link",
            EntryType::Fact => "fact",
        }
    }

    /// Parse a wire name.
    pub fn parse(s: &str) -> Option<EntryType> {
        EntryType::ALL
            .into_iter()
            .find(|t| t.as_str() == s.trim().to_ascii_lowercase())
    }
}

/// One entry as read back from a day file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    /// `YYYYMMDD-NNN`, unique in the day file.
    pub id: String,
    /// RFC 3339 with offset, seconds.
    pub time: String,
    #[serde(rename = "type")]
    pub kind: EntryType,
    pub tags: Vec<String>,
    pub project: Option<String>,
    /// The text as stored (escaped; see [`crate::sanitize::unescape`]).
    pub text: String,
    /// 1-based line of the header in the file.
    pub line: u64,
}

/// A parsed day file.
#[derive(Debug, Clone, PartialEq)]
pub struct DayFile {
    /// The frontmatter mapping.
    pub frontmatter: Map<String, Value>,
    /// Body lines before the first entry (the `# Inbox …` heading).
    pub preamble: String,
    /// Entries in file order.
    pub entries: Vec<Entry>,
}

/// The frontmatter and heading of a new day file for `date` (`YYYY-MM-DD`), dated `midnight` (RFC
/// 3339), in collection `collection`, `file` being the file as shown to people.
pub fn head(date: &str, midnight: &str, collection: &str, file: &str) -> String {
    let path = format!("{date}.md");
    let mut doc = Doc::new(
        format!("{collection}/{path}"),
        format!("Inbox {date}"),
        midnight,
        Source {
            kind: "inbox".into(),
            agent: Some("brain".into()),
            file: file.into(),
            lines: None,
            sha256: None,
            parts: Vec::new(),
        },
    );
    doc.collection = Some(collection.into());
    doc.path = path;
    doc.meta.insert("type".into(), Value::from("inbox"));
    doc.body = format!("# Inbox {date}\n");
    doc.to_markdown()
}

/// The header line of an entry (without the trailing newline).
pub fn header(e: &Entry) -> String {
    let mut h = format!("## {} · {} · {}", e.time, e.kind.as_str(), e.id);
    if !e.tags.is_empty() {
        h.push_str(&format!(" · tags: {}", e.tags.join(", ")));
    }
    if let Some(p) = &e.project {
        h.push_str(&format!(" · project: {p}"));
    }
    h
}

/// The section appended for `e`: a blank line, the header, a blank line, the text.
pub fn section(e: &Entry) -> String {
    format!("\n{}\n\n{}\n", header(e), e.text)
}

/// Parse a header line; `None` if it is not one.
pub(crate) fn parse_header(line: &str, n: u64) -> Option<Entry> {
    let rest = line.strip_prefix("## ")?;
    let mut parts = rest.split(" · ");
    let (time, kind, id) = (parts.next()?, parts.next()?, parts.next()?);
    let mut e = Entry {
        id: id.into(),
        time: time.into(),
        kind: EntryType::parse(kind)?,
        tags: Vec::new(),
        project: None,
        text: String::new(),
        line: n,
    };
    for p in parts {
        if let Some(t) = p.strip_prefix("tags: ") {
            e.tags = t.split(", ").map(str::to_string).collect();
        } else if let Some(pr) = p.strip_prefix("project: ") {
            e.project = Some(pr.into());
        } else {
            return None;
        }
    }
    Some(e)
}

/// Parse a day file back into its frontmatter and entries. A `## ` line that is not a well-formed
/// header is an error: it cannot come from [`section`].
pub fn parse(text: &str) -> Result<DayFile, DocError> {
    let (fm, body) = markdown::split(text)?;
    let frontmatter = fm.ok_or(DocError::NoFrontmatter)?;
    let first = markdown::body_start_line(text, body);
    let mut preamble = String::new();
    let mut entries: Vec<Entry> = Vec::new();
    for (i, line) in body.split('\n').enumerate() {
        let n = first + i as u64;
        if line.starts_with("## ") {
            let e = parse_header(line, n).ok_or_else(|| DocError::Field {
                field: "entry",
                reason: format!("line {n}: not an entry header: {line}"),
            })?;
            entries.push(e);
        } else if let Some(e) = entries.last_mut() {
            e.text.push_str(line);
            e.text.push('\n');
        } else {
            preamble.push_str(line);
            preamble.push('\n');
        }
    }
    for e in &mut entries {
        e.text = e.text.trim_matches('\n').to_string();
    }
    Ok(DayFile {
        frontmatter,
        preamble,
        entries,
    })
}

/// The next entry number for a day: one more than the highest `NNN` of `entries` with the day's
/// prefix (so a deleted entry's id is never reused while a later one exists).
pub fn next_seq(entries: &[Entry], day_prefix: &str) -> u32 {
    entries
        .iter()
        .filter_map(|e| {
            e.id.strip_prefix(day_prefix)?
                .strip_prefix('-')?
                .parse::<u32>()
                .ok()
        })
        .max()
        .unwrap_or(0)
        + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(id: &str, text: &str) -> Entry {
        Entry {
            id: id.into(),
            time: "2026-04-10T14:03:22+00:00".into(),
            kind: EntryType::Decision,
            tags: vec!["search".into(), "bm25".into()],
            project: Some("~/Projects/brain".into()),
            text: text.into(),
            line: 0,
        }
    }

    #[test]
    fn a_day_file_parses_back_into_its_entries() {
        let mut text = head(
            "2026-04-10",
            "2026-04-10T00:00:00+00:00",
            "inbox",
            "~/.brain/inbox/2026-04-10.md",
        );
        text.push_str(&section(&entry(
            "20260410-001",
            "Keep BM25.\n\n### why\nvectors lag",
        )));
        let mut plain = entry("20260410-002", "x");
        plain.tags.clear();
        plain.project = None;
        plain.kind = EntryType::Note;
        text.push_str(&section(&plain));
        let day = parse(&text).expect("parse");
        assert_eq!(day.frontmatter["title"], "Inbox 2026-04-10");
        assert_eq!(day.frontmatter["type"], "inbox");
        assert_eq!(day.preamble, "# Inbox 2026-04-10\n\n");
        assert_eq!(day.entries.len(), 2);
        assert_eq!(
            day.entries[0],
            Entry {
                line: 15,
                ..entry("20260410-001", "Keep BM25.\n\n### why\nvectors lag")
            }
        );
        assert_eq!(day.entries[1], Entry { line: 22, ..plain });
        assert_eq!(next_seq(&day.entries, "20260410"), 3);
        let doc = Doc::from_markdown(&text).expect("a valid doc");
        assert_eq!(
            (doc.id.as_str(), doc.source.kind.as_str()),
            ("inbox/2026-04-10.md", "inbox")
        );
    }

    #[test]
    fn a_forged_header_is_an_error_not_an_entry() {
        let text = format!(
            "{}\n## hello · there\n",
            head("2026-04-10", "x", "inbox", "f")
        );
        assert!(parse(&text).is_err());
    }
}
