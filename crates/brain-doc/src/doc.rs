//! The doc record and its markdown file form.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::markdown;

/// Keys of the markdown frontmatter that hold the record's own fields rather than `meta`.
const RESERVED: [&str; 6] = ["id", "title", "date", "collection", "path", "source"];

/// One normalized document: a session, a browser day, a note, an inbox day, a distilled artifact.
///
/// The NDJSON form is this struct serialized as one line. The markdown form ([`Doc::to_markdown`]) is a
/// YAML frontmatter holding `id`, `title`, `date`, `collection` (when set), `path`, the `meta` keys in
/// order, and `source` last; then the body verbatim. [`Doc::from_markdown`] inverts it exactly.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Doc {
    /// Wire-format version ([`crate::SCHEMA`]).
    pub schema: u32,
    /// Always `"doc"`.
    pub kind: String,
    /// Stable identity: `<collection>/<path>` once partitioned; before that a source-derived stem
    /// (the session id for Claude Code, `codex__<stem>`, `gemini__<stem>`, `chrome__<date>`…).
    pub id: String,
    /// The collection the document belongs to; `null` until `partition` assigns one.
    pub collection: Option<String>,
    /// Relative path of the markdown file: inside its collection once partitioned, a suggested file
    /// name (`<stem>.md`) before.
    pub path: String,
    /// A one-line title for result lists.
    pub title: String,
    /// When the document's content happened (a session's first timestamp, a browser day's midnight),
    /// RFC 3339 with offset.
    pub date: String,
    /// Where the content came from.
    pub source: Source,
    /// Every other frontmatter field, in order (session_id, project, branch, agent, counts, …).
    #[serde(default)]
    pub meta: Map<String, Value>,
    /// The markdown body, without frontmatter.
    pub body: String,
}

/// Provenance of a document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Source {
    /// What kind of source: `session`, `browser`, `note`, `inbox`, `distilled`, `eval`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The agent or program that produced it (`claude`, `codex`, `gemini`, `chrome`, …), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    /// The original file, with the home directory shown as `~`.
    pub file: String,
    /// First and last 1-based line of the original file that the document covers, if line-based.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lines: Option<[u64; 2]>,
    /// sha256 of the original file's bytes, lower-case hex.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
    /// Further files merged into this document (subagent transcripts, `-wal` files), in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub parts: Vec<SourcePart>,
}

impl Source {
    /// A source of `kind` from `file` (home shown as `~`; empty when there is none), with nothing
    /// else known.
    pub fn new(kind: impl Into<String>, file: impl Into<String>) -> Source {
        Source {
            kind: kind.into(),
            agent: None,
            file: file.into(),
            lines: None,
            sha256: None,
            parts: vec![],
        }
    }
}

/// A further source file merged into a document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SourcePart {
    /// The file, home shown as `~`.
    pub file: String,
    /// sha256 of its bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
}

