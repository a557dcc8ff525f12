//! The bulk records of one document, as the engine stores them: its lexical passages (the units
//! this home's lexical index holds, [`brain_doc::passage`]) and its chunks (the units `vecindex`
//! embeds, each with its vector from brain's own model), each with the document's filters
//! (collection, project, agent, type, dates), its lifecycle (status, expiry) and who sent it
//! (author, machine). Words search the lexical passages alone and vectors the chunks alone, so
//! the engine's word statistics, a hit's passage and its share of the query's words are this
//! home's (issue 58: one scale of strength).
//!
//! An id is `<sha256 of the document id>!<n>`, `n` counting the document's passages, then its
//! chunks: fixed length, nothing a document id holds can reach the engine's syntax or another
//! index, and SolrCloud's compositeId router keeps every record of one document on one shard
//! (what collapsing them to one hit needs).

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

/// One record, as sent to the engine.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Passage {
    pub id: String,
    pub doc_id: String,
    /// Its place among the document's passages, or among its chunks.
    pub seq: u32,
    pub line: u64,
    pub collection: String,
    pub path: String,
    #[serde(flatten)]
    pub text: Text,
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
    /// sha256 of the document as sent (title, date, frontmatter, body): what a later push compares.
    pub hash: String,
}

/// What a record holds of its document's text: the field `unit` says which.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "unit", rename_all = "lowercase")]
pub enum Text {
    /// A lexical passage: its title and text are what the engine's words search (BM25).
    Lex { title: String, body: String },
    /// A chunk: its vector is what the engine's k-NN searches; its title and text are stored to
    /// be shown, never searched by words (they would count twice in the words' statistics).
    Vec {
        chunk_title: String,
        chunk: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        vec: Option<Vec<f32>>,
    },
}

impl Text {
    /// The text shown for the record (a passage's or a chunk's).
    pub fn body(&self) -> &str {
        match self {
            Text::Lex { body, .. } => body,
            Text::Vec { chunk, .. } => chunk,
        }
    }
}

/// The engine id of record `n` of document `doc_id` (its passages first, then its chunks).
pub fn passage_id(doc_id: &str, n: u32) -> String {
    format!("{}!{n}", brain_doc::sha256_hex(doc_id.as_bytes()))
}

/// One piece of a document body — a lexical passage ([`brain_doc::passage`]) or a chunk as the
/// home's chunker cut it (brain_vec::chunk): its place in the document, the body line it starts
/// at (1-based), its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Piece {
    pub seq: u32,
    pub line: u64,
    pub text: String,
}

/// A body cut both ways: its lexical passages and its chunks.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Pieces {
    pub lexical: Vec<Piece>,
    pub chunks: Vec<Piece>,
}

/// The lexical passages of a body, as this home's lexical index cuts it: a daily note's block
/// by block (`blocks`), else at headings and paragraphs.
pub fn lexical(body: &str, blocks: bool) -> Vec<Piece> {
    let cut = if blocks {
        brain_doc::passage::split_blocks(body, 1)
    } else {
        brain_doc::passage::split(body, 1)
    };
    cut.into_iter()
        .map(|p| Piece {
            seq: u32::try_from(p.ordinal).unwrap_or(u32::MAX),
            line: p.line,
            text: p.text,
        })
        .collect()
}

/// The records of `doc` (collection `collection`, content hash `hash`): one per lexical passage
/// of `pieces`, then one per chunk, with the chunks' vectors in order when there are any.
pub fn passages(
    doc: &Doc,
    collection: &str,
    hash: &str,
    pieces: &Pieces,
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
    let texts = pieces
        .lexical
        .iter()
        .map(|p| {
            let text = Text::Lex {
                title: doc.title.clone(),
                body: p.text.clone(),
            };
            (p, text)
        })
        .chain(pieces.chunks.iter().map(|c| {
            let text = Text::Vec {
                chunk_title: doc.title.clone(),
                chunk: c.text.clone(),
                vec: vectors.as_mut().and_then(Iterator::next),
            };
            (c, text)
        }));
    texts
        .enumerate()
        .map(|(n, (c, text))| Passage {
            id: passage_id(&doc.id, u32::try_from(n).unwrap_or(u32::MAX)),
            doc_id: doc.id.clone(),
            seq: c.seq,
            line: body_line.saturating_add(c.line).saturating_sub(1),
            collection: collection.to_string(),
            path: doc.path.clone(),
            text,
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

    /// A document's records: its lexical passages as the lexical index cuts them, then its chunks
    /// with their vectors; ids count them all, so deleting the tail of a shorter document is one
    /// range.
    #[test]
    fn passages_then_chunks_with_contiguous_ids() {
        let mut doc = Doc::new(
            "notes/a",
            "A",
            "2026-03-01",
            brain_doc::Source::new("note", "x"),
        );
        doc.body = "# One\n\nfirst part\n\n# Two\n\nsecond part\n".into();
        let pieces = Pieces {
            lexical: lexical(&doc.body, false),
            chunks: vec![Piece {
                seq: 0,
                line: 1,
                text: "one chunk".into(),
            }],
        };
        let want: Vec<String> = brain_doc::passage::split(&doc.body, 1)
            .into_iter()
            .map(|p| p.text)
            .collect();
        assert_eq!(want.len(), 2);
        let who = Who {
            author: "ana".into(),
            machine: "m".into(),
        };
        let records = passages(
            &doc,
            "notes",
            "h",
            &pieces,
            5,
            Some(vec![vec![0.5; 3]]),
            &who,
        );
        assert_eq!(records.len(), 3);
        for (n, r) in records.iter().enumerate() {
            assert_eq!(r.id, passage_id("notes/a", n as u32));
        }
        assert_eq!(
            records[..2]
                .iter()
                .map(|r| r.text.body())
                .collect::<Vec<_>>(),
            want
        );
        assert_eq!((records[0].line, records[1].line), (5, 9));
        match &records[2].text {
            Text::Vec { chunk, vec, .. } => {
                assert_eq!(
                    (chunk.as_str(), vec.as_deref()),
                    ("one chunk", Some(&[0.5; 3][..]))
                );
            }
            t => panic!("{t:?}"),
        }
        // On the wire the unit names the fields: words search `title` and `body` of a passage
        // only; a chunk's text is `chunk_title` and `chunk`.
        let lex = serde_json::to_value(&records[0]).expect("serializes");
        assert_eq!(
            (lex["unit"].as_str(), lex["title"].as_str()),
            (Some("lex"), Some("A"))
        );
        assert!(lex.get("chunk").is_none() && lex.get("vec").is_none());
        let chunk = serde_json::to_value(&records[2]).expect("serializes");
        assert_eq!(chunk["unit"], "vec");
        assert!(chunk.get("body").is_none() && chunk.get("title").is_none());
        let back: Passage = serde_json::from_value(chunk).expect("reads back");
        assert_eq!(back, records[2]);
    }

    /// A daily note is cut block by block, as the lexical index cuts it.
    #[test]
    fn a_daily_note_is_a_passage_per_block() {
        let body = "- 09:10 fixed the auth bug\n- 10:30 met Ana\n";
        assert_eq!(lexical(body, true).len(), 2);
        assert_eq!(lexical(body, false).len(), 1);
        // An empty body is one empty passage: the title stays searchable.
        assert_eq!(lexical("", false).len(), 1);
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
