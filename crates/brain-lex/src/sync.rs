//! One indexing run: take the `lexindex` lock, bring the index and the registry in line with doc
//! records (stdin) or with the collections on disk (`--all`), commit once.
//!
//! Incremental by design: a file whose mtime and size match the registry is not read; one whose
//! bytes hash to the registered sha256 is not re-indexed; a registered document whose file is gone is
//! deleted. The tantivy writer is opened only when something changed, so a no-change run costs a
//! directory walk and one registry read.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use brain_doc::Doc;
use brain_store::{Config, DocEntry, DocLinks, FileStat, Home, Lock, Registry};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use tantivy::{IndexWriter, TantivyDocument, Term};

use crate::document::{Prepared, Shape};

mod drain;
mod error;
mod names;
use crate::{LexError, LexIndex};
pub use error::SyncError;

/// What a run did; `lexindex --json` prints it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Summary {
    /// Always `"lexindex_summary"`.
    pub kind: String,
    /// Documents new to the index.
    pub added: u64,
    /// Documents re-indexed because their content changed.
    pub updated: u64,
    /// Documents deleted because their file is gone.
    pub removed: u64,
    /// Documents already indexed with the same content.
    pub unchanged: u64,
    /// Records or files skipped with a warning.
    pub skipped: u64,
    /// Passages written in this run.
    pub passages: u64,
    /// Records whose supersession changed (a newer record of their key came or went).
    #[serde(default)]
    pub superseded_changes: u64,
    /// Memory fields that could not be read (`path: \`field: value\` ignored: expected …`); the
    /// records are indexed without them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub field_warnings: Vec<String>,
    /// Wall time of the run.
    pub took_ms: u64,
    /// Records of the index queue ([`crate::queue`]) this run indexed: left there by a run that
    /// could not get the lock, or by one killed before it committed.
    #[serde(default)]
    pub from_queue: u64,
    /// Records this run could not index because another run held the lock: left in the queue
    /// for the next run of any writer (`lexindex` given records on stdin).
    #[serde(default)]
    pub queued: u64,
    /// The ids this run removed (their files gone, or purged): their vectors go too
    /// (`brain_vec::index::forget`).
    #[serde(skip)]
    pub removed_ids: Vec<String>,
}

/// An indexing run in progress. Create with [`Indexer::open`], feed it, then [`Indexer::finish`].
pub struct Indexer {
    lex: LexIndex,
    writer: Option<IndexWriter<TantivyDocument>>,
    writer_threads: usize,
    /// A walk of whole collections: merge segments (default log merge policy) and wait for it. Any
    /// other run (the stop-hook path) merges only small segments
    /// ([`crate::index::small_segments_policy`]), so it cannot stall behind a large merge.
    bulk: bool,
    /// Ids put so far by a run that builds a new index aside (`rebuild`, or no index yet), where
    /// an id not put yet has no passages to delete first: `None` for a run on the live index. Such
    /// a run ignores the registry for skipping (every file goes into the new index), replaces all
    /// its rows at the end, and publishes the new index in one step
    /// ([`LexIndex::publish`]): readers see the old index until then, and a killed run leaves it
    /// intact. (On a full rebuild of
    /// the bench corpus the 10,000 needless deletes were ~1 % of the CPU, perf 2026-11-24.)
    fresh: Option<HashSet<String>>,
    registry: Registry,
    home: Home,
    config: Config,
    upserts: Vec<DocEntry>,
    removals: Vec<String>,
    /// The graph rows of every document put by this run ([`crate::graph`]).
    links: Vec<DocLinks>,
    /// The source file of each record indexed by this run ([`Indexer::index_doc`]): a second
    /// record with the same id from another source is a collision, refused, never a replacement.
    given: HashMap<String, String>,
    /// Records purged by this run ([`Indexer::purge`]): their segments are merged at the end so
    /// no deleted text stays in a segment file.
    purged: bool,
    /// The stat (mtime, size) of every file a walk of every collection saw ([`Indexer::sync_all`]),
    /// by id: the queue's files written or changed since are indexed again as they are now.
    walked: Option<drain::Walked>,
    summary: Summary,
    started: Instant,
    now: i64,
    _lock: Lock,
}

