//! A markdown document made ready for the index: its fields, its passages, and the tantivy documents
//! (one per passage) that carry them.

use std::path::Path;

use brain_doc::Doc;
use tantivy::TantivyDocument;

use crate::passage::{self, Passage};
use crate::schema::{FOREVER, Fields};

/// Everything the index stores about one document.
#[derive(Debug, Clone, PartialEq)]
pub struct Prepared {
    /// `<collection>/<path>`.
    pub id: String,
    pub collection: String,
    /// Path inside the collection.
    pub path: String,
    /// Absolute path of the markdown file.
    pub file: String,
    pub title: String,
    /// RFC 3339 as given (or the file's mtime for files without a date).
    pub date: String,
    /// Unix seconds of `date`, if it parses.
    pub date_secs: Option<i64>,
    /// `source.type` (`note` for a file without frontmatter).
    pub kind: String,
    pub agent: Option<String>,
    pub project: Option<String>,
    /// Unix seconds of a session's end (`ended`); the index stores the date when absent.
    pub ended_secs: Option<i64>,
    /// The agent's session id (`session_id`).
    pub session: Option<String>,
    pub tags: Vec<String>,
    /// What the document refers to, typed (`file:src/auth.rs`, `url:https://…`): `meta.refs`.
    pub refs: Vec<String>,
    /// sha256 of the markdown file's bytes.
    pub sha256: String,
    /// The memory fields of its frontmatter, and what could not be read of them.
    pub memory: Memory,
    pub memory_warnings: Vec<String>,
    /// Relations, entities and the entity it defines, as written ([`brain_doc::links`]): the
    /// registry keeps them ([`crate::graph`]).
    pub links: Links,
    pub passages: Vec<Passage>,
}

/// How a document's body is cut into passages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Shape {
    /// At headings and, in a long section, paragraphs ([`passage::split`]).
    #[default]
    Sections,
    /// Every block a passage: a daily note ([`passage::split_blocks`]).
    Blocks,
}

impl Shape {
    fn split(self, body: &str, first_line: u64) -> Vec<Passage> {
        match self {
            Shape::Sections => passage::split(body, first_line),
            Shape::Blocks => passage::split_blocks(body, first_line),
        }
    }
}

use brain_doc::file::FileFacts;
pub use brain_doc::file::{format_secs, parse_date};
use brain_doc::links::Links;
use brain_doc::memory::{Memory, Status};

impl Prepared {
    /// A partitioned doc record whose markdown form is `text` (as `partition` wrote it).
    pub fn from_doc(
        doc: &Doc,
        collection: &str,
        file: &Path,
        text: &str,
        shape: Shape,
    ) -> Prepared {
        let sha256 = brain_doc::sha256_hex(text.as_bytes());
        let f = FileFacts::of_doc(doc, text);
        Self::from_facts(collection, &doc.path, file, f, sha256, shape)
    }

    /// A markdown file of a collection, with or without frontmatter. Title: frontmatter `title`, else
    /// the first `# ` heading, else the file stem; date: frontmatter `date`, else `mtime_secs`.
    pub fn from_file(
        collection: &str,
        path: &str,
        file: &Path,
        text: &str,
        mtime_secs: i64,
    ) -> Prepared {
        let sha256 = brain_doc::sha256_hex(text.as_bytes());
        Self::from_file_hashed(
            collection,
            path,
            file,
            text,
            mtime_secs,
            sha256,
            Shape::Sections,
        )
    }

    /// [`Prepared::from_file`] with the sha256 already known (the sync hashes the file's raw bytes
    /// before deciding to read it, so it does not hash them twice).
    pub fn from_file_hashed(
        collection: &str,
        path: &str,
        file: &Path,
        text: &str,
        mtime_secs: i64,
        sha256: String,
        shape: Shape,
    ) -> Prepared {
        let f = FileFacts::read(path, text, mtime_secs);
        Self::from_facts(collection, path, file, f, sha256, shape)
    }

    /// The one place a document's facts become a prepared document (a file read, or a doc record).
    fn from_facts(
        collection: &str,
        path: &str,
        file: &Path,
        f: FileFacts<'_>,
        sha256: String,
        shape: Shape,
    ) -> Prepared {
        let (memory, memory_warnings) = Memory::read(&f.frontmatter, f.date_secs);
        let id = format!("{collection}/{path}");
        let mut links = brain_doc::links::read(&f.frontmatter, f.body, f.body_line);
        // `partition` writes every document's own id into `id:`: a name only when it says more.
        links.name = links.name.filter(|n| *n != id && n != path);
        Prepared {
            id,
            collection: collection.to_string(),
            path: path.to_string(),
            file: file.display().to_string(),
            title: f.title,
            date: f.date,
            date_secs: f.date_secs,
            kind: f.kind,
            agent: f.agent,
            project: f.project,
            ended_secs: f.ended_secs,
            session: f.session,
            tags: f.tags,
            refs: meta_refs(f.frontmatter.get("refs")),
            sha256,
            memory,
            memory_warnings,
            links,
            passages: shape.split(f.body, f.body_line),
        }
    }

