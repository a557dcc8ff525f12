//! Which collection and file a doc belongs to (the `partition` stage), by the rules of `brain.yaml`.
//!
//! A doc that already names a declared collection keeps it and its path (re-partitioning is a no-op).
//! Otherwise the first matching [`Rule`] (or `partition.default`) picks the collection, and the rule's
//! [`Layout`] the path: `month` → `YYYY/MM/<stem>.md`, `year` → `YYYY/<stem>.md`, `flat` → `<stem>.md`,
//! `keep` → the doc's own path. `<stem>` is the doc's suggested file name without `.md`; `YYYY`/`MM`
//! come from the doc's date (`undated/` if it has none). Paths are made safe: no `..`, no absolute
//! paths, only `[A-Za-z0-9._-]` in a component. The doc's id becomes `<collection>/<path>`.

use std::collections::HashMap;
use std::path::PathBuf;

use brain_doc::Doc;
use globset::{Glob, GlobMatcher};
use serde_json::Value;

use crate::{Config, ConfigError, Layout, Rule};

/// Why a doc could not be placed.
#[derive(Debug, thiserror::Error)]
pub enum PlaceError {
    #[error("doc `{id}` names collection `{collection}`, which brain.yaml does not declare")]
    UnknownCollection { id: String, collection: String },
    #[error("doc `{id}`: {reason}")]
    Invalid { id: String, reason: String },
}

/// Where a doc went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placement {
    /// The collection.
    pub collection: String,
    /// Path inside it.
    pub path: String,
    /// The markdown file on disk.
    pub file: PathBuf,
    /// The collection's folder (`file` = `root` / `path`).
    pub root: PathBuf,
}

/// The compiled partition rules of one config.
pub struct Partitioner {
    rules: Vec<(Rule, Option<GlobMatcher>)>,
    default: String,
    dirs: HashMap<String, PathBuf>,
}

impl Partitioner {
    /// Compile the rules of `cfg` (validating it first).
    pub fn new(cfg: &Config) -> Result<Partitioner, ConfigError> {
        cfg.validate()?;
        let mut rules = Vec::with_capacity(cfg.partition.rules.len());
        for (i, r) in cfg.partition.rules.iter().enumerate() {
            let glob = match &r.file {
                Some(g) => Some(
                    Glob::new(g)
                        .map_err(|e| ConfigError::BadGlob {
                            index: i + 1,
                            glob: g.clone(),
                            reason: e.to_string(),
                        })?
                        .compile_matcher(),
                ),
                None => None,
            };
            rules.push((r.clone(), glob));
        }
        let dirs = cfg
            .collections
            .iter()
            .map(|c| (c.name.clone(), cfg.resolve(&c.path)))
            .collect();
        Ok(Partitioner {
            rules,
            default: cfg.partition.default.clone(),
            dirs,
        })
    }

    /// The rule `doc` matches, if any.
    fn rule_for(&self, doc: &Doc) -> Option<&Rule> {
        self.rules
            .iter()
            .map(|(r, g)| (r, g))
            .find(|(r, g)| matches(r, g.as_ref(), doc))
            .map(|(r, _)| r)
    }

    /// Decide collection and path for `doc`, and set its `collection`, `path` and `id`.
    pub fn place(&self, doc: &mut Doc) -> Result<Placement, PlaceError> {
        let (collection, path) = match doc.collection.clone() {
            Some(c) => {
                if !self.dirs.contains_key(&c) {
                    return Err(PlaceError::UnknownCollection {
                        id: doc.id.clone(),
                        collection: c,
                    });
                }
                (c, safe_path(&doc.path))
            }
            None => {
                let (collection, layout) = match self.rule_for(doc) {
                    Some(r) => (r.collection.clone(), r.layout),
                    None => (self.default.clone(), Layout::Month),
                };
                (collection, layout_path(doc, layout))
            }
        };
        if path.is_empty() {
            return Err(PlaceError::Invalid {
                id: doc.id.clone(),
                reason: "no usable path or id".into(),
            });
        }
        let dir = self
            .dirs
            .get(&collection)
            .ok_or_else(|| PlaceError::UnknownCollection {
                id: doc.id.clone(),
                collection: collection.clone(),
            })?;
        let file = dir.join(&path);
        doc.id = format!("{collection}/{path}");
        doc.collection = Some(collection.clone());
        doc.path = path.clone();
        Ok(Placement {
            collection,
            path,
            file,
            root: dir.clone(),
        })
    }
}

