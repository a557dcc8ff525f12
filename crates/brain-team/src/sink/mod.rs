//! `teamindex`: send the shared collections to a team engine.
//!
//! Doc records in (partition's output, or every file of the collections with `--all`), bulk
//! updates out, one summary record. Only documents of a collection in `team.shared` are ever sent;
//! the rest are counted and left. A document is sent when its content changed since it was last
//! sent (`state/team/<key>/sent.json`), as one record per lexical passage and one per chunk with
//! the chunk's vector from brain's own model ([`crate::record`]); records it no longer has are
//! deleted in the same request.
//!
//! Delivery is at least once and never twice: every id is stable, so a request repeated after a
//! kill replaces what it wrote. A request the engine answers too slowly or with a 5xx is asked again
//! after a pause (twice by default, 2 s then 8 s). When the engine cannot be reached, or is still
//! too slow, the request goes to the spool on disk and the run carries on offline; the next run sends the spool first, in
//! order. The state says "sent" only once the engine acknowledged a request or the spool holds it.

use std::cell::Cell;
use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use brain_doc::Doc;
use serde::{Deserialize, Serialize};

use crate::mapping::{self, Mapping};
use crate::record::{Piece, Pieces, Who};
use crate::spool::Spool;
use crate::{Engine, TeamError};

mod deliver;
mod state;

use deliver::{Batch, Run};
pub use state::{Forgotten, forget, sent};

/// A document to send, with the line of its markdown file at which the body starts.
#[derive(Debug, Clone)]
pub struct Input {
    pub doc: Doc,
    pub body_line: u64,
}

impl Input {
    /// The collection, or the first part of the id.
    pub fn collection(&self) -> String {
        self.doc.collection_name()
    }

    /// What of this document may leave the machine: `None` when it holds `brain:do-not-index`
    /// (the producers' opt-out, which a hand-written note may carry too); else the document with
    /// brain-redact's rules applied once more to its title, frontmatter values and body (secrets
    /// replaced, `<private>` spans and base64 blobs gone), with the count of secrets replaced. A
    /// note written by hand into a shared collection never met a producer; the team engine is
    /// read by everyone on the team. Its id and path are sent as they are (they name it).
    pub fn outgoing(mut self) -> Option<(Input, u64)> {
        let marker = String::from_utf8_lossy(brain_redact::DO_NOT_INDEX);
        if self.doc.body.contains(&*marker) || self.doc.title.contains(&*marker) {
            return None;
        }
        let mut counts = brain_redact::Counts::new();
        let doc = &mut self.doc;
        doc.title = brain_redact::redact(&brain_redact::scrub(&doc.title), &mut counts);
        doc.body = brain_redact::redact(&brain_redact::scrub(&doc.body), &mut counts);
        for v in doc.meta.values_mut() {
            redact_value(v, &mut counts);
        }
        Some((self, counts.values().sum()))
    }
}

fn redact_value(v: &mut serde_json::Value, counts: &mut brain_redact::Counts) {
    match v {
        serde_json::Value::String(s) => *s = brain_redact::redact(s, counts),
        serde_json::Value::Array(a) => a.iter_mut().for_each(|v| redact_value(v, counts)),
        serde_json::Value::Object(o) => o.values_mut().for_each(|v| redact_value(v, counts)),
        _ => {}
    }
}

/// How this home cuts a body and embeds its chunks: its own passages, chunker and model
/// (`brain_team::home::Local` gives brain-lex's passages and brain-vec's chunks and model).
pub trait Vectors {
    /// The index mapping of these vectors (model and size).
    fn mapping(&self) -> Mapping;
    /// The lexical passages and the chunks of a body of `collection`.
    fn pieces(&self, collection: &str, body: &str) -> Pieces;
    /// The vectors of chunks (`title` is the document's), in order.
    fn embed(&self, title: &str, chunks: &[Piece]) -> Result<Vec<Vec<f32>>, TeamError>;
}

/// Caps and switches of one run.
#[derive(Debug, Clone)]
pub struct Options {
    /// Passages per bulk request.
    pub batch: usize,
    /// Documents of a shared collection no longer among the inputs are deleted (`--all`).
    pub prune: bool,
    /// The shape of an index brain creates.
    pub shards: u32,
    pub replicas: u32,
    /// A request the engine answered slowly (a timeout) or with a 5xx is asked again this many
    /// times, after `pause`, then four times `pause`, ... before the run goes offline. An engine
    /// that cannot be reached at all sends the run offline at once.
    pub retries: u32,
    pub pause: Duration,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            batch: 256,
            prune: false,
            shards: 2,
            replicas: 2,
            retries: 2,
            pause: Duration::from_secs(2),
        }
    }
}

