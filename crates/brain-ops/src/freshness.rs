//! Does the lexical index hold what is on disk? Every collection folder is walked the way `lexindex
//! --all` walks it (same glob, hidden entries skipped) and each file is *stat*ed — never read — against
//! the registry: files not indexed, files changed since (mtime or size differ), and registered
//! documents whose file is gone.

use std::collections::{BTreeMap, HashMap};

use brain_store::Config;
use serde::{Deserialize, Serialize};

use brain_store::FileEntry;

/// How many example ids a report names per kind of drift.
pub const EXAMPLES: usize = 5;

/// One collection's drift between disk and index.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Drift {
    /// Matching files on disk.
    pub files_on_disk: u64,
    /// Files on disk the index does not hold.
    pub not_indexed: u64,
    /// Indexed files changed on disk since (mtime or size).
    pub changed: u64,
    /// Indexed documents whose file is gone.
    pub missing_files: u64,
    /// Documents (PDF, HTML, DOCX, text) doc2md could not convert as they are: not indexed, and
    /// no re-index will change that until the file changes.
    #[serde(default)]
    pub unconverted: u64,
    /// A few document ids of each kind, for a person to look at.
    pub examples: Vec<String>,
}

impl Drift {
    /// Nothing to re-index.
    pub fn fresh(&self) -> bool {
        self.not_indexed == 0 && self.changed == 0 && self.missing_files == 0
    }

    fn example(&mut self, what: &str, id: &str) {
        if self.examples.len() < EXAMPLES * 3 {
            self.examples.push(format!("{what}: {id}"));
        }
    }
}

use brain_doc::file::mtime_ns;

/// Why the document file `rel` of `collection` is not indexed, when doc2md could not convert it
/// as it is now.
fn unconverted(
    home: &brain_store::Home,
    collection: &str,
    rel: &str,
    path: &std::path::Path,
) -> Option<String> {
    brain_store::documents::format_of(rel)?;
    let meta = std::fs::metadata(path).ok()?;
    brain_store::documents::failed(home, collection, rel, &meta)
}

/// Drift per collection of `config` (plus any collection the registry knows that brain.yaml no longer
/// declares: all its documents count as missing files).
pub fn drift(config: &Config, registered: &[FileEntry]) -> BTreeMap<String, Drift> {
    let mut by_id: HashMap<&str, &FileEntry> =
        registered.iter().map(|e| (e.id.as_str(), e)).collect();
    let mut out: BTreeMap<String, Drift> = BTreeMap::new();
    let home = brain_store::Home::at(config.home());
    for c in &config.collections {
        let d = out.entry(c.name.clone()).or_default();
        let mut counts = [0usize; 2];
        for (rel, path) in brain_store::walk::of_collection(config, c, &|_| {}) {
            d.files_on_disk += 1;
            let id = format!("{}/{rel}", c.name);
            match by_id.remove(id.as_str()) {
                None if let Some(reason) = unconverted(&home, &c.name, &rel, &path) => {
                    d.unconverted += 1;
                    d.example("could not be converted", &format!("{id} ({reason})"));
                }
                None => {
                    d.not_indexed += 1;
                    if counts[0] < EXAMPLES {
                        counts[0] += 1;
                        d.example("not indexed", &id);
                    }
                }
                Some(e) => {
                    let same = std::fs::metadata(&path)
                        .is_ok_and(|m| mtime_ns(&m) == e.mtime_ns && m.len() as i64 == e.size);
                    if !same {
                        d.changed += 1;
                        if counts[1] < EXAMPLES {
                            counts[1] += 1;
                            d.example("changed", &id);
                        }
                    }
                }
            }
        }
    }
    let mut gone: Vec<&FileEntry> = by_id.into_values().collect();
    gone.sort_by(|a, b| a.id.cmp(&b.id));
    for e in gone {
        let d = out.entry(e.collection.clone()).or_default();
        d.missing_files += 1;
        if d.missing_files as usize <= EXAMPLES {
            d.example("file gone", &e.id);
        }
    }
    out
}
