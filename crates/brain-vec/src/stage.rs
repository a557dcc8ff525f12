//! `vecindex` as a library: what each of its jobs does and the typed record it prints, so the binary
//! only parses flags, picks a job and writes the records.
//!
//! * [`chunk_records`] — `--chunks`: what each document would be embedded as;
//! * [`status_records`] — `--status`: per collection, documents and how many need embeddings;
//! * [`embed_texts`] — `--embed`: texts in, vectors out, with the speed;
//! * [`record_freshness`] — after an update: which documents' vectors are current, in the registry;
//! * [`read_inputs`] — doc NDJSON on stdin as inputs (bad lines reported and skipped).

use std::collections::HashMap;
use std::io::BufRead;
use std::path::Path;
use std::time::Instant;

use brain_doc::Doc;
use brain_store::{Home, Registry};
use serde::{Deserialize, Serialize};

use crate::VecError;
use crate::chunk::{self, ChunkParams};
use crate::embed::{Embedder, Fingerprint, PROMPT_FORMAT};
use crate::index::{self, Input, Report};
use crate::store::Store;

/// `vecindex --chunks`: one chunk as it would be embedded.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChunkRecord {
    /// The document id.
    pub id: String,
    /// The chunk's position in the document (0-based).
    pub seq: u32,
    /// 1-based line of the markdown file where the chunk starts.
    pub line: u64,
    /// Estimated tokens.
    pub tokens: usize,
    /// The text embedded (title line and chunk).
    pub text: String,
}

/// `vecindex --status`: one collection.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StatusRecord {
    pub collection: String,
    /// Documents in the input.
    pub docs: usize,
    /// Of them, those without up-to-date vectors.
    pub need_embeddings: usize,
    /// Projected seconds to embed them at the rate the last run measured (absent: no backlog, or
    /// no run has measured a rate yet).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub drain_secs: Option<f64>,
}

/// `vecindex --embed`: one text and its vector.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EmbedRecord {
    pub text: String,
    /// Model tokens (null for an HTTP backend, which does not say).
    pub tokens: Option<usize>,
    pub embedding: Vec<f32>,
}

/// The summary record of an update (`kind: "vecindex_report"`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReportRecord {
    #[serde(flatten)]
    pub report: Report,
    /// Always `"vecindex_report"`.
    pub kind: String,
    /// Warnings reported during the run.
    pub warnings: u64,
}

impl ReportRecord {
    pub fn new(report: Report, warnings: u64) -> Self {
        ReportRecord {
            report,
            kind: "vecindex_report".into(),
            warnings,
        }
    }
}

/// The chunks of every input, in order.
pub fn chunk_records(inputs: &[Input], chunking: ChunkParams) -> Vec<ChunkRecord> {
    let mut out = Vec::new();
    for input in inputs {
        for c in chunk::chunk(&input.doc.body, chunking) {
            out.push(ChunkRecord {
                id: input.doc.id.clone(),
                seq: c.seq,
                line: input.body_line + c.line - 1,
                tokens: c.tokens,
                text: chunk::embed_text(&input.doc.title, &c.text),
            });
        }
    }
    out
}

/// Per collection, how many inputs need embeddings with the model `model_id` (whose pooling and
/// prompts give `recipe_tag`) and `chunking`, against the store in `dir` or, during a model switch,
/// the next model's store being built beside it (neither: all of them). Loads no model.
pub fn status_records(
    dir: &Path,
    model_id: String,
    recipe_tag: &str,
    chunking: ChunkParams,
    inputs: &[Input],
) -> Vec<StatusRecord> {
    let fp_with = |dims: usize| Fingerprint {
        model: model_id.clone(),
        dims,
        chunking,
        prompt: format!("{PROMPT_FORMAT}{recipe_tag}"),
    };
    let store = crate::store::stores(dir)
        .iter()
        .filter_map(|d| Store::open(d).ok())
        .find(|s| s.manifest.fingerprint == fp_with(s.manifest.fingerprint.dims));
    let fp = fp_with(store.as_ref().map_or(0, |s| s.manifest.fingerprint.dims));
    index::pending(store.as_ref(), &fp, inputs)
        .into_iter()
        .map(|(collection, docs, need_embeddings)| StatusRecord {
            collection,
            docs,
            need_embeddings,
            drain_secs: store
                .as_ref()
                .filter(|s| s.manifest.fingerprint == fp && need_embeddings > 0)
                .and_then(|s| s.manifest.rate.as_ref())
                .map(|r| r.drain_secs(need_embeddings as u64)),
        })
        .collect()
}

/// What [`embed_texts`] measured.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EmbedSpeed {
    pub texts: usize,
    pub tokens: usize,
    pub secs: f64,
}

/// Embed `texts` in calls of 256 (length-sorted batching inside); `emit` sees each record in order.
pub fn embed_texts(
    embedder: &dyn Embedder,
    texts: &[String],
    emit: &mut dyn FnMut(&EmbedRecord) -> std::io::Result<()>,
) -> Result<EmbedSpeed, StageError> {
    let t = Instant::now();
    let mut tokens = 0;
    for group in texts.chunks(256) {
        let refs: Vec<&str> = group.iter().map(String::as_str).collect();
        for (text, embedding) in group.iter().zip(embedder.embed(&refs)?) {
            let n = embedder.count_tokens(text);
            tokens += n.unwrap_or(0);
            emit(&EmbedRecord {
                text: text.clone(),
                tokens: n,
                embedding,
            })?;
        }
    }
    Ok(EmbedSpeed {
        texts: texts.len(),
        tokens,
        secs: t.elapsed().as_secs_f64().max(1e-9),
    })
}