/// Registry rows written in one run past which the WAL is checkpointed at the end (see
/// [`Registry::checkpoint`]); the stop hook's one-document runs stay below it.
const BULK_CHECKPOINT: usize = 256;

fn now_secs() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

use brain_doc::file::mtime_ns;

impl Indexer {
    /// Take the lock (contention → [`SyncError::Locked`], exit 70), open or create the index (deleting
    /// it first with `rebuild`) and the registry.
    pub fn open(home: &Home, rebuild: bool) -> Result<Indexer, SyncError> {
        Self::open_within(home, rebuild, std::time::Duration::ZERO)
    }

    /// [`Indexer::open`], waiting up to `wait` for the lock (for one-file runs such as `brain inbox`
    /// that queue behind each other rather than fail).
    pub fn open_within(
        home: &Home,
        rebuild: bool,
        wait: std::time::Duration,
    ) -> Result<Indexer, SyncError> {
        let started = Instant::now();
        let lock = Lock::acquire_within(&home.lock_file("lexindex"), wait)?;
        let config = Config::load(home)?;
        config.validate()?;
        let registry = Registry::open(home)?;
        let lex = LexIndex::open_or_create(home, rebuild)?;
        let aside = lex.is_aside(home);
        Ok(Indexer {
            lex,
            writer: None,
            // Two indexing threads (the target machine has 2 cores); a one-doc run's passages may
            // land in both, two small segments.
            writer_threads: 2,
            bulk: false,
            fresh: aside.then(HashSet::new),
            home: home.clone(),
            registry,
            config,
            upserts: Vec::new(),
            removals: Vec::new(),
            links: Vec::new(),
            given: HashMap::new(),
            walked: None,
            purged: false,
            summary: Summary {
                kind: "lexindex_summary".into(),
                ..Summary::default()
            },
            started,
            now: now_secs(),
            _lock: lock,
        })
    }

    /// The loaded `brain.yaml`.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The role of `collection` (empty when it has none or is not declared).
    fn role(&self, collection: &str) -> &str {
        self.config
            .collection(collection)
            .map_or("", |c| c.role.as_str())
    }

    /// How documents of `collection` are cut: a daily note block by block.
    fn shape(&self, collection: &str) -> Shape {
        if self.config.is_daily(collection) {
            Shape::Blocks
        } else {
            Shape::Sections
        }
    }

    fn writer(&mut self) -> Result<&mut IndexWriter<TantivyDocument>, SyncError> {
        if self.writer.is_none() {
            let memory = if self.bulk {
                crate::index::BULK_WRITER_MEMORY
            } else {
                crate::index::WRITER_MEMORY
            };
            let w = self.lex.writer(self.writer_threads, memory)?;
            if !self.bulk {
                w.set_merge_policy(Box::new(crate::index::small_segments_policy()));
            }
            self.writer = Some(w);
        }
        self.writer.as_mut().ok_or_else(|| {
            SyncError::Lex(LexError::Missing {
                path: self.lex.path().to_path_buf(),
            })
        })
    }

    /// Replace whatever the index holds for `p.id` by `p`'s passages.
    fn put(
        &mut self,
        p: &Prepared,
        mtime_ns: i64,
        size: i64,
        existed: bool,
    ) -> Result<(), SyncError> {
        let fields = *self.lex.fields();
        let docs = p.to_tantivy(&fields);
        self.summary
            .field_warnings
            .extend(p.memory_warnings.iter().map(|w| format!("{}: {w}", p.id)));
        let mut said = p.links.warnings.clone();
        let links = crate::graph::doc_links(p, self.role(&p.collection), &mut said);
        self.summary
            .field_warnings
            .extend(said.iter().map(|w| format!("{}: {w}", p.id)));
        self.links.push(links);
        let delete = match &mut self.fresh {
            Some(put) => !put.insert(p.id.clone()),
            None => true,
        };
        let writer = self.writer()?;
        if delete {
            writer.delete_term(Term::from_field_text(fields.id, &p.id));
        }
        for d in docs {
            writer.add_document(d)?;
        }
        self.summary.passages += p.passages.len() as u64;
        if existed {
            self.summary.updated += 1
        } else {
            self.summary.added += 1
        }
        self.upserts.push(DocEntry {
            id: p.id.clone(),
            collection: p.collection.clone(),
            path: p.path.clone(),
            file: p.file.clone(),
            mtime_ns,
            size,
            sha256: p.sha256.clone(),
            title: p.title.clone(),
            date: p.date.clone(),
            passages: p.passages.len() as i64,
            lex_indexed_at: self.now,
        });
        Ok(())
    }

