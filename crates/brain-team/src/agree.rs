//! Whether this home and a team engine agree (`brain doctor`'s `team` check): the index's mapping,
//! and the documents this home sent — by id, with their passage counts — against what the engine
//! holds from this author and machine.

use std::collections::BTreeMap;
use std::path::Path;

use crate::mapping::{self, MAPPING_VERSION};
use crate::query::quoted;
use crate::record::Who;
use crate::spool::Spool;
use crate::{Engine, TeamError};

/// The comparison of one engine index with this home's record of it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Agreement {
    /// The index's schema name; `None` when the engine has no such index.
    pub mapping: Option<String>,
    /// The mapping is one this build of brain reads.
    pub mapping_ok: bool,
    /// Documents and passages this home sent (as it remembers).
    pub local_docs: usize,
    pub local_passages: u64,
    /// Documents and passages of this author and machine the engine holds.
    pub remote_docs: usize,
    pub remote_passages: u64,
    /// Sent, not in the engine; in the engine, not sent (as far as this home knows); in both with
    /// another passage count.
    pub missing: Vec<String>,
    pub extra: Vec<String>,
    pub differ: Vec<String>,
    /// Requests waiting in the spool (while some wait, missing documents are expected).
    pub waiting: usize,
}

impl Agreement {
    /// Nothing differs, or what differs is waiting in the spool.
    pub fn agrees(&self) -> bool {
        self.mapping_ok
            && self.extra.is_empty()
            && (self.waiting > 0 || (self.missing.is_empty() && self.differ.is_empty()))
    }
}

/// Compare `engine`'s index with the state in `state_dir`, for the documents `who` sent.
pub fn agreement(engine: &Engine, state_dir: &Path, who: &Who) -> Result<Agreement, TeamError> {
    let local = crate::sink::sent(state_dir)?;
    let mut a = Agreement {
        local_docs: local.len(),
        local_passages: local.values().map(|n| u64::from(*n)).sum(),
        waiting: Spool::new(state_dir.join("spool")).pending()?.len(),
        ..Agreement::default()
    };
    a.mapping = mapping::read(engine)?;
    let Some(name) = &a.mapping else {
        a.mapping_ok = local.is_empty();
        a.missing = local.keys().take(20).cloned().collect();
        return Ok(a);
    };
    a.mapping_ok = name.starts_with(&format!("brain-{MAPPING_VERSION}-"));
    let params: Vec<(String, String)> = [
        ("q", "*:*".to_string()),
        (
            "fq",
            format!(
                "author:{} AND machine:{}",
                quoted(&who.author),
                quoted(&who.machine)
            ),
        ),
        ("rows", "0".into()),
        ("facet", "true".into()),
        ("facet.field", "doc_id".into()),
        ("facet.limit", "-1".into()),
        ("facet.mincount", "1".into()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    let answer = engine.select(&params)?;
    let mut remote: BTreeMap<String, u64> = BTreeMap::new();
    if let Some(flat) = answer["facet_counts"]["facet_fields"]["doc_id"].as_array() {
        for pair in flat.chunks(2) {
            if let [id, n] = pair
                && let (Some(id), Some(n)) = (id.as_str(), n.as_u64())
            {
                remote.insert(id.to_string(), n);
            }
        }
    }
    a.remote_docs = remote.len();
    a.remote_passages = remote.values().sum();
    for (id, n) in &local {
        match remote.get(id) {
            None => a.missing.push(id.clone()),
            Some(m) if *m != u64::from(*n) => a.differ.push(format!("{id}: {n} sent, {m} held")),
            Some(_) => {}
        }
    }
    a.extra = remote
        .keys()
        .filter(|id| !local.contains_key(*id))
        .cloned()
        .collect();
    Ok(a)
}
