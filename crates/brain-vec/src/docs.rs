//! The documents of a store generation, read in place: `g<N>.docs`.
//!
//! A fresh query opens the store and needs, of its documents, only the few that rank (and, with a
//! filter, the filter's fields of each). Parsing a JSON table of every document first cost 12–13 ms
//! alone for 10,000 documents and 20–35 ms beside the model load (measured 2026-11-25 with
//! `BRAIN_TIMINGS=1`), the longest step of a fresh hybrid query once the tokenizer was built in
//! code. This table is mapped and checked once (bounds and UTF-8, ~1 ms), then read per document.
//!
//! Layout (all integers little-endian):
//! * 16 bytes: the magic `brain-docs v1\n\0\0`, then
//! * 8 bytes: the number of documents `n`;
//! * `n` records of 64 bytes: the offset in the string area of the document's first string (u64),
//!   the byte lengths of its eight strings (u32 each: id, collection, path, title, date, project,
//!   agent, hash — [`NONE`] for a project or agent it has not), then body line, first row and row
//!   count (u64 each);
//! * the string area: each record's strings, one after another, in that order, UTF-8.
//!
//! Generations written before this table (manifest schema 1) have `g<N>.docs.json` instead; they
//! are read into the same form ([`Docs::from_entries`]).
//!
//! Beside it, `g<N>.ids` finds a document by its id without reading the others: the `n` document
//! positions (u32 each, little-endian) in the byte order of their ids ([`encode_ids`]), searched by
//! bisection ([`Docs::find`]). A lexical query's dedup reads the stored vectors of its ten hits
//! through it; walking every id cost O(documents) per query. Generations written before it have
//! none and are walked.

use memmap2::Mmap;
use serde::{Deserialize, Serialize};

/// One document of the store.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DocEntry {
    /// Doc id (`<collection>/<path>`).
    pub id: String,
    /// Collection, empty if none.
    pub collection: String,
    /// Path inside the collection.
    pub path: String,
    /// Title.
    pub title: String,
    /// RFC 3339 date.
    pub date: String,
    /// `meta.project`, for the `project:` filter.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project: Option<String>,
    /// `source.agent` (lower-case), for the `agent:` filter.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    /// sha256 of what was embedded (title + body); unchanged hash = no re-embedding.
    pub hash: String,
    /// Line of the markdown file at which the body starts (chunk lines are body lines).
    pub body_line: u64,
    /// First row.
    pub first: u64,
    /// Number of rows.
    pub count: u64,
}

const MAGIC: &[u8; 16] = b"brain-docs v1\n\0\0";
const HEAD: usize = 24;
const RECORD: usize = 64;
/// The length of a string a document has not (project, agent).
const NONE: u32 = u32::MAX;

/// One document of the table, borrowed from it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DocRef<'a> {
    /// Doc id (`<collection>/<path>`).
    pub id: &'a str,
    /// Collection, empty if none.
    pub collection: &'a str,
    /// Path inside the collection.
    pub path: &'a str,
    /// Title.
    pub title: &'a str,
    /// RFC 3339 date.
    pub date: &'a str,
    /// `meta.project`, for the `project:` filter.
    pub project: Option<&'a str>,
    /// `source.agent` (lower-case), for the `agent:` filter.
    pub agent: Option<&'a str>,
    /// sha256 of what was embedded (title + body).
    pub hash: &'a str,
    /// Line of the markdown file at which the body starts.
    pub body_line: u64,
    /// First row.
    pub first: u64,
    /// Number of rows.
    pub count: u64,
}

impl DocRef<'_> {
    /// The owned entry (what a writer carries into the next generation).
    pub fn to_entry(&self) -> DocEntry {
        DocEntry {
            id: self.id.to_owned(),
            collection: self.collection.to_owned(),
            path: self.path.to_owned(),
            title: self.title.to_owned(),
            date: self.date.to_owned(),
            project: self.project.map(str::to_owned),
            agent: self.agent.map(str::to_owned),
            hash: self.hash.to_owned(),
            body_line: self.body_line,
            first: self.first,
            count: self.count,
        }
    }
}

/// The strings of a document, in table order ([`Docs::field`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    Id = 0,
    Collection = 1,
    Path = 2,
    Title = 3,
    Date = 4,
    Project = 5,
    Agent = 6,
    Hash = 7,
}

enum Bytes {
    Mapped(Mmap),
    Owned(Vec<u8>),
}

/// The documents of a generation: a checked table, read in place.
pub struct Docs {
    bytes: Bytes,
    n: usize,
    /// `g<N>.ids`, when the generation has one.
    ids: Option<Mmap>,
}