    /// Index one doc record. Its collection is `doc.collection`, else `default_collection`; the markdown
    /// file is `<collection dir>/<path>` (stat'ed if present, so a later `--all` sees it unchanged).
    /// A record that cannot be placed is an `Err(reason)` for the caller to warn about and skip.
    pub fn index_doc(
        &mut self,
        doc: &Doc,
        default_collection: Option<&str>,
    ) -> Result<Result<(), String>, SyncError> {
        let Some(collection) = doc
            .collection
            .as_deref()
            .or(default_collection)
            .map(str::to_string)
        else {
            self.summary.skipped += 1;
            return Ok(Err(format!(
                "doc `{}` has no collection (pipe it through `partition`, or pass --collection)",
                doc.id
            )));
        };
        let Some(dir) = self.config.collection_dir(&collection) else {
            self.summary.skipped += 1;
            return Ok(Err(format!(
                "doc `{}`: collection `{collection}` is not declared in brain.yaml",
                doc.id
            )));
        };
        let file = dir.join(&doc.path);
        let text = doc.to_markdown();
        let p = Prepared::from_doc(doc, &collection, &file, &text, self.shape(&collection));
        match self.given.get(&p.id) {
            Some(first) if *first != doc.source.file => {
                self.summary.skipped += 1;
                return Ok(Err(format!(
                    "doc `{}` from {} has the id of the doc from {first} earlier in this input; \
                     not indexed over it (partition gives each source a path of its own)",
                    p.id, doc.source.file
                )));
            }
            _ => {
                self.given.insert(p.id.clone(), doc.source.file.clone());
            }
        }
        let (mtime, size) = match std::fs::metadata(&file) {
            Ok(m) => (mtime_ns(&m), m.len() as i64),
            Err(_) => (0, text.len() as i64),
        };
        let existing = match self.fresh {
            Some(_) => None,
            None => self.registry.get(&p.id)?,
        };
        if existing.as_ref().is_some_and(|e| e.sha256 == p.sha256) {
            self.summary.unchanged += 1;
            return Ok(Ok(()));
        }
        self.put(&p, mtime, size, existing.is_some())?;
        Ok(Ok(()))
    }

    /// Index one file of collection `collection` (`rel`: its path inside the collection) exactly as
    /// `--all` would see it, without walking anything else: what `brain inbox` calls after writing
    /// a day file, so the entry is searchable at once and a later `--all` finds it unchanged. A file
    /// that cannot be read is an `Err(reason)` for the caller to report.
    pub fn index_file(
        &mut self,
        collection: &str,
        rel: &str,
        path: &Path,
    ) -> Result<Result<(), String>, SyncError> {
        let known = self
            .registry
            .get(&format!("{collection}/{rel}"))?
            .map(|e| FileStat {
                id: e.id,
                file: e.file,
                mtime_ns: e.mtime_ns,
                size: e.size,
                sha256: e.sha256,
            });
        let outcome = self.sync_file(
            collection,
            rel,
            path,
            std::fs::metadata(path),
            known.as_ref(),
        );
        self.file_outcome(outcome)
    }

