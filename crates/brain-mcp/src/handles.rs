//! What the server keeps open across calls: `brain.yaml`, the search strategy and the lexical index
//! (a searcher on its last commit). Each is reloaded when its file changed on disk — `lexindex`
//! commits rewrite `index/lex/meta.json` — so a session sees new documents without a restart, and
//! an unchanged index costs one `stat` per call.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use brain_doc::{ErrorCode, ErrorRecord};
use brain_docs::DocIds;
use brain_lex::LexIndex;
use brain_rank::{Ranker, Strategy};
use brain_store::{Config, Home};

/// When and how big a file was; `None` when it does not exist.
type Stamp = Option<(SystemTime, u64)>;

fn stamp(path: &Path) -> Stamp {
    let m = std::fs::metadata(path).ok()?;
    Some((m.modified().ok()?, m.len()))
}

/// A value loaded from a file, with the file's stamp at load time.
struct Cached<T> {
    stamp: Stamp,
    value: T,
}

/// Reload `slot` from `path` with `load` unless the file is unchanged since the last load.
fn refresh<'a, T>(
    slot: &'a mut Option<Cached<T>>,
    path: &Path,
    load: impl FnOnce() -> Result<T, ErrorRecord>,
) -> Result<&'a T, ErrorRecord> {
    let now = stamp(path);
    if slot.as_ref().is_none_or(|c| c.stamp != now) {
        *slot = None;
        *slot = Some(Cached {
            stamp: now,
            value: load()?,
        });
    }
    match slot {
        Some(c) => Ok(&c.value),
        None => Err(ErrorRecord::new(ErrorCode::Internal, "handle vanished", "")),
    }
}

/// The open handles of one home.
pub struct Handles {
    home: Home,
    config: Option<Cached<Config>>,
    strategy: Option<Cached<Strategy>>,
    ranker: Option<Cached<Ranker>>,
}

impl Handles {
    /// Nothing is opened until first needed.
    pub fn new(home: Home) -> Self {
        Handles {
            home,
            config: None,
            strategy: None,
            ranker: None,
        }
    }

    /// The home.
    pub fn home(&self) -> &Home {
        &self.home
    }

    /// `brain.yaml` (defaults when absent).
    pub fn config(&mut self) -> Result<&Config, ErrorRecord> {
        let home = self.home.clone();
        refresh(&mut self.config, &home.config(), || {
            Config::load(&home).map_err(|e| {
                ErrorRecord::new(
                    ErrorCode::BadQuery,
                    e.to_string(),
                    "fix brain.yaml (see docs/collections.md)",
                )
            })
        })
    }

    /// `search_strategy.yaml` (defaults when absent).
    pub fn strategy(&mut self) -> Result<&Strategy, ErrorRecord> {
        let path = self.home.root().join(Strategy::FILE);
        refresh(&mut self.strategy, &path.clone(), || {
            Strategy::load(&path).map_err(|e| {
                ErrorRecord::new(
                    ErrorCode::BadQuery,
                    e.to_string(),
                    "fix or remove $BRAIN_HOME/search_strategy.yaml",
                )
            })
        })
    }

    /// The lexical ranker on the index's last commit.
    pub fn ranker(&mut self) -> Result<&Ranker, ErrorRecord> {
        let home = self.home.clone();
        refresh(&mut self.ranker, &lex_meta(&home), || {
            Ranker::open(&home).map_err(|e| ErrorRecord::new(e.code(), e.to_string(), e.fix()))
        })
    }

    /// The config and a source of document ids for `get` / `multi_get` / resources: the open
    /// searcher, or (no index) the home, whose lookup then reports the missing index when a `#docid`
    /// or glob needs it.
    pub fn docs(&mut self) -> Result<(&Config, &dyn DocIds), ErrorRecord> {
        self.config()?;
        let have_index = self.ranker().is_ok();
        let config = match &self.config {
            Some(c) => &c.value,
            None => return Err(ErrorRecord::new(ErrorCode::Internal, "config vanished", "")),
        };
        let ids: &dyn DocIds = match (&self.ranker, have_index) {
            (Some(r), true) => r.value.searcher(),
            _ => &self.home,
        };
        Ok((config, ids))
    }
}

/// The file every lexical index commit rewrites.
fn lex_meta(home: &Home) -> PathBuf {
    LexIndex::dir(home).join("meta.json")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_index_is_an_index_missing_record_and_config_defaults_load() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut h = Handles::new(Home::at(dir.path()));
        let e = h.ranker().err().expect("no index");
        assert_eq!(e.error, ErrorCode::IndexMissing);
        assert!(e.fix.contains("lexindex"), "{e:?}");
        assert_eq!(h.config().expect("defaults").collections.len(), 4);
    }

    #[test]
    fn config_is_reloaded_when_the_file_changes() {
        let dir = tempfile::tempdir().expect("tempdir");
        let home = Home::at(dir.path());
        let mut h = Handles::new(home.clone());
        assert_eq!(h.config().expect("defaults").collections.len(), 4);
        let mut c = Config::defaults(&home);
        c.remove_collection("inbox").expect("remove");
        c.save().expect("save");
        assert_eq!(h.config().expect("reloaded").collections.len(), 3);
    }
}
