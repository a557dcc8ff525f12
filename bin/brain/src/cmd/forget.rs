//! `brain forget <ref> [--restore]` — archive a record: hidden from every search, kept on disk
//! (seed 001's no-deletion rule). The record's frontmatter gets `status: archived` (the memory field
//! every surface reads) and the file is indexed again at once; `--restore` makes it `active`.
//!
//! `--purge` is the privacy exit, after confirmation (typing the id at a terminal, or `--yes`):
//! the file is deleted and so is every trace of the record — its passages (the index segments
//! that held them are rewritten, so the text leaves the files, not only the results), its vectors
//! (a new store generation without its chunk text), its reads and listings (the access log is
//! folded first) and its place in the distillation queue.
//!
//! An entity fact's record (`inbox/entities/…`) is derived from its `items.json`: the fact's
//! `status` is set there (archive, restore), or the fact is removed from it (purge), and the
//! records are brought in line before the index.

use std::io::Write;

use brain_cli::{Exit, Failure, Stdout};
use brain_doc::ErrorCode;
use brain_resolve::Resolver;
use brain_store::{Config, Home};

#[derive(clap::Args)]
pub struct Args {
    /// The record: a path inside a collection, brain://collection/path or #docid.
    reference: String,
    /// Make an archived record active again.
    #[arg(long, conflicts_with = "purge")]
    restore: bool,
    /// Delete the file and every trace of the record in the indexes (asks first).
    #[arg(long)]
    purge: bool,
    /// With --purge: do not ask (required when stdin is not a terminal).
    #[arg(long, requires = "purge")]
    yes: bool,
}

/// How long a purge waits for an indexing run or a vecindex run to finish.
const PURGE_WAIT: std::time::Duration = std::time::Duration::from_secs(30);

pub fn run(home: &Home, a: Args) -> anyhow::Result<Exit> {
    let config =
        Config::load(home).map_err(|e| Failure::new(ErrorCode::BadQuery, e.to_string()))?;
    let doc = match Resolver::new(&config, home).resolve(&a.reference) {
        Ok(doc) => doc,
        // A purge stopped half-way (its file gone, traces left): finish it.
        Err(e) if a.purge => {
            let id = a.reference.strip_prefix("brain://").unwrap_or(&a.reference);
            if !leftovers(home, &config, id) {
                return Err(super::get::failure(e).into());
            }
            if !confirmed(id, &home.root().join("(file already deleted)"), a.yes)? {
                return Err(Failure::new(
                    ErrorCode::BadQuery,
                    "not confirmed: nothing was deleted",
                )
                .into());
            }
            return purge(home, id, None);
        }
        Err(e) => return Err(super::get::failure(e).into()),
    };
    let Some(id) = doc.id.clone() else {
        return Err(Failure::new(
            ErrorCode::BadQuery,
            format!("{} is not a document of a collection", a.reference),
        )
        .into());
    };
    let (collection, rel) = id.split_once('/').unwrap_or((id.as_str(), ""));
    let fact = (collection == brain_inbox::COLLECTION)
        .then(|| brain_inbox::entities::origin(home, &config, rel))
        .flatten();
    if a.purge {
        if !confirmed(&id, &doc.file, a.yes)? {
            return Err(
                Failure::new(ErrorCode::BadQuery, "not confirmed: nothing was deleted").into(),
            );
        }
        if let Some((items, fact_id)) = &fact {
            edit_fact(items, fact_id, None)?;
        }
        return purge(home, &id, Some(&doc.file));
    }
    if let Some((items, fact_id)) = &fact {
        edit_fact(
            items,
            fact_id,
            Some(if a.restore { "active" } else { "archived" }),
        )?;
        brain_inbox::entities::sync(home, &config, &|w| eprintln!("brain forget: warning: {w}"))
            .map_err(|e| Failure::new(ErrorCode::Internal, e.to_string()))?;
    }
    let text = std::fs::read_to_string(&doc.file)
        .map_err(|e| Failure::new(ErrorCode::Internal, format!("{}: {e}", doc.file.display())))?;
    let status = if a.restore { "active" } else { "archived" };
    let changed = with_status(&text, status);
    if fact.is_none() && changed != text {
        brain_doc::atomic::write(&doc.file, changed.as_bytes()).map_err(|e| {
            Failure::new(ErrorCode::Internal, format!("{}: {e}", doc.file.display()))
        })?;
    }
    let mut ix =
        brain_lex::Indexer::open(home, false).map_err(|e| Failure::new(e.code(), e.to_string()))?;
    if let Err(reason) = ix
        .index_file(collection, rel, &doc.file)
        .map_err(|e| Failure::new(e.code(), e.to_string()))?
    {
        return Err(Failure::new(ErrorCode::Internal, reason).into());
    }
    ix.finish()
        .map_err(|e| Failure::new(e.code(), e.to_string()))?;
    let mut out = Stdout::new();
    if a.restore {
        writeln!(out, "restored {id}: active, searchable again")?;
    } else {
        writeln!(
            out,
            "archived {id}: hidden from searches, kept on disk (`brain ask --include-superseded` finds it; `brain forget --restore {id}` undoes it)"
        )?;
    }
    out.flush()?;
    Ok(Exit::Success)
}

