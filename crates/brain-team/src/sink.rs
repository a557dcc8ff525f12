//! `teamindex`: send the shared collections to a team engine.
//!
//! Doc records in (partition's output, or every file of the collections with `--all`), bulk
//! updates out, one summary record. Only documents of a collection in `team.shared` are ever sent;
//! the rest are counted and left. A document is sent when its content changed since it was last
//! sent (`state/team/<key>/sent.json`), as one passage per chunk with the chunk's vector from
//! brain's own model; chunks it no longer has are deleted in the same request.
//!
//! Delivery is at least once and never twice: every id is stable, so a request repeated after a
//! kill replaces what it wrote. A request the engine answers too slowly or with a 5xx is asked again
//! after a pause (twice by default, 2 s then 8 s). When the engine cannot be reached, or is still
//! too slow, the request goes to the spool on disk and the run carries on offline; the next run sends the spool first, in
//! order. The state says "sent" only once the engine acknowledged a request or the spool holds it.

use std::cell::Cell;
use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::Duration;

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

/// Documents of one bulk request.
#[derive(Default)]
struct Batch {
    adds: Vec<Passage>,
    deletes: Vec<String>,
    /// Documents whose every passage is deleted (by query) before the adds.
    purge: Vec<String>,
    docs: Vec<(String, Sent)>,
    removed: Vec<String>,
}

impl Batch {
    fn is_empty(&self) -> bool {
        self.adds.is_empty() && self.deletes.is_empty() && self.purge.is_empty()
    }

