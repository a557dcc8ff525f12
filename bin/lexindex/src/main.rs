//! `lexindex`: bring the lexical index up to date with doc records on stdin or with every collection on
//! disk (`--all`), incrementally, under the `lexindex` lock.

use std::io::{IsTerminal, Write};

use anyhow::Context;
use brain_cli::{Exit, Failure, Stdout, Warnings};
use brain_doc::{Doc, ErrorCode, ndjson};
use brain_lex::{Indexer, LexIndex, SyncError, queue};
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
/// stderr.
///
/// One writer at a time. A stdin run waits for a running one (--wait, default 5 s) and, if it is
/// still running, leaves its records in the index queue ($BRAIN_HOME/state/lexindex-queue.ndjson)
/// and exits 0: the next run of any writer indexes them. Every record a stdin run reads is in the
/// queue until the run commits, so a killed run loses none. `--all` exits 70 when another run holds
/// the lock past --wait (default 0).
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
    /// Seconds to wait for another run holding the index lock (default: 5 for a stdin run, which
    /// then queues its records; 0 for --all, which then exits 70).
    #[arg(long, value_name = "SECS")]
    wait: Option<f64>,
    /// Print no summary line on stderr.
    #[arg(long, short)]
    quiet: bool,
}

/// How long a stdin run (the stop hook's) waits for the lock before it queues its records: well
/// inside the hook's 10 s timeout, and longer than a stdin run behind another takes (31 ms p50,
/// 123 ms at worst with a merge, measured 2026-11-26 for issue 25).
const STDIN_WAIT_SECS: f64 = 5.0;

/// How long a run that removed documents waits for a running vecindex before leaving their
/// vectors to the next `vecindex --all`.
const VECTOR_WAIT: std::time::Duration = std::time::Duration::from_secs(2);

fn main() -> std::process::ExitCode {
    brain_cli::main("lexindex", run)
}

fn run(args: Args) -> anyhow::Result<Exit> {
    let home = Home::from_env();
    let mut out = Stdout::new();
    if args.dump {
        let lex = LexIndex::open(&home).map_err(Failure::from)?;
        for p in brain_lex::dump(&lex).map_err(Failure::from)? {
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
    // A purge stopped half-way is finished before anything else is indexed.
    brain_ops::purge::finish_pending_quietly(&home, &|w| eprintln!("lexindex: {w}"));
    let wait = args
        .wait
        .unwrap_or(if args.all { 0.0 } else { STDIN_WAIT_SECS });
    let wait = std::time::Duration::try_from_secs_f64(wait).map_err(|_| {
        Failure::new(
            ErrorCode::BadQuery,
            format!("--wait {wait}: not a number of seconds"),
        )
    })?;
    let mut indexer = match Indexer::open_within(&home, args.rebuild || outdated.is_some(), wait) {
        Ok(ix) => ix,
        Err(SyncError::Locked(e)) if !args.all && !args.rebuild => {
            return queue_stdin(&home, &args, &warnings, &mut out, &e.to_string());
        }
        Err(e) => return Err(Failure::from(e).into()),
    };
    if args.all {
        walk_all(&home, &args, &mut indexer, &warnings)?;
    } else {
        index_stdin(&home, &args, &mut indexer, &warnings)?;
    }
    let mut summary = indexer.finish().map_err(Failure::from)?;
    if summary.from_queue > 0 && !args.quiet {
        eprintln!(
            "lexindex: {} queued records indexed (left by a run that waited for the lock or was stopped)",
            summary.from_queue
        );
    }
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

/// Another run holds the index past --wait: every stdin record goes into the index queue (durable)
/// for the next run of any writer, and the run succeeds — the stop hook never drops a session.
fn queue_stdin(
    home: &Home,
    args: &Args,
    warnings: &Warnings,
    out: &mut Stdout,
    why: &str,
) -> anyhow::Result<Exit> {
    let config = brain_store::Config::load(home)
        .map_err(|e| Failure::new(ErrorCode::BadQuery, e.to_string()))?;
    let queued = queue::enqueue_records(
        home,
        &config,
        std::io::stdin().lock(),
        args.collection.as_deref(),
        &|w| warnings.warn(w),
    )
    .map_err(|e| {
        Failure::new(
            ErrorCode::Locked,
            format!("{why}; and the index queue could not take the records: {e}"),
        )
        .with_fix("wait for the running lexindex to finish, then run it again")
    })?;
    let summary = brain_lex::Summary {
        kind: "lexindex_summary".into(),
        queued: queued as u64,
        skipped: warnings.count(),
        ..Default::default()
    };
    if args.json {
        ndjson::write_line(out, &summary)?;
        out.flush()?;
    }
    // Said even with --quiet: the stop hook's log is where a deferred session shows.
    eprintln!(
        "lexindex: {why}\nlexindex: {queued} records queued in {}: the next run of any writer indexes them",
        brain_store::display_path(&queue::path(home))
    );
    Ok(Exit::Success)
}

/// `--all`: entity facts turned into records first, then every collection walked.
fn walk_all(
    home: &Home,
    args: &Args,
    indexer: &mut Indexer,
    warnings: &Warnings,
) -> anyhow::Result<()> {
    // Entity facts (items.json) become records of the inbox first, so this walk indexes them.
    // Its warnings name items of a file, not skipped documents: not counted as skipped.
    let said = |w: String| {
        if !args.quiet {
            eprintln!("lexindex: warning: {w}");
        }
    };
    match brain_inbox::entities::sync(home, indexer.config(), &said) {
        Ok(e) if e.files > 0 && !args.quiet => eprintln!(
            "lexindex: entity facts: {} files, {} facts ({} written, {} removed, {} skipped)",
            e.files, e.facts, e.written, e.removed, e.skipped
        ),
        Ok(_) => {}
        Err(e) => warnings.warn(format!("entity facts: {e}")),
    }
    indexer
        .sync_all(&|w| warnings.warn(w))
        .map_err(Failure::from)?;
    Ok(())
}

/// Doc records on stdin, each in the index queue until this run commits.
fn index_stdin(
    home: &Home,
    args: &Args,
    indexer: &mut Indexer,
    warnings: &Warnings,
) -> anyhow::Result<()> {
    let stdin = std::io::stdin();
    for item in ndjson::Reader::<_, Doc>::new(stdin.lock(), "<stdin>") {
        match item.context("reading stdin")? {
            Ok(doc) => {
                // In the queue until this run commits: a kill from here on loses nothing.
                if let Some(e) =
                    queue::Entry::for_doc(indexer.config(), &doc, args.collection.as_deref())
                    && let Err(err) = queue::append(home, &[e], false)
                {
                    warnings.warn(format!("the index queue: {err}"));
                }
                if let Err(reason) = indexer
                    .index_doc(&doc, args.collection.as_deref())
                    .map_err(Failure::from)?
                {
                    warnings.warn(format!("<stdin>: {reason}"));
                }
            }
            Err(e) => warnings.warn(e),
        }
    }
    Ok(())
}