/// What [`Claims::settle`] did with a placement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Settled {
    /// The file is free, holds this very source, or neither names a source file.
    Placed,
    /// The file holds a document of another source (another transcript, another History file):
    /// this document was moved aside to a path of its own, `<stem>-<hash of its source>.md`, so
    /// neither is lost. `holder` is the other source.
    MovedAside { holder: String },
}

/// Which source holds each target file, so that no document overwrites another source's (DESIGN:
/// ids never collide silently). Reads a target's frontmatter the first time it is claimed, and
/// remembers this run's claims (so `--dry-run` and one batch see their own placements).
#[derive(Default)]
pub struct Claims {
    held: HashMap<PathBuf, String>,
}

impl Claims {
    /// Check `placed` against the source holding its file; when another source holds it, move
    /// `doc` aside (its `id`, `path` and the placement change). The aside path depends only on the
    /// doc's source, so every later run settles the same way.
    pub fn settle(&mut self, doc: &mut Doc, placed: &mut Placement) -> Settled {
        let mine = doc.source.file.clone();
        let outcome = match self.holder(&placed.file) {
            Some(h) if !h.is_empty() && !mine.is_empty() && *h != mine => {
                let holder = h.clone();
                let hash = brain_doc::sha256_hex(mine.as_bytes());
                let stem = placed.path.strip_suffix(".md").unwrap_or(&placed.path);
                let aside = format!("{stem}-{}.md", &hash[..8]);
                placed.file = placed.root.join(&aside);
                placed.path = aside;
                doc.path = placed.path.clone();
                doc.id = format!("{}/{}", placed.collection, placed.path);
                Settled::MovedAside { holder }
            }
            _ => Settled::Placed,
        };
        self.held.insert(placed.file.clone(), mine);
        outcome
    }

    /// The source file of the document at `file` (empty when it names none), if there is one.
    fn holder(&mut self, file: &std::path::Path) -> Option<&String> {
        if !self.held.contains_key(file) {
            let text = std::fs::read_to_string(file).ok()?;
            let doc = Doc::from_markdown(&text).ok()?;
            self.held.insert(file.to_path_buf(), doc.source.file);
        }
        self.held.get(file)
    }
}

/// Write `doc`'s markdown form to `file` atomically, unless the file already holds exactly those
/// bytes (so an unchanged doc keeps its mtime and `lexindex --all` skips it). True if written.
pub fn write(doc: &Doc, file: &std::path::Path) -> std::io::Result<bool> {
    let text = doc.to_markdown();
    if std::fs::read(file).is_ok_and(|old| old == text.as_bytes()) {
        return Ok(false);
    }
    brain_doc::atomic::write(file, text.as_bytes())?;
    Ok(true)
}

fn matches(r: &Rule, glob: Option<&GlobMatcher>, doc: &Doc) -> bool {
    r.kind.as_ref().is_none_or(|k| *k == doc.source.kind)
        && r.agent
            .as_ref()
            .is_none_or(|a| doc.source.agent.as_ref() == Some(a))
        && glob.is_none_or(|g| g.is_match(&doc.source.file))
        && r.meta
            .iter()
            .all(|(k, want)| doc.meta.get(k).is_some_and(|v| text(v) == *want))
}

fn text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The path of `doc` under `layout`.
pub fn layout_path(doc: &Doc, layout: Layout) -> String {
    if layout == Layout::Keep {
        return safe_path(&doc.path);
    }
    let name = doc.path.rsplit('/').next().unwrap_or_default();
    let mut stem = safe_component(name.strip_suffix(".md").unwrap_or(name));
    if stem.is_empty() {
        stem = safe_component(&doc.id.replace('/', "__"));
    }
    if stem.is_empty() {
        return String::new();
    }
    let date = doc.date.as_bytes();
    let ym = (date.len() >= 7
        && date[..4].iter().all(u8::is_ascii_digit)
        && date[4] == b'-'
        && date[5..7].iter().all(u8::is_ascii_digit))
    .then(|| (&doc.date[..4], &doc.date[5..7]));
    match (layout, ym) {
        (Layout::Flat, _) => format!("{stem}.md"),
        (Layout::Year, Some((y, _))) => format!("{y}/{stem}.md"),
        (Layout::Month, Some((y, m))) => format!("{y}/{m}/{stem}.md"),
        _ => format!("undated/{stem}.md"),
    }
}