    /// Bring the index in line with every collection of `brain.yaml` on disk. Per-file problems go to
    /// `warn` and are skipped.
    pub fn sync_all(&mut self, warn: &dyn Fn(String)) -> Result<(), SyncError> {
        self.bulk = true;
        // What is left in `known` after the walk is what was deleted. A new index knows nothing:
        // every file goes in (the registry's rows are replaced at the end).
        let mut known: HashMap<String, FileStat> = match self.fresh {
            Some(_) => HashMap::new(),
            None => self
                .registry
                .stats()?
                .into_iter()
                .map(|e| (e.id.clone(), e))
                .collect(),
        };
        let files = brain_store::walk::collection_files(&self.config, warn);
        // One stat per file, on every core: most of a no-change run.
        let metas: Vec<std::io::Result<std::fs::Metadata>> = files
            .par_iter()
            .map(|f| std::fs::metadata(&f.path))
            .collect();
        let mut stats = Vec::with_capacity(files.len());
        for (f, meta) in files.iter().zip(metas) {
            stats.push(meta.as_ref().ok().map(|m| (mtime_ns(m), m.len() as i64)));
            let k = known.remove(&format!("{}/{}", f.collection, f.rel));
            if let Err(e) = self.sync_file(&f.collection, &f.rel, &f.path, meta, k.as_ref()) {
                match e {
                    FileError::Skip(msg) => {
                        self.summary.skipped += 1;
                        warn(msg);
                    }
                    FileError::Fatal(e) => return Err(e),
                }
            }
        }
        self.walked = Some(drain::Walked::new(files, stats));
        let mut gone: Vec<String> = known.into_keys().collect();
        gone.sort();
        for id in gone {
            let field = self.lex.fields().id;
            self.writer()?
                .delete_term(Term::from_field_text(field, &id));
            self.removals.push(id);
            self.summary.removed += 1;
        }
        Ok(())
    }

    fn sync_file(
        &mut self,
        collection: &str,
        rel: &str,
        path: &Path,
        meta: std::io::Result<std::fs::Metadata>,
        known: Option<&FileStat>,
    ) -> Result<(), FileError> {
        let skip = |e: std::io::Error| FileError::Skip(format!("{}: {e}", path.display()));
        let meta = meta.map_err(skip)?;
        let (mtime, size) = (mtime_ns(&meta), meta.len() as i64);
        // The registry holds `path.display()`: compared without allocating when the path is UTF-8.
        let same_file = |k: &FileStat| match path.to_str() {
            Some(p) => p == k.file,
            None => path.display().to_string() == k.file,
        };
        // A document's text is the markdown kept of it, which changes without its file (converted
        // again, archived): compared by content below, never skipped by the file's stat.
        let document = brain_store::documents::format_of(rel).is_some();
        if let Some(k) = known
            && !document
            && k.mtime_ns == mtime
            && k.size == size
            && same_file(k)
        {
            self.summary.unchanged += 1;
            return Ok(());
        }
        // A PDF, a page, a DOCX is indexed as the markdown doc2md made of it, under its own path.
        let bytes = match document {
            true => brain_store::documents::cached(&self.home, collection, rel, &meta)
                .map(String::into_bytes)
                .ok_or_else(|| {
                    FileError::Skip(format!(
                        "{}: {}",
                        path.display(),
                        brain_store::documents::failed(&self.home, collection, rel, &meta)
                            .unwrap_or_else(|| "not converted yet (`doc2md --collections` converts it; lexindex --all runs it)".into())
                    ))
                })?,
            false => std::fs::read(path).map_err(skip)?,
        };
        let text = brain_doc::bytes::text(&bytes).0;
        let sha = brain_doc::sha256_hex(&bytes);
        if let Some(k) = known
            && k.sha256 == sha
            && same_file(k)
            && let Some(entry) = self
                .registry
                .get(&k.id)
                .map_err(|e| FileError::Fatal(e.into()))?
        {
            // Touched, not changed: refresh the registry's stat fields only.
            self.summary.unchanged += 1;
            self.upserts.push(DocEntry {
                mtime_ns: mtime,
                size,
                ..entry
            });
            return Ok(());
        }
        let p = Prepared::from_file_hashed(
            collection,
            rel,
            path,
            &text,
            mtime / 1_000_000_000,
            sha,
            self.shape(collection),
        );
        self.put(&p, mtime, size, known.is_some())
            .map_err(FileError::Fatal)
    }

    /// Delete record `id` and every passage of it for good (`brain forget --purge`): besides the
    /// delete, [`Indexer::finish`] rewrites the segments that held it, so its text leaves the
    /// index files, not only the results.
    pub fn purge(&mut self, id: &str) -> Result<(), SyncError> {
        let field = self.lex.fields().id;
        self.writer()?.delete_term(Term::from_field_text(field, id));
        self.removals.push(id.to_string());
        self.summary.removed += 1;
        self.purged = true;
        Ok(())
    }

