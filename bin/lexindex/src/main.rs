//! `lexindex`: bring the lexical index up to date with doc records on stdin or with every collection on
//! disk (`--all`), incrementally, under the `lexindex` lock.

use std::io::{IsTerminal, Write};

use anyhow::Context;
use brain_cli::{Exit, Failure, Stdout, Warnings};
use brain_doc::{Doc, ErrorCode, ndjson};
use brain_lex::{Indexer, LexIndex, SyncError};
use brain_store::Home;
use clap::Parser;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Index markdown documents for lexical search ($BRAIN_HOME/index/lex, tantivy; registry in
/// state.sqlite).
///
/// Reads doc NDJSON on stdin (as `partition` writes it: `jsonl2md --new | partition | lexindex`), or
/// with --all walks every collection of brain.yaml — after turning each fact of an entity's
/// items.json (in a user collection) into a record of its own under inbox/entities/ and folding
/// the access log. Incremental: a file whose mtime and size are
/// unchanged is not read, one whose content hash is unchanged is not re-indexed, a deleted file's
/// passages are removed. Prints nothing on stdout unless --json or --dump; a one-line summary on
/// stderr. One writer at a time: if another lexindex runs, exits 70.
#[derive(Parser)]
#[command(version)]
struct Args {
    /// Index every collection of brain.yaml as it is on disk (and remove what is gone).
    #[arg(long)]
    all: bool,
    /// Collection for stdin records whose `collection` is null.
    #[arg(long, short = 'c', value_name = "NAME")]
    collection: Option<String>,
    /// Index from scratch: the new index is built aside and swapped in at the end in one step
    /// (readers keep the old one until then; a killed rebuild leaves it intact).
    #[arg(long)]
    rebuild: bool,
    /// Print the run summary as one JSON record on stdout.
    #[arg(long)]
    json: bool,
    /// Print every indexed passage as NDJSON (id, line, title, headings, idents, text…) and exit.
    #[arg(long, conflicts_with_all = ["all", "rebuild", "json"])]
    dump: bool,
    /// Print no summary line on stderr.
    #[arg(long, short)]
    quiet: bool,
}

/// How long a run that removed documents waits for a running vecindex before leaving their
/// vectors to the next `vecindex --all`.
const VECTOR_WAIT: std::time::Duration = std::time::Duration::from_secs(2);

fn main() -> std::process::ExitCode {
    brain_cli::main("lexindex", run)
}

fn failure(e: SyncError) -> anyhow::Error {
    let fix = match &e {
        SyncError::Locked(_) => "wait for the running lexindex to finish, then run it again",
        SyncError::Lex(l) => l.fix(),
        _ => "",
    };
    Failure::new(e.code(), e.to_string()).with_fix(fix).into()
}

fn run(args: Args) -> anyhow::Result<Exit> {
    let home = Home::from_env();
    let mut out = Stdout::new();
    if args.dump {
        let lex = LexIndex::open(&home)
            .map_err(|e| Failure::new(e.code(), e.to_string()).with_fix(e.fix()))?;
        for p in brain_lex::dump(&lex).map_err(|e| Failure::new(e.code(), e.to_string()))? {
            ndjson::write_line(&mut out, &p)?;
        }
        out.flush()?;
        return Ok(Exit::Success);
    }
    let stdin = std::io::stdin();
    if !args.all && stdin.is_terminal() {
        return Err(Failure::new(
            ErrorCode::BadQuery,
            "no input: pipe doc NDJSON into lexindex, or pass --all",
        )
        .with_fix("lexindex --all")
        .into());
    }
    let warnings = Warnings::new("lexindex", args.quiet);
    // An index of an older schema is rebuilt by a full run (aside: readers are told to wait).
    let outdated = if args.all && !args.rebuild {
        LexIndex::outdated(&home)
    } else {
        None
    };
    if let Some(found) = &outdated
        && !args.quiet
    {
        eprintln!(
            "lexindex: the index has schema {found:?}, this build reads schema {}: rebuilding it",
            brain_lex::schema::SCHEMA_VERSION
        );
    }
    let mut indexer = Indexer::open(&home, args.rebuild || outdated.is_some()).map_err(failure)?;
    if args.all {
        // Entity facts (items.json) become records of the inbox first, so this walk indexes them.
        // Its warnings name items of a file, not skipped documents: not counted as skipped.
        let said = |w: String| {
            if !args.quiet {
                eprintln!("lexindex: warning: {w}");
            }
        };
        match brain_inbox::entities::sync(&home, indexer.config(), &said) {
            Ok(e) if e.files > 0 && !args.quiet => eprintln!(
                "lexindex: entity facts: {} files, {} facts ({} written, {} removed, {} skipped)",
                e.files, e.facts, e.written, e.removed, e.skipped
            ),
            Ok(_) => {}
            Err(e) => warnings.warn(format!("entity facts: {e}")),
        }
        indexer.sync_all(&|w| warnings.warn(w)).map_err(failure)?;
    } else {
        for item in ndjson::Reader::<_, Doc>::new(stdin.lock(), "<stdin>") {
            match item.context("reading stdin")? {
                Ok(doc) => {
                    if let Err(reason) = indexer
                        .index_doc(&doc, args.collection.as_deref())
                        .map_err(failure)?
                    {
                        warnings.warn(format!("<stdin>: {reason}"));
                    }
                }
                Err(e) => warnings.warn(e),
            }
        }
    }
    let mut summary = indexer.finish().map_err(failure)?;
    summary.skipped = summary.skipped.max(warnings.count());
    // A document the index no longer holds is no vector hit either.
    let removed: Vec<&str> = summary.removed_ids.iter().map(String::as_str).collect();
    if let Err(e) = brain_vec::index::forget(&home, &removed, VECTOR_WAIT) {
        warnings.warn(format!(
            "the vectors of {} removed documents stay until `vecindex --all`: {e}",
            removed.len()
        ));
    }
    // The slow clock folds what was read into the rehearsal table as well.
    if args.all
        && let Err(e) = brain_store::access::fold(&home)
    {
        warnings.warn(format!("folding the access log: {e}"));
    }
    // A memory field that does not read is the record's problem, not a skipped record.
    if !args.quiet {
        for w in &summary.field_warnings {
            eprintln!("lexindex: warning: {w}");
        }
    }
    if args.json {
        ndjson::write_line(&mut out, &summary)?;
        out.flush()?;
    }
    if !args.quiet {
        eprintln!("lexindex: {}", summary.line());
    }
    Ok(Exit::Success)
}
