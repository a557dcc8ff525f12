//! Ties settled by document ([`brain_doc::tie_key`], kept as the `tie` fast field), so two builds
//! of the same files answer alike whatever order their segments hold passages in.

use tantivy::DocAddress;

use super::{SearchError, Searcher};

impl Searcher {
    /// Make a list ordered by a key (a score, a date) the same whatever order the index holds its
    /// passages in: [`Searcher::drop_open_run`], then [`Searcher::order_run`] over every run.
    pub fn settle_ties<K: PartialEq + Clone>(
        &self,
        list: &mut Vec<(K, DocAddress)>,
        exhausted: bool,
    ) -> Result<(), SearchError> {
        Self::drop_open_run(list, exhausted);
        let mut start = 0;
        while start < list.len() {
            start = self.order_run(list, start)?;
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

    /// Order the run of equal keys that starts at `start` by document ([`brain_doc::tie_key`] of
    /// its id, read from the `tie` fast field), then by place: a document's passages are indexed
    /// together and in order, so within one document the index order is the passage order in every
    /// build. Returns where the run ends.
    pub fn order_run<K: PartialEq + Clone>(
        &self,
        list: &mut [(K, DocAddress)],
        start: usize,
    ) -> Result<usize, SearchError> {
        let Some((key, _)) = list.get(start) else {
            return Ok(start);
        };
        let end = list[start..]
            .iter()
            .position(|(k, _)| k != key)
            .map_or(list.len(), |n| start + n);
        if end - start > 1 {
            let mut columns = std::collections::HashMap::new();
            let mut keyed = Vec::with_capacity(end - start);
            for (i, (_, addr)) in list[start..end].iter().enumerate() {
                let column = match columns.entry(addr.segment_ord) {
                    std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
                    std::collections::hash_map::Entry::Vacant(v) => v.insert(
                        self.searcher
                            .segment_reader(addr.segment_ord)
                            .fast_fields()
                            .u64(crate::schema::TIE)?,
                    ),
                };
                keyed.push((column.first(addr.doc_id).unwrap_or(0), *addr, i));
            }
            keyed.sort_by_key(|(tie, addr, _)| (*tie, *addr));
            let run = &mut list[start..end];
            let sorted: Vec<(K, DocAddress)> =
                keyed.into_iter().map(|(_, _, i)| run[i].clone()).collect();
            run.clone_from_slice(&sorted);
        }
        Ok(end)
    }
}
