//! The recency walk (seed 000 §7.3): what became visible in a time window, across collections, newest
//! first — the `brain recent` command, the MCP `recent` tool, and the router's chronological mode.
//!
//! **"Became visible"** means: the file's current content landed in its collection, i.e. the file's
//! mtime. That is when a session was partitioned, a browser day written, a note saved, an inbox entry
//! appended. It is not the content's own `date` (a browser day dated last week but written today is
//! new to the corpus today, and that is what a freshness audit asks about), and not the registry's
//! `lex_indexed_at` (a `lexindex --rebuild` re-stamps every document without anything new
//! arriving). Writers keep mtimes honest: `partition` leaves a file with identical bytes untouched.
//!
//! The walk reads no text: the registry (`state.sqlite`) gives title, date and the mtime it indexed;
//! a stat-only walk of each collection (the same files `lexindex --all` sees) finds what landed but
//! is not indexed yet (`indexed: false`, titled by its file name) and drops what was deleted.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::time::Instant;

use brain_doc::Classified;
use brain_doc::ErrorCode;
use brain_store::telemetry::{self, Surface};
use brain_store::{Config, ConfigError, DocEntry, Home, Registry, RegistryError};
use jiff::{Timestamp, Zoned};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Items listed when no limit is given (all are counted).
pub const DEFAULT_LIMIT: usize = 50;

/// What to walk.
#[derive(Debug, Clone)]
pub struct RecentOptions {
    /// Start of the window.
    pub since: Timestamp,
    /// Only these collections (all when empty).
    pub collections: Vec<String>,
    /// Items to list.
    pub limit: usize,
    /// The walk's "now" (age labels, time zone of `visible_at`).
    pub now: Zoned,
    /// Log a `recent` telemetry row for this surface (none: the caller logs).
    pub surface: Option<Surface>,
}

/// One document that became visible in the window.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecentItem {
    pub collection: String,
    /// `brain://<collection>/<path>`.
    pub uri: String,
    /// Path inside the collection.
    pub path: String,
    /// From the registry; the file name for a file not indexed yet.
    pub title: String,
    /// The content's date (RFC 3339) from the registry; empty when not indexed yet.
    pub date: String,
    /// When the current content landed (file mtime), RFC 3339 in the local zone.
    pub visible_at: String,
    /// `just now`, `12 min ago`, `5 h ago`, `yesterday`, `3 days ago` (from `visible_at`).
    pub age: String,
    /// Whether the lexical index holds this content (false: landed, not indexed yet).
    pub indexed: bool,
}

/// Items of one collection in the window.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CollectionTotal {
    pub collection: String,
    pub count: usize,
    /// `count / n_total` (0 when the window is empty): the collection mix.
    pub share: f64,
}

/// The walk's answer (`brain recent --json`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecentReport {
    pub schema: u32,
    /// Always `"recent"`.
    pub kind: String,
    /// Start of the window, RFC 3339.
    pub since: String,
    /// Milliseconds the walk took.
    pub walk_ms: u64,
    /// Items in the window (all, not only those listed).
    pub n_total: usize,
    /// Of those, not yet in the lexical index.
    pub pending: usize,
    /// Every walked collection with its count and share, most items first.
    pub collections: Vec<CollectionTotal>,
    /// Newest first, at most the limit.
    pub items: Vec<RecentItem>,
}

/// Why the walk could not run.
#[derive(Debug, thiserror::Error)]
pub enum RecentError {
    #[error("no registry at {0}: nothing has been indexed yet")]
    NoRegistry(String),
    #[error("no collection `{0}` (see `brain collection list`)")]
    UnknownCollection(String),
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error(transparent)]
    Registry(#[from] RegistryError),
}

impl brain_doc::Classified for RecentError {
    /// 65 without a registry, 64 for a bad collection or brain.yaml, else internal.
    fn code(&self) -> ErrorCode {
        match self {
            RecentError::NoRegistry(_) => ErrorCode::IndexMissing,
            RecentError::UnknownCollection(_) => ErrorCode::BadQuery,
            RecentError::Config(e) => e.code(),
            RecentError::Registry(e) => e.code(),
        }
    }

    /// What to do about it.
    fn fix(&self) -> String {
        match self {
            RecentError::NoRegistry(_) => {
                "index the collections first: `lexindex --all` (or capture with `brain inbox`)"
                    .into()
            }
            RecentError::UnknownCollection(_) => {
                "pick a collection of `brain collection list`".into()
            }
            RecentError::Config(e) => e.fix(),
            RecentError::Registry(e) => e.fix(),
        }
    }
}

/// Walk `home` for what became visible since `opts.since` (see the module docs).
pub fn walk(home: &Home, opts: &RecentOptions) -> Result<RecentReport, RecentError> {
    let started = Instant::now();
    let result = walk_inner(home, opts, started);
    if let Some(surface) = opts.surface {
        let mut row = Map::new();
        match &result {
            Ok(r) => {
                row.insert("walk_ms".into(), Value::from(r.walk_ms));
                row.insert("n_total".into(), Value::from(r.n_total));
            }
            Err(e) => {
                row.insert("error".into(), Value::from(e.code().as_str()));
            }
        }
        let _ = telemetry::append(home, surface.as_str(), "recent", row);
    }
    result
}

