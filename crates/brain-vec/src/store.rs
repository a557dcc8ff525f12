//! The vector store: flat files under `$BRAIN_HOME/index/vec/`, memory-mapped and searched by brute force.
//!
//! A store is a *generation* of files plus a manifest naming the current one:
//! * `g<N>.vec` — `chunks × dims` little-endian f32, L2-normalized rows (schema 1 and 2 only: from
//!   schema 3 on, the int8 rows below are the vectors);
//! * `g<N>.chunks` — one 24-byte record per row: doc index u32, body line u32, date (days since
//!   1970-01-01) i32, text length u32, text offset u64 (all little-endian);
//! * `g<N>.text` — the chunk texts, concatenated (for snippets); from schema 4 on in LZ4 blocks,
//!   with `g<N>.tblk` and `g<N>.tdict` beside it ([`crate::texts`]);
//! * `g<N>.docs` — the documents ([`crate::docs`]: a table read in place), each owning a contiguous
//!   run of rows (`g<N>.docs.json`, a JSON array of [`DocEntry`], in schema-1 generations);
//! * `g<N>.ids` — the documents' positions in the order of their ids ([`crate::docs::encode_ids`]):
//!   a document found by its id in O(log n) (generations written before it have none);
//! * `g<N>.q8` — the rows as int8 (`chunks × dims` bytes, padded to a multiple of 4), then per row
//!   its scale and error bound (two little-endian f32): what the scan reads (a quarter of the bytes).
//!   In schema 3 a row's vector is its scale times its int8 row, and the bound is 0 (∞ for a row
//!   with a non-finite value); in schema 2 the bound is the int8 copy's distance to the f32 row;
//! * `manifest.json` — [`Manifest`], replaced atomically last.
//!
//! A writer builds generation N+1 beside N and then swaps the manifest, so a crash mid-run leaves the
//! previous store usable ([`crate::write::Writer`]); stray files of unfinished generations are removed by the next writer. Readers
//! map the files of the generation their manifest named; files are never modified in place.
//!
//! Search ([`crate::scan`]) scores every row with a dot product (rows and queries are unit vectors, so
//! this is the cosine) in parallel with rayon, skipping rows whose document fails the filter
//! (collection, project, agent, date) inside the scan, keeps each document's best row and returns the
//! top k documents — exactly, though it reads the int8 rows: see [`crate::scan`]. Graph indexes only
//! pay off past ~1M rows.

use std::path::{Path, PathBuf};

use memmap2::Mmap;

use crate::VecError;
pub use crate::dates::{date_seconds, day_number};
pub use crate::docs::DocEntry;
use crate::docs::{Docs, Field};
pub use crate::manifest::{Manifest, Rate, human_secs};
use crate::texts::TextBlocks;
pub use crate::texts::{TEXT_BLOCK, TEXT_DICT};

pub(crate) const REC: usize = 24;

/// Where the next model's store is built, beside the store in force `dir` ([`crate::switch`]).
pub fn next_dir(dir: &Path) -> PathBuf {
    sibling(dir, "next")
}

/// The stores a removal must reach: the one in force and a next one being built.
pub fn stores(dir: &Path) -> [PathBuf; 2] {
    [dir.to_path_buf(), next_dir(dir)]
}

/// `dir` with `.tag` after its name.
pub(crate) fn sibling(dir: &Path, tag: &str) -> PathBuf {
    let name = dir
        .file_name()
        .map_or_else(|| "vec".into(), |n| n.to_string_lossy().into_owned());
    dir.with_file_name(format!("{name}.{tag}"))
}

/// The store format [`crate::write::Writer`] writes: 4 = the chunk texts in LZ4 blocks
/// (`g<N>.text` + `g<N>.tblk`; issue 55: they were two thirds of a store's bytes); 3 = the rows as
/// int8 alone (`g<N>.q8`; a
/// quarter of the bytes: the vectors *are* their int8 form, scale times row); 2 = f32 rows
/// (`g<N>.vec`) beside their int8 copy, the documents as a binary table (`g<N>.docs`); 1 = the
/// documents as JSON (`g<N>.docs.json`). 1 to 3 are still read; the next `vecindex` run rewrites
/// them as 4 (rows carried over, nothing embedded again).
pub const SCHEMA: u32 = 4;