/// `p` as a safe relative path ending in `.md`: components sanitized, `.`/`..`/empty dropped.
pub fn safe_path(p: &str) -> String {
    let parts: Vec<String> = p
        .split(['/', '\\'])
        .filter(|c| !c.is_empty() && *c != "." && *c != "..")
        .map(safe_component)
        .filter(|c| !c.is_empty())
        .collect();
    let mut out = parts.join("/");
    if !out.is_empty() && !out.ends_with(".md") {
        out.push_str(".md");
    }
    out
}

/// `c` as one safe path component: `[A-Za-z0-9._-]` kept, anything else `_`, no leading dot. The
/// one rule for names that become files (partition paths, ingest ids).
pub fn safe_component(c: &str) -> String {
    let s: String = c
        .chars()
        .map(|ch| {
            if ch.is_ascii_alphanumeric() || matches!(ch, '.' | '-' | '_') {
                ch
            } else {
                '_'
            }
        })
        .collect();
    s.trim_start_matches('.').to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Home;
    use brain_doc::Source;

    fn doc(kind: &str, agent: Option<&str>, id: &str, date: &str) -> Doc {
        let src = Source {
            kind: kind.into(),
            agent: agent.map(Into::into),
            file: "~/x.jsonl".into(),
            lines: None,
            sha256: None,
            parts: vec![],
        };
        Doc::new(id, "t", date, src)
    }

    #[test]
    fn default_rules_place_sessions_by_month_and_browser_days_by_year() {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = Partitioner::new(&Config::defaults(&Home::at(dir.path()))).expect("rules");
        let mut s = doc(
            "session",
            Some("claude"),
            "02b3c2d7-aa",
            "2026-04-02T10:00:00Z",
        );
        let placed = p.place(&mut s).expect("place");
        assert_eq!(s.id, "brain/2026/04/02b3c2d7-aa.md");
        assert_eq!(
            placed.file,
            dir.path().join("corpus/brain/2026/04/02b3c2d7-aa.md")
        );
        let mut b = doc(
            "browser",
            Some("chrome"),
            "chrome__Default__2026-04-02",
            "2026-04-02T00:00:00+02:00",
        );
        p.place(&mut b).expect("place");
        assert_eq!(b.id, "chrome-history/2026/chrome__Default__2026-04-02.md");
        let mut n = doc("note", None, "whatever", "");
        p.place(&mut n).expect("place");
        assert_eq!(n.id, "brain/undated/whatever.md");
    }

    #[test]
    fn meta_and_agent_conditions_and_first_match_wins() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut cfg = Config::defaults(&Home::at(dir.path()));
        let mut rule = cfg.partition.rules[0].clone();
        rule.collection = "inbox".into();
        rule.agent = Some("codex".into());
        rule.meta.insert("project".into(), "x".into());
        cfg.partition.rules.insert(0, rule);
        let p = Partitioner::new(&cfg).expect("rules");
        let mut a = doc("session", Some("codex"), "codex__1", "2026-01-05T00:00:00Z");
        a.meta.insert("project".into(), Value::String("x".into()));
        assert_eq!(p.place(&mut a).expect("place").collection, "inbox");
        let mut b = doc("session", Some("codex"), "codex__2", "2026-01-05T00:00:00Z");
        assert_eq!(p.place(&mut b).expect("place").collection, "brain");
    }

    #[test]
    fn paths_cannot_escape_the_collection() {
        assert_eq!(safe_path("../../etc/passwd"), "etc/passwd.md");
        assert_eq!(safe_path("/abs/a b.md"), "abs/a_b.md");
        assert_eq!(safe_path(".."), "");
    }

    #[test]
    fn a_partitioned_doc_keeps_its_place_and_an_unknown_collection_is_refused() {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = Partitioner::new(&Config::defaults(&Home::at(dir.path()))).expect("rules");
        let mut s = doc("session", Some("claude"), "x", "2026-04-02T10:00:00Z");
        p.place(&mut s).expect("first");
        let before = s.clone();
        p.place(&mut s).expect("again");
        assert_eq!(s, before);
        s.collection = Some("nope".into());
        assert!(matches!(
            p.place(&mut s),
            Err(PlaceError::UnknownCollection { .. })
        ));
    }
}