    /// One tantivy document per passage.
    pub fn to_tantivy(&self, f: &Fields) -> Vec<TantivyDocument> {
        let date = self.date_secs.map(crate::schema::instant);
        // A session's span; a document without an end ends when it starts (never before).
        let ended = match (self.ended_secs, self.date_secs) {
            (Some(e), Some(d)) => Some(e.max(d)),
            (e, d) => e.or(d),
        }
        .map(crate::schema::instant);
        let tie = brain_doc::tie_key(&self.id);
        let m = &self.memory;
        let occurred = m.occurred_at.or(self.date_secs).map(crate::schema::instant);
        let expires = crate::schema::instant(m.expires_at.unwrap_or(FOREVER).min(FOREVER));
        let linked = m.key.is_some() || !m.supersedes.is_empty() || m.status == Status::Superseded;
        self.passages
            .iter()
            .map(|p| {
                let mut d = TantivyDocument::default();
                d.add_text(f.id, &self.id);
                d.add_text(f.collection, &self.collection);
                d.add_text(f.path, &self.path);
                d.add_text(f.path_text, &self.path);
                d.add_text(f.file, &self.file);
                d.add_text(f.title, &self.title);
                d.add_text(f.headings, &p.headings);
                d.add_text(f.body, &p.text);
                d.add_text(f.ident, &self.title);
                d.add_text(f.ident, &p.headings);
                d.add_text(f.ident, &p.text);
                d.add_text(f.kind, &self.kind);
                if let Some(a) = &self.agent {
                    d.add_text(f.agent, a);
                }
                if let Some(p) = &self.project {
                    d.add_text(f.project, p);
                }
                for t in &self.tags {
                    d.add_text(f.tags, t);
                }
                if let Some(date) = date {
                    d.add_date(f.date, date);
                }
                if let Some(ended) = ended {
                    d.add_date(f.ended, ended);
                }
                if let Some(s) = &self.session {
                    d.add_text(f.session, s);
                }
                d.add_u64(f.tie, tie);
                d.add_u64(f.line, p.line);
                d.add_u64(f.passage, p.ordinal);
                d.add_text(f.sha256, &self.sha256);
                if let Some(t) = &m.kind {
                    d.add_text(f.mtype, t);
                }
                d.add_u64(f.importance, u64::from(m.importance_or_default()));
                d.add_f64(f.confidence, m.confidence.unwrap_or(1.0));
                d.add_u64(f.pinned, u64::from(m.pinned));
                if let Some(o) = occurred {
                    d.add_date(f.occurred, o);
                }
                d.add_date(f.expires, expires);
                d.add_text(f.status, m.status.name());
                if let Some(k) = &m.key {
                    d.add_text(f.key, k);
                }
                for s in &m.supersedes {
                    d.add_text(f.supersedes, s);
                }
                if linked {
                    d.add_u64(f.linked, 1);
                }
                if p.ordinal == 0 {
                    for r in &self.refs {
                        d.add_text(f.refs_raw, r);
                        for t in ref_terms(r) {
                            d.add_text(f.refs, &t);
                        }
                    }
                }
                // Current until the lifecycle pass of the run says otherwise (crate::lifecycle).
                d.add_date(f.superseded, crate::schema::instant(FOREVER));
                d
            })
            .collect()
    }
}

/// Kinds of refs (seed 003); a ref of another kind, or none, is kept as written.
pub const REF_KINDS: [&str; 6] = ["file", "url", "plan", "repo", "doc", "commit"];

/// Most refs a document is indexed with.
const MAX_REFS: usize = 200;

/// `meta.refs` as typed refs: strings (`file:src/auth.rs`, or a bare path or URL, typed by its
/// look) and one-key maps (`{file: src/auth.rs}`); at most [`MAX_REFS`].
pub fn meta_refs(v: Option<&serde_json::Value>) -> Vec<String> {
    use serde_json::Value;
    let typed = |kind: Option<&str>, value: &str| -> Option<String> {
        let value = value.trim();
        if value.is_empty() || value.contains('\n') {
            return None;
        }
        Some(match kind {
            Some(k) => format!("{}:{value}", k.trim().to_lowercase()),
            None if REF_KINDS
                .iter()
                .any(|k| value.starts_with(&format!("{k}:"))) =>
            {
                value.to_string()
            }
            None if value.contains("://") => format!("url:{value}"),
            None => format!("file:{value}"),
        })
    };
    let one = |v: &Value| -> Option<String> {
        match v {
            Value::String(s) => typed(None, s),
            Value::Object(o) if o.len() == 1 => {
                let (k, v) = o.iter().next()?;
                typed(Some(k), v.as_str()?)
            }
            _ => None,
        }
    };
    let mut out: Vec<String> = match v {
        Some(Value::Array(a)) => a.iter().filter_map(one).collect(),
        Some(other) => one(other).into_iter().collect(),
        None => Vec::new(),
    };
    out.truncate(MAX_REFS);
    out
}

