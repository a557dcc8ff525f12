//! An extracted record: what the extraction found in a session (a decision, a fact, a preference, a
//! rejected approach, a failed command), checked and cleaned before anything is written, and the
//! markdown file it becomes.

use brain_doc::{Doc, Source};
use serde_json::{Value, json};

/// The record types extraction writes (the briefing's sections read them by these names).
pub const TYPES: [&str; 5] = ["decision", "fact", "preference", "rejected", "failed"];

/// Most records one session's answer may hold; more is an answer that is not an extraction.
pub const MAX_RECORDS: usize = 50;
/// Longest statement, in characters.
pub const MAX_STATEMENT: usize = 1_000;
pub use brain_doc::memory::{MAX_KEY, normalize_key};
/// Most refs a record keeps, and the longest one.
pub const MAX_REFS: usize = 20;
pub const MAX_REF: usize = 300;

/// Where the records of one session came from.
#[derive(Debug, Clone)]
pub struct Origin {
    /// The agent's session id.
    pub session: String,
    /// The project (`~/work/api`), when the session says.
    pub project: Option<String>,
    /// The session's date, RFC 3339 (a record's `occurred_at` when it does not say).
    pub date: String,
    /// `brain://collection/path` of the document the records were read from.
    pub uri: String,
}

/// One record, checked and redacted.
#[derive(Debug, Clone, PartialEq)]
pub struct Extracted {
    /// One of [`TYPES`].
    pub kind: String,
    /// Normalized ([`normalize_key`]); the project is added when the record is written.
    pub key: String,
    pub statement: String,
    /// RFC 3339 or a date.
    pub occurred_at: String,
    pub refs: Vec<String>,
    /// A failed command's error.
    pub error: Option<String>,
    /// 0–1.
    pub confidence: f64,
    /// 1-based line of the source document it was read at.
    pub line: u64,
}

/// `s` on one line, control characters gone, redacted, at most `max` characters.
pub fn clean(s: &str, max: usize, counts: &mut brain_redact::Counts) -> String {
    let one: String = s
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .chars()
        .filter(|c| !c.is_control())
        .collect();
    let red = brain_redact::redact(&one, counts);
    red.chars().take(max).collect()
}

/// A file name of one record: the first words of its key and a hash of what identifies it (the
/// session, type, key and statement), so the same record extracted twice is the same file.
pub fn file_stem(e: &Extracted, origin: &Origin) -> String {
    let hash = brain_doc::sha256_hex(
        format!("{}\n{}\n{}\n{}", origin.session, e.kind, e.key, e.statement).as_bytes(),
    );
    let day = e.occurred_at.get(..10).unwrap_or("undated");
    let day = brain_store::partition::safe_component(day);
    format!("{day}-{}", &hash[..12])
}

/// The key as written: the project's folder name and the subject (`api:db.engine`), so two
/// projects' `db.engine` never replace each other.
pub fn subject(e: &Extracted, origin: &Origin) -> String {
    brain_doc::memory::project_key(origin.project.as_deref(), &e.key)
}

/// How a record relates to what was there (the consolidation's decision, applied to the file).
#[derive(Debug, Clone, Default)]
pub struct Links {
    /// Write the `key` (every record but a same-day conflict).
    pub keyed: bool,
    /// Ids this record replaces.
    pub supersedes: Vec<String>,
    /// An id this record contradicts.
    pub contradicts: Option<String>,
}

/// The record as a document of `collection` at `path`.
pub fn to_doc(
    e: &Extracted,
    origin: &Origin,
    collection: &str,
    path: &str,
    links: &Links,
    by: &str,
    version: &str,
) -> Doc {
    let title: String = e.statement.chars().take(100).collect();
    let mut doc = Doc::new(
        format!("{collection}/{path}"),
        title,
        e.occurred_at.clone(),
        Source::new("distilled", origin.uri.clone()),
    );
    doc.collection = Some(collection.to_string());
    doc.path = path.to_string();
    let subject = subject(e, origin);
    let m = &mut doc.meta;
    m.insert("type".into(), Value::from(e.kind.clone()));
    if links.keyed {
        m.insert("key".into(), Value::from(subject.clone()));
    }
    m.insert("subject".into(), Value::from(subject));
    m.insert("occurred_at".into(), Value::from(e.occurred_at.clone()));
    m.insert("confidence".into(), Value::from(e.confidence));
    if let Some(p) = &origin.project {
        m.insert("project".into(), Value::from(p.clone()));
    }
    if !e.refs.is_empty() {
        m.insert("refs".into(), Value::from(e.refs.clone()));
    }
    if let Some(err) = &e.error {
        m.insert("error".into(), Value::from(err.clone()));
    }
    m.insert("from_session".into(), Value::from(origin.session.clone()));
    m.insert(
        "source_uri".into(),
        Value::from(format!("{}:{}", origin.uri, e.line)),
    );
    m.insert("extracted_by".into(), Value::from(by));
    m.insert("extract_version".into(), Value::from(version));
    if !links.supersedes.is_empty() {
        m.insert("supersedes".into(), Value::from(links.supersedes.clone()));
    }
    if let Some(c) = &links.contradicts {
        m.insert(
            "relations".into(),
            json!([{"kind": "contradicts", "to": c}]),
        );
    }
    // A statement is one line; one that starts like markdown structure (a heading, a quote, a
    // list item, a rule, a fence, a tag) is escaped, so a record cannot make a block of its own.
    let s = &e.statement;
    let structure = s.starts_with(['#', '>', '<', '|'])
        || ["- ", "* ", "+ ", "---", "===", "```", "~~~", "***"]
            .iter()
            .any(|p| s.starts_with(p));
    let body = if structure {
        format!("\\{s}")
    } else {
        s.clone()
    };
    doc.body = format!("{body}\n\nSource: {}:{}\n", origin.uri, e.line);
    doc
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_names_never_paths() {
        assert_eq!(normalize_key("DB.Engine").as_deref(), Some("db.engine"));
        assert_eq!(
            normalize_key("../../etc/passwd").as_deref(),
            Some("etc-passwd")
        );
        assert_eq!(
            normalize_key("  Retry   policy!! ").as_deref(),
            Some("retry-policy")
        );
        assert_eq!(normalize_key("..."), None);
        assert_eq!(
            normalize_key(&"x".repeat(500)).map(|k| k.len()),
            Some(MAX_KEY)
        );
        let mut c = brain_redact::Counts::new();
        let s = clean("use key\nAKIAIOSFODNN7EXAMPLE\u{7} now", 1000, &mut c);
        assert!(
            !s.contains("AKIA") && !s.contains('\n') && !s.contains('\u{7}'),
            "{s}"
        );
    }
}