/// One row's metadata.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ChunkRec {
    pub doc: u32,
    pub line: u32,
    pub day: i32,
    pub text_len: u32,
    pub text_off: u64,
}

impl ChunkRec {
    pub(crate) fn to_bytes(self) -> [u8; REC] {
        let mut b = [0u8; REC];
        b[0..4].copy_from_slice(&self.doc.to_le_bytes());
        b[4..8].copy_from_slice(&self.line.to_le_bytes());
        b[8..12].copy_from_slice(&self.day.to_le_bytes());
        b[12..16].copy_from_slice(&self.text_len.to_le_bytes());
        b[16..24].copy_from_slice(&self.text_off.to_le_bytes());
        b
    }

    fn from_bytes(b: &[u8]) -> ChunkRec {
        let u32_at = |i: usize| u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
        let mut off = [0u8; 8];
        off.copy_from_slice(&b[16..24]);
        ChunkRec {
            doc: u32_at(0),
            line: u32_at(4),
            day: u32_at(8) as i32,
            text_len: u32_at(12),
            text_off: u64::from_le_bytes(off),
        }
    }
}

/// Which documents a search may return: the same filters as the lexical side, applied per document
/// inside the scan.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    /// Only these collections (empty = all).
    pub collections: Vec<String>,
    /// Only these `meta.project` values (empty = all).
    pub projects: Vec<String>,
    /// Only these agents, lower-case (empty = all).
    pub agents: Vec<String>,
    /// Only documents dated at or after this instant (Unix seconds).
    pub since: Option<i64>,
    /// Only documents dated at or before this instant (Unix seconds).
    pub until: Option<i64>,
}

impl Filter {
    /// Whether it lets every document through (no document need be read).
    pub fn is_empty(&self) -> bool {
        self.collections.is_empty()
            && self.projects.is_empty()
            && self.agents.is_empty()
            && self.since.is_none()
            && self.until.is_none()
    }

    /// Does document `i` of `docs` pass? A document without a readable date fails a date bound.
    /// Reads only the strings the filter names.
    pub fn allows(&self, docs: &Docs, i: usize) -> bool {
        let any = |list: &[String], f: Field| {
            list.is_empty()
                || docs
                    .field(i, f)
                    .is_some_and(|v| list.iter().any(|x| x == v))
        };
        let in_time = || {
            if self.since.is_none() && self.until.is_none() {
                return true;
            }
            let Some(t) = docs.field(i, Field::Date).and_then(date_seconds) else {
                return false;
            };
            self.since.is_none_or(|s| t >= s) && self.until.is_none_or(|u| t <= u)
        };
        any(&self.collections, Field::Collection)
            && any(&self.projects, Field::Project)
            && any(&self.agents, Field::Agent)
            && in_time()
    }
}

/// A document's best row for a query.
#[derive(Debug, Clone, PartialEq)]
pub struct DocScore {
    /// Index into [`Store::docs`].
    pub doc: usize,
    /// Row index of the best chunk.
    pub row: usize,
    /// Cosine similarity of that chunk.
    pub score: f32,
}

/// An open, memory-mapped store generation.
pub struct Store {
    pub manifest: Manifest,
    pub docs: Docs,
    /// The chunk records, mapped (decoded on access).
    chunks: Option<Mmap>,
    rows: usize,
    vectors: Option<Mmap>,
    text: Option<Mmap>,
    /// Schema 4: the text blocks (start pairs, then the ends), and the last block decompressed.
    blocks: Option<TextBlocks>,
    q8: Option<Mmap>,
}

/// Bytes of the int8 rows section of a `g<N>.q8` file (padded so the f32 pairs after it are aligned).
pub(crate) fn q8_rows_bytes(rows: usize, dims: usize) -> usize {
    (rows * dims).div_ceil(4) * 4
}