/// The table of `entries`, as written to `g<N>.docs`.
pub fn encode(entries: &[DocEntry]) -> Vec<u8> {
    let strings: usize = entries
        .iter()
        .map(|e| {
            e.id.len()
                + e.collection.len()
                + e.path.len()
                + e.title.len()
                + e.date.len()
                + e.project.as_ref().map_or(0, String::len)
                + e.agent.as_ref().map_or(0, String::len)
                + e.hash.len()
        })
        .sum();
    let mut out = Vec::with_capacity(HEAD + entries.len() * RECORD + strings);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&(entries.len() as u64).to_le_bytes());
    let mut heap: Vec<u8> = Vec::with_capacity(strings);
    for e in entries {
        out.extend_from_slice(&(heap.len() as u64).to_le_bytes());
        for s in fields(e) {
            // A string of 4 GiB in one document field is not a document brain stores; cut at
            // NONE - 1 so the length stays a length.
            let s = s.map(|s| &s.as_bytes()[..floor_char(s, NONE as usize - 1)]);
            let len = s.map_or(NONE, |s| s.len() as u32);
            out.extend_from_slice(&len.to_le_bytes());
            heap.extend_from_slice(s.unwrap_or_default());
        }
        for n in [e.body_line, e.first, e.count] {
            out.extend_from_slice(&n.to_le_bytes());
        }
    }
    out.extend_from_slice(&heap);
    out
}

/// The `g<N>.ids` index of `entries` (in table order): their positions, ordered by id.
pub fn encode_ids(entries: &[DocEntry]) -> Vec<u8> {
    let mut order: Vec<u32> = (0..entries.len() as u32).collect();
    order.sort_by(|&a, &b| entries[a as usize].id.cmp(&entries[b as usize].id));
    order.iter().flat_map(|i| i.to_le_bytes()).collect()
}

/// The eight strings of `e`, in table order.
fn fields(e: &DocEntry) -> [Option<&str>; 8] {
    [
        Some(&e.id),
        Some(&e.collection),
        Some(&e.path),
        Some(&e.title),
        Some(&e.date),
        e.project.as_deref(),
        e.agent.as_deref(),
        Some(&e.hash),
    ]
}

/// The largest char boundary of `s` at or below `at`.
fn floor_char(s: &str, at: usize) -> usize {
    if at >= s.len() {
        return s.len();
    }
    (0..=at).rev().find(|&i| s.is_char_boundary(i)).unwrap_or(0)
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    b.get(at..at + 4)
        .and_then(|s| s.try_into().ok())
        .map_or(0, u32::from_le_bytes)
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    b.get(at..at + 8)
        .and_then(|s| s.try_into().ok())
        .map_or(0, u64::from_le_bytes)
}

/// Where the eight strings of the record at `r` lie in the string area (start, end), in table
/// order; `None` for a string the document has not.
fn spans(b: &[u8], r: usize) -> [Option<(usize, usize)>; 8] {
    let mut at = usize::try_from(u64_at(b, r)).unwrap_or(usize::MAX);
    std::array::from_fn(|f| {
        let len = u32_at(b, r + 8 + 4 * f);
        (len != NONE).then(|| {
            let start = at;
            at = at.saturating_add(len as usize);
            (start, at)
        })
    })
}

fn text(heap: &[u8], start: usize, end: usize) -> Option<&str> {
    heap.get(start..end)
        .and_then(|x| std::str::from_utf8(x).ok())
}

/// The number of documents of table `b`, once its magic, its records and every string are checked:
/// within the string area, on character boundaries, UTF-8, none missing but a project or agent.
fn check(b: &[u8]) -> Result<usize, String> {
    if b.len() < HEAD || &b[..16] != MAGIC {
        return Err("not a brain documents table (bad magic)".into());
    }
    let n = usize::try_from(u64_at(b, 16)).map_err(|_| "document count out of range")?;
    let heap_at = n
        .checked_mul(RECORD)
        .and_then(|r| r.checked_add(HEAD))
        .filter(|&h| h <= b.len())
        .ok_or_else(|| format!("{n} documents do not fit in {} bytes", b.len()))?;
    let heap = std::str::from_utf8(&b[heap_at..])
        .map_err(|e| format!("the string area is not UTF-8: {e}"))?;
    for i in 0..n {
        for (f, span) in spans(b, HEAD + i * RECORD).into_iter().enumerate() {
            match span {
                None if f == Field::Project as usize || f == Field::Agent as usize => {}
                None => return Err(format!("document {i}: a required string is missing")),
                Some((start, end)) if heap.get(start..end).is_none() => {
                    return Err(format!("document {i}: a string outside the table"));
                }
                Some(_) => {}
            }
        }
    }
    Ok(n)
}

impl Bytes {
    fn as_slice(&self) -> &[u8] {
        match self {
            Bytes::Mapped(m) => m,
            Bytes::Owned(v) => v,
        }
    }
}