/// Why a job of the stage failed: the embedder, or writing its output.
#[derive(Debug, thiserror::Error)]
pub enum StageError {
    #[error(transparent)]
    Vec(#[from] VecError),
    #[error(transparent)]
    Output(#[from] std::io::Error),
}

/// Record in the document registry (`state.sqlite`, when `lexindex` made one) which inputs have
/// vectors up to date in the store in `dir`, under which fingerprint, so `status`, `explain` and MCP
/// count the backlog.
pub fn record_freshness(home: &Home, dir: &Path, inputs: &[Input]) -> Result<(), String> {
    let store = match Store::open(dir) {
        Ok(s) => s,
        // Nothing was written (a run over its --max-chunks cap before any store exists).
        Err(crate::VecError::IndexMissing { .. }) => return Ok(()),
        Err(e) => return Err(e.to_string()),
    };
    let fp = store.manifest.fingerprint.id();
    let stored: HashMap<&str, &str> = store.docs.iter().map(|d| (d.id, d.hash)).collect();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64);
    let Some(mut registry) = Registry::open_existing(home).map_err(|e| e.to_string())? else {
        return Ok(());
    };
    let current = inputs.iter().filter(|i| {
        stored
            .get(i.doc.id.as_str())
            .is_some_and(|h| *h == i.hash())
    });
    registry
        .mark_embedded(&fp, now, current.map(|i| i.doc.id.as_str()))
        .map_err(|e| e.to_string())?;
    registry.checkpoint();
    Ok(())
}

/// Doc NDJSON from `reader` as inputs; a malformed line goes to `warn` and is skipped. An I/O error
/// (not a bad line) ends the read.
pub fn read_inputs(
    reader: impl BufRead,
    name: &str,
    warn: &dyn Fn(String),
) -> std::io::Result<Vec<Input>> {
    let mut out = Vec::new();
    for item in brain_doc::ndjson::Reader::<_, Doc>::new(reader, name) {
        match item? {
            Ok(doc) => out.push(Input::from_doc(doc)),
            Err(e) => warn(e.to_string()),
        }
    }
    Ok(out)
}

/// Texts of `{"text": …}` lines from `reader` (what `--embed` reads); other lines go to `warn`.
pub fn read_texts(
    reader: impl BufRead,
    name: &str,
    warn: &dyn Fn(String),
) -> std::io::Result<Vec<String>> {
    let mut out = Vec::new();
    for item in brain_doc::ndjson::Reader::<_, serde_json::Value>::new(reader, name) {
        match item?.map(|v| v["text"].as_str().map(str::to_string)) {
            Ok(Some(t)) => out.push(t),
            Ok(None) => warn("a line without a `text` string".into()),
            Err(e) => warn(e.to_string()),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(id: &str, body: &str) -> Input {
        let source = brain_doc::Source::new("note", "");
        let mut doc = Doc::new(id, "T", "2026-04-02T00:00:00Z", source);
        doc.collection = Some("notes".into());
        doc.body = body.into();
        Input::from_doc(doc)
    }

    #[test]
    fn records_keep_the_wire_order_and_round_trip() {
        let recs = chunk_records(
            &[input("notes/a", "# A\n\nsome text\n")],
            ChunkParams::default(),
        );
        let line = serde_json::to_string(&recs[0]).expect("json");
        assert!(
            line.starts_with("{\"id\":\"notes/a\",\"seq\":0,\"line\":"),
            "{line}"
        );
        let back: ChunkRecord = serde_json::from_str(&line).expect("parse");
        assert_eq!(back, recs[0]);
        let report = ReportRecord::new(Report::default(), 2);
        let v = serde_json::to_value(&report).expect("json");
        assert_eq!(v["kind"], "vecindex_report");
        assert_eq!(v["warnings"], 2);
        assert!(v.get("generation").is_some());
    }

    #[test]
    fn without_a_store_every_input_needs_embeddings() {
        let dir = tempfile::tempdir().expect("tempdir");
        let inputs = [input("notes/a", "x"), input("notes/b", "y")];
        let recs = status_records(dir.path(), "m".into(), "", ChunkParams::default(), &inputs);
        assert_eq!(
            recs,
            [StatusRecord {
                collection: "notes".into(),
                docs: 2,
                need_embeddings: 2,
                drain_secs: None,
            }]
        );
    }

    #[test]
    fn bad_lines_are_warned_and_skipped() {
        let warned = std::cell::RefCell::new(Vec::new());
        let text = "{\"text\":\"a\"}\nnot json\n{\"x\":1}\n{\"text\":\"b\"}\n";
        let texts =
            read_texts(text.as_bytes(), "<stdin>", &|w| warned.borrow_mut().push(w)).expect("read");
        assert_eq!(texts, ["a", "b"]);
        assert_eq!(warned.borrow().len(), 2);
    }
}
