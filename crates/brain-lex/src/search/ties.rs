//! Ties settled by document id, so two builds of the same files answer alike (whatever order
//! their segments hold passages in).

use std::collections::HashMap;

use tantivy::DocAddress;

use super::{Passage, SearchError, Searcher};

impl Searcher {
    /// Make a list ordered by a key (a score, a date) the same whatever order the index holds its
    /// passages in, so two builds of the same files answer alike: [`Searcher::drop_open_run`], then
    /// [`Searcher::order_run`] over every run. Returns the passages it loaded.
    pub fn settle_ties<K: PartialEq>(
        &self,
        list: &mut Vec<(K, DocAddress)>,
        exhausted: bool,
    ) -> Result<HashMap<DocAddress, Passage>, SearchError> {
        Self::drop_open_run(list, exhausted);
        let mut loaded = HashMap::new();
        let mut start = 0;
        while start < list.len() {
            start = self.order_run(list, start, &mut loaded)?;
        }
        Ok(loaded)
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

    /// Order the run of equal keys that starts at `start` by document id, then line (the
    /// passages it reads are kept in `loaded`); returns where the run ends. A caller that reads a
    /// list from the top orders each run as it reaches it, and reads no passage beyond its need.
    pub fn order_run<K: PartialEq>(
        &self,
        list: &mut [(K, DocAddress)],
        start: usize,
        loaded: &mut HashMap<DocAddress, Passage>,
    ) -> Result<usize, SearchError> {
        let Some((key, _)) = list.get(start) else {
            return Ok(start);
        };
        let end = list[start..]
            .iter()
            .position(|(k, _)| k != key)
            .map_or(list.len(), |n| start + n);
        if end - start > 1 {
            for (_, addr) in &list[start..end] {
                if !loaded.contains_key(addr) {
                    loaded.insert(*addr, self.passage(*addr)?);
                }
            }
            list[start..end].sort_by(|(_, a), (_, b)| {
                let (a, b) = (&loaded[a], &loaded[b]);
                a.id.cmp(&b.id).then(a.line.cmp(&b.line))
            });
        }
        Ok(end)
    }
}