impl Docs {
    /// A mapped `g<N>.docs`, checked: the magic, the records within the file, every string within
    /// the string area, on character boundaries, UTF-8.
    pub fn mapped(map: Mmap) -> Result<Docs, String> {
        Docs::checked(Bytes::Mapped(map))
    }

    /// The documents of a schema-1 generation (`g<N>.docs.json`), in the same form.
    pub fn from_entries(entries: &[DocEntry]) -> Docs {
        let n = entries.len();
        Docs {
            bytes: Bytes::Owned(encode(entries)),
            n,
            ids: None,
        }
    }

    fn checked(bytes: Bytes) -> Result<Docs, String> {
        let n = check(bytes.as_slice())?;
        Ok(Docs {
            bytes,
            n,
            ids: None,
        })
    }

    /// A mapped `g<N>.docs` whose strings are not checked: the magic and the records' room alone,
    /// O(1) where [`Docs::mapped`] reads every string. For reading a few documents
    /// ([`crate::store::Store::peek`]): every read checks bounds and UTF-8 itself, so a damaged
    /// table reads as missing or empty fields, never out of bounds.
    pub fn peeked(map: Mmap) -> Result<Docs, String> {
        let b: &[u8] = &map;
        if b.len() < HEAD || &b[..16] != MAGIC {
            return Err("not a brain documents table (bad magic)".into());
        }
        let n = usize::try_from(u64_at(b, 16)).map_err(|_| "document count out of range")?;
        n.checked_mul(RECORD)
            .and_then(|r| r.checked_add(HEAD))
            .filter(|&h| h <= b.len())
            .ok_or_else(|| format!("{n} documents do not fit in {} bytes", b.len()))?;
        Ok(Docs {
            bytes: Bytes::Mapped(map),
            n,
            ids: None,
        })
    }

    /// Find documents through `ids`, a `g<N>.ids` index of this table; refused when it does not
    /// hold one position per document (the store is then damaged, as for any file of the wrong
    /// size).
    pub fn with_ids(mut self, ids: Mmap) -> Result<Docs, String> {
        if ids.len() != self.n * 4 {
            return Err(format!(
                "{} bytes of positions for {} documents",
                ids.len(),
                self.n
            ));
        }
        self.ids = Some(ids);
        Ok(self)
    }

    /// The positions of the documents `ids` (`None` for one the table does not hold): by bisection
    /// of the id index, O(log n) each; a table without one (written before it) is walked once for
    /// all of them, stopped when every id is found.
    pub fn find_all(&self, ids: &[&str]) -> Vec<Option<usize>> {
        if self.ids.is_some() {
            return ids.iter().map(|id| self.find(id)).collect();
        }
        let mut out = vec![None; ids.len()];
        let mut wanted: std::collections::HashMap<&str, Vec<usize>> =
            std::collections::HashMap::with_capacity(ids.len());
        for (k, id) in ids.iter().enumerate() {
            wanted.entry(id).or_default().push(k);
        }
        for i in 0..self.n {
            if wanted.is_empty() {
                break;
            }
            if let Some(ks) = self.field(i, Field::Id).and_then(|id| wanted.remove(id)) {
                for k in ks {
                    out[k] = Some(i);
                }
            }
        }
        out
    }

    /// The position of the document with id `id`, if the table holds it: by bisection of the id
    /// index, else by walking the table. A damaged index finds nothing (every probe is checked:
    /// a position past the end, or an id out of order, ends the search), never a wrong document.
    pub fn find(&self, id: &str) -> Option<usize> {
        let Some(ids) = self.ids.as_deref() else {
            return self.find_all(&[id])[0];
        };
        let at = |k: usize| -> Option<usize> {
            let pos = u32_at(ids, k * 4) as usize;
            (pos < self.n).then_some(pos)
        };
        let (mut lo, mut hi) = (0, self.n);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            let pos = at(mid)?;
            match self.field(pos, Field::Id)?.cmp(id) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return Some(pos),
            }
        }
        None
    }

    /// Number of documents.
    pub fn len(&self) -> usize {
        self.n
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// The string area and where document `i`'s strings lie in it (`None` past the end).
    fn strings(&self, i: usize) -> Option<(&[u8], [Option<(usize, usize)>; 8])> {
        let b = self.bytes.as_slice();
        (i < self.n).then(|| (&b[HEAD + self.n * RECORD..], spans(b, HEAD + i * RECORD)))
    }

    /// Document `i` (`None` past the end).
    pub fn get(&self, i: usize) -> Option<DocRef<'_>> {
        let (heap, spans) = self.strings(i)?;
        // Checked when the table was opened: in bounds, UTF-8, on boundaries.
        let s = spans.map(|sp| sp.and_then(|(a, e)| text(heap, a, e)));
        let b = self.bytes.as_slice();
        let r = HEAD + i * RECORD;
        Some(DocRef {
            id: s[0].unwrap_or_default(),
            collection: s[1].unwrap_or_default(),
            path: s[2].unwrap_or_default(),
            title: s[3].unwrap_or_default(),
            date: s[4].unwrap_or_default(),
            project: s[5],
            agent: s[6],
            hash: s[7].unwrap_or_default(),
            body_line: u64_at(b, r + 40),
            first: u64_at(b, r + 48),
            count: u64_at(b, r + 56),
        })
    }

    /// One string of document `i` without reading the others (`None` past the end, or for a project
    /// or agent it has not).
    pub fn field(&self, i: usize, f: Field) -> Option<&str> {
        let (heap, spans) = self.strings(i)?;
        spans[f as usize].and_then(|(a, e)| text(heap, a, e))
    }

    /// Document `i`'s rows (first, count) without reading its strings (`(0, 0)` past the end).
    pub fn rows(&self, i: usize) -> (u64, u64) {
        if i >= self.n {
            return (0, 0);
        }
        let (b, r) = (self.bytes.as_slice(), HEAD + i * RECORD);
        (u64_at(b, r + 48), u64_at(b, r + 56))
    }

    /// Every document, in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = DocRef<'_>> + '_ {
        (0..self.n).map(|i| self.get(i).unwrap_or(EMPTY))
    }
}