pub(crate) fn file(dir: &Path, generation: u64, ext: &str) -> PathBuf {
    dir.join(format!("g{generation}.{ext}"))
}

/// Whether `docs` own consecutive runs of the `rows` rows, in order, covering every one.
fn owned_rows(docs: &Docs, rows: usize) -> Result<(), String> {
    let mut next = 0u64;
    for i in 0..docs.len() {
        let (first, count) = docs.rows(i);
        if first != next {
            return Err(format!("document {i} starts at row {first}, not {next}"));
        }
        next = first.saturating_add(count);
    }
    if next != rows as u64 {
        return Err(format!(
            "the documents own {next} rows of the {rows} stored"
        ));
    }
    Ok(())
}

/// The documents of the generation `manifest` names (with its id index when it has one), checked
/// whole or only peeked at ([`Store::peek`]). A file that cannot be read is an I/O error; one that
/// reads as no documents table is `corrupt`.
fn open_docs(
    dir: &Path,
    manifest: &Manifest,
    whole: bool,
    corrupt: &dyn Fn(String) -> VecError,
) -> Result<Docs, VecError> {
    let g = manifest.generation;
    let bad = |p: &Path, e: &dyn std::fmt::Display| corrupt(format!("{}: {e}", p.display()));
    match manifest.schema {
        1 => {
            let dpath = file(dir, g, "docs.json");
            let bytes = std::fs::read(&dpath).map_err(VecError::io(&dpath))?;
            let entries: Vec<DocEntry> =
                serde_json::from_slice(&bytes).map_err(|e| bad(&dpath, &e))?;
            Ok(Docs::from_entries(&entries))
        }
        2..=SCHEMA => {
            let dpath = file(dir, g, "docs");
            let map = map(&dpath)?.ok_or_else(|| bad(&dpath, &"empty"))?;
            let docs = if whole {
                Docs::mapped(map)
            } else {
                Docs::peeked(map)
            };
            let docs = docs.map_err(|e| bad(&dpath, &e))?;
            // The id index is a shortcut: a generation without one (written before it) is walked.
            let ipath = file(dir, g, "ids");
            match map_if_present(&ipath)? {
                Some(ids) => docs.with_ids(ids).map_err(|e| bad(&ipath, &e)),
                None => Ok(docs),
            }
        }
        n => Err(corrupt(format!(
            "manifest.json: store schema {n}, this build reads 1 to {SCHEMA} (`vecindex --all` rebuilds it, or update brain)"
        ))),
    }
}

/// [`map`], and `None` for a file that is not there.
fn map_if_present(path: &Path) -> Result<Option<Mmap>, VecError> {
    match map(path) {
        Err(VecError::Io { source, .. }) if source.kind() == std::io::ErrorKind::NotFound => {
            Ok(None)
        }
        r => r,
    }
}

#[allow(unsafe_code)]
fn map(path: &Path) -> Result<Option<Mmap>, VecError> {
    let f = std::fs::File::open(path).map_err(VecError::io(path))?;
    if f.metadata().map_err(VecError::io(path))?.len() == 0 {
        return Ok(None); // mapping an empty file fails on some systems
    }
    // SAFETY: generation files are written once under a fresh name and never modified in place; a newer
    // writer only deletes them, and on Unix a deleted file stays mapped intact.
    unsafe { Mmap::map(&f) }
        .map(Some)
        .map_err(VecError::io(path))
}

/// The text blocks of generation `g` in `dir` (schema 4), checked against `g<N>.text`'s `stored`
/// bytes.
fn text_blocks(dir: &Path, g: u64, stored: usize) -> Result<TextBlocks, VecError> {
    let bytes = |m: Option<Mmap>| -> crate::texts::Bytes {
        match m {
            Some(m) => Box::new(m),
            None => Box::new(Vec::new()),
        }
    };
    let (index, dict) = (map(&file(dir, g, "tblk"))?, map(&file(dir, g, "tdict"))?);
    TextBlocks::new(bytes(index), bytes(dict), stored).map_err(|reason| VecError::IndexCorrupt {
        path: dir.to_path_buf(),
        reason: format!("generation {g}: {reason}"),
    })
}

