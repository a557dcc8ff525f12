//! `brain entity suggest`: names mentioned often enough to deserve an entity (seed 001: "promotes
//! to entities when mentioned 3+ times"), and `--apply`'s files.
//!
//! A mention is an explicit one — an `entities:` value, a `[[wiki link]]`, an `@handle` in a
//! note's prose — whose target is no document and no entity; it is counted once per document.
//! Names are grouped strictly (case and spacing aside), as aliases are matched.

use std::collections::BTreeMap;

use brain_doc::links::name_key;
use serde::Serialize;

use crate::graph::{Graph, Target};

/// Mentions (in distinct documents) from which a name is suggested (seed 001).
pub const MIN_MENTIONS: usize = 3;

/// A name that deserves an entity.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Suggestion {
    /// The name as most often written (ties: the first in order).
    pub name: String,
    /// `person` for an `@handle` or a `people/…` link, `project` for `projects/…`, `company`
    /// for `companies/…`, else `concept`.
    pub kind: String,
    /// The `@handle` it was written as, when it was (an alias of the new entity).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub handle: Option<String>,
    /// Documents that mention it.
    pub mentions: usize,
    /// Those documents' ids (at most 10), in id order.
    pub docs: Vec<String>,
}

fn kind_of(written: &str, row_kind: &str) -> &'static str {
    let w = written.to_lowercase();
    if row_kind == "handle" || w.contains("people/") || w.starts_with('@') {
        "person"
    } else if w.contains("projects/") {
        "project"
    } else if w.contains("companies/") {
        "company"
    } else {
        "concept"
    }
}

/// The names of `g` mentioned in at least `min` documents that are neither a document nor an
/// entity, most mentioned first (then by name).
pub fn suggest(g: &Graph, min: usize) -> Vec<Suggestion> {
    struct Seen {
        spellings: BTreeMap<String, usize>,
        kind: &'static str,
        handle: Option<String>,
        docs: Vec<String>,
    }
    let mut by_key: BTreeMap<String, Seen> = BTreeMap::new();
    for (row, target) in &g.dangling {
        if *target != Target::Dangling
            || !matches!(row.kind.as_str(), "entity" | "handle" | "related")
        {
            continue;
        }
        // A link to a path (`notes/x.md`, `../plan`) that is not there is a broken link, not a name.
        let base = row.target.rsplit('/').next().unwrap_or(&row.target);
        if row.target.ends_with(".md") || row.target.starts_with('.') || base.is_empty() {
            continue;
        }
        let bare = base.trim_start_matches('@');
        if bare.is_empty() {
            continue;
        }
        let key = name_key(bare);
        let s = by_key.entry(key).or_insert_with(|| Seen {
            spellings: BTreeMap::new(),
            kind: "concept",
            handle: None,
            docs: Vec::new(),
        });
        let kind = kind_of(&row.target, &row.kind);
        if kind != "concept" {
            s.kind = kind;
        }
        if base.starts_with('@') {
            s.handle.get_or_insert_with(|| base.to_string());
        }
        *s.spellings.entry(bare.to_string()).or_default() += 1;
        if !s.docs.contains(&row.doc_id) {
            s.docs.push(row.doc_id.clone());
        }
    }
    let mut out: Vec<Suggestion> = by_key
        .into_values()
        .filter(|s| s.docs.len() >= min.max(1))
        .map(|mut s| {
            s.docs.sort();
            let name = s
                .spellings
                .iter()
                .max_by(|a, b| a.1.cmp(b.1).then_with(|| b.0.cmp(a.0)))
                .map(|(n, _)| n.clone())
                .unwrap_or_default();
            let mentions = s.docs.len();
            s.docs.truncate(10);
            Suggestion {
                name,
                kind: s.kind.to_string(),
                handle: s.handle,
                mentions,
                docs: s.docs,
            }
        })
        .collect();
    out.sort_by(|a, b| {
        b.mentions
            .cmp(&a.mentions)
            .then_with(|| a.name.cmp(&b.name))
    });
    out
}

