//! Delivering a push: the bulk requests ([`Batch`]) of one run ([`Run`]), sent, retried while the
//! engine is slow, spooled while it is away, drained first by the next run.

use std::cell::Cell;
use std::collections::{BTreeMap, HashSet};
use std::path::PathBuf;
use std::time::Duration;

use super::state::{Sent, load, save};
use super::{Input, Summary, Vectors, content_hash};
use crate::record::{self, Passage, Who};
use crate::spool::{Commands, Spool};
use crate::{Engine, TeamError};

/// Documents of one bulk request.
#[derive(Default)]
pub(super) struct Batch {
    pub(super) adds: Vec<Passage>,
    pub(super) deletes: Vec<String>,
    /// Documents whose every passage is deleted (by query) before the adds.
    pub(super) purge: Vec<String>,
    pub(super) docs: Vec<(String, Sent)>,
    pub(super) removed: Vec<String>,
}

impl Batch {
    pub(super) fn is_empty(&self) -> bool {
        self.adds.is_empty() && self.deletes.is_empty() && self.purge.is_empty()
    }

    /// The update request: `{"delete": {"query": …}, "delete": [ids], "add": {"doc": …}, "add":
    /// …}` (Solr's JSON update commands, in which a key repeats, applied in order).
    pub(super) fn body(&self) -> Result<Vec<u8>, TeamError> {
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

pub(super) struct Run<'a> {
    pub(super) engine: &'a Engine,
    pub(super) spool: Spool,
    pub(super) sent_file: PathBuf,
    pub(super) sent: BTreeMap<String, Sent>,
    pub(super) online: bool,
    /// sent.json was damaged: documents this run sends have their old passages deleted first.
    pub(super) lost: bool,
    pub(super) retries: u32,
    pub(super) pause: Duration,
    pub(super) retried: Cell<usize>,
    pub(super) summary: Summary,
    pub(super) warn: &'a dyn Fn(String),
}

impl Run<'_> {
    /// Read `sent.json`. A damaged one is set aside: what the engine holds of each document is
    /// unknown, so each is sent again with its passages deleted by document first, and no stale
    /// chunk outlives the lost state.
    pub(super) fn load_state(&mut self) -> Result<(), TeamError> {
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
    pub(super) fn select(
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
    pub(super) fn add(
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
        let pieces = vectors.pieces(&collection, &input.doc.body);
        let embedded = if pieces.chunks.is_empty() {
            Vec::new()
        } else {
            vectors.embed(&input.doc.title, &pieces.chunks)?
        };
        let passages = record::passages(
            &input.doc,
            &collection,
            &hash,
            &pieces,
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
    pub(super) fn prune(&self, batch: &mut Batch, seen: &HashSet<String>, shared: &[String]) {
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
    pub(super) fn finish(mut self) -> Result<Summary, TeamError> {
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

    pub(super) fn go_offline(&mut self, e: &TeamError) {
        self.online = false;
        self.summary.offline = Some(e.to_string());
    }

    /// One bulk request, asked again (`Options::retries`) while the engine is there but slow or
    /// failing: every request is idempotent (adds by id, deletes by id), so a retry of one the
    /// engine did apply changes nothing.
    pub(super) fn post(&self, body: &[u8]) -> Result<(), TeamError> {
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
    /// (`spool/refused/`) and reported, never retried forever. What it carried is not lost: its
    /// documents are sent again (this run sends what `sent.json` does not hold as it is), and a
    /// file that does not read as a request at all (damaged) is never sent — nobody can tell which
    /// documents it carried, so every shared document is sent again, old passages deleted first.
    pub(super) fn drain(&mut self) -> Result<(), TeamError> {
        if !self.online {
            return Ok(());
        }
        loop {
            // Why the first file that did not go was refused, and the documents it carried
            // (`None`: it did not read).
            let mut refused: Option<(String, Option<Vec<String>>)> = None;
            let (n, r) = self.spool.drain(&mut |body| {
                let Some(commands) = Commands::parse(body) else {
                    let e = TeamError::Config("not an update request (damaged)".into());
                    refused = Some((e.to_string(), None));
                    return Err(e);
                };
                match self.post(body) {
                    Err(e) if !e.is_transient() => {
                        refused = Some((e.to_string(), Some(commands.added_docs())));
                        Err(e)
                    }
                    other => other,
                }
            });
            self.summary.drained += n;
            match (r, refused) {
                (Ok(()), _) => return Ok(()),
                (Err(e), None) if e.is_transient() => {
                    self.go_offline(&e);
                    return Ok(());
                }
                (Err(_), Some((why, docs))) => self.set_aside(&why, docs)?,
                (Err(e), None) => return Err(e),
            }
        }
    }

    /// Move the spool's first file to `spool/refused/`, and send what it carried again.
    fn set_aside(&mut self, why: &str, docs: Option<Vec<String>>) -> Result<(), TeamError> {
        let files = self.spool.pending()?;
        let Some(first) = files.first() else {
            return Ok(());
        };
        let aside = self.spool.dir().join("refused");
        std::fs::create_dir_all(&aside)
            .and_then(|_| std::fs::rename(first, aside.join(first.file_name().unwrap_or_default())))
            .map_err(|source| TeamError::Io {
                path: first.clone(),
                source,
            })?;
        let again = match docs {
            Some(docs) => {
                for id in &docs {
                    self.sent.remove(id);
                }
                format!("its {} documents are sent again", docs.len())
            }
            None => {
                self.sent.clear();
                self.lost = true;
                "every shared document is sent again".to_string()
            }
        };
        (self.warn)(format!(
            "a spooled request was refused and set aside in {}: {why}; {again}",
            brain_store::display_path(&aside)
        ));
        // Kept at once: a run that sends nothing else still leaves them to be sent again.
        save(&self.sent_file, &self.sent)
    }

    pub(super) fn send(&mut self, batch: Batch) -> Result<(), TeamError> {
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
    pub(super) fn one_by_one(&mut self, batch: Batch) -> Result<(), TeamError> {
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
    pub(super) fn settle(&mut self, batch: Batch) -> Result<(), TeamError> {
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
