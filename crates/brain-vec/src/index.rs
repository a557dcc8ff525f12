//! Incremental embedding: bring the vector store up to date with a set of documents.
//!
//! A document is re-embedded only when the sha256 of what is embedded (title + body) changed, or when the
//! store's [`Fingerprint`] differs from the embedder's (then everything is). Unchanged documents' rows
//! are copied from the previous generation. `limit` and `budget` cap a run: documents not reached keep
//! their previous vectors (and old hash, so the next run picks them up) or stay absent, and are counted
//! as pending. Nothing changed → no new generation is written.
//!
//! **The backlog drains newest first**: documents to embed are taken in descending date order, so a
//! run cut off by `--limit`/`--budget` has embedded the sessions people are most likely to ask about.
//!
//! **No chunk text is embedded twice** ([`ChunkCache`]): the text the model sees (`title\n\nchunk`)
//! is keyed by its sha256 (first 128 bits); a chunk whose key the previous generation holds takes its
//! stored vector, and a chunk repeated within the run (a snapshot transcript repeating its history, a
//! document copied under another name) is embedded once. The cache is the store itself: nothing is
//! kept beside it, so it holds exactly what the store holds, under the current fingerprint.

use std::collections::HashMap;
use std::path::Path;

use rayon::prelude::*;
use sha2::{Digest, Sha256};
use std::time::{Duration, Instant};

use brain_doc::Doc;

use crate::VecError;
use crate::chunk::{self, ChunkParams};
use crate::docs::{DocRef, Field};
use crate::embed::{Embedder, Fingerprint};
use crate::store::{DocEntry, Rate, Store};
use crate::write::Writer;

/// A document to index, with the line of its markdown file at which the body starts.
#[derive(Debug, Clone)]
pub struct Input {
    pub doc: Doc,
    pub body_line: u64,
}

impl Input {
    /// From a doc record: the body line is that of its markdown form.
    pub fn from_doc(doc: Doc) -> Input {
        let md = doc.to_markdown();
        let body_line = brain_doc::markdown::body_start_line(&md, &doc.body);
        Input { doc, body_line }
    }

    /// The collection, or the first path component of the id.
    pub fn collection(&self) -> String {
        self.doc.collection_name()
    }

    /// sha256 of what gets embedded.
    pub fn hash(&self) -> String {
        brain_doc::sha256_hex(format!("{}\n{}", self.doc.title, self.doc.body).as_bytes())
    }
}

/// Caps and switches of one run.
#[derive(Debug, Clone, Default)]
pub struct Options {
    pub chunking: ChunkParams,
    /// Embed at most this many documents.
    pub limit: Option<usize>,
    /// Stop starting new batches after this long.
    pub budget: Option<Duration>,
    /// The input is the whole corpus: drop stored documents that are not in it.
    pub prune: bool,
    /// Embed nothing when the run would compute more than this many chunks (those the chunk cache
    /// does not hold): the stop hook's cap, which leaves a big session to the next `--all` run.
    pub max_chunks: Option<usize>,
}

/// What a run did.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Report {
    /// Documents in the input.
    pub docs: usize,
    /// Documents embedded in this run.
    pub embedded: usize,
    /// Chunks embedded in this run.
    pub chunks: usize,
    /// Input documents already up to date.
    pub unchanged: usize,
    /// Stored documents dropped because they left the corpus.
    pub removed: usize,
    /// Input documents still needing embeddings (cut off by --limit/--budget).
    pub pending: usize,
    /// Whether the store was (re)built from scratch because the fingerprint changed or it was absent.
    pub rebuilt: bool,
    /// Generation now current (0 = none).
    pub generation: u64,
    /// Chunks of the embedded documents whose text was already embedded (a stored chunk, or one
    /// earlier in the run): their vectors were reused, not computed.
    #[serde(default)]
    pub reused: usize,
    /// Seconds spent embedding in this run (the model's forward passes).
    #[serde(default)]
    pub embed_secs: f64,
    /// `--max-chunks` refused the run: the chunks it would have computed (nothing was written).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub over_cap: Option<usize>,
}

/// A chunk text's key: the first 128 bits of the sha256 of the text the model sees.
pub type ChunkKey = [u8; 16];

/// The key of an embedded text.
pub fn chunk_key(text: &str) -> ChunkKey {
    let d = Sha256::digest(text.as_bytes());
    let mut k = [0u8; 16];
    k.copy_from_slice(&d[..16]);
    k
}

