//! `teamindex`: send the shared collections to a team engine.
//!
//! Doc records in (partition's output, or every file of the collections with `--all`), bulk
//! updates out, one summary record. Only documents of a collection in `team.shared` are ever sent;
//! the rest are counted and left. A document is sent when its content changed since it was last
//! sent (`state/team/<key>/sent.json`), as one passage per chunk with the chunk's vector from
//! brain's own model; chunks it no longer has are deleted in the same request.
//!
//! Delivery is at least once and never twice: every id is stable, so a request repeated after a
//! kill replaces what it wrote. When the engine cannot be reached or is too slow, the request goes
//! to the spool on disk and the run carries on offline; the next run sends the spool first, in
//! order. The state says "sent" only once the engine acknowledged a request or the spool holds it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use brain_doc::Doc;
use serde::{Deserialize, Serialize};

use crate::mapping::{self, Mapping};
use crate::record::{self, Passage, Piece, Who};
use crate::spool::Spool;
use crate::{Engine, TeamError};

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
}

/// How this home cuts a body into passages and embeds them: its own chunker and model
/// (`brain_rank::team` gives brain-vec's).
pub trait Vectors {
    /// The index mapping of these vectors (model and size).
    fn mapping(&self) -> Mapping;
    /// The passages of a body.
    fn pieces(&self, body: &str) -> Vec<Piece>;
    /// The vectors of passages (`title` is the document's), in order.
    fn embed(&self, title: &str, pieces: &[Piece]) -> Result<Vec<Vec<f32>>, TeamError>;
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
}

impl Default for Options {
    fn default() -> Self {
        Options {
            batch: 256,
            prune: false,
            shards: 2,
            replicas: 2,
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
    /// Requests spooled by this run, spooled requests delivered by it, and those still waiting.
    pub spooled: usize,
    pub drained: usize,
    pub waiting: usize,
    /// Why the run went offline, if it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offline: Option<String>,
}

/// What the engine holds of one document, as far as this home knows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Sent {
    hash: String,
    passages: u32,
    collection: String,
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
    run.sent = load(&run.sent_file)?;
    match mapping::ensure(engine, &mapping, opts.shards, opts.replicas) {
        Ok(created) => run.summary.created = created,
        Err(e) if e.is_transient() => run.go_offline(&e),
        Err(e) => return Err(e),
    }
    run.drain()?;

    let mut todo: Vec<(Input, String, String)> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for input in inputs {
        let collection = input.collection();
        if !shared.contains(&collection) {
            run.summary.not_shared += 1;
            continue;
        }
        seen.insert(input.doc.id.clone());
        let hash = content_hash(&input);
        if run.sent.get(&input.doc.id).is_some_and(|s| s.hash == hash) {
            run.summary.unchanged += 1;
            continue;
        }
        todo.push((input, collection, hash));
    }
    progress(run.summary.not_shared + run.summary.unchanged);

    let mut batch = Batch::default();
    for (input, collection, hash) in todo {
        let chunks = vectors.pieces(&input.doc.body);
        let vectors = if chunks.is_empty() {
            Vec::new()
        } else {
            vectors.embed(&input.doc.title, &chunks)?
        };
        let passages = record::passages(
            &input.doc,
            &collection,
            &hash,
            &chunks,
            input.body_line,
            Some(vectors),
            who,
        );
        let before = run.sent.get(&input.doc.id).map_or(0, |s| s.passages);
        let now = passages.len() as u32;
        batch
            .deletes
            .extend((now..before).map(|seq| record::passage_id(&input.doc.id, seq)));
        batch.docs.push((
            input.doc.id.clone(),
            Sent {
                hash,
                passages: now,
                collection,
            },
        ));
        batch.adds.extend(passages);
        if batch.adds.len() >= opts.batch.max(1) {
            run.send(std::mem::take(&mut batch))?;
            progress(run.summary.not_shared + run.summary.unchanged + run.summary.sent);
        }
    }
    if opts.prune {
        let gone: Vec<(String, u32)> = run
            .sent
            .iter()
            .filter(|(id, s)| !seen.contains(*id) && shared.contains(&s.collection))
            .map(|(id, s)| (id.clone(), s.passages))
            .collect();
        for (id, n) in gone {
            batch
                .deletes
                .extend((0..n).map(|seq| record::passage_id(&id, seq)));
            batch.removed.push(id);
        }
    }
    run.send(batch)?;
    if run.online && run.summary.sent + run.summary.removed + run.summary.drained > 0 {
        // Everything acknowledged becomes searchable now, not at the next soft commit.
        // A commit that fails for a moment is made by the engine's own soft commit soon after.
        if let Err(e) = engine.post_json(
            &format!("{}/update", engine.index()),
            &[("commit", "true")],
            b"{}",
        ) && !e.is_transient()
        {
            return Err(e);
        }
    }
    run.summary.waiting = run.spool.pending()?.len();
    Ok(run.summary)
}

/// Documents of one bulk request.
#[derive(Default)]
struct Batch {
    adds: Vec<Passage>,
    deletes: Vec<String>,
    docs: Vec<(String, Sent)>,
    removed: Vec<String>,
}

impl Batch {
    fn is_empty(&self) -> bool {
        self.adds.is_empty() && self.deletes.is_empty()
    }

