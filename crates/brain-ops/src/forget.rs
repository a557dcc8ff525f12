//! `brain forget <ref> [--restore | --purge]`: a record's lifecycle. Archive hides a record from
//! every search and keeps it on disk (seed 001's no-deletion rule): its frontmatter gets `status:
//! archived` (the memory field every surface reads) and the file is indexed again at once;
//! restore makes it `active`. Purge is the privacy exit, after confirmation: the file is deleted and
//! so is every trace of the record ([`crate::purge`]).
//!
//! An entity fact's record (`inbox/entities/…`) is derived from its `items.json`: the fact's
//! `status` is set there (archive, restore), or the fact is removed from it (purge), and the
//! records are brought in line before the index.

use std::path::Path;
use std::time::Duration;

use brain_doc::{Classified, ErrorCode};
use brain_resolve::Resolver;
use brain_store::{Config, Home};

/// What to do with the record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    Archive,
    Restore,
    Purge,
}

/// What was done.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Forgotten {
    Archived { id: String },
    Restored { id: String },
    Purged(crate::purge::Purged),
}

/// Why nothing (or not everything) was done, with its class and fix.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{message}")]
pub struct ForgetError {
    pub code: ErrorCode,
    pub message: String,
    pub fix: String,
}

impl ForgetError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> ForgetError {
        ForgetError {
            code,
            message: message.into(),
            fix: String::new(),
        }
    }

    fn of(e: &impl Classified) -> ForgetError {
        ForgetError {
            code: e.code(),
            message: e.to_string(),
            fix: e.fix(),
        }
    }
}

impl Classified for ForgetError {
    fn code(&self) -> ErrorCode {
        self.code
    }

    fn fix(&self) -> String {
        self.fix.clone()
    }
}

/// How long a purge waits for an indexing run or a vecindex run to finish.
pub const PURGE_WAIT: Duration = Duration::from_secs(30);

/// Asks whether to purge `id` (its file): `Ok(false)` is "not confirmed", nothing is deleted.
pub type Confirm<'a> = &'a dyn Fn(&str, &Path) -> Result<bool, ForgetError>;

/// Archive, restore or purge the record `reference` names (a path inside a collection,
/// `brain://collection/path` or `#docid`) in `home`. A purge asks `confirm` first; a purge stopped
/// half-way (its file gone, traces left) is finished by the same call.
pub fn forget(
    home: &Home,
    reference: &str,
    action: Action,
    confirm: Confirm<'_>,
    warn: &dyn Fn(String),
) -> Result<Forgotten, ForgetError> {
    let config = Config::load(home).map_err(|e| ForgetError::of(&e))?;
    let purge = action == Action::Purge;
    let doc = match Resolver::new(&config, home).resolve(reference) {
        Ok(doc) => doc,
        Err(e) if purge => {
            let id = reference.strip_prefix("brain://").unwrap_or(reference);
            if !leftovers(home, &config, id) {
                return Err(ForgetError::of(&e));
            }
            if !confirm(id, &home.root().join("(file already deleted)"))? {
                return Err(not_confirmed());
            }
            return purged(home, &config, id, None);
        }
        Err(e) => return Err(ForgetError::of(&e)),
    };
    let Some(id) = doc.id.clone() else {
        return Err(ForgetError::new(
            ErrorCode::BadQuery,
            format!("{reference} is not a document of a collection"),
        ));
    };
    let (collection, rel) = id.split_once('/').unwrap_or((id.as_str(), ""));
    let fact = (collection == brain_inbox::COLLECTION)
        .then(|| brain_graph::facts::origin(home, &config, rel))
        .flatten();
    if purge {
        if !confirm(&id, &doc.file)? {
            return Err(not_confirmed());
        }
        if let Some((items, fact_id)) = &fact {
            edit_fact(items, fact_id, None)?;
        }
        return purged(home, &config, &id, Some(&doc.file));
    }
    let status = if action == Action::Restore {
        "active"
    } else {
        "archived"
    };
    if let Some((items, fact_id)) = &fact {
        edit_fact(items, fact_id, Some(status))?;
        brain_graph::facts::sync(home, &config, warn).map_err(|e| ForgetError::of(&e))?;
    }
    let io = |e: std::io::Error| {
        ForgetError::new(ErrorCode::Internal, format!("{}: {e}", doc.file.display()))
    };
    let text = std::fs::read_to_string(&doc.file).map_err(io)?;
    let changed = with_status(&text, status);
    if fact.is_none() && changed != text {
        brain_doc::atomic::write(&doc.file, changed.as_bytes()).map_err(io)?;
    }
    // A document is indexed from its own file (its status lives in the markdown kept of it, until
    // the file changes and is converted again).
    let own = match brain_store::documents::format_of(rel) {
        Some(_) => brain_store::walk::servable(&config, collection, rel)
            .map_err(|e| ForgetError::new(ErrorCode::BadQuery, e.to_string()))?,
        None => doc.file.clone(),
    };
    let mut ix = brain_lex::Indexer::open(home, false).map_err(|e| ForgetError::of(&e))?;
    if let Err(reason) = ix
        .index_file(collection, rel, &own)
        .map_err(|e| ForgetError::of(&e))?
    {
        return Err(ForgetError::new(ErrorCode::Internal, reason));
    }
    ix.finish().map_err(|e| ForgetError::of(&e))?;
    Ok(match action {
        Action::Restore => Forgotten::Restored { id },
        _ => Forgotten::Archived { id },
    })
}

