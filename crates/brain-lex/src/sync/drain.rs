//! The index queue drained by a writer's run ([`crate::queue`]): what runs that could not get the
//! lock, or were stopped, left behind goes into this run's commit.

use std::collections::HashSet;

use brain_store::Lock;

use super::{Indexer, SyncError};

impl Indexer {
    /// Index what the queue holds ([`crate::queue`]) that this run did not index itself; returns
    /// the queue's lock, held until the commit (then the queue is emptied). A walk of every
    /// collection read every file on disk already: only records that are not on disk are left.
    pub(super) fn drain_queue(&mut self) -> Result<Option<Lock>, SyncError> {
        let lock = match crate::queue::lock(&self.home) {
            Ok(l) => l,
            Err(e) => {
                self.summary
                    .field_warnings
                    .push(format!("the index queue was not read: {e}"));
                return Ok(None);
            }
        };
        let (entries, bad) = match crate::queue::read(&self.home) {
            Ok(r) => r,
            Err(e) => {
                self.summary.field_warnings.push(format!(
                    "{}: {e} (left for the next run)",
                    crate::queue::path(&self.home).display()
                ));
                return Ok(None);
            }
        };
        if bad > 0 {
            self.summary.field_warnings.push(format!(
                "{}: {bad} lines are not queue entries (dropped)",
                crate::queue::path(&self.home).display()
            ));
        }
        let mut done: HashSet<String> = self.given.keys().cloned().collect();
        for e in entries {
            if !done.insert(e.id()) {
                continue;
            }
            let indexed = match (&e.path, &e.doc) {
                (Some(_), _) if self.bulk => continue,
                (Some(rel), _)
                    if rel.is_empty()
                        || rel.starts_with('/')
                        || rel
                            .split('/')
                            .any(|c| c.is_empty() || c == "." || c == "..") =>
                {
                    self.summary.field_warnings.push(format!(
                        "queued record {}: not a path inside its collection: dropped",
                        e.id()
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
                    self.index_file(&e.collection, rel, &file)?
                }
                (None, Some(doc)) => self.index_doc(doc, Some(&e.collection))?,
                (None, None) => continue,
            };
            match indexed {
                Ok(()) => self.summary.from_queue += 1,
                Err(reason) => self
                    .summary
                    .field_warnings
                    .push(format!("queued record {}: {reason}", e.id())),
            }
        }
        Ok(Some(lock))
    }
}