const EMPTY: DocRef<'static> = DocRef {
    id: "",
    collection: "",
    path: "",
    title: "",
    date: "",
    project: None,
    agent: None,
    hash: "",
    body_line: 0,
    first: 0,
    count: 0,
};

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(id: &str, project: Option<&str>) -> DocEntry {
        DocEntry {
            id: id.into(),
            collection: "c".into(),
            path: id.trim_start_matches("c/").into(),
            title: format!("Título {id} ✓"),
            date: "2026-03-03T09:00:00Z".into(),
            project: project.map(Into::into),
            agent: None,
            hash: "ab".repeat(32),
            body_line: 7,
            first: 3,
            count: 2,
        }
    }

    #[test]
    fn entries_come_back_as_they_went_in() {
        let entries = vec![entry("c/a.md", Some("brain")), entry("c/b.md", None)];
        let docs = Docs::checked(Bytes::Owned(encode(&entries))).expect("table");
        assert_eq!(docs.len(), 2);
        let back: Vec<DocEntry> = docs.iter().map(|d| d.to_entry()).collect();
        assert_eq!(back, entries);
        assert_eq!(docs.rows(1), (3, 2));
        for (i, e) in entries.iter().enumerate() {
            assert_eq!(docs.field(i, Field::Title), Some(e.title.as_str()));
            assert_eq!(docs.field(i, Field::Hash), Some(e.hash.as_str()));
            assert_eq!(docs.field(i, Field::Agent), None);
            assert_eq!(docs.field(i, Field::Project), e.project.as_deref());
        }
        assert_eq!(docs.field(2, Field::Id), None);
        assert!(docs.get(2).is_none());
        assert!(
            Docs::checked(Bytes::Owned(encode(&[])))
                .expect("empty")
                .is_empty()
        );
    }

    /// A cut-short, overlong, mis-counted or non-UTF-8 table is refused at open, never read out of
    /// bounds later.
    #[test]
    fn a_damaged_table_is_refused() {
        let good = encode(&[entry("c/a.md", Some("p")), entry("c/b.md", None)]);
        let bad = |b: Vec<u8>| Docs::checked(Bytes::Owned(b)).err();
        for cut in [0, 10, 23, 24 + 64, good.len() - 1] {
            assert!(bad(good[..cut].to_vec()).is_some(), "cut at {cut}");
        }
        let mut count = good.clone();
        count[16..24].copy_from_slice(&u64::MAX.to_le_bytes());
        assert!(bad(count).is_some());
        let mut magic = good.clone();
        magic[0] = b'x';
        assert!(bad(magic).is_some());
        let mut offset = good.clone();
        offset[24..32].copy_from_slice(&(u64::MAX - 3).to_le_bytes());
        assert!(bad(offset).is_some());
        let mut missing = good.clone();
        missing[32..36].copy_from_slice(&NONE.to_le_bytes());
        assert!(bad(missing).is_some());
        let mut utf8 = good.clone();
        let last = utf8.len() - 70; // inside the second title's bytes
        utf8[last] = 0xff;
        assert!(bad(utf8).is_some());
        // A string boundary inside a multi-byte character.
        let mut split = good.clone();
        let title_len = u32_at(&split, 24 + 8 + 12);
        split[24 + 8 + 12..24 + 8 + 16].copy_from_slice(&(title_len - 1).to_le_bytes());
        let date_len = u32_at(&split, 24 + 8 + 16);
        split[24 + 8 + 16..24 + 8 + 20].copy_from_slice(&(date_len + 1).to_le_bytes());
        assert!(bad(split).is_some());
    }
}