/// Vectors already computed, by [`ChunkKey`]: the previous generation's rows (same fingerprint) and
/// the chunks embedded earlier in this run (up to [`RUN_CACHE`] of them).
struct ChunkCache<'s> {
    stored: HashMap<ChunkKey, usize>,
    store: Option<&'s Store>,
    run: HashMap<ChunkKey, Vec<f32>>,
}

/// Vectors of this run kept for reuse within it (~1.5 KB each at 384 dimensions: ~75 MB).
const RUN_CACHE: usize = 50_000;

impl<'s> ChunkCache<'s> {
    /// Key every row of `store` (in parallel; ~0.1 s per 100k rows).
    fn new(store: Option<&'s Store>) -> ChunkCache<'s> {
        let stored = store
            .map(|s| {
                s.map_texts(|r, text| {
                    let doc = s.chunk_doc(r) as usize;
                    let title = s.docs.field(doc, Field::Title).unwrap_or_default();
                    (chunk_key(&chunk::embed_text(title, text)), r)
                })
                .into_iter()
                .collect()
            })
            .unwrap_or_default();
        ChunkCache {
            stored,
            store,
            run: HashMap::new(),
        }
    }

    fn get(&self, k: &ChunkKey) -> Option<Vec<f32>> {
        if let Some(v) = self.run.get(k) {
            return Some(v.clone());
        }
        let r = *self.stored.get(k)?;
        self.store.map(|s| s.vector(r))
    }

    fn contains(&self, k: &ChunkKey) -> bool {
        self.run.contains_key(k) || self.stored.contains_key(k)
    }

    fn keep(&mut self, k: ChunkKey, v: &[f32]) {
        if self.run.len() < RUN_CACHE {
            self.run.insert(k, v.to_vec());
        }
    }
}

/// Texts per embedder call: enough chunks across documents for length-sorted batching to pay off.
const EMBED_CALL: usize = 256;

/// Bring the store in `dir` up to date with `inputs`. `progress(done_docs)` is called as documents finish.
pub fn update(
    dir: &Path,
    embedder: &dyn Embedder,
    inputs: &[Input],
    opts: &Options,
    progress: &dyn Fn(usize),
) -> Result<Report, VecError> {
    let start = Instant::now();
    let fp = Fingerprint::of(embedder, opts.chunking);
    let old = match Store::open(dir) {
        Ok(s) => Some(s),
        Err(VecError::IndexMissing { .. } | VecError::IndexCorrupt { .. }) => None,
        Err(e) => return Err(e),
    };
    let previous_gen = old.as_ref().map(|s| s.manifest.generation);
    let old = old.filter(|s| s.manifest.fingerprint == fp);
    let mut report = Report {
        docs: inputs.len(),
        rebuilt: old.is_none(),
        generation: previous_gen.unwrap_or(0),
        ..Report::default()
    };
    let t = triage(old.as_ref(), inputs, opts.prune, &mut report);
    // A store of an older schema (f32 rows, or no int8 copy) is rewritten once in the current one:
    // rows copied, nothing embedded again.
    let current = old
        .as_ref()
        .is_some_and(|s| s.manifest.int8 && s.manifest.schema == crate::store::SCHEMA);
    if t.todo.is_empty() && report.removed == 0 && t.refresh.is_empty() && current {
        return Ok(report);
    }
    let mut cache = ChunkCache::new(if t.todo.is_empty() {
        None
    } else {
        old.as_ref()
    });
    if let Some(need) = over_cap(&cache, inputs, &t.todo, opts) {
        report.pending = t.todo.len();
        report.over_cap = Some(need);
        return Ok(report);
    }
    let mut writer = Writer::create(dir, previous_gen, fp)?;
    // Fresh embeddings first, so a stale copy of the same doc is skipped below.
    let mut replaced = vec![false; t.stored];
    let todo = &t.todo[..cap_docs(&t.todo, opts)];
    let mut pos = 0;
    while pos < todo.len() && opts.budget.is_none_or(|b| start.elapsed() < b) {
        let group = next_group(inputs, &todo[pos..], opts.chunking);
        pos += group.len();
        let vectors = embed_group(embedder, &mut cache, inputs, &group, &mut report)?;
        let mut vectors = vectors.iter();
        for (i, cs) in &group {
            let rows: Vec<(u64, &str, &[f32])> = cs
                .iter()
                .zip(&mut vectors)
                .map(|(c, vec)| (c.line, c.text.as_str(), vec.as_slice()))
                .collect();
            writer.push(entry(&inputs[*i], &t.hashes[*i]), &rows)?;
            if let Some(&o) = t.by_id.get(inputs[*i].doc.id.as_str()) {
                replaced[o] = true;
            }
            report.embedded += 1;
            report.chunks += cs.len();
            progress(report.embedded);
        }
    }
    report.pending = t.todo.len() - report.embedded;
    writer.set_rate(
        measured_rate(&report, embedder)
            .or_else(|| old.as_ref().and_then(|s| s.manifest.rate.clone())),
    );
    if let Some(s) = &old {
        copy_kept(s, &t, &replaced, inputs, &mut writer)?;
    }
    report.generation = writer.commit()?.generation;
    Ok(report)
}

/// What a run does with each document: which inputs need embedding, which stored documents stay,
/// and which of those only need their entry refreshed.
struct Triage<'s> {
    /// Stored documents by id.
    by_id: HashMap<&'s str, usize>,
    /// The sha256 of what each input embeds.
    hashes: Vec<String>,
    /// Unchanged text but changed metadata (date, title, project, …): stored document → the input
    /// whose entry replaces its own (rows are copied).
    refresh: HashMap<usize, usize>,
    /// Inputs to embed, newest first.
    todo: Vec<usize>,
    /// Stored documents to copy.
    keep: Vec<usize>,
    /// Documents the store holds.
    stored: usize,
}