    /// The update request: `{"delete": [ids], "add": {"doc": …}, "add": …}` (Solr's JSON update
    /// commands, in which a key repeats).
    fn body(&self) -> Result<Vec<u8>, TeamError> {
        let json = |e: serde_json::Error| TeamError::Io {
            path: "update".into(),
            source: std::io::Error::other(e),
        };
        let mut out = Vec::from(&b"{"[..]);
        let mut first = true;
        if !self.deletes.is_empty() {
            out.extend_from_slice(b"\"delete\":");
            serde_json::to_writer(&mut out, &self.deletes).map_err(json)?;
            first = false;
        }
        for p in &self.adds {
            if !first {
                out.push(b',');
            }
            first = false;
            out.extend_from_slice(b"\"add\":{\"doc\":");
            serde_json::to_writer(&mut out, p).map_err(json)?;
            out.push(b'}');
        }
        out.push(b'}');
        Ok(out)
    }
}

struct Run<'a> {
    engine: &'a Engine,
    spool: Spool,
    sent_file: PathBuf,
    sent: BTreeMap<String, Sent>,
    online: bool,
    summary: Summary,
    warn: &'a dyn Fn(String),
}

impl Run<'_> {
    fn go_offline(&mut self, e: &TeamError) {
        self.online = false;
        self.summary.offline = Some(e.to_string());
    }

    fn post(&self, body: &[u8]) -> Result<(), TeamError> {
        let path = format!("{}/update", self.engine.index());
        self.engine
            .post_json(&path, &[("commitWithin", "5000")], body)
            .map(|_| ())
    }

    /// Send what the spool holds; a request the engine refuses for good is set aside
    /// (`spool/refused/`) and reported, never retried forever.
    fn drain(&mut self) -> Result<(), TeamError> {
        if !self.online {
            return Ok(());
        }
        loop {
            let mut refused = None;
            let (n, r) = self.spool.drain(&mut |body| match self.post(body) {
                Err(e) if !e.is_transient() => {
                    refused = Some(e.to_string());
                    Err(e)
                }
                other => other,
            });
            self.summary.drained += n;
            match r {
                Ok(()) => return Ok(()),
                Err(e) if e.is_transient() => {
                    self.go_offline(&e);
                    return Ok(());
                }
                Err(e) if refused.is_some() => {
                    let files = self.spool.pending()?;
                    if let Some(first) = files.first() {
                        let aside = self.spool.dir().join("refused");
                        std::fs::create_dir_all(&aside)
                            .and_then(|_| {
                                std::fs::rename(
                                    first,
                                    aside.join(first.file_name().unwrap_or_default()),
                                )
                            })
                            .map_err(|source| TeamError::Io {
                                path: first.clone(),
                                source,
                            })?;
                        (self.warn)(format!(
                            "a spooled request was refused by the engine and set aside in {}: {e}",
                            brain_store::display_path(&aside)
                        ));
                    }
                }
                Err(e) => return Err(e),
            }
        }
    }

    fn send(&mut self, batch: Batch) -> Result<(), TeamError> {
        if batch.is_empty() {
            return Ok(());
        }
        let body = batch.body()?;
        if self.online {
            match self.post(&body) {
                Ok(()) => return self.settle(batch),
                Err(e) if e.is_transient() => self.go_offline(&e),
                Err(TeamError::Engine { status: 400, .. }) if batch.docs.len() > 1 => {
                    return self.one_by_one(batch);
                }
                Err(e @ TeamError::Engine { status: 400, .. }) => {
                    for (id, _) in &batch.docs {
                        (self.warn)(format!("{id}: refused by the engine: {e}"));
                    }
                    self.summary.refused += batch.docs.len();
                    return Ok(());
                }
                Err(e) => return Err(e),
            }
        }
        self.spool.put(&body)?;
        self.summary.spooled += 1;
        self.settle(batch)
    }

    /// A request the engine refused as a whole: each document alone, so one bad document costs
    /// only itself.
    fn one_by_one(&mut self, batch: Batch) -> Result<(), TeamError> {
        let Batch {
            adds,
            deletes,
            docs,
            removed,
        } = batch;
        self.send(Batch {
            adds: Vec::new(),
            deletes,
            docs: Vec::new(),
            removed,
        })?;
        let mut adds = adds.into_iter().peekable();
        for (id, sent) in docs {
            let mine: Vec<Passage> =
                std::iter::from_fn(|| adds.next_if(|p| p.doc_id == id)).collect();
            self.send(Batch {
                adds: mine,
                deletes: Vec::new(),
                docs: vec![(id, sent)],
                removed: Vec::new(),
            })?;
        }
        Ok(())
    }

    /// Record what a delivered (or spooled) request did.
    fn settle(&mut self, batch: Batch) -> Result<(), TeamError> {
        self.summary.sent += batch.docs.len();
        self.summary.passages += batch.adds.len();
        self.summary.removed += batch.removed.len();
        for (id, s) in batch.docs {
            self.sent.insert(id, s);
        }
        for id in batch.removed {
            self.sent.remove(&id);
        }
        save(&self.sent_file, &self.sent)
    }
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