/// Why a markdown file or a record is not a valid document.
#[derive(Debug, thiserror::Error)]
pub enum DocError {
    #[error("no YAML frontmatter (a document starts with a line `---`)")]
    NoFrontmatter,
    #[error("frontmatter is not closed by a line `---`")]
    UnclosedFrontmatter,
    #[error("frontmatter YAML: {0}")]
    Yaml(#[from] serde_norway::Error),
    #[error("frontmatter is not a mapping")]
    NotAMapping,
    #[error("frontmatter field `{field}`: {reason}")]
    Field { field: &'static str, reason: String },
    #[error("meta may not use the reserved key `{0}`")]
    ReservedMetaKey(String),
}

impl Doc {
    /// A new, not yet partitioned document with empty meta.
    pub fn new(
        id: impl Into<String>,
        title: impl Into<String>,
        date: impl Into<String>,
        source: Source,
    ) -> Self {
        let id = id.into();
        Doc {
            schema: crate::SCHEMA,
            kind: "doc".into(),
            path: format!("{id}.md"),
            id,
            collection: None,
            title: title.into(),
            date: date.into(),
            source,
            meta: Map::new(),
            body: String::new(),
        }
    }

    /// Check the invariants the markdown form relies on.
    pub fn validate(&self) -> Result<(), DocError> {
        if let Some(k) = self.meta.keys().find(|k| RESERVED.contains(&k.as_str())) {
            return Err(DocError::ReservedMetaKey(k.clone()));
        }
        Ok(())
    }

    /// The frontmatter mapping of the markdown form.
    pub fn frontmatter(&self) -> Map<String, Value> {
        let mut fm = Map::new();
        fm.insert("id".into(), Value::String(self.id.clone()));
        fm.insert("title".into(), Value::String(self.title.clone()));
        fm.insert("date".into(), Value::String(self.date.clone()));
        if let Some(c) = &self.collection {
            fm.insert("collection".into(), Value::String(c.clone()));
        }
        fm.insert("path".into(), Value::String(self.path.clone()));
        for (k, v) in &self.meta {
            if !RESERVED.contains(&k.as_str()) {
                fm.insert(k.clone(), v.clone());
            }
        }
        fm.insert(
            "source".into(),
            serde_json::to_value(&self.source).unwrap_or(Value::Null),
        );
        fm
    }

    /// The collection the document belongs to: its own, or (before `partition` assigned one)
    /// the first part of its id.
    pub fn collection_name(&self) -> String {
        self.collection
            .clone()
            .unwrap_or_else(|| self.id.split('/').next().unwrap_or_default().to_string())
    }

    /// The markdown file form: `---`, YAML frontmatter, `---`, body.
    pub fn to_markdown(&self) -> String {
        markdown::render(&self.frontmatter(), &self.body)
    }

    /// Parse the markdown file form back into a record (the inverse of [`Doc::to_markdown`]).
    pub fn from_markdown(text: &str) -> Result<Doc, DocError> {
        let (fm, body) = markdown::split(text)?;
        let mut fm = fm.ok_or(DocError::NoFrontmatter)?;
        let mut take_str =
            |field: &'static str, required: bool| -> Result<Option<String>, DocError> {
                match fm.shift_remove(field) {
                    Some(Value::String(s)) => Ok(Some(s)),
                    None | Some(Value::Null) if !required => Ok(None),
                    None | Some(Value::Null) => Err(DocError::Field {
                        field,
                        reason: "missing".into(),
                    }),
                    Some(other) => Ok(Some(scalar_to_string(&other))),
                }
            };
        let id = take_str("id", true)?.unwrap_or_default();
        let title = take_str("title", false)?.unwrap_or_default();
        let date = take_str("date", false)?.unwrap_or_default();
        let collection = take_str("collection", false)?;
        let path = take_str("path", false)?.unwrap_or_else(|| format!("{id}.md"));
        let source = match fm.shift_remove("source") {
            Some(v) => serde_json::from_value(v).map_err(|e| DocError::Field {
                field: "source",
                reason: e.to_string(),
            })?,
            None => Source::new("note", ""),
        };
        Ok(Doc {
            schema: crate::SCHEMA,
            kind: "doc".into(),
            id,
            collection,
            path,
            title,
            date,
            source,
            meta: fm,
            body: body.to_string(),
        })
    }
}

/// A scalar frontmatter value written without quotes (`date: 2026-04-02`) read back as text.
fn scalar_to_string(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn sample() -> Doc {
        let mut d = Doc::new(
            "02b3c2d7",
            "Diagnose gemini startup delay",
            "2026-04-02T10:00:00Z",
            Source {
                kind: "session".into(),
                agent: Some("claude".into()),
                file: "~/.claude/projects/x/02b3c2d7.jsonl".into(),
                lines: Some([1, 60]),
                sha256: Some("ab".repeat(32)),
                parts: vec![SourcePart {
                    file: "~/x/agent-1.jsonl".into(),
                    sha256: None,
                }],
            },
        );
        d.meta
            .insert("session_id".into(), Value::String("02b3c2d7".into()));
        d.meta.insert("branch".into(), Value::String("no".into()));
        d.meta.insert("turns".into(), Value::from(12));
        d.meta.insert(
            "models".into(),
            serde_json::json!(["claude-opus-4", "[x, y]"]),
        );
        d.body = "## Conversation\n\n**User**: hi\n---\nnot frontmatter\n".into();
        d
    }

    #[test]
    fn markdown_round_trip_is_lossless() {
        let d = sample();
        let md = d.to_markdown();
        assert!(md.starts_with("---\nid: 02b3c2d7\n"), "{md}");
        let back = Doc::from_markdown(&md).expect("parse");
        assert_eq!(back, d);
    }

    #[test]
    fn reserved_meta_keys_are_rejected() {
        let mut d = sample();
        d.meta.insert("title".into(), Value::String("x".into()));
        assert!(matches!(d.validate(), Err(DocError::ReservedMetaKey(k)) if k == "title"));
    }

    #[test]
    fn a_file_without_frontmatter_is_an_error() {
        assert!(matches!(
            Doc::from_markdown("# hello\n"),
            Err(DocError::NoFrontmatter)
        ));
    }

    fn meta_value() -> impl Strategy<Value = Value> {
        prop_oneof![
            any::<String>().prop_map(Value::String),
            any::<i64>().prop_map(Value::from),
            any::<bool>().prop_map(Value::from),
            Just(Value::Null),
            proptest::collection::vec(any::<String>(), 0..3).prop_map(|v| serde_json::json!(v)),
        ]
    }

    proptest! {
        #[test]
        fn any_document_round_trips(
            id in "[a-z0-9_/.-]{1,30}",
            title in any::<String>(),
            date in any::<String>(),
            collection in proptest::option::of("[a-z-]{1,12}"),
            body in any::<String>(),
            keys in proptest::collection::vec("[a-z_]{1,10}", 0..5),
            vals in proptest::collection::vec(meta_value(), 5),
        ) {
            let mut d = sample();
            d.id = id;
            d.title = title;
            d.date = date;
            d.collection = collection;
            d.body = body;
            d.meta.clear();
            for (k, v) in keys.into_iter().zip(vals) {
                if !RESERVED.contains(&k.as_str()) {
                    d.meta.insert(k, v);
                }
            }
            let back = Doc::from_markdown(&d.to_markdown()).expect("parse");
            prop_assert_eq!(back, d);
        }
    }
}