/// The summary record on stdout.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    pub kind: String,
    pub engine: String,
    pub index: String,
    pub mapping: String,
    /// The index was created by this run.
    pub created: bool,
    /// Documents read.
    pub docs: usize,
    /// Documents left out: their collection is not in team.shared.
    pub not_shared: usize,
    /// Documents already in the engine as they are.
    pub unchanged: usize,
    /// Documents sent (or spooled) by this run, and their passages.
    pub sent: usize,
    pub passages: usize,
    /// Documents deleted from the engine (gone from a shared collection).
    pub removed: usize,
    /// Documents the engine refused (reported and skipped).
    pub refused: usize,
    /// Documents holding `brain:do-not-index`: never sent ([`Input::outgoing`]).
    #[serde(default)]
    pub withheld: usize,
    /// Secrets replaced in what was sent ([`Input::outgoing`]).
    #[serde(default)]
    pub redacted: usize,
    /// Requests spooled by this run, spooled requests delivered by it, and those still waiting.
    pub spooled: usize,
    pub drained: usize,
    pub waiting: usize,
    /// Requests asked again after a slow or failed answer (`Options::retries`).
    #[serde(default)]
    pub retried: usize,
    /// Why the run went offline, if it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offline: Option<String>,
}

/// Where one engine index's state lives: a key of the URL and the index.
pub fn state_key(engine: &Engine) -> String {
    let h = brain_doc::sha256_hex(format!("{}\n{}", engine.url(), engine.index()).as_bytes());
    format!("{}-{}", engine.index(), &h[..12])
}

/// One push: `inputs` of which those in `shared` go to `engine`, embedded by `embedder`.
/// `warn` gets each refused document; `progress` the count of documents handled.
#[allow(clippy::too_many_arguments)]
pub fn push(
    state_dir: &Path,
    engine: &Engine,
    vectors: &dyn Vectors,
    inputs: Vec<Input>,
    shared: &[String],
    who: &Who,
    opts: &Options,
    warn: &dyn Fn(String),
    progress: &dyn Fn(usize),
) -> Result<Summary, TeamError> {
    let mapping = vectors.mapping();
    let mut run = Run {
        engine,
        spool: Spool::new(state_dir.join("spool")),
        sent_file: state_dir.join("sent.json"),
        sent: BTreeMap::new(),
        online: true,
        lost: false,
        retries: opts.retries,
        pause: opts.pause,
        retried: Cell::new(0),
        summary: Summary {
            kind: "teamindex".into(),
            engine: engine.url().to_string(),
            index: engine.index().to_string(),
            mapping: mapping.name(),
            docs: inputs.len(),
            ..Summary::default()
        },
        warn,
    };
    run.load_state()?;
    match mapping::ensure(engine, &mapping, opts.shards, opts.replicas) {
        Ok(created) => run.summary.created = created,
        Err(e) if e.is_transient() => run.go_offline(&e),
        Err(e) => return Err(e),
    }
    run.drain()?;

    let (todo, seen) = run.select(inputs, shared);
    progress(run.summary.not_shared + run.summary.unchanged);
    let mut batch = Batch::default();
    for (input, collection, hash) in todo {
        run.add(&mut batch, input, collection, hash, vectors, who)?;
        if batch.adds.len() >= opts.batch.max(1) {
            run.send(std::mem::take(&mut batch))?;
            progress(run.summary.not_shared + run.summary.unchanged + run.summary.sent);
        }
    }
    if opts.prune {
        run.prune(&mut batch, &seen, shared);
    }
    run.send(batch)?;
    run.finish()
}

/// What a passage's record is made of: the title, the frontmatter (filters and lifecycle), the
/// body. A change to any of them sends the document again.
pub fn content_hash(input: &Input) -> String {
    let meta = serde_json::to_string(&input.doc.meta).unwrap_or_default();
    brain_doc::sha256_hex(
        format!(
            "{}\n{}\n{}\n{}",
            input.doc.title, input.doc.date, meta, input.doc.body
        )
        .as_bytes(),
    )
}

#[cfg(test)]
mod tests;