fn not_confirmed() -> ForgetError {
    ForgetError::new(ErrorCode::BadQuery, "not confirmed: nothing was deleted")
}

fn purged(
    home: &Home,
    config: &Config,
    id: &str,
    file: Option<&Path>,
) -> Result<Forgotten, ForgetError> {
    crate::purge::purge(home, config, id, file, PURGE_WAIT)
        .map(Forgotten::Purged)
        .map_err(|e| ForgetError::of(&e))
}

/// Set (or, with `None`, remove) the fact `fact_id` of `items`.
fn edit_fact(items: &Path, fact_id: &str, status: Option<&str>) -> Result<(), ForgetError> {
    match brain_graph::facts::edit_fact(items, fact_id, status) {
        Ok(true) => Ok(()),
        Ok(false) => Err(ForgetError::new(
            ErrorCode::BadQuery,
            format!(
                "{} holds no fact `{fact_id}` any more: run `lexindex --all`",
                brain_store::display_path(items)
            ),
        )),
        Err(e) => Err(ForgetError::of(&e)),
    }
}

/// Whether `id` (`collection/path` of a collection of `config`, its file gone) still has traces a
/// purge removes: a registry row, vectors, or counts.
fn leftovers(home: &Home, config: &Config, id: &str) -> bool {
    let Some((collection, path)) = id.split_once('/') else {
        return false;
    };
    if config.collection(collection).is_none()
        || path
            .split('/')
            .any(|c| c.is_empty() || c == "." || c == "..")
    {
        return false;
    }
    let registry = brain_store::Registry::open_existing(home).ok().flatten();
    let in_registry = registry.as_ref().is_some_and(|r| {
        r.get(id).ok().flatten().is_some()
            || r.access_counts()
                .is_ok_and(|c| c.iter().any(|(i, _)| i == id))
    });
    in_registry
        || brain_vec::store::Store::open(&home.vectors())
            .is_ok_and(|s| s.docs.iter().any(|d| d.id == id))
}

/// `text` with its frontmatter's `status:` set to `status` (added, or a frontmatter created when
/// there is none); every other line as it was.
pub fn with_status(text: &str, status: &str) -> String {
    let line = format!("status: {status}");
    let Some(rest) = text.strip_prefix("---\n") else {
        return format!("---\n{line}\n---\n{text}");
    };
    let Some(end) = rest.find("\n---\n").map(|i| i + 1).or_else(|| {
        rest.strip_suffix("\n---")
            .map(|fm| fm.len() + 1)
            .or_else(|| rest.starts_with("---\n").then_some(0))
    }) else {
        return format!("---\n{line}\n---\n{text}");
    };
    let (fm, tail) = rest.split_at(end);
    let mut lines: Vec<String> = fm
        .lines()
        .filter(|l| !l.starts_with("status:"))
        .map(str::to_string)
        .collect();
    lines.push(line);
    format!("---\n{}\n{tail}", lines.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::with_status;

    #[test]
    fn the_status_line_is_set_and_nothing_else_moves() {
        assert_eq!(
            with_status("---\ntitle: A\nstatus: active\n---\nbody\n", "archived"),
            "---\ntitle: A\nstatus: archived\n---\nbody\n"
        );
        assert_eq!(
            with_status("---\ntitle: A\n---\nbody\n", "archived"),
            "---\ntitle: A\nstatus: archived\n---\nbody\n"
        );
        assert_eq!(
            with_status("body\n", "archived"),
            "---\nstatus: archived\n---\nbody\n"
        );
        assert_eq!(
            with_status("---\n---\nbody\n", "archived"),
            "---\nstatus: archived\n---\nbody\n"
        );
        // An unclosed frontmatter is body text: a new frontmatter goes in front.
        assert_eq!(
            with_status("---\nnot closed\n", "archived"),
            "---\nstatus: archived\n---\n---\nnot closed\n"
        );
    }
}
