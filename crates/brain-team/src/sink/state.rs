//! What this home sent to one engine index (`state/team/<key>/sent.json`), and forgetting a
//! document there.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::spool::Spool;
use crate::{Engine, TeamError};

/// What the engine holds of one document, as far as this home knows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(super) struct Sent {
    pub(super) hash: String,
    pub(super) passages: u32,
    pub(super) collection: String,
}

/// What this home sent to one index (`sent.json`); [`TeamError::Damaged`] when it does not parse.
pub(super) fn load(path: &Path) -> Result<BTreeMap<String, Sent>, TeamError> {
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

pub(super) fn save(path: &Path, sent: &BTreeMap<String, Sent>) -> Result<(), TeamError> {
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
    // First out of the spool: an add waiting there (sent while the engine was away) would
    // otherwise carry the purged text to the engine before the delete.
    let spool = Spool::new(state_dir.join("spool"));
    spool.scrub(doc_id)?;
    let body = serde_json::json!({"delete": {"query": format!("doc_id:{}", crate::query::quoted(doc_id))}})
        .to_string();
    let path = format!("{}/update", engine.index());
    let outcome = match engine.post_json(&path, &[("commit", "true")], body.as_bytes()) {
        Ok(_) => Forgotten::Deleted,
        Err(e) if e.is_transient() => {
            spool.put(body.as_bytes())?;
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