fn load(path: &Path) -> Result<BTreeMap<String, Sent>, TeamError> {
    match std::fs::read(path) {
        Ok(bytes) => Ok(serde_json::from_slice(&bytes).unwrap_or_default()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(BTreeMap::new()),
        Err(source) => Err(TeamError::Io {
            path: path.to_path_buf(),
            source,
        }),
    }
}

fn save(path: &Path, sent: &BTreeMap<String, Sent>) -> Result<(), TeamError> {
    let io = |source| TeamError::Io {
        path: path.to_path_buf(),
        source,
    };
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(io)?;
    }
    let bytes = serde_json::to_vec(sent).map_err(|e| io(std::io::Error::other(e)))?;
    brain_doc::atomic::write(path, &bytes).map_err(io)
}

/// What [`forget`] did with a document in one engine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Forgotten {
    /// The engine deleted every passage of it.
    Deleted,
    /// The engine could not be reached: the delete waits in the spool, sent before anything
    /// else by the next `teamindex` run.
    Spooled(String),
}

/// Delete every passage of `doc_id` from `engine` (`brain forget --purge`): by a query on the
/// document id, so nothing of it stays whatever this home remembers having sent.
pub fn forget(state_dir: &Path, engine: &Engine, doc_id: &str) -> Result<Forgotten, TeamError> {
    let sent_file = state_dir.join("sent.json");
    let body = serde_json::json!({"delete": {"query": format!("doc_id:{}", crate::query::quoted(doc_id))}})
        .to_string();
    let path = format!("{}/update", engine.index());
    let outcome = match engine.post_json(&path, &[("commit", "true")], body.as_bytes()) {
        Ok(_) => Forgotten::Deleted,
        Err(e) if e.is_transient() => {
            Spool::new(state_dir.join("spool")).put(body.as_bytes())?;
            Forgotten::Spooled(e.to_string())
        }
        Err(e) => return Err(e),
    };
    let mut sent = load(&sent_file)?;
    if sent.remove(doc_id).is_some() {
        save(&sent_file, &sent)?;
    }
    Ok(outcome)
}

/// The documents this home sent to one engine index, as far as it knows: id → passages.
pub fn sent(state_dir: &Path) -> Result<BTreeMap<String, u32>, TeamError> {
    Ok(load(&state_dir.join("sent.json"))?
        .into_iter()
        .map(|(id, s)| (id, s.passages))
        .collect())
}
