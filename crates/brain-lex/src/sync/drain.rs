//! The index queue drained by a writer's run ([`crate::queue`]): what runs that could not get the
//! lock, or were stopped, left behind goes into this run's commit.

use std::collections::HashSet;

use brain_doc::file::mtime_ns;

use std::path::Path;

use super::{FileError, Indexer, SyncError};

/// What a walk of every collection saw: each file, and its stat (mtime, size) when it had one.
/// Kept as the walk made it, no map built (a map of 81,500 entries cost a no-change run more CPU
/// in 6 alternated pairs; without one, 16 pairs measured 0.364 s before the queue kept stats and
/// 0.367 s after); the queue's few entries are looked up in it.
pub(super) struct Walked {
    files: Vec<brain_store::walk::CollectionFile>,
    stats: Vec<Option<(i64, i64)>>,
}

impl Walked {
    pub(super) fn new(
        files: Vec<brain_store::walk::CollectionFile>,
        stats: Vec<Option<(i64, i64)>>,
    ) -> Walked {
        Walked { files, stats }
    }

    /// The stat the walk saw of `collection`'s file `rel`, if it saw the file.
    pub(super) fn stat(&self, collection: &str, rel: &str) -> Option<(i64, i64)> {
        self.files
            .iter()
            .position(|f| f.rel == rel && f.collection == collection)
            .and_then(|i| self.stats[i])
    }
}

impl Indexer {
    /// Index what the queue holds ([`crate::queue`]) that this run did not index itself; returns
    /// the bytes read, which [`crate::queue::take`] takes out after the commit (entries queued
    /// meanwhile stay for the next writer). A walk of every collection read the files on disk
    /// already, but a hook's file written or changed after the walk passed it is not what the walk
    /// saw: a queued file is indexed again unless the walk saw it as it is now.
    pub(super) fn drain_queue(&mut self) -> Result<Vec<u8>, SyncError> {
        let read = crate::queue::lock(&self.home)
            .map_err(std::io::Error::other)
            .and_then(|_lock| crate::queue::read_bytes(&self.home));
        let bytes = match read {
            Ok(b) => b,
            Err(e) => {
                self.summary.field_warnings.push(format!(
                    "{}: {e} (left for the next run)",
                    crate::queue::path(&self.home).display()
                ));
                return Ok(Vec::new());
            }
        };
        let (entries, bad) = crate::queue::parse(&bytes);
        if bad > 0 {
            self.summary.field_warnings.push(format!(
                "{}: {bad} lines are not queue entries (dropped)",
                crate::queue::path(&self.home).display()
            ));
        }
        let mut done: HashSet<String> = self.given.keys().cloned().collect();
        for e in entries {
            let id = e.id();
            if !done.insert(id.clone()) {
                continue;
            }
            let indexed = match (&e.path, &e.doc) {
                (Some(rel), _)
                    if rel.is_empty()
                        || rel.starts_with('/')
                        || rel
                            .split('/')
                            .any(|c| c.is_empty() || c == "." || c == "..") =>
                {
                    self.summary.field_warnings.push(format!(
                        "queued record {id}: not a path inside its collection: dropped"
                    ));
                    continue;
                }
                (Some(rel), _) => {
                    let Some(file) = self
                        .config
                        .collection_dir(&e.collection)
                        .map(|d| d.join(rel))
                        .filter(|f| f.is_file())
                    else {
                        // Gone since (deleted, purged, its collection dropped): nothing to index.
                        continue;
                    };
                    match &self.walked {
                        Some(walked) => {
                            let meta = std::fs::metadata(&file);
                            let now = meta.as_ref().ok().map(|m| (mtime_ns(m), m.len() as i64));
                            if now.is_some() && walked.stat(&e.collection, rel) == now {
                                continue;
                            }
                            // Written after the walk listed the folder: not gone after all.
                            if let Some(at) = self.removals.iter().position(|r| *r == id) {
                                self.removals.swap_remove(at);
                                self.summary.removed -= 1;
                            }
                            self.index_walked(&e.collection, rel, &file, meta)?
                        }
                        None => self.index_file(&e.collection, rel, &file)?,
                    }
                }
                (None, Some(doc)) => self.index_doc(doc, Some(&e.collection))?,
                (None, None) => continue,
            };
            match indexed {
                Ok(()) => self.summary.from_queue += 1,
                Err(reason) => self
                    .summary
                    .field_warnings
                    .push(format!("queued record {id}: {reason}")),
            }
        }
        Ok(bytes)
    }

    /// Index one file of a walk's run again, as it is now (`meta`: its stat), whatever this run
    /// put of it before: the queue's file changed or written after the walk saw the folder.
    pub(super) fn index_walked(
        &mut self,
        collection: &str,
        rel: &str,
        path: &Path,
        meta: std::io::Result<std::fs::Metadata>,
    ) -> Result<Result<(), String>, SyncError> {
        let outcome = self.sync_file(collection, rel, path, meta, None);
        self.file_outcome(outcome)
    }

    pub(super) fn file_outcome(
        &mut self,
        outcome: Result<(), FileError>,
    ) -> Result<Result<(), String>, SyncError> {
        match outcome {
            Ok(()) => Ok(Ok(())),
            Err(FileError::Skip(msg)) => {
                self.summary.skipped += 1;
                Ok(Err(msg))
            }
            Err(FileError::Fatal(e)) => Err(e),
        }
    }
}
