//! `brain forget <ref> [--restore]` — archive a record: hidden from every search, kept on disk
//! (seed 001's no-deletion rule). The record's frontmatter gets `status: archived` (the memory field
//! every surface reads) and the file is indexed again at once; `--restore` makes it `active`.

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
    #[arg(long)]
    restore: bool,
}

pub fn run(home: &Home, a: Args) -> anyhow::Result<Exit> {
    let config =
        Config::load(home).map_err(|e| Failure::new(ErrorCode::BadQuery, e.to_string()))?;
    let doc = Resolver::new(&config, home)
        .resolve(&a.reference)
        .map_err(super::get::failure)?;
    let Some(id) = doc.id.clone() else {
        return Err(Failure::new(
            ErrorCode::BadQuery,
            format!("{} is not a document of a collection", a.reference),
        )
        .into());
    };
    let (collection, rel) = id.split_once('/').unwrap_or((id.as_str(), ""));
    let text = std::fs::read_to_string(&doc.file)
        .map_err(|e| Failure::new(ErrorCode::Internal, format!("{}: {e}", doc.file.display())))?;
    let status = if a.restore { "active" } else { "archived" };
    let changed = with_status(&text, status);
    if changed != text {
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
