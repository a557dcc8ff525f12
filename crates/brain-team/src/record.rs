//! The bulk record of one passage: a chunk of a brain document as the engine stores it, with the
//! document's filters (collection, project, agent, type, dates), its lifecycle (status, expiry),
//! who sent it (author, machine) and the chunk's vector, computed locally by brain's own model.
//!
//! Its id is `<sha256 of the document id>!<chunk>`: fixed length, nothing a document id holds
//! can reach the engine's syntax or another index, and SolrCloud's compositeId router keeps every
//! passage of one document on one shard (what collapsing them to one hit needs).

use brain_doc::memory::Memory;
use brain_doc::{Doc, file};
use serde::{Deserialize, Serialize};

/// The longest author, machine or filter value stored (they are exact-match terms).
const MAX_WORD: usize = 200;

/// Who a home's documents are from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Who {
    pub author: String,
    pub machine: String,
}

impl Who {
    /// `$BRAIN_AUTHOR`, else `team.author`, else `$USER`; `$BRAIN_MACHINE`, else the host name.
    pub fn from_env(configured: Option<&str>) -> Who {
        let author = brain_doc::env::get(brain_doc::env::BRAIN_AUTHOR)
            .or(configured)
            .or_else(|| brain_doc::env::get(brain_doc::env::USER))
            .unwrap_or("unknown");
        let machine = match brain_doc::env::get(brain_doc::env::BRAIN_MACHINE) {
            Some(m) => m.to_string(),
            None => std::fs::read_to_string("/proc/sys/kernel/hostname")
                .or_else(|_| std::fs::read_to_string("/etc/hostname"))
                .unwrap_or_default(),
        };
        Who {
            author: word(author).unwrap_or_else(|| "unknown".into()),
            machine: word(&machine).unwrap_or_else(|| "unknown".into()),
        }
    }
}

/// One passage, as sent to the engine.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Passage {
    pub id: String,
    pub doc_id: String,
    pub seq: u32,
    pub line: u64,
    pub collection: String,
    pub path: String,
    pub title: String,
    pub body: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub date: Option<String>,
    pub source: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project: Option<String>,
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    pub status: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub occurred: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub importance: Option<u8>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confidence: Option<f64>,
    pub pinned: bool,
    pub author: String,
    pub machine: String,
    /// sha256 of what was embedded (title and body): what a later push compares.
    pub hash: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vec: Option<Vec<f32>>,
}

/// The engine id of chunk `seq` of document `doc_id`.
pub fn passage_id(doc_id: &str, seq: u32) -> String {
    format!("{}!{seq}", brain_doc::sha256_hex(doc_id.as_bytes()))
}

/// One chunk of a document body, as the home's chunker cut it (brain_vec::chunk): its place in the
/// document, the body line it starts at (1-based), its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Piece {
    pub seq: u32,
    pub line: u64,
    pub text: String,
}

/// The passages of `doc` (collection `collection`, content hash `hash`), one per chunk, with the
/// vectors in chunk order when there are any.
pub fn passages(
    doc: &Doc,
    collection: &str,
    hash: &str,
    chunks: &[Piece],
    body_line: u64,
    vectors: Option<Vec<Vec<f32>>>,
    who: &Who,
) -> Vec<Passage> {
    let captured = file::parse_date(&doc.date);
    let (memory, _) = Memory::read(&doc.meta, captured);
    let meta = |k: &str| {
        doc.meta
            .get(k)
            .and_then(file::meta_string)
            .and_then(|s| word(&s))
    };
    let mut vectors = vectors.map(|v| v.into_iter());
    chunks
        .iter()
        .map(|c| Passage {
            id: passage_id(&doc.id, c.seq),
            doc_id: doc.id.clone(),
            seq: c.seq,
            line: body_line.saturating_add(c.line).saturating_sub(1),
            collection: collection.to_string(),
            path: doc.path.clone(),
            title: doc.title.clone(),
            body: c.text.clone(),
            date: captured.and_then(instant),
            source: doc.source.kind.clone(),
            agent: doc
                .source
                .agent
                .as_deref()
                .and_then(word)
                .or_else(|| meta("agent")),
            project: meta("project"),
            kind: memory.kind.clone(),
            status: memory.status.name().to_string(),
            key: memory.key.clone(),
            occurred: memory.occurred_at.and_then(instant),
            expires: memory.expires_at.and_then(instant),
            importance: memory.importance,
            confidence: memory.confidence,
            pinned: memory.pinned,
            author: who.author.clone(),
            machine: who.machine.clone(),
            hash: hash.to_string(),
            vec: vectors.as_mut().and_then(Iterator::next),
        })
        .collect()
}

/// Unix seconds as the engine's date (`2026-03-01T09:00:00Z`), within the years it stores (1–9999).
pub fn instant(secs: i64) -> Option<String> {
    (-62_135_596_800..=253_402_300_799)
        .contains(&secs)
        .then(|| file::format_secs(secs))
}

/// A value kept as one exact term: control characters out, trimmed, at most [`MAX_WORD`] chars.
fn word(s: &str) -> Option<String> {
    let w: String = s
        .chars()
        .filter(|c| !c.is_control())
        .take(MAX_WORD)
        .collect();
    let w = w.trim();
    (!w.is_empty()).then(|| w.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_fixed_length_and_routed_by_document() {
        let a = passage_id("notes/../../etc/passwd", 3);
        assert_eq!(a.len(), 64 + 2);
        assert!(a.ends_with("!3"));
        assert!(a[..64].bytes().all(|b| b.is_ascii_hexdigit()));
        assert_eq!(a[..64], passage_id("notes/../../etc/passwd", 0)[..64]);
    }

    #[test]
    fn dates_outside_the_engines_years_are_dropped() {
        assert_eq!(instant(0).as_deref(), Some("1970-01-01T00:00:00Z"));
        assert_eq!(instant(i64::MAX), None);
        assert_eq!(instant(-62_135_596_801), None);
    }

    #[test]
    fn words_lose_control_characters() {
        assert_eq!(word(" ana\u{0}\n ").as_deref(), Some("ana"));
        assert_eq!(word("\u{7}"), None);
        assert_eq!(word(&"x".repeat(500)).map(|w| w.len()), Some(MAX_WORD));
    }
}
