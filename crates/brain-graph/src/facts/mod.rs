//! Entity facts as records (issue #22, seed 001): every fact of an entity's `items.json` — in a
//! PARA folder of a user collection, `areas/people/sarah/items.json` — becomes a record of its own,
//! `inbox/entities/<collection>/<entity>/<fact id>.md`, with the memory fields its schema carries:
//!
//! | items.json | record |
//! |---|---|
//! | `fact` (required) | the body and the title |
//! | `id` | the file name (sanitized; a hash of the fact when absent or unsafe) and `fact_id` |
//! | `category` | a tag, and the `type` when it is a memory type (`decision`, `preference`, `status`, `event`, …; else `fact`) |
//! | `timestamp` | `occurred_at` and `date` |
//! | `status` | `status` (active, superseded, archived) |
//! | `supersededBy` | the successor's `supersedes` names this record (or `status: superseded` when the successor is not in the file) |
//! | `relatedEntities` | `entities`, with the entity itself |
//! | `accessCount`, `lastAccessed` | reads counted elsewhere: a registry baseline the rehearsal table adds to brain's own reads |
//!
//! The records are derived: [`sync`] (run by `lexindex --all`) writes those that changed
//! (atomically, redacted), removes those whose fact left its file, and owns `inbox/entities/`
//! alone. A file that does not read, an item without a fact, a duplicate id or a bad field is a
//! warning naming the file and the item, never a failed run. Only user collections of high trust
//! are read: a fact becomes a high-trust inbox record, so a medium-trust collection's `items.json`
//! is named and skipped. `brain forget` edits the fact in its `items.json` (the source of truth).
mod edit;
mod items;

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use serde_json::Value;

use brain_store::access::Counts;
use brain_store::{Config, Home, Registry};

pub use edit::{edit_fact, origin};
pub use items::{MAX_FACT_BYTES, MAX_FILE_BYTES};

use items::{Source, read_facts, sources};

/// The records' folder inside the inbox.
pub const FOLDER: &str = brain_store::para::FACTS_FOLDER;
/// What one [`sync`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct Summary {
    /// `items.json` files read.
    pub files: u64,
    /// Facts that are records now.
    pub facts: u64,
    /// Records written (new or changed).
    pub written: u64,
    /// Records removed (their fact left its file, or the file is gone).
    pub removed: u64,
    /// Items skipped (no fact, duplicate id, not an object).
    pub skipped: u64,
}