/// The terms a `ref:` filter matches for one typed ref: the value without its kind; a path also
/// by every tail of whole components (`/home/u/brain/src/auth.rs` is found by `src/auth.rs` and
/// `auth.rs`); a URL also without its scheme. [`ref_query`] normalizes the filter's side alike.
pub fn ref_terms(r: &str) -> Vec<String> {
    let value = ref_query(r);
    let mut out = vec![value.clone()];
    if let Some((_, rest)) = value.split_once("://") {
        out.push(rest.to_string());
    } else {
        let mut tail = value.as_str();
        for _ in 0..32 {
            let Some((_, rest)) = tail.split_once('/') else {
                break;
            };
            if !rest.is_empty() {
                out.push(rest.to_string());
            }
            tail = rest;
        }
    }
    out.sort();
    out.dedup();
    out
}

/// A `ref:` value as the index holds it: its kind (`file:`, `url:`, …) and a leading `./` left out.
pub fn ref_query(v: &str) -> String {
    let v = v.trim();
    let v = REF_KINDS
        .iter()
        .find_map(|k| v.strip_prefix(&format!("{k}:")))
        .unwrap_or(v);
    v.strip_prefix("./").unwrap_or(v).to_string()
}

/// A passage document written again from what the index stored of it (`stored`, as read back),
/// with its supersession set to `superseded` (Unix seconds; [`FOREVER`]: current) by `by`: the
/// stored fields as they were, and the fields [`Prepared::to_tantivy`] derives without storing
/// (`path_text`, `ident`, `tie`, `linked`) derived again the same way.
pub(crate) fn restore(
    stored: &TantivyDocument,
    f: &Fields,
    superseded: i64,
    by: Option<&str>,
) -> TantivyDocument {
    use tantivy::schema::Value;
    let mut d = TantivyDocument::default();
    for (field, v) in stored.field_values() {
        if field != f.superseded && field != f.superseded_by {
            d.add_field_value(field, v);
        }
    }
    let text = |field| {
        stored
            .get_first(field)
            .and_then(|v| v.as_str())
            .unwrap_or_default()
    };
    d.add_text(f.path_text, text(f.path));
    d.add_text(f.ident, text(f.title));
    d.add_text(f.ident, text(f.headings));
    d.add_text(f.ident, text(f.body));
    d.add_u64(f.tie, brain_doc::tie_key(text(f.id)));
    for r in stored.get_all(f.refs_raw).filter_map(|v| v.as_str()) {
        for t in ref_terms(r) {
            d.add_text(f.refs, &t);
        }
    }
    let linked = stored.get_first(f.key).is_some()
        || stored.get_first(f.supersedes).is_some()
        || text(f.status) == Status::Superseded.name();
    if linked {
        d.add_u64(f.linked, 1);
    }
    d.add_date(f.superseded, crate::schema::instant(superseded));
    if let Some(b) = by {
        d.add_text(f.superseded_by, b);
    }
    d
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plain_note_gets_its_title_from_the_first_heading_and_its_date_from_mtime() {
        let text = "intro\n# Rust tips\nuse `cargo nextest`\n";
        let p = Prepared::from_file(
            "notes",
            "kb/tips.md",
            Path::new("/v/kb/tips.md"),
            text,
            1_775_000_000,
        );
        assert_eq!(p.title, "Rust tips");
        assert_eq!(p.date_secs, Some(1_775_000_000));
        assert_eq!(p.kind, "note");
        assert_eq!(
            p.passages.iter().map(|p| p.line).collect::<Vec<_>>(),
            [1, 2]
        );
    }

    #[test]
    fn frontmatter_fields_are_used_and_lines_count_the_frontmatter() {
        let text = "---\ntitle: T\ndate: 2026-04-02\nproject: brain\ntags: [Rust, '#cli']\nsource:\n  type: session\n  agent: Claude\n  file: x\n---\nbody\n";
        let p = Prepared::from_file("brain", "a.md", Path::new("/h/a.md"), text, 0);
        assert_eq!(
            (p.title.as_str(), p.project.as_deref(), p.agent.as_deref()),
            ("T", Some("brain"), Some("claude"))
        );
        assert_eq!(p.tags, ["rust", "cli"]);
        assert_eq!(p.date_secs, parse_date("2026-04-02T00:00:00Z"));
        assert_eq!(p.passages[0].line, 11);
    }

    #[test]
    fn a_doc_record_and_its_file_prepare_alike() {
        let src = brain_doc::Source {
            kind: "session".into(),
            agent: Some("codex".into()),
            file: "~/s.jsonl".into(),
            lines: None,
            sha256: None,
            parts: vec![],
        };
        let mut doc = Doc::new(
            "brain/2026/04/s.md",
            "Fix the build",
            "2026-04-02T10:00:00Z",
            src,
        );
        doc.collection = Some("brain".into());
        doc.path = "2026/04/s.md".into();
        doc.body = "## Conversation\n\n**User**: parse_config fails\n".into();
        let text = doc.to_markdown();
        let a = Prepared::from_doc(&doc, "brain", Path::new("/h/f.md"), &text, Shape::Sections);
        let b = Prepared::from_file("brain", "2026/04/s.md", Path::new("/h/f.md"), &text, 0);
        assert_eq!(a, b);
    }
}