/// Ask at the terminal, or refuse without `--yes` when there is none to ask.
fn confirmed(id: &str, file: &std::path::Path, yes: bool) -> anyhow::Result<bool> {
    use std::io::IsTerminal;
    if yes {
        return Ok(true);
    }
    if !std::io::stdin().is_terminal() {
        return Err(Failure::new(
            ErrorCode::BadQuery,
            "brain forget --purge deletes for good and asks first; stdin is not a terminal",
        )
        .with_fix(format!("brain forget --purge --yes {id}"))
        .into());
    }
    eprint!(
        "This deletes {} and every trace of {id} in the indexes; it cannot be undone.\nType the id to confirm: ",
        brain_store::display_path(file)
    );
    let mut line = String::new();
    std::io::stdin().read_line(&mut line)?;
    Ok(line.trim() == id)
}

/// Set (or, with `None`, remove) the fact `fact_id` of `items`.
fn edit_fact(items: &std::path::Path, fact_id: &str, status: Option<&str>) -> anyhow::Result<()> {
    match brain_inbox::entities::edit_fact(items, fact_id, status) {
        Ok(true) => Ok(()),
        Ok(false) => Err(Failure::new(
            ErrorCode::BadQuery,
            format!(
                "{} holds no fact `{fact_id}` any more: run `lexindex --all`",
                brain_store::display_path(items)
            ),
        )
        .into()),
        Err(e) => Err(Failure::new(ErrorCode::Internal, e.to_string()).into()),
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

/// `brain forget --purge` (see the module docs and [`brain_ops::purge`]), confirmed. Every step
/// can be run again: a purge that stopped half-way is finished by the same command (its file
/// gone, [`leftovers`]) or by the next writer's run.
fn purge(home: &Home, id: &str, file: Option<&std::path::Path>) -> anyhow::Result<Exit> {
    let config =
        Config::load(home).map_err(|e| Failure::new(ErrorCode::BadQuery, e.to_string()))?;
    let done = brain_ops::purge::purge(home, &config, id, file, PURGE_WAIT)
        .map_err(|e| Failure::new(e.code, e.message))?;
    let mut out = Stdout::new();
    writeln!(
        out,
        "purged {id}: file {}, passages removed from the lexical index{}, reads and listings forgotten{}",
        if done.file_deleted {
            "deleted"
        } else {
            "already gone"
        },
        if done.vectors > 0 {
            ", vectors removed"
        } else {
            ""
        },
        if done.log_rows > 0 {
            format!(", {} usage-log rows scrubbed", done.log_rows)
        } else {
            String::new()
        }
    )?;
    if done.conversation {
        writeln!(
            out,
            "the session is remembered as purged (a hash of its agent and id, in {}): converting its transcript again, even with new turns, leaves it out",
            brain_store::display_path(&home.state_file(brain_store::purged::FILE))
        )?;
    }
    out.flush()?;
    Ok(Exit::Success)
}

/// `text` with its frontmatter's `status:` set to `status` (added, or a frontmatter created when
/// there is none); every other line as it was.
fn with_status(text: &str, status: &str) -> String {
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