/// Why a sync failed as a whole (per-file problems are warnings).
#[derive(Debug, thiserror::Error)]
pub enum EntitiesError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(transparent)]
    Registry(#[from] brain_store::RegistryError),
    #[error(transparent)]
    Lock(#[from] brain_store::LockError),
}

impl brain_doc::Classified for EntitiesError {
    /// The registry's and the lock's own classes; a fact file that cannot be read is internal (99).
    fn code(&self) -> brain_doc::ErrorCode {
        match self {
            EntitiesError::Io { .. } => brain_doc::ErrorCode::Internal,
            EntitiesError::Registry(e) => brain_doc::Classified::code(e),
            EntitiesError::Lock(e) => brain_doc::Classified::code(e),
        }
    }

    fn fix(&self) -> String {
        match self {
            EntitiesError::Io { .. } => String::new(),
            EntitiesError::Registry(e) => brain_doc::Classified::fix(e),
            EntitiesError::Lock(e) => brain_doc::Classified::fix(e),
        }
    }
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> EntitiesError + '_ {
    move |source| EntitiesError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// The folder of the records: `inbox/entities/`.
pub fn folder(home: &Home) -> PathBuf {
    home.inbox().join(FOLDER)
}
/// The record id of fact `stem` of `src`: `inbox/entities/<collection>/<entity>/<stem>.md`.
fn record_rel(src: &Source, stem: &str) -> String {
    let dir = brain_store::para::facts_dir(&format!("{}/{}", src.collection, src.entity()));
    format!("{dir}/{stem}.md")
}

/// Bring `inbox/entities/` in line with every `items.json` of `config`'s user collections (see the
/// module docs), under the `entities` lock.
pub fn sync(home: &Home, config: &Config, warn: &dyn Fn(String)) -> Result<Summary, EntitiesError> {
    let mut summary = Summary::default();
    let root = folder(home);
    let found = sources(config, warn);
    // Nothing to make and nothing made before: no lock, no folder.
    if found.is_empty() && !root.exists() {
        return Ok(summary);
    }
    let _lock = brain_store::Lock::acquire_within(
        &home.lock_file("entities"),
        std::time::Duration::from_secs(30),
    )?;
    // The records are documents of the inbox collection: without it they would be found by nothing.
    if !found.is_empty() && config.collection_dir(brain_store::INBOX) != Some(home.inbox()) {
        warn(format!(
            "{} items.json files found, but brain.yaml has no `{}` collection at {}: their facts are not made records (add it: `brain collection add {} {} --role inbox`)",
            found.len(),
            brain_store::INBOX,
            home.inbox().display(),
            brain_store::INBOX,
            home.inbox().display(),
        ));
        return Ok(summary);
    }
    // rel (inside the inbox) → markdown; source file → its reads.
    let mut want: BTreeMap<String, String> = BTreeMap::new();
    let mut baselines: HashMap<String, Vec<(String, Counts)>> = HashMap::new();
    for src in found {
        let facts = read_facts(&src, warn, &mut summary.files, &mut summary.skipped);
        let entry = baselines.entry(src.name()).or_default();
        for (rel, fact) in resolved(&src, facts) {
            if let Some(c) = fact.counts {
                entry.push((format!("{}/{rel}", brain_store::INBOX), c));
            }
            match brain_doc::markdown::record(&fact.fm, &fact.body) {
                Ok((md, _)) => {
                    want.insert(rel, md);
                    summary.facts += 1;
                }
                Err(e) => {
                    warn(format!(
                        "{}: fact `{}`: {e}: skipped",
                        src.name(),
                        fact.fact_id
                    ));
                    summary.skipped += 1;
                }
            }
        }
    }
    summary.written = write_changed(home, &want)?;
    summary.removed = remove_unwanted(home, &root, &want)?;
    set_baselines(home, &baselines)?;
    Ok(summary)
}

/// The facts of one file with their supersessions resolved within it, each with its record's
/// path inside the inbox. A fact superseded by another of the file: the successor names it
/// (`supersedes`), from the successor's time on, so `--as-of` a date in between still finds it
/// current; by a fact not in the file: `status: superseded` from its own.
fn resolved(src: &Source, mut facts: Vec<items::Fact>) -> Vec<(String, items::Fact)> {
    let ids: HashMap<String, String> = facts
        .iter()
        .map(|f| {
            (
                f.fact_id.clone(),
                format!("{}/{}", brain_store::INBOX, record_rel(src, &f.stem)),
            )
        })
        .collect();
    let mut supersedes: HashMap<String, Vec<String>> = HashMap::new();
    for f in &facts {
        if let (Some(by), Some(me)) = (&f.superseded_by, ids.get(&f.fact_id))
            && ids.contains_key(by)
            && *by != f.fact_id
        {
            supersedes.entry(by.clone()).or_default().push(me.clone());
        }
    }
    for f in &mut facts {
        if let Some(s) = supersedes.remove(&f.fact_id) {
            f.fm.insert("supersedes".into(), Value::from(s));
        }
        let resolved = f.superseded_by.as_ref().map(|by| ids.contains_key(by));
        let status = f.fm.get("status").and_then(Value::as_str);
        match resolved {
            Some(true) if status == Some("superseded") => {
                f.fm.remove("status");
            }
            Some(false) => {
                f.fm.insert("status".into(), Value::from("superseded"));
            }
            _ => {}
        }
    }
    facts
        .into_iter()
        .map(|f| (record_rel(src, &f.stem), f))
        .collect()
}

/// Write the records whose markdown changed (atomically); how many.
fn write_changed(home: &Home, want: &BTreeMap<String, String>) -> Result<u64, EntitiesError> {
    let mut written = 0;
    for (rel, md) in want {
        let path = home.inbox().join(rel);
        if std::fs::read(&path).is_ok_and(|b| b == md.as_bytes()) {
            continue;
        }
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(io(dir))?;
        }
        brain_doc::atomic::write(&path, md.as_bytes()).map_err(io(&path))?;
        written += 1;
    }
    Ok(written)
}

/// Remove the records under `root` no fact wants any more, and the folders they leave empty (best
/// effort: a folder with anything else in it stays); how many.
fn remove_unwanted(
    home: &Home,
    root: &Path,
    want: &BTreeMap<String, String>,
) -> Result<u64, EntitiesError> {
    let inbox = home.inbox();
    let mut removed = 0;
    for path in existing(root) {
        let rel = path
            .strip_prefix(&inbox)
            .map(|r| r.to_string_lossy().replace('\\', "/"))
            .unwrap_or_default();
        if want.contains_key(&rel) {
            continue;
        }
        std::fs::remove_file(&path).map_err(io(&path))?;
        removed += 1;
        let mut dir = path.parent();
        while let Some(d) = dir.filter(|d| d.starts_with(root) && *d != root) {
            if std::fs::remove_dir(d).is_err() {
                break;
            }
            dir = d.parent();
        }
    }
    Ok(removed)
}

/// Reads counted in the files: one baseline set per file; a file that is gone leaves none.
fn set_baselines(
    home: &Home,
    baselines: &HashMap<String, Vec<(String, Counts)>>,
) -> Result<(), EntitiesError> {
    let Some(registry) = Registry::open_existing(home)?
        .map(Ok)
        .or_else(|| (!baselines.is_empty()).then(|| Registry::open(home)))
        .transpose()?
    else {
        return Ok(());
    };
    for gone in registry.baseline_sources()? {
        if !baselines.contains_key(&gone) {
            registry.set_baselines(&gone, &[])?;
        }
    }
    for (source, counts) in baselines {
        registry.set_baselines(source, counts)?;
    }
    Ok(())
}

/// Every `.md` file under `dir` (the records written before).
fn existing(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let Ok(t) = e.file_type() else { continue };
            let p = e.path();
            if t.is_dir() {
                stack.push(p);
            } else if t.is_file() && p.extension().is_some_and(|x| x == "md") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}
