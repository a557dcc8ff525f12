//! Record names (frontmatter `id:`) as supersession reads them in a run: the registry's, with this
//! run's documents as they are now.

use std::collections::{HashMap, HashSet};

use super::{Indexer, SyncError};

impl Indexer {
    /// Record names (frontmatter `id:`, lower case) → the one record of each: the registry's, with
    /// this run's documents as they are now (what `supersedes: <name>` resolves to). A name two
    /// records claim names neither.
    pub(super) fn names(&self) -> Result<HashMap<String, String>, SyncError> {
        let written: HashSet<&str> = self
            .links
            .iter()
            .map(|d| d.id.as_str())
            .chain(self.removals.iter().map(String::as_str))
            .collect();
        let old = self.registry.names()?;
        let new = self.links.iter().flat_map(|d| {
            d.links
                .iter()
                .filter(|l| l.kind == brain_store::NAME)
                .map(|l| (l.doc_id.clone(), l.target.clone()))
        });
        Ok(crate::lifecycle::unique_names(
            old.into_iter()
                .filter(|(doc, _)| !written.contains(doc.as_str()))
                .chain(new),
        ))
    }
}