    /// Commit the index (if anything changed), publish it when it was built aside, then update
    /// the registry; wait for merges; report. What the index queue holds is indexed in the same
    /// commit, and the queue emptied after it.
    pub fn finish(mut self) -> Result<Summary, SyncError> {
        let drained = self.drain_queue()?;
        if let Some(mut w) = self.writer.take() {
            w.commit()?;
            // Supersession is decided across records, on what this run committed.
            let reader = self
                .lex
                .index()
                .reader_builder()
                .reload_policy(tantivy::ReloadPolicy::Manual)
                .try_into()?;
            let fields = *self.lex.fields();
            // Record names are read only when a `supersedes` target is not an id.
            // A registry that cannot be read here fails the run at `apply` below; until then a
            // name resolves to nothing (its `supersedes` stays a dangling target, which doctor names).
            let names = || self.names().unwrap_or_default();
            self.summary.superseded_changes =
                crate::lifecycle::settle(&reader.searcher(), &fields, &mut w, &names)? as u64;
            if self.summary.superseded_changes > 0 {
                w.commit()?;
            }
            if self.purged {
                // A deleted document stays in its segment's files until the segment is merged.
                let holding: Vec<tantivy::index::SegmentId> = self
                    .lex
                    .index()
                    .searchable_segment_metas()?
                    .iter()
                    .filter(|m| m.has_deletes())
                    .map(|m| m.id())
                    .collect();
                if !holding.is_empty() {
                    w.merge(&holding).wait()?;
                }
            }
            // Merges the commit started: the bulk policy's, or a run's small segments folded.
            w.wait_merging_threads()?;
            // A new index is published in one segment (each adds its own top-k pass to every
            // query); a run over the index in use never merges it whole (a hook run would wait).
            if self.fresh.is_some() {
                self.lex
                    .merge_into_one(crate::index::NEW_INDEX_ONE_SEGMENT, self.writer_threads)?;
            }
        }
        if self.fresh.is_some() {
            self.lex.publish(&self.home)?;
            // The new index is all there is: every row it does not hold goes.
            let put: HashSet<&str> = self.upserts.iter().map(|e| e.id.as_str()).collect();
            self.removals = self
                .registry
                .entries(None)?
                .into_iter()
                .map(|e| e.id)
                .filter(|id| !put.contains(id.as_str()))
                .collect();
            self.summary.removed = self.removals.len() as u64;
        }
        self.registry
            .apply(&self.upserts, &self.removals, &self.links)?;
        self.summary.removed_ids = self.removals.clone();
        if let Err(e) = crate::queue::take(&self.home, &drained) {
            self.summary.field_warnings.push(format!(
                "{}: {e} (its records are indexed again, unchanged, by the next run)",
                crate::queue::path(&self.home).display()
            ));
        }
        // What queries read to find the entities they may name (a small file, not the registry).
        // A whole walk writes it whatever changed (a home indexed before the file existed gets it).
        if (self.bulk || !self.links.is_empty() || !self.removals.is_empty())
            && let Err(e) = self.registry.write_entities_file(&self.home)
        {
            self.summary.field_warnings.push(format!(
                "{e} (queries expand no alias until the next run writes it)"
            ));
        }
        if self.upserts.len() + self.removals.len() >= BULK_CHECKPOINT {
            self.registry.checkpoint();
        }
        self.summary.took_ms = self.started.elapsed().as_millis() as u64;
        Ok(self.summary)
    }

    /// The index directory.
    pub fn index_dir(&self) -> PathBuf {
        self.lex.path().to_path_buf()
    }
}

enum FileError {
    Skip(String),
    Fatal(SyncError),
}

impl Summary {
    /// `3 added, 0 updated, 1 removed, 0 unchanged in 12 ms` (+ skipped when any).
    pub fn line(&self) -> String {
        let skipped = if self.skipped > 0 {
            format!(", {} skipped", self.skipped)
        } else {
            String::new()
        };
        format!(
            "{} added, {} updated, {} removed, {} unchanged{skipped} ({} passages) in {} ms",
            self.added, self.updated, self.removed, self.unchanged, self.passages, self.took_ms
        )
    }
}