impl Store {
    /// Open the current generation under `dir`; [`VecError::IndexMissing`] if there is none.
    /// Every document is checked (its strings, the rows it owns): what a search or a writer reads.
    pub fn open(dir: &Path) -> Result<Store, VecError> {
        Store::open_with(dir, true)
    }

    /// Open the current generation to read a few documents' rows (the stored vectors dedup compares
    /// a query's hits by): the files mapped and their sizes checked against the manifest, the
    /// documents not walked — O(1) in the store's size, where [`Store::open`] reads every
    /// document (≈ 1.5 ms of a 6.7 ms lexical ask at 10,000 documents, 10× that at 100,000).
    /// Reads through it stay bounds-checked: a damaged table gives a missing document or vector,
    /// never a read out of bounds. Do not scan it ([`Store::open`] for that).
    pub fn peek(dir: &Path) -> Result<Store, VecError> {
        Store::open_with(dir, false)
    }

    fn open_with(dir: &Path, whole: bool) -> Result<Store, VecError> {
        let mpath = dir.join("manifest.json");
        let text = match std::fs::read_to_string(&mpath) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(VecError::IndexMissing { path: mpath });
            }
            Err(e) => return Err(VecError::io(&mpath)(e)),
        };
        let corrupt = |reason: String| VecError::IndexCorrupt {
            path: dir.to_path_buf(),
            reason,
        };
        let manifest: Manifest =
            serde_json::from_str(&text).map_err(|e| corrupt(format!("manifest.json: {e}")))?;
        let g = manifest.generation;
        let docs = open_docs(dir, &manifest, whole, &corrupt)?;
        let cpath = file(dir, g, "chunks");
        let chunks = map(&cpath)?;
        let clen = chunks.as_ref().map_or(0, |m| m.len());
        let rows = clen / REC;
        // Schema 3: the int8 rows are the vectors; there is no f32 file, and no int8 is no store.
        let int8_only = manifest.schema >= 3;
        if int8_only && !manifest.int8 {
            return Err(corrupt(format!(
                "manifest.json: a schema-{} store without its int8 rows",
                manifest.schema
            )));
        }
        let vectors = if int8_only {
            None
        } else {
            map(&file(dir, g, "vec"))?
        };
        let text = map(&file(dir, g, "text"))?;
        let blocks = match manifest.schema >= 4 {
            true => Some(text_blocks(dir, g, text.as_ref().map_or(0, |m| m.len()))?),
            false => None,
        };
        let q8 = if manifest.int8 {
            map(&file(dir, g, "q8"))?
        } else {
            None
        };
        let dims = manifest.fingerprint.dims;
        let vlen = vectors.as_ref().map_or(0, |m| m.len());
        let vlen_want = if int8_only { 0 } else { rows * dims * 4 };
        let q8_len = q8.as_ref().map_or(0, |m| m.len());
        let q8_want = if manifest.int8 {
            q8_rows_bytes(rows, dims) + rows * 8
        } else {
            0
        };
        if rows as u64 != manifest.chunks
            || clen != rows * REC
            || vlen != vlen_want
            || docs.len() as u64 != manifest.docs
            || q8_len != q8_want
        {
            return Err(corrupt(format!(
                "generation {g}: {clen} chunk record bytes, {vlen} vector bytes, {q8_len} int8 bytes, {} docs for a manifest of {} chunks × {dims} dims, {} docs",
                docs.len(),
                manifest.chunks,
                manifest.docs
            )));
        }
        // Documents own consecutive runs of rows, in order, covering every row (as the writer
        // lays them out): the scan finds a row's document from this, not from its record.
        if whole {
            owned_rows(&docs, rows).map_err(|e| corrupt(format!("generation {g}: {e}")))?;
        }
        Ok(Store {
            manifest,
            docs,
            chunks,
            rows,
            vectors,
            text,
            blocks,
            q8,
        })
    }

    /// Number of rows.
    pub fn len(&self) -> usize {
        self.rows
    }

    /// Whether the store has no rows.
    pub fn is_empty(&self) -> bool {
        self.rows == 0
    }

    /// All rows' f32 vectors, row-major, in a generation that has them (schema 1 and 2; empty for
    /// schema 3, whose rows are [`Store::int8`] alone: read them through [`Store::row_f32`]).
    pub(crate) fn vectors(&self) -> &[f32] {
        // The file was checked to hold rows × dims f32 at open; a mapping is page-aligned.
        self.vectors
            .as_deref()
            .and_then(|m| bytemuck::try_cast_slice(m).ok())
            .unwrap_or(&[])
    }

    /// The int8 rows and each row's (scale, error bound), when the generation has them.
    pub(crate) fn int8(&self) -> Option<(&[i8], &[[f32; 2]])> {
        let m = self.q8.as_deref()?;
        let split = q8_rows_bytes(self.rows, self.manifest.fingerprint.dims);
        let (rows, params) = m.split_at_checked(split)?;
        let params: &[f32] = bytemuck::try_cast_slice(params).ok()?;
        Some((bytemuck::cast_slice(rows), params.as_chunks::<2>().0))
    }

    /// Row `i`'s vector (empty past the end).
    pub fn vector(&self, i: usize) -> Vec<f32> {
        let mut v = vec![0f32; self.manifest.fingerprint.dims];
        if self.row_f32(i, &mut v) {
            v
        } else {
            Vec::new()
        }
    }

    /// Row `i`'s vector into `out` (`dims` long): its f32 row where the generation has them, else
    /// its int8 row times its scale — what every score of a schema-3 store is computed from.
    /// `false` past the end.
    pub(crate) fn row_f32(&self, i: usize, out: &mut [f32]) -> bool {
        let d = self.manifest.fingerprint.dims;
        if out.len() != d || i >= self.rows {
            return false;
        }
        if let Some(v) = self.vectors().get(i * d..(i + 1) * d) {
            out.copy_from_slice(v);
            return true;
        }
        let Some((rows, params)) = self.int8() else {
            return false;
        };
        let (Some(q), Some(p)) = (rows.get(i * d..(i + 1) * d), params.get(i)) else {
            return false;
        };
        for (o, &x) in out.iter_mut().zip(q) {
            *o = p[0] * f32::from(x);
        }
        true
    }

    /// Row `i`'s metadata (a zero record past the end).
    pub fn chunk(&self, i: usize) -> ChunkRec {
        self.chunks
            .as_deref()
            .and_then(|m| m.get(i * REC..(i + 1) * REC))
            .map_or(ChunkRec::from_bytes(&[0; REC]), ChunkRec::from_bytes)
    }

    /// Row `i`'s document (`u32::MAX` past the end): what the scan reads per row.
    #[inline]
    pub(crate) fn chunk_doc(&self, i: usize) -> u32 {
        self.chunks
            .as_deref()
            .and_then(|m| m.get(i * REC..i * REC + 4))
            .map_or(u32::MAX, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    /// The document that owns row `r` (documents own consecutive runs of rows, in order: checked
    /// at open); the last document past the end.
    pub(crate) fn doc_at_row(&self, r: usize) -> usize {
        let (mut lo, mut hi) = (0, self.docs.len());
        // The last document whose first row is at or before `r` (an empty document shares its
        // first row with the next, which owns the row).
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if self.docs.rows(mid).0 <= r as u64 {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo.saturating_sub(1)
    }

    /// Row `i`'s text ("" past the end, or where a damaged file does not hold it).
    pub fn text(&self, i: usize) -> std::borrow::Cow<'_, str> {
        let c = self.chunk(i);
        let a = c.text_off;
        let b = a.saturating_add(u64::from(c.text_len));
        let Some(blocks) = &self.blocks else {
            return self
                .text
                .as_ref()
                .and_then(|m| m.get(usize::try_from(a).ok()?..usize::try_from(b).ok()?))
                .and_then(|s| std::str::from_utf8(s).ok())
                .unwrap_or("")
                .into();
        };
        blocks
            .read(self.text.as_deref().unwrap_or(&[]), a, b)
            .unwrap_or_default()
            .into()
    }
}

impl Store {
    /// `f` of every row's index and text, in row order: a schema-4 store decompresses each block
    /// once, on the pool, where [`Store::text`] one row at a time would decompress a block per
    /// row read out of order (what keying every row of a store for reuse does).
    pub fn map_texts<T: Send>(&self, f: impl Fn(usize, &str) -> T + Sync) -> Vec<T> {
        use rayon::prelude::*;
        let Some(blocks) = &self.blocks else {
            return (0..self.rows)
                .into_par_iter()
                .map(|r| f(r, &self.text(r)))
                .collect();
        };
        // Rows are written in text order: each block's rows are a run.
        let block_of = |r: usize| blocks.block_of(self.chunk(r).text_off);
        let mut runs: Vec<std::ops::Range<usize>> = Vec::new();
        let mut at = 0;
        while at < self.rows {
            let k = block_of(at);
            let mut end = at + 1;
            while end < self.rows && block_of(end) == k {
                end += 1;
            }
            runs.push(at..end);
            at = end;
        }
        let stored = self.text.as_deref().unwrap_or(&[]);
        runs.into_par_iter()
            .map(|run| {
                let k = block_of(run.start);
                let raw = blocks.decompress(stored, k);
                run.map(|r| {
                    let c = self.chunk(r);
                    let text = raw
                        .as_ref()
                        .and_then(|(base, raw)| {
                            let a = usize::try_from(c.text_off.checked_sub(*base)?).ok()?;
                            raw.get(a..a.checked_add(c.text_len as usize)?)
                        })
                        .and_then(|t| std::str::from_utf8(t).ok())
                        .unwrap_or("");
                    f(r, text)
                })
                .collect::<Vec<T>>()
            })
            .flatten()
            .collect()
    }

    /// The positions in [`Store::docs`] of the documents `ids` (`None` for one it does not hold):
    /// by bisection of the id index (`g<N>.ids`), O(log documents) each; a generation without one
    /// is walked once for all of them ([`Docs::find_all`]).
    pub fn find(&self, ids: &[&str]) -> Vec<Option<usize>> {
        self.docs.find_all(ids)
    }

    /// The stored vector that stands for document `doc`'s text from file line `line` on — the row
    /// whose chunk holds that line — or, for `None`, for its whole text: the mean of its rows, made
    /// unit length again. `None` when the document has no rows (what `brain context` compares
    /// near-duplicates by, issue #23).
    pub fn text_vector(&self, doc: usize, line: Option<u64>) -> Option<Vec<f32>> {
        let e = self.docs.get(doc)?;
        let rows = e.first as usize..e.first.saturating_add(e.count) as usize;
        if rows.is_empty() || rows.end > self.rows {
            return None;
        }
        let file_line = |i: usize| e.body_line + u64::from(self.chunk(i).line).saturating_sub(1);
        match line {
            Some(l) => {
                let row = rows
                    .clone()
                    .rev()
                    .find(|&i| file_line(i) <= l)
                    .unwrap_or(rows.start);
                Some(self.vector(row)).filter(|v| !v.is_empty())
            }
            None => {
                let dims = self.manifest.fingerprint.dims;
                let mut sum = vec![0f32; dims];
                for i in rows {
                    for (s, x) in sum.iter_mut().zip(self.vector(i)) {
                        *s += x;
                    }
                }
                let norm = sum.iter().map(|x| x * x).sum::<f32>().sqrt();
                (norm > 0.0).then(|| sum.iter().map(|x| x / norm).collect())
            }
        }
    }
}
