//! A captured fact with memory fields (issue #22): an entry that names its subject (`key`), how
//! much it matters, when it happened, how long it holds or what it replaces is a record of its own,
//! `inbox/records/<id>.md` with those fields in its frontmatter — a day-file entry shares its
//! file's frontmatter and could not be superseded alone. Guards and sanitizing are the day file's;
//! the fields are checked by the one reader of memory fields (`brain_doc::memory`) before anything
//! is written.

use std::path::Path;

use serde_json::{Map, Value};

use jiff::Zoned;

use crate::dayfile::EntryType;

/// The memory fields a capture may carry.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RecordFields {
    pub key: Option<String>,
    pub importance: Option<u8>,
    /// `7d`, `12h`, … after `occurred_at` (else the capture time).
    pub ttl: Option<String>,
    pub expires_at: Option<String>,
    pub occurred_at: Option<String>,
    /// Ids (`collection/path`) this record replaces.
    pub supersedes: Vec<String>,
    pub pinned: bool,
}

impl RecordFields {
    /// Whether any field is given (then the entry is a record of its own).
    pub fn is_set(&self) -> bool {
        *self != RecordFields::default()
    }

    /// The text the secret guard reads besides the entry's (a key can hold a secret too).
    pub fn guarded_text(&self) -> String {
        let mut parts: Vec<&str> = Vec::new();
        parts.extend(self.key.as_deref());
        parts.extend(self.supersedes.iter().map(String::as_str));
        parts.join("\n")
    }
}

/// The frontmatter of a record of `kind` captured at `now` whose body is `text`, checked: `Err`
/// names every field that does not read.
pub(crate) fn frontmatter(
    f: &RecordFields,
    kind: EntryType,
    now: &Zoned,
    text: &str,
    tags: &[String],
    project: Option<&str>,
) -> Result<Map<String, Value>, String> {
    if let Some(i) = f.importance.filter(|i| !(1..=5).contains(i)) {
        return Err(format!("`importance: {i}` refused: expected 1-5"));
    }
    let mut fm = Map::new();
    let title: String = text
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or_default()
        .chars()
        .take(100)
        .collect();
    fm.insert("title".into(), Value::from(title.trim()));
    let date = now.strftime("%Y-%m-%dT%H:%M:%S%:z").to_string();
    fm.insert("date".into(), Value::from(date));
    fm.insert("type".into(), Value::from(kind.as_str()));
    let text_field = |v: &Option<String>| v.as_deref().map(|s| Value::from(s.trim()));
    for (name, v) in [
        ("key", text_field(&f.key)),
        ("importance", f.importance.map(Value::from)),
        ("occurred_at", text_field(&f.occurred_at)),
        ("expires_at", text_field(&f.expires_at)),
        ("ttl", text_field(&f.ttl)),
    ] {
        if let Some(v) = v {
            fm.insert(name.into(), v);
        }
    }
    if !f.supersedes.is_empty() {
        fm.insert("supersedes".into(), Value::from(f.supersedes.clone()));
    }
    if f.pinned {
        fm.insert("pinned".into(), Value::from(true));
    }
    if !tags.is_empty() {
        fm.insert("tags".into(), Value::from(tags.to_vec()));
    }
    if let Some(p) = project {
        fm.insert("project".into(), Value::from(p));
    }
    let mut source = Map::new();
    source.insert("type".into(), Value::from("inbox"));
    source.insert("file".into(), Value::from(""));
    fm.insert("source".into(), Value::Object(source));
    let captured = Some(now.timestamp().as_second());
    let (_, warnings) = brain_doc::memory::Memory::read(&fm, captured);
    if !warnings.is_empty() {
        return Err(warnings.join("; "));
    }
    Ok(fm)
}

pub(crate) use brain_doc::markdown::record as markdown;

/// The next entry number of `prefix` (`YYYYMMDD`) past `in_day` (the day file's next) and the
/// records folder's: one id space, so a record and an entry never share an id.
pub(crate) fn next_seq(in_day: u32, records: &Path, prefix: &str) -> u32 {
    let in_records = std::fs::read_dir(records)
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .filter_map(|e| {
                    let name = e.file_name().to_string_lossy().into_owned();
                    let rest = name.strip_prefix(prefix)?.strip_prefix('-')?;
                    rest.strip_suffix(".md")?.parse::<u32>().ok()
                })
                .max()
                .map_or(1, |n| n.saturating_add(1))
        })
        .unwrap_or(1);
    in_day.max(in_records)
}