/// Sort `inputs` against the `old` store (unchanged documents and removed ones counted in
/// `report`). A duplicate id in the input: the first wins.
fn triage<'s>(
    old: Option<&'s Store>,
    inputs: &[Input],
    prune: bool,
    report: &mut Report,
) -> Triage<'s> {
    let by_id: HashMap<&str, usize> = old
        .map(|s| s.docs.iter().enumerate().map(|(i, d)| (d.id, i)).collect())
        .unwrap_or_default();
    let stored = old.map_or(0, |s| s.docs.len());
    let hashes: Vec<String> = inputs.iter().map(Input::hash).collect();
    let (mut refresh, mut todo, mut keep) = (HashMap::new(), Vec::new(), Vec::new());
    let mut seen = vec![false; stored];
    for (i, input) in inputs.iter().enumerate() {
        let Some(&o) = by_id.get(input.doc.id.as_str()) else {
            todo.push(i);
            continue;
        };
        if seen[o] {
            continue;
        }
        seen[o] = true;
        keep.push(o);
        match old
            .and_then(|s| s.docs.get(o))
            .filter(|e| e.hash == hashes[i])
        {
            Some(e) => {
                report.unchanged += 1;
                if !same_meta(&entry(input, &hashes[i]), &e) {
                    refresh.insert(o, i);
                }
            }
            None => todo.push(i),
        }
    }
    for (o, _) in seen.iter().enumerate().filter(|(_, s)| !**s) {
        if prune {
            report.removed += 1;
        } else {
            keep.push(o);
        }
    }
    // Newest first: what a cut-off run leaves pending is the oldest (RFC 3339 dates sort as text;
    // undated documents last, input order among equals).
    todo.sort_by(|&a, &b| inputs[b].doc.date.cmp(&inputs[a].doc.date));
    Triage {
        by_id,
        hashes,
        refresh,
        todo,
        keep,
        stored,
    }
}

/// With `--max-chunks`: the chunks the run would compute (those the cache does not hold), when
/// more than the cap.
fn over_cap(
    cache: &ChunkCache<'_>,
    inputs: &[Input],
    todo: &[usize],
    opts: &Options,
) -> Option<usize> {
    let cap = opts.max_chunks?;
    let mut need: std::collections::HashSet<ChunkKey> = Default::default();
    for &i in &todo[..cap_docs(todo, opts)] {
        let d = &inputs[i].doc;
        for c in chunk::chunk(&d.body, opts.chunking) {
            let k = chunk_key(&chunk::embed_text(&d.title, &c.text));
            if !cache.contains(&k) {
                need.insert(k);
            }
        }
    }
    (need.len() > cap).then_some(need.len())
}

/// Whole documents from the front of `todo`, chunked, until they hold [`EMBED_CALL`] chunks (at
/// least one document).
fn next_group(
    inputs: &[Input],
    todo: &[usize],
    chunking: ChunkParams,
) -> Vec<(usize, Vec<chunk::Chunk>)> {
    let mut group = Vec::new();
    let mut n = 0;
    for &i in todo {
        if n >= EMBED_CALL && !group.is_empty() {
            break;
        }
        let chunks = chunk::chunk(&inputs[i].doc.body, chunking);
        n += chunks.len();
        group.push((i, chunks));
    }
    group
}