/// The `summary.md` of a new entity: its name, kind and aliases in frontmatter (`@handle` kept as
/// an alias), a heading, and where it was mentioned.
pub fn summary_md(s: &Suggestion, today: &str) -> String {
    let name = s.name.as_str();
    let aliases: Vec<&str> = s.handle.iter().map(String::as_str).collect();
    let fm = serde_json::json!({
        "title": name,
        "date": today,
        "entity": {"kind": s.kind, "name": name, "aliases": aliases},
    });
    let mut body = format!(
        "# {name}\n\n## Summary\n\n(Created by `brain entity suggest --apply`: mentioned in {} documents.)\n\n## Mentioned in\n\n",
        s.mentions
    );
    for d in &s.docs {
        body.push_str(&format!("- [[{d}]]\n"));
    }
    let map = fm.as_object().cloned().unwrap_or_default();
    brain_doc::markdown::render(&map, &body)
}

/// What `--apply` did with one suggestion.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Applied {
    pub name: String,
    /// `created`, or why not (`exists`, `unsafe name`, `secret`).
    pub outcome: String,
    /// The `summary.md` path inside the collection.
    pub rel: String,
}

/// Why `--apply` could not run at all.
#[derive(Debug, thiserror::Error)]
pub enum ApplyError {
    #[error("no collection of role `para` in brain.yaml to create entities in")]
    NoPara,
    #[error("collection `{0}` is not declared in brain.yaml")]
    Unknown(String),
    #[error("{path}: {source}")]
    Io {
        path: std::path::PathBuf,
        source: std::io::Error,
    },
}

impl brain_doc::Classified for ApplyError {
    /// A missing or unknown collection is the user's to fix (64); a folder that cannot be written is
    /// internal (99).
    fn code(&self) -> brain_doc::ErrorCode {
        match self {
            ApplyError::Io { .. } => brain_doc::ErrorCode::Internal,
            _ => brain_doc::ErrorCode::BadQuery,
        }
    }

    fn fix(&self) -> String {
        "brain collection add DIR --role para".into()
    }
}

/// Create each suggestion's entity in collection `into` (else the first of role `para`):
/// `<folder>/summary.md` and an empty `items.json`, in the PARA folder of its kind
/// ([`brain_store::para::folder_for`]). An existing folder is never written into; a name that
/// makes no safe folder name or holds a secret is skipped and said.
pub fn apply(
    config: &brain_store::Config,
    into: Option<&str>,
    suggestions: &[Suggestion],
    today: &str,
) -> Result<(String, Vec<Applied>), ApplyError> {
    use brain_store::para;
    let collection = match into {
        Some(c) => config
            .collection(c)
            .ok_or_else(|| ApplyError::Unknown(c.to_string()))?,
        None => config
            .collections
            .iter()
            .find(|c| c.role == para::ROLE_PARA)
            .ok_or(ApplyError::NoPara)?,
    };
    let root = config.resolve(&collection.path);
    let mut out = Vec::new();
    for s in suggestions {
        let outcome = |o: &str, rel: String| Applied {
            name: s.name.clone(),
            outcome: o.into(),
            rel,
        };
        if !brain_redact::find_secrets(&s.name).is_empty() {
            out.push(outcome("secret", String::new()));
            continue;
        }
        let Some(slug) = para::slug(&s.name) else {
            out.push(outcome("unsafe name", String::new()));
            continue;
        };
        let folder = para::folder_for(&s.kind, &slug);
        let rel = format!("{folder}/{}", para::SUMMARY);
        let dir = root.join(&folder);
        if std::fs::symlink_metadata(&dir).is_ok() {
            out.push(outcome("exists", rel));
            continue;
        }
        let io = |path: &std::path::Path| {
            let path = path.to_path_buf();
            move |source| ApplyError::Io { path, source }
        };
        std::fs::create_dir_all(&dir).map_err(io(&dir))?;
        // The folder must be inside the collection (a linked `areas/` could lead elsewhere).
        let inside = match (dir.canonicalize(), root.canonicalize()) {
            (Ok(d), Ok(r)) => d.starts_with(r),
            _ => false,
        };
        if !inside && !collection.follow_links {
            let _ = std::fs::remove_dir(&dir);
            out.push(outcome("outside the collection", rel));
            continue;
        }
        let summary = dir.join(para::SUMMARY);
        brain_doc::atomic::write(&summary, summary_md(s, today).as_bytes())
            .map_err(io(&summary))?;
        let items = dir.join("items.json");
        brain_doc::atomic::write(&items, b"[]\n").map_err(io(&items))?;
        out.push(outcome("created", rel));
    }
    Ok((collection.name.clone(), out))
}
