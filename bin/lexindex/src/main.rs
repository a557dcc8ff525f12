//! `lexindex`: bring the lexical index up to date with doc records on stdin or with every collection on
//! disk (`--all`), incrementally, under the `lexindex` lock.

use std::io::{IsTerminal, Write};

use brain_cli::{Exit, Failure, Stdout, Warnings};
use brain_doc::{ErrorCode, ndjson};
use brain_lex::LexIndex;
use brain_ops::index::{LexOutcome, LexRun};
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
    let wait = args
        .wait
        .unwrap_or(if args.all { 0.0 } else { STDIN_WAIT_SECS });
    let wait = std::time::Duration::try_from_secs_f64(wait).map_err(|_| {
        Failure::new(
            ErrorCode::BadQuery,
            format!("--wait {wait}: not a number of seconds"),
        )
    })?;
    let warnings = Warnings::new("lexindex", args.quiet);
    let say = |m: String| {
        if !args.quiet {
            eprintln!("lexindex: {m}");
        }
    };
    let lex_run = LexRun {
        all: args.all,
        rebuild: args.rebuild,
        wait,
        collection: args.collection.as_deref(),
    };
    let outcome = brain_ops::index::lex(
        &home,
        &lex_run,
        &mut stdin.lock(),
        &|w| warnings.warn(w),
        &say,
    )
    .map_err(Failure::from)?;
    let (mut summary, indexed) = match outcome {
        LexOutcome::Indexed(summary) => (summary, true),
        LexOutcome::Queued {
            summary,
            why,
            queue,
        } => {
            // Said even with --quiet: the stop hook's log is where a deferred session shows.
            eprintln!(
                "lexindex: {why}\nlexindex: {} records queued in {}: the next run of any writer indexes them",
                summary.queued,
                brain_store::display_path(&queue)
            );
            (summary, false)
        }
    };
    summary.skipped = summary.skipped.max(warnings.count());
    if args.json {
        ndjson::write_line(&mut out, &summary)?;
        out.flush()?;
    }
    if !args.quiet && indexed {
        eprintln!("lexindex: {}", summary.line());
    }
    Ok(Exit::Success)
}