/// The vectors of every chunk of `group`, in order: each text the cache does not hold embedded
/// once, in one embedder call; the others taken from the cache.
fn embed_group(
    embedder: &dyn Embedder,
    cache: &mut ChunkCache<'_>,
    inputs: &[Input],
    group: &[(usize, Vec<chunk::Chunk>)],
    report: &mut Report,
) -> Result<Vec<Vec<f32>>, VecError> {
    let texts: Vec<String> = group
        .iter()
        .flat_map(|(i, cs)| {
            cs.iter()
                .map(|c| chunk::embed_text(&inputs[*i].doc.title, &c.text))
        })
        .collect();
    let keys: Vec<ChunkKey> = texts.par_iter().map(|t| chunk_key(t)).collect();
    let mut first: HashMap<ChunkKey, usize> = HashMap::new();
    let mut need: Vec<usize> = Vec::new();
    for (j, k) in keys.iter().enumerate() {
        if !cache.contains(k) && !first.contains_key(k) {
            first.insert(*k, need.len());
            need.push(j);
        }
    }
    let refs: Vec<&str> = need.iter().map(|&j| texts[j].as_str()).collect();
    let t0 = Instant::now();
    let computed = if refs.is_empty() {
        Vec::new()
    } else {
        embedder.embed(&refs)?
    };
    report.embed_secs += t0.elapsed().as_secs_f64();
    if computed.len() != need.len() {
        return Err(VecError::Inference(format!(
            "the embedder returned {} vectors for {} texts",
            computed.len(),
            need.len()
        )));
    }
    report.reused += keys.len() - need.len();
    let mut vectors: Vec<Vec<f32>> = Vec::with_capacity(texts.len());
    for k in &keys {
        let v = match first.get(k).and_then(|&n| computed.get(n)) {
            Some(v) => v.clone(),
            None => cache.get(k).ok_or_else(|| {
                VecError::Inference("a cached chunk vanished from the cache".into())
            })?,
        };
        vectors.push(v);
    }
    for (&j, v) in need.iter().zip(&computed) {
        cache.keep(keys[j], v);
    }
    Ok(vectors)
}

/// Copy the rows of every kept document no fresh embedding replaced (its entry refreshed when
/// only its metadata changed).
fn copy_kept(
    s: &Store,
    t: &Triage<'_>,
    replaced: &[bool],
    inputs: &[Input],
    writer: &mut Writer,
) -> Result<(), VecError> {
    for &o in &t.keep {
        if replaced[o] {
            continue;
        }
        let Some(e) = s.docs.get(o) else { continue };
        let fresh = t.refresh.get(&o).map(|&i| entry(&inputs[i], e.hash));
        copy_rows(s, &e, fresh.unwrap_or_else(|| e.to_entry()), writer)?;
    }
    Ok(())
}

/// How many of the documents to embed `--limit` lets this run take.
fn cap_docs(todo: &[usize], opts: &Options) -> usize {
    opts.limit.unwrap_or(usize::MAX).min(todo.len())
}

/// The rate a run measured, when it computed enough chunks to measure one.
fn measured_rate(report: &Report, embedder: &dyn Embedder) -> Option<Rate> {
    let computed = report.chunks.saturating_sub(report.reused);
    if computed < Rate::MIN_CHUNKS || report.embedded == 0 || report.embed_secs <= 0.0 {
        return None;
    }
    Some(Rate {
        secs_per_doc: report.embed_secs / report.embedded as f64,
        secs_per_chunk: report.embed_secs / computed as f64,
        docs: report.embedded,
        kernel: embedder.kernel().to_string(),
        measured_at: brain_store::clock::now().to_string(),
    })
}

