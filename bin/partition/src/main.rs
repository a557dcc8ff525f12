//! `partition`: doc NDJSON in → each doc assigned a collection by `brain.yaml`'s rules, written
//! atomically as markdown into that collection → the updated record (collection, path, id set) out.

use std::io::{IsTerminal, Write};

use anyhow::Context;
use brain_cli::{Exit, Failure, Stdout, Warnings};
use brain_doc::{Doc, ErrorCode, ndjson};
use brain_store::partition::{self, Partitioner};
use brain_store::{Config, Home};
use clap::Parser;

/// Assign each doc record (NDJSON on stdin, e.g. from `jsonl2md` or `chrome2md`) to a collection by
/// the partition rules of $BRAIN_HOME/brain.yaml, write it as markdown into that collection
/// (atomically; an identical file is left untouched), and print the record with `collection`, `path`
/// and `id` set, so `jsonl2md | partition | lexindex` works.
///
/// Default rules: source type session → brain (YYYY/MM/<stem>.md), browser → chrome-history
/// (YYYY/<stem>.md), distilled → distilled, inbox → inbox; anything else → brain. See
/// docs/collections.md. A malformed record is reported on stderr with its line and skipped.
#[derive(Parser)]
#[command(version)]
struct Args {
    /// Assign and print, but write no files.
    #[arg(long)]
    dry_run: bool,
    /// Print no summary line on stderr.
    #[arg(long, short)]
    quiet: bool,
}

fn main() -> std::process::ExitCode {
    brain_cli::main("partition", run)
}

fn run(args: Args) -> anyhow::Result<Exit> {
    let stdin = std::io::stdin();
    if stdin.is_terminal() {
        return Err(Failure::new(
            ErrorCode::BadQuery,
            "no input: pipe doc NDJSON into partition",
        )
        .with_fix("jsonl2md --new | partition | lexindex")
        .into());
    }
    let home = Home::from_env();
    let config = Config::load(&home).map_err(Failure::from)?;
    let rules = Partitioner::new(&config).map_err(Failure::from)?;
    let warnings = Warnings::new("partition", args.quiet);
    // What `brain forget --purge` removed stays out: a session's later conversions, a day read again.
    let purged = brain_store::purged::Purged::load(&home).map_err(Failure::from)?;
    let mut left_out = 0u64;
    let mut out = Stdout::new();
    let mut claims = partition::Claims::default();
    let (mut lines, mut written, mut unchanged) = (0u64, 0u64, 0u64);
    let mut aside = 0u64;
    for item in ndjson::Reader::<_, Doc>::new(stdin.lock(), "<stdin>") {
        lines += 1;
        let mut doc = match item.context("reading stdin")? {
            Ok(doc) => doc,
            Err(e) => {
                warnings.warn(e);
                continue;
            }
        };
        if let Err(e) = doc.validate() {
            warnings.warn(format!("<stdin>: doc `{}`: {e}", doc.id));
            continue;
        }
        let mut placed = match rules.place(&mut doc) {
            Ok(p) => p,
            Err(e) => {
                warnings.warn(format!("<stdin>: {e}"));
                continue;
            }
        };
        if purged.holds(&doc) {
            left_out += 1;
            continue;
        }
        let original = placed.path.clone();
        match claims.settle(&mut doc, &mut placed) {
            partition::Settled::Placed => {}
            partition::Settled::MovedAside { holder } => {
                aside += 1;
                warnings.note(format!(
                    "{}/{original} holds another source ({holder}): {} written as {} instead",
                    placed.collection, doc.source.file, doc.id
                ));
            }
        }
        if !args.dry_run {
            match partition::write(&doc, &placed.file) {
                Ok(true) => written += 1,
                Ok(false) => unchanged += 1,
                // A full disk or a read-only file system fails every record after this one too:
                // the run fails (exit 65), it does not skip them one by one.
                Err(e) if brain_cli::storage_fault(&e.to_string()).is_some() => {
                    out.flush()?;
                    return Err(anyhow::Error::new(e).context(format!(
                        "writing {} ({written} written before it)",
                        placed.file.display()
                    )));
                }
                Err(e) => {
                    warnings.warn(e);
                    continue;
                }
            }
        }
        ndjson::write_line(&mut out, &doc)?;
    }
    out.flush()?;
    if !args.quiet {
        let mut line = format!(
            "partition: {written} written, {unchanged} unchanged, {} skipped",
            warnings.count()
        );
        if aside > 0 {
            line.push_str(&format!(
                ", {aside} moved aside (same name, another source)"
            ));
        }
        if left_out > 0 {
            line.push_str(&format!(", {left_out} left out (purged)"));
        }
        eprintln!("{line}");
    }
    if lines > 0 && warnings.count() == lines && left_out == 0 {
        return Err(Failure::new(
            ErrorCode::BadQuery,
            format!("none of the {lines} input records could be used"),
        )
        .into());
    }
    Ok(Exit::Success)
}
