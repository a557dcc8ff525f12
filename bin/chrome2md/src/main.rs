//! `chrome2md`: browser history → one markdown document per day (doc NDJSON on stdout).

use std::process::ExitCode;

use brain_chrome::{ChromeError, Options, Selection};
use brain_cli::{Exit, Failure, Stdout, Warnings};
use brain_store::Home;
use clap::Parser;

/// Browser history (Chrome, Chromium, Brave, Edge, Vivaldi) → one markdown document per local day.
///
/// Reads a profile's `History` SQLite database through a private copy (with its -wal/-journal files,
/// so a running browser never blocks the read), applies the policy (internal, local, ad, NSFW and
/// denied pages dropped; junk searches and tracking parameters removed) and prints one doc record
/// per day as NDJSON, or writes `<YYYY-MM-DD>.md` files with `--out-dir`. A state file remembers the
/// last visit per profile, so the next run emits only the days that changed (each whole).
///
/// With the state in use, the copy is kept in $BRAIN_HOME/cache/chrome2md/ (mode 0700) and rewritten
/// in place on the next run, which is several times cheaper than a fresh copy of a large History.
///
/// Exit codes: 0 ok (also when no day changed) · 64 bad input (missing, non-SQLite or corrupt file,
/// not a History database, bad policy, time zone or state file) · 65 no browser profile found ·
/// 70 the database or the chrome2md lock is held · 99 internal.
#[derive(Debug, Parser)]
#[command(name = "chrome2md", version)]
struct Args {
    #[command(flatten)]
    selection: Selection,
    /// No warnings or summary on stderr.
    #[arg(long, short)]
    quiet: bool,
}

fn main() -> ExitCode {
    brain_cli::main("chrome2md", |args: Args| {
        let warnings = Warnings::new("chrome2md", args.quiet);
        let opts = options(&args).map_err(Failure::from)?;
        let stats = brain_chrome::run(&opts, &mut Stdout::new(), &|m| warnings.warn(m)).map_err(
            |e| match e {
                ChromeError::Output(io) => anyhow::Error::new(io),
                other => anyhow::Error::new(Failure::from(other)),
            },
        )?;
        if !args.quiet {
            eprintln!("chrome2md: {}", stats.summary());
        }
        Ok(Exit::Success)
    })
}

fn options(args: &Args) -> Result<Options, ChromeError> {
    Options::resolve(&args.selection, &Home::from_env())
}