    /// The update request: `{"delete": {"query": …}, "delete": [ids], "add": {"doc": …}, "add":
    /// …}` (Solr's JSON update commands, in which a key repeats, applied in order).
    fn body(&self) -> Result<Vec<u8>, TeamError> {
        let json = |e: serde_json::Error| TeamError::Io {
            path: "update".into(),
            source: std::io::Error::other(e),
        };
        let mut out = Vec::from(&b"{"[..]);
        let mut first = true;
        if !self.purge.is_empty() {
            let ids: Vec<String> = self
                .purge
                .iter()
                .map(|id| crate::query::quoted(id))
                .collect();
            let query = serde_json::json!({"query": format!("doc_id:({})", ids.join(" OR "))});
            out.extend_from_slice(b"\"delete\":");
            serde_json::to_writer(&mut out, &query).map_err(json)?;
            first = false;
        }
        if !self.deletes.is_empty() {
            if !first {
                out.push(b',');
            }
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
    /// sent.json was damaged: documents this run sends have their old passages deleted first.
    lost: bool,
    retries: u32,
    pause: Duration,
    retried: Cell<usize>,
    summary: Summary,
    warn: &'a dyn Fn(String),
}

impl Run<'_> {
    /// Read `sent.json`. A damaged one is set aside: what the engine holds of each document is
    /// unknown, so each is sent again with its passages deleted by document first, and no stale
    /// chunk outlives the lost state.
    fn load_state(&mut self) -> Result<(), TeamError> {
        self.sent = match load(&self.sent_file) {
            Err(TeamError::Damaged { path, reason }) => {
                let aside = path.with_extension("json.damaged");
                std::fs::rename(&path, &aside).map_err(|source| TeamError::Io {
                    path: path.clone(),
                    source,
                })?;
                (self.warn)(format!(
                    "{}: damaged ({reason}); set aside as {}: every shared document is sent again",
                    brain_store::display_path(&path),
                    brain_store::display_path(&aside)
                ));
                self.lost = true;
                BTreeMap::new()
            }
            other => other?,
        };
        Ok(())
    }

    /// The inputs to send: of a shared collection, and changed since they were last sent (with
    /// their collection and content hash); and the ids of every shared input (what `--all`
    /// keeps).
    fn select(
        &mut self,
        inputs: Vec<Input>,
        shared: &[String],
    ) -> (Vec<(Input, String, String)>, HashSet<String>) {
        let mut todo = Vec::new();
        let mut seen = HashSet::new();
        for input in inputs {
            let collection = input.collection();
            if !shared.contains(&collection) {
                self.summary.not_shared += 1;
                continue;
            }
            seen.insert(input.doc.id.clone());
            let hash = content_hash(&input);
            if self.sent.get(&input.doc.id).is_some_and(|s| s.hash == hash) {
                self.summary.unchanged += 1;
                continue;
            }
            todo.push((input, collection, hash));
        }
        (todo, seen)
    }

    /// Put one changed document in `batch`: its passages (redacted, embedded), the deletes of the
    /// chunks it no longer has — or, marked `brain:do-not-index`, the deletes of all it had.
    fn add(
        &mut self,
        batch: &mut Batch,
        input: Input,
        collection: String,
        hash: String,
        vectors: &dyn Vectors,
        who: &Who,
    ) -> Result<(), TeamError> {
        let id = input.doc.id.clone();
        let before = self.sent.get(&id).map_or(0, |s| s.passages);
        let Some((input, secrets)) = input.outgoing() else {
            self.summary.withheld += 1;
            if self.lost {
                batch.purge.push(id.clone());
            }
            if self.sent.contains_key(&id) {
                batch
                    .deletes
                    .extend((0..before).map(|seq| record::passage_id(&id, seq)));
                batch.removed.push(id);
            }
            return Ok(());
        };
        self.summary.redacted += secrets as usize;
        let chunks = vectors.pieces(&input.doc.body);
        let embedded = if chunks.is_empty() {
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
            Some(embedded),
            who,
        );
        if self.lost && before == 0 {
            batch.purge.push(id.clone());
        }
        let now = passages.len() as u32;
        batch
            .deletes
            .extend((now..before).map(|seq| record::passage_id(&id, seq)));
        batch.docs.push((
            id,
            Sent {
                hash,
                passages: now,
                collection,
            },
        ));
        batch.adds.extend(passages);
        Ok(())
    }

    /// `--all`: the documents sent from a shared collection and no longer among the inputs go.
    fn prune(&self, batch: &mut Batch, seen: &HashSet<String>, shared: &[String]) {
        for (id, s) in &self.sent {
            if !seen.contains(id) && shared.contains(&s.collection) {
                batch
                    .deletes
                    .extend((0..s.passages).map(|seq| record::passage_id(id, seq)));
                batch.removed.push(id.clone());
            }
        }
    }

    /// Make everything acknowledged searchable now, not at the next soft commit (one that fails
    /// for a moment is made by the engine's own soft commit soon after), and close the summary.
    fn finish(mut self) -> Result<Summary, TeamError> {
        if self.online && self.summary.sent + self.summary.removed + self.summary.drained > 0 {
            let path = format!("{}/update", self.engine.index());
            if let Err(e) = self.engine.post_json(&path, &[("commit", "true")], b"{}")
                && !e.is_transient()
            {
                return Err(e);
            }
        }
        self.summary.waiting = self.spool.pending()?.len();
        self.summary.retried = self.retried.get();
        Ok(self.summary)
    }

    fn go_offline(&mut self, e: &TeamError) {
        self.online = false;
        self.summary.offline = Some(e.to_string());
    }

    /// One bulk request, asked again (`Options::retries`) while the engine is there but slow or
    /// failing: every request is idempotent (adds by id, deletes by id), so a retry of one the
    /// engine did apply changes nothing.
    fn post(&self, body: &[u8]) -> Result<(), TeamError> {
        let path = format!("{}/update", self.engine.index());
        let mut pause = self.pause;
        let mut left = self.retries;
        loop {
            match self
                .engine
                .post_json(&path, &[("commitWithin", "5000")], body)
            {
                Err(e)
                    if left > 0
                        && e.is_transient()
                        && !matches!(e, TeamError::Unreachable { .. }) =>
                {
                    (self.warn)(format!("{e}; asking again in {} s", pause.as_secs_f32()));
                    std::thread::sleep(pause);
                    pause = pause.saturating_mul(4);
                    left -= 1;
                    self.retried.set(self.retried.get() + 1);
                }
                r => return r.map(|_| ()),
            }
        }
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
            purge,
            docs,
            removed,
        } = batch;
        let (theirs, others): (Vec<String>, Vec<String>) = purge
            .into_iter()
            .partition(|id| docs.iter().any(|(d, _)| d == id));
        self.send(Batch {
            deletes,
            removed,
            purge: others,
            ..Batch::default()
        })?;
        let mut adds = adds.into_iter().peekable();
        for (id, sent) in docs {
            let mine: Vec<Passage> =
                std::iter::from_fn(|| adds.next_if(|p| p.doc_id == id)).collect();
            let purge = theirs.iter().filter(|p| **p == id).cloned().collect();
            self.send(Batch {
                adds: mine,
                purge,
                docs: vec![(id, sent)],
                ..Batch::default()
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

/// What this home sent to one index (`sent.json`); [`TeamError::Damaged`] when it does not parse.
fn load(path: &Path) -> Result<BTreeMap<String, Sent>, TeamError> {
    match std::fs::read(path) {
        Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| TeamError::Damaged {
            path: path.to_path_buf(),
            reason: e.to_string(),
        }),
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
    match load(&sent_file) {
        Ok(mut sent) => {
            if sent.remove(doc_id).is_some() {
                save(&sent_file, &sent)?;
            }
        }
        // The delete went out whatever the state says; the next push sets a damaged one aside.
        Err(TeamError::Damaged { .. }) => {}
        Err(e) => return Err(e),
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{BufRead, BufReader, Read, Write};
    use std::net::TcpListener;

    /// An engine that answers each request with the next status of `statuses`, and counts them.
    fn fake(statuses: Vec<u16>) -> (String, std::thread::JoinHandle<usize>) {
        let listener = TcpListener::bind("127.0.0.1:0").expect("test setup");
        let url = format!("http://{}/solr", listener.local_addr().expect("test setup"));
        let handle = std::thread::spawn(move || {
            let mut n = 0;
            for status in statuses {
                let Ok((stream, _)) = listener.accept() else {
                    break;
                };
                let mut reader = BufReader::new(stream);
                let mut len = 0usize;
                loop {
                    let mut line = String::new();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                        break;
                    }
                    if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                        len = v.trim().parse().unwrap_or(0);
                    }
                }
                let mut body = vec![0; len];
                let _ = reader.read_exact(&mut body);
                let reply = format!(
                    "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: 2\r\nconnection: close\r\n\r\n{{}}"
                );
                let _ = reader.get_mut().write_all(reply.as_bytes());
                n += 1;
            }
            n
        });
        (url, handle)
    }

    fn run<'a>(engine: &'a Engine, dir: &Path, retries: u32, warn: &'a dyn Fn(String)) -> Run<'a> {
        Run {
            engine,
            spool: Spool::new(dir.join("spool")),
            sent_file: dir.join("sent.json"),
            sent: BTreeMap::new(),
            online: true,
            lost: false,
            retries,
            pause: Duration::from_millis(1),
            retried: Cell::new(0),
            summary: Summary::default(),
            warn,
        }
    }

    #[test]
    fn an_overloaded_engine_is_asked_again_before_the_run_goes_offline() {
        let dir = tempfile::tempdir().expect("test setup");
        let (url, server) = fake(vec![503, 503, 200]);
        let engine =
            Engine::connect(&url, "brain", None, Duration::from_secs(5)).expect("test setup");
        let warned = std::cell::RefCell::new(Vec::new());
        let warn = |m: String| warned.borrow_mut().push(m);
        let r = run(&engine, dir.path(), 2, &warn);
        r.post(b"{}").expect("the third answer is a success");
        assert_eq!(r.retried.get(), 2);
        assert_eq!(server.join().expect("the fake engine"), 3);
        assert_eq!(warned.borrow().len(), 2, "{:?}", warned.borrow());
    }

    #[test]
    fn retries_are_bounded_and_a_refusal_is_not_retried() {
        let dir = tempfile::tempdir().expect("test setup");
        let (url, server) = fake(vec![503, 503, 400]);
        let engine =
            Engine::connect(&url, "brain", None, Duration::from_secs(5)).expect("test setup");
        let warn = |_: String| {};
        let r = run(&engine, dir.path(), 1, &warn);
        let e = r.post(b"{}").expect_err("two 503s with one retry");
        assert!(e.is_transient(), "{e}");
        let e = r.post(b"{}").expect_err("a 400");
        assert!(matches!(e, TeamError::Engine { status: 400, .. }), "{e}");
        assert_eq!(r.retried.get(), 1);
        assert_eq!(server.join().expect("the fake engine"), 3);
    }

    fn input(title: &str, body: &str, meta: serde_json::Value) -> Input {
        let doc = serde_json::json!({"schema": 1, "kind": "doc", "id": "notes/a.md", "collection": "notes", "path": "a.md", "title": title, "date": "2026-03-01", "source": {"type": "note", "file": "x"}, "meta": meta, "body": body});
        Input {
            doc: serde_json::from_value(doc).expect("test setup"),
            body_line: 1,
        }
    }

    #[test]
    fn what_leaves_is_redacted_and_the_opt_out_is_kept() {
        let ghp = "ghp_abcdefghijklmnopqrstuvwxyz0123456789";
        let (out, n) = input(
            &format!("t {ghp}"),
            &format!("b {ghp} <private>x</private>"),
            serde_json::json!({"key": ghp, "tags": [ghp, {"deep": ghp}], "n": 3}),
        )
        .outgoing()
        .expect("no opt-out");
        assert_eq!(n, 5);
        let all = serde_json::to_string(&out.doc).expect("test setup");
        assert!(!all.contains(ghp) && !all.contains("<private>"), "{all}");
        assert_eq!(out.doc.meta["n"], 3);
        assert!(
            input("t", "x\nbrain:do-not-index\n", serde_json::json!({}))
                .outgoing()
                .is_none()
        );
        assert!(
            input("brain:do-not-index", "x", serde_json::json!({}))
                .outgoing()
                .is_none()
        );
    }

    #[test]
    fn an_unreachable_engine_is_not_waited_for() {
        let dir = tempfile::tempdir().expect("test setup");
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("test setup")
            .port();
        let engine = Engine::connect(
            &format!("http://127.0.0.1:{port}/solr"),
            "brain",
            None,
            Duration::from_secs(5),
        )
        .expect("test setup");
        let warn = |_: String| {};
        let r = run(&engine, dir.path(), 3, &warn);
        assert!(matches!(r.post(b"{}"), Err(TeamError::Unreachable { .. })));
        assert_eq!(r.retried.get(), 0);
    }
}
