//! Vector search as a retriever: embed a query, scan the store, fold chunks to documents, emit hits.
//!
//! [`VecSearch`] is the expensive handle (model + mapped store): open it once per process. Hits carry the
//! best chunk of each document as their passage (line + snippet) and the cosine as the `vec` signal, so
//! `rank` can fuse them with lexical hits by `uri`.

use std::path::Path;

use brain_doc::Hit;
use serde_json::{Map, Value};

use crate::VecError;
use crate::backend::open;
use crate::embed::{Embedder, EmbedderSpec, Fingerprint};
use crate::store::{Filter, Store};

/// Characters of chunk text kept as a hit's snippet.
pub const SNIPPET_CHARS: usize = 240;

/// A store and the embedder that matches it.
pub struct VecSearch {
    pub store: Store,
    pub embedder: Box<dyn Embedder>,
}

impl VecSearch {
    /// Open the store under `dir` and the embedder `spec`; the store must have been built by the same
    /// model (else [`VecError::FingerprintMismatch`]). The model is checked first: no model → exit 65.
    /// The store and the model load at the same time (both ~15–35 ms in a fresh process).
    pub fn open(dir: &Path, spec: &EmbedderSpec) -> Result<VecSearch, VecError> {
        Self::open_embedding(dir, spec, &[]).map(|(vs, _)| vs)
    }

    /// [`VecSearch::open`], and `texts` embedded as soon as the model is loaded — while the store
    /// is still opening on the other thread (a fresh query's embedding need not wait for the
    /// store's document table). Returns the handle and the texts' vectors.
    pub fn open_embedding(
        dir: &Path,
        spec: &EmbedderSpec,
        texts: &[&str],
    ) -> Result<(VecSearch, Vec<Vec<f32>>), VecError> {
        // The model that made the store embeds the query (a switch in progress keeps answering).
        let spec = &spec.for_store(dir);
        if let EmbedderSpec::Local { dir: m } = spec
            && !m.join("model.safetensors").is_file()
        {
            return Err(VecError::ModelMissing {
                path: m.join("model.safetensors"),
            });
        }
        let (store, embedder, vectors) = std::thread::scope(|s| {
            let store = s.spawn(|| {
                let _t = brain_doc::timings::span("store.open");
                Store::open(dir)
            });
            let embedder = {
                let _t = brain_doc::timings::span("model.load");
                open(spec)
            };
            let vectors = match &embedder {
                Ok(e) if !texts.is_empty() => {
                    let _t = brain_doc::timings::span("query.embed");
                    e.embed_queries(texts)
                }
                _ => Ok(Vec::new()),
            };
            let store = store.join().unwrap_or_else(|_| {
                Err(VecError::Inference(
                    "opening the vector store panicked".into(),
                ))
            });
            (store, embedder, vectors)
        });
        let store = store?;
        let embedder = embedder?;
        let vectors = vectors?;
        let fp = Fingerprint::of(embedder.as_ref(), store.manifest.fingerprint.chunking);
        if fp != store.manifest.fingerprint {
            return Err(VecError::FingerprintMismatch {
                index: store.manifest.fingerprint.id(),
                query: fp.id(),
            });
        }
        Ok((VecSearch { store, embedder }, vectors))
    }

    /// The best `k` documents for `query` as hits (rank 1-based, score = cosine), given today's day number
    /// for `age_days`.
    pub fn search(
        &self,
        query: &str,
        k: usize,
        filter: &Filter,
        today: i32,
    ) -> Result<Vec<Hit>, VecError> {
        let q = self
            .embedder
            .embed_queries(&[query])?
            .into_iter()
            .next()
            .unwrap_or_default();
        Ok(self.hits(&q, k, filter, today))
    }

    /// Hits for an already embedded query vector.
    pub fn hits(&self, q: &[f32], k: usize, filter: &Filter, today: i32) -> Vec<Hit> {
        self.hits_with_text(q, k, filter)
            .into_iter()
            .map(|(mut h, _)| {
                let day = crate::store::day_number(&h.date);
                h.age_days = if day == i32::MIN {
                    0
                } else {
                    i64::from(today - day).max(0)
                };
                h
            })
            .collect()
    }

    /// Hits for an already embedded query vector, each with its whole chunk text (what a reranker
    /// reads); `age_days` is left 0 for the caller, who knows the time zone.
    pub fn hits_with_text(&self, q: &[f32], k: usize, filter: &Filter) -> Vec<(Hit, String)> {
        let s = &self.store;
        s.search(q, k, filter)
            .into_iter()
            .filter_map(|d| Some((s.docs.get(d.doc)?, d)))
            .enumerate()
            .map(|(rank, (e, d))| {
                let c = s.chunk(d.row);
                let text = s.text(d.row);
                let mut signals = Map::new();
                signals.insert("vec".into(), Value::from(f64::from(d.score)));
                let hit = Hit {
                    schema: brain_doc::SCHEMA,
                    kind: "hit".into(),
                    rank: rank as u32 + 1,
                    score: f64::from(d.score),
                    strength: None,
                    // Named by collection and path, as lexical hits are (fusion joins on the URI).
                    uri: format!("brain://{}/{}", e.collection, e.path),
                    docid: brain_doc::docid(&format!("{}/{}", e.collection, e.path)),
                    collection: e.collection.to_owned(),
                    path: e.path.to_owned(),
                    file: None,
                    title: e.title.to_owned(),
                    date: e.date.to_owned(),
                    age_days: 0,
                    started: Some(e.date.to_owned()).filter(|d| !d.is_empty()),
                    ended: None,
                    session_id: None,
                    project: e.project.map(str::to_owned),
                    agent: e.agent.map(str::to_owned),
                    line: e.body_line + u64::from(c.line).saturating_sub(1),
                    snippet: snippet(&text),
                    signals,
                    untrusted: false,
                    memory: None,
                    anchor: None,
                    link: None,
                };
                (hit, text.into_owned())
            })
            .collect()
    }
}

/// The first [`SNIPPET_CHARS`] characters of a chunk, whitespace collapsed.
pub fn snippet(text: &str) -> String {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match flat.char_indices().nth(SNIPPET_CHARS) {
        Some((i, _)) => format!("{}…", &flat[..i]),
        None => flat,
    }
}

/// Today's day number from the system clock (UTC).
pub fn today() -> i32 {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    (secs / 86_400) as i32
}
