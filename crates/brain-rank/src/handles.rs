//! What a long-running surface (the MCP server, `brain browse`) keeps open across calls: `brain.yaml` and the search engine (the lexical index on
//! its last commit, the strategy, and — once a query needs them — the vector store and the embedding
//! model). Each is reloaded when its files changed on disk — `lexindex` commits rewrite
//! `index/lex/meta.json`, `vecindex` swaps `index/vec/manifest.json` — so a session sees new documents
//! without a restart, and an unchanged home costs a few `stat`s per call.

use std::path::PathBuf;
use std::time::SystemTime;

use brain_doc::{ErrorCode, ErrorRecord};
use brain_lex::LexIndex;
use brain_store::{Config, Home};

use crate::{Engine, Ranker, Strategy};

/// When and how big each watched file was; `None` for one that does not exist.
pub type Stamp = Vec<Option<(SystemTime, u64)>>;

/// The [`Stamp`] of `paths` now: a cache keyed by it is stale when it differs.
pub fn stamp(paths: &[PathBuf]) -> Stamp {
    paths
        .iter()
        .map(|p| {
            let m = std::fs::metadata(p).ok()?;
            Some((m.modified().ok()?, m.len()))
        })
        .collect()
}

/// A value loaded from a file, with the file's stamp at load time.
struct Cached<T> {
    stamp: Stamp,
    value: T,
}

/// Reload `slot` with `load` unless every file of `paths` is unchanged since the last load.
fn refresh<'a, T>(
    slot: &'a mut Option<Cached<T>>,
    paths: &[PathBuf],
    load: impl FnOnce() -> Result<T, ErrorRecord>,
) -> Result<&'a T, ErrorRecord> {
    let now = stamp(paths);
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
    engine: Option<Cached<Engine>>,
    /// Engines answering from a team engine, by its name in brain.yaml (`team.engines`).
    team: std::collections::HashMap<String, Engine>,
}

impl Handles {
    /// Nothing is opened until first needed.
    pub fn new(home: Home) -> Self {
        Handles {
            home,
            config: None,
            engine: None,
            team: std::collections::HashMap::new(),
        }
    }

    /// The home.
    pub fn home(&self) -> &Home {
        &self.home
    }

    /// `brain.yaml` (defaults when absent).
    pub fn config(&mut self) -> Result<&Config, ErrorRecord> {
        let home = self.home.clone();
        refresh(&mut self.config, &[home.config()], || {
            Config::load(&home).map_err(|e| ErrorRecord::of(&e))
        })
    }

    /// The engine if one is open (nothing is opened or refreshed).
    pub fn engine_if_open(&self) -> Option<&Engine> {
        self.engine.as_ref().map(|c| &c.value)
    }

    /// The search engine (strategy, lexical index; vectors and model when first needed).
    pub fn engine(&mut self) -> Result<&Engine, ErrorRecord> {
        let home = self.home.clone();
        // brain.yaml too: the engine checks collection filters against it.
        let watched = [
            lex_meta(&home),
            home.vectors().join("manifest.json"),
            home.root().join(Strategy::FILE),
            home.config(),
        ];
        refresh(&mut self.engine, &watched, || {
            Engine::open(&home).map_err(|e| ErrorRecord::of(&e))
        })
    }

    /// The search engine answering from the team engine `name` (brain.yaml's `team.engines`;
    /// a name only: a caller never makes brain reach a URL of its choosing), opened once.
    pub fn team_engine(&mut self, name: &str) -> Result<&Engine, ErrorRecord> {
        if !self.team.contains_key(name) {
            let team = Config::load(&self.home).ok().and_then(|c| c.team);
            if !team.is_some_and(|t| t.engines.contains_key(name)) {
                return Err(ErrorRecord::new(
                    ErrorCode::BadQuery,
                    format!(
                        "no team engine `{}` in brain.yaml",
                        name.chars()
                            .filter(|c| !c.is_control())
                            .take(80)
                            .collect::<String>()
                    ),
                    "name one of brain.yaml's team.engines (docs/team.md)",
                ));
            }
            let engine = Engine::open(&self.home).map_err(|e| ErrorRecord::of(&e))?;
            let remote = crate::engine::Remote::connect(engine.config(), Some(name), false)
                .map_err(|e| ErrorRecord::of(&e))?;
            self.team
                .insert(name.to_string(), engine.with_remote(remote));
        }
        self.team
            .get(name)
            .ok_or_else(|| ErrorRecord::new(ErrorCode::Internal, "team engine vanished", ""))
    }

    /// The lexical ranker on the index's last commit.
    pub fn ranker(&mut self) -> Result<&Ranker, ErrorRecord> {
        self.engine()?.ranker().map_err(|e| ErrorRecord::of(&e))
    }

    /// The config, the lexical ranker when an index opens (for a caller that can do without),
    /// and the home — borrowed together.
    pub fn parts(&mut self) -> Result<(&Config, Option<&Ranker>, &Home), ErrorRecord> {
        self.config()?;
        let _ = self.engine();
        let config = match &self.config {
            Some(c) => &c.value,
            None => return Err(ErrorRecord::new(ErrorCode::Internal, "config vanished", "")),
        };
        let ranker = self.engine.as_ref().and_then(|e| e.value.ranker().ok());
        Ok((config, ranker, &self.home))
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

    /// The engine checks collection filters against brain.yaml, so a collection added while the
    /// server runs must not be refused by an engine opened before.
    #[test]
    fn the_engine_is_reopened_when_brain_yaml_changes() {
        let dir = tempfile::tempdir().expect("tempdir");
        let home = Home::at(dir.path());
        let mut h = Handles::new(home.clone());
        let now = crate::clock::now();
        let req = crate::SearchRequest::builder(&now, &crate::Strategy::default())
            .plain("lock")
            .expect("query")
            .scope(&["late".into()], &[], &[])
            .build();
        let unknown = |r: Result<crate::Answer, crate::RunError>| {
            matches!(r, Err(crate::RunError::UnknownCollection { .. }))
        };
        assert!(unknown(h.engine().expect("engine").search(&req, &now)));
        let mut c = Config::defaults(&home);
        c.add_collection(brain_store::Collection {
            name: "late".into(),
            path: "late".into(),
            glob: brain_store::DEFAULT_GLOB.into(),
            role: String::new(),
            trust: brain_store::Trust::default(),
            follow_links: false,
        })
        .expect("add");
        c.save().expect("save");
        assert!(!unknown(h.engine().expect("engine").search(&req, &now)));
    }
}