fn walk_inner(
    home: &Home,
    opts: &RecentOptions,
    started: Instant,
) -> Result<RecentReport, RecentError> {
    let config = Config::load(home)?;
    for c in &opts.collections {
        if config.collection(c).is_none() {
            return Err(RecentError::UnknownCollection(c.clone()));
        }
    }
    // A read: the registry opened as it is (never created or migrated, and read-only where the
    // process must write nothing).
    let Some(registry) = Registry::open_existing(home)? else {
        return Err(RecentError::NoRegistry(
            home.state_db().display().to_string(),
        ));
    };
    let since_ns = i64::try_from(opts.since.as_nanosecond()).unwrap_or(i64::MIN);
    let in_window: HashMap<String, DocEntry> = registry
        .changed_since(since_ns)?
        .into_iter()
        .map(|e| (e.id.clone(), e))
        .collect();
    let mut items: Vec<(i64, RecentItem)> = Vec::new();
    let mut totals: BTreeMap<String, usize> = BTreeMap::new();
    for c in &config.collections {
        if !opts.collections.is_empty() && !opts.collections.contains(&c.name) {
            continue;
        }
        totals.insert(c.name.clone(), 0);
        for (rel, path) in brain_store::walk::of_collection(&config, c, &|_| {}) {
            let Some(mtime_ns) = mtime_ns(&path) else {
                continue;
            };
            if mtime_ns < since_ns {
                continue;
            }
            let id = format!("{}/{rel}", c.name);
            let known = match in_window.get(&id) {
                Some(e) => Some(e.clone()),
                None => registry.get(&id)?,
            };
            items.push((
                mtime_ns,
                item(&c.name, &rel, &path, mtime_ns, known.as_ref(), &opts.now),
            ));
            *totals.entry(c.name.clone()).or_default() += 1;
        }
    }
    items.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.uri.cmp(&b.1.uri)));
    let n_total = items.len();
    let pending = items.iter().filter(|(_, i)| !i.indexed).count();
    let mut collections: Vec<CollectionTotal> = totals
        .into_iter()
        .map(|(collection, count)| CollectionTotal {
            collection,
            count,
            share: if n_total == 0 {
                0.0
            } else {
                (count as f64 / n_total as f64 * 1000.0).round() / 1000.0
            },
        })
        .collect();
    collections.sort_by(|a, b| {
        b.count
            .cmp(&a.count)
            .then_with(|| a.collection.cmp(&b.collection))
    });
    Ok(RecentReport {
        schema: brain_doc::SCHEMA,
        kind: "recent".into(),
        since: opts
            .since
            .to_zoned(opts.now.time_zone().clone())
            .strftime("%Y-%m-%dT%H:%M:%S%:z")
            .to_string(),
        walk_ms: started.elapsed().as_millis() as u64,
        n_total,
        pending,
        collections,
        items: items.into_iter().take(opts.limit).map(|(_, i)| i).collect(),
    })
}

fn mtime_ns(path: &Path) -> Option<i64> {
    std::fs::metadata(path)
        .ok()
        .map(|m| brain_doc::file::mtime_ns(&m))
}

fn item(
    collection: &str,
    rel: &str,
    path: &Path,
    mtime_ns: i64,
    known: Option<&DocEntry>,
    now: &Zoned,
) -> RecentItem {
    let at = Timestamp::from_nanosecond(i128::from(mtime_ns)).unwrap_or(Timestamp::UNIX_EPOCH);
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    RecentItem {
        collection: collection.into(),
        uri: format!("brain://{collection}/{rel}"),
        path: rel.into(),
        title: known.map_or(stem, |e| e.title.clone()),
        date: known.map(|e| e.date.clone()).unwrap_or_default(),
        visible_at: at
            .to_zoned(now.time_zone().clone())
            .strftime("%Y-%m-%dT%H:%M:%S%:z")
            .to_string(),
        age: age_label(now.timestamp().as_second() - at.as_second()),
        indexed: known
            .is_some_and(|e| e.mtime_ns == mtime_ns && e.file == path.display().to_string()),
    }
}

/// `just now` (< 1 min), `N min ago` (< 1 h), `N h ago` (< 24 h), `yesterday` (< 48 h), `N days ago`;
/// a time in the future (clock skew) is `just now`.
pub fn age_label(secs: i64) -> String {
    match secs {
        ..60 => "just now".into(),
        60..3600 => format!("{} min ago", secs / 60),
        3600..86_400 => format!("{} h ago", secs / 3600),
        86_400..172_800 => "yesterday".into(),
        _ => format!("{} days ago", secs / 86_400),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn age_labels() {
        assert_eq!(age_label(-5), "just now");
        assert_eq!(age_label(59), "just now");
        assert_eq!(age_label(61), "1 min ago");
        assert_eq!(age_label(7_300), "2 h ago");
        assert_eq!(age_label(90_000), "yesterday");
        assert_eq!(age_label(3 * 86_400 + 5), "3 days ago");
    }

    #[test]
    fn no_registry_is_exit_65_and_an_unknown_collection_64() {
        let dir = tempfile::tempdir().expect("tempdir");
        let home = Home::at(dir.path());
        let opts = RecentOptions {
            since: Timestamp::UNIX_EPOCH,
            collections: vec![],
            limit: 10,
            now: Zoned::now(),
            surface: None,
        };
        assert_eq!(
            walk(&home, &opts)
                .expect_err("no registry")
                .code()
                .exit_code(),
            65
        );
        let bad = RecentOptions {
            collections: vec!["nope".into()],
            ..opts
        };
        assert_eq!(
            walk(&home, &bad).expect_err("unknown").code().exit_code(),
            64
        );
    }
}