/// Drop the documents `ids` from the store in `dir` for good (`brain forget --purge`): a new
/// generation without their rows (text and vectors), the previous one removed. Returns how many
/// were held; a store without them, or no store, is left as it is.
pub fn remove(dir: &Path, ids: &[&str]) -> Result<usize, VecError> {
    let old = match Store::open(dir) {
        Ok(s) => s,
        Err(VecError::IndexMissing { .. }) => return Ok(0),
        Err(e) => return Err(e),
    };
    let gone = |e: &DocRef<'_>| ids.contains(&e.id);
    let held = old.docs.iter().filter(|e| gone(e)).count();
    if held == 0 {
        return Ok(0);
    }
    let mut writer = Writer::create(
        dir,
        Some(old.manifest.generation),
        old.manifest.fingerprint.clone(),
    )?;
    writer.set_rate(old.manifest.rate.clone());
    for e in old.docs.iter().filter(|e| !gone(e)) {
        copy_rows(&old, &e, e.to_entry(), &mut writer)?;
    }
    writer.commit()?;
    Ok(held)
}

/// [`remove`] from every store (the one in force, the next model's: [`crate::store::stores`]) under the
/// store's lock (`locks/vecindex.lock`), waiting up to `wait` for a running
/// vecindex: what every writer that removes a document calls (`lexindex` for a file gone, `brain
/// doctor --fix`, `brain forget --purge`), so no vector hit names a document the index no longer
/// holds. Contention past the wait is [`VecError::Lock`] (the next `vecindex --all` prunes them).
pub fn forget(
    home: &brain_store::Home,
    ids: &[&str],
    wait: std::time::Duration,
) -> Result<usize, VecError> {
    let stores = crate::store::stores(&home.vectors());
    if ids.is_empty() || !stores.iter().any(|d| d.join("manifest.json").exists()) {
        return Ok(0);
    }
    let _lock = brain_store::Lock::acquire_within(&home.lock_file("vecindex"), wait)?;
    // The store in force, and the next model's being built (a purge reaches both).
    let mut held = 0;
    for dir in &stores {
        held = held.max(remove(dir, ids)?);
    }
    Ok(held)
}

/// Push the stored rows of `e` (from `s`) under `entry`.
fn copy_rows(
    s: &Store,
    e: &DocRef<'_>,
    entry: DocEntry,
    writer: &mut Writer,
) -> Result<(), VecError> {
    let rows_owned: Vec<(u64, std::borrow::Cow<'_, str>, Vec<f32>)> = (e.first
        ..e.first.saturating_add(e.count))
        .map(|r| r as usize)
        .map(|r| (u64::from(s.chunk(r).line), s.text(r), s.vector(r)))
        .collect();
    let rows: Vec<(u64, &str, &[f32])> = rows_owned
        .iter()
        .map(|(l, t, v)| (*l, t.as_ref(), v.as_slice()))
        .collect();
    writer.push(entry, &rows)
}

fn entry(input: &Input, hash: &str) -> DocEntry {
    let text = |v: &serde_json::Value| v.as_str().map(str::to_string);
    DocEntry {
        id: input.doc.id.clone(),
        collection: input.collection(),
        path: input.doc.path.clone(),
        title: input.doc.title.clone(),
        date: input.doc.date.clone(),
        project: input.doc.meta.get("project").and_then(text),
        agent: input
            .doc
            .source
            .agent
            .clone()
            .or_else(|| input.doc.meta.get("agent").and_then(text))
            .map(|a| a.to_lowercase()),
        hash: hash.to_string(),
        body_line: input.body_line,
        first: 0,
        count: 0,
    }
}

/// Whether two entries of the same document agree on everything but their row range.
fn same_meta(a: &DocEntry, b: &DocRef<'_>) -> bool {
    (
        a.collection.as_str(),
        a.path.as_str(),
        a.title.as_str(),
        a.date.as_str(),
        a.project.as_deref(),
        a.agent.as_deref(),
    ) == (b.collection, b.path, b.title, b.date, b.project, b.agent)
}

/// Per collection: documents, and how many need embeddings (new, changed, or under another fingerprint).
pub fn pending(
    store: Option<&Store>,
    fp: &Fingerprint,
    inputs: &[Input],
) -> Vec<(String, usize, usize)> {
    let store = store.filter(|s| s.manifest.fingerprint == *fp);
    let known: HashMap<&str, &str> = store
        .map(|s| s.docs.iter().map(|d| (d.id, d.hash)).collect())
        .unwrap_or_default();
    let mut out: std::collections::BTreeMap<String, (usize, usize)> = Default::default();
    for i in inputs {
        let slot = out.entry(i.collection()).or_default();
        slot.0 += 1;
        if known.get(i.doc.id.as_str()).is_none_or(|h| *h != i.hash()) {
            slot.1 += 1;
        }
    }
    out.into_iter().map(|(c, (n, p))| (c, n, p)).collect()
}
