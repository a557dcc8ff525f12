//! Ties settled by document ([`brain_doc::tie_key`], kept as the `tie` fast field), so two builds
//! of the same files answer alike whatever order their segments hold passages in.

use tantivy::DocAddress;
use tantivy::columnar::Column;

use super::{SearchError, Searcher};

impl Searcher {
    /// Make a list ordered by a key (a score, a date) the same whatever order the index holds its
    /// passages in: [`Searcher::drop_open_run`], then [`DocKeys::order_run`] over every run.
    pub fn settle_ties<K: PartialEq + Clone>(
        &self,
        list: &mut Vec<(K, DocAddress)>,
        exhausted: bool,
    ) -> Result<(), SearchError> {
        Self::drop_open_run(list, exhausted);
        let keys = self.doc_keys()?;
        let mut start = 0;
        while start < list.len() {
            start = keys.order_run(list, start);
        }
        Ok(())
    }

    /// Unless the list is `exhausted`, drop its last run of equal keys: passages left out of the
    /// list may share that key, and which of them the list kept follows indexing order (the caller
    /// widens when too few are left).
    pub fn drop_open_run<K: PartialEq>(list: &mut Vec<(K, DocAddress)>, exhausted: bool) {
        if !exhausted && let Some(last) = list.last().map(|(k, _)| k) {
            let keep = list
                .iter()
                .rposition(|(k, _)| k != last)
                .map_or(0, |i| i + 1);
            list.truncate(keep);
        }
    }

    /// The document keys of every segment (opening a column reads no postings: cheap per query).
    pub fn doc_keys(&self) -> Result<DocKeys, SearchError> {
        let columns = self
            .searcher
            .segment_readers()
            .iter()
            .map(|r| r.fast_fields().u64(crate::schema::TIE))
            .collect::<Result<_, _>>()?;
        Ok(DocKeys(columns))
    }
}

/// Each segment's `tie` column: a passage's document key ([`brain_doc::tie_key`] of its id) read
/// without loading the passage — what orders ties and what folds a candidate list into documents.
pub struct DocKeys(Vec<Column<u64>>);

impl DocKeys {
    /// The document key of the passage at `addr` (0 for an address outside the index, which no
    /// search returns).
    pub fn of(&self, addr: DocAddress) -> u64 {
        self.0
            .get(addr.segment_ord as usize)
            .and_then(|c| c.first(addr.doc_id))
            .unwrap_or(0)
    }

    /// Order the run of equal keys that starts at `start` by document ([`brain_doc::tie_key`] of
    /// its id, read from the `tie` fast field), then by place: a document's passages are indexed
    /// together and in order, so within one document the index order is the passage order in every
    /// build. Returns where the run ends.
    pub fn order_run<K: PartialEq + Clone>(
        &self,
        list: &mut [(K, DocAddress)],
        start: usize,
    ) -> usize {
        let Some((key, _)) = list.get(start) else {
            return start;
        };
        let end = list[start..]
            .iter()
            .position(|(k, _)| k != key)
            .map_or(list.len(), |n| start + n);
        if end - start > 1 {
            let run = &mut list[start..end];
            let mut keyed: Vec<(u64, DocAddress, usize)> = run
                .iter()
                .enumerate()
                .map(|(i, (_, addr))| (self.of(*addr), *addr, i))
                .collect();
            keyed.sort_by_key(|(tie, addr, _)| (*tie, *addr));
            let sorted: Vec<(K, DocAddress)> =
                keyed.into_iter().map(|(_, _, i)| run[i].clone()).collect();
            run.clone_from_slice(&sorted);
        }
        end
    }
}
