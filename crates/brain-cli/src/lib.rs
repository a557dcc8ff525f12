//! What every `brain` binary shares: the exit-code contract at the process edge, a stdout that treats a
//! closed pipe as success, a warning reporter that counts what it reported, and progress bars that only
//! draw on a terminal.
//!
//! A binary's `main` is one line: [`main`] parses its arguments (a usage error is exit 64, the
//! contract's bad input, never clap's own 2), runs the body and maps the outcome to the exit code.
//!
//! ```no_run
//! #[derive(clap::Parser)]
//! struct Args {
//!     #[arg(long)]
//!     quiet: bool,
//! }
//!
//! fn main() -> std::process::ExitCode {
//!     brain_cli::main("jsonl2md", |_args: Args| Ok(brain_cli::Exit::Success))
//! }
//! ```

// The process edge: the one library that writes errors, warnings and progress to stderr for the
// binaries (`make lint` holds every other library to print nothing).
#![allow(clippy::print_stderr)]

mod exit;
mod output;
mod progress;

pub use brain_doc::storage_fault;
pub use exit::{Exit, Failure, classify};
pub use output::{Stdout, Warnings, is_broken_pipe};
pub use progress::{Measured, bar, color_enabled};

use std::process::ExitCode;

/// Parse the process arguments as `A`, run `body` with them, print any error on stderr as
/// `<name>: error: …` (with its fix), and map the outcome to the exit-code contract. A usage error
/// prints clap's message and exits 64; `--help` and `--version` print and exit 0. A broken pipe
/// anywhere counts as success.
pub fn main<A: clap::Parser>(name: &str, body: impl FnOnce(A) -> anyhow::Result<Exit>) -> ExitCode {
    private_umask();
    let outcome = match A::try_parse() {
        Ok(args) => body(args),
        Err(e) => usage(e),
    };
    match outcome {
        Ok(exit) => ExitCode::from(exit.code()),
        Err(err) => {
            if err.chain().any(output::closed_pipe) {
                return ExitCode::SUCCESS;
            }
            let failure = classify(&err);
            eprintln!("{name}: error: {err:#}");
            if !failure.fix.is_empty() {
                eprintln!("{name}: fix: {}", failure.fix);
            }
            ExitCode::from(failure.code.exit_code())
        }
    }
}

/// The outcome of a command line clap rejected (or answered itself, for `--help` and `--version`):
/// its text is printed as clap formats it; a real usage error is bad input (64), so scripts see the
/// contract's code rather than clap's 2.
fn usage(e: clap::Error) -> anyhow::Result<Exit> {
    e.print()?;
    Ok(if e.use_stderr() {
        Exit::Code(brain_doc::ErrorCode::BadQuery)
    } else {
        Exit::Success
    })
}

/// Everything a brain process creates is its owner's alone — folders 0700, files 0600 — whatever
/// the user's umask (DESIGN: the home is readable by its owner alone; the index, `state.sqlite` and
/// its WAL, locks and the corpus hold every indexed passage). Files brain writes for other
/// programs to read (skills, schedules) set their mode explicitly.
fn private_umask() {
    rustix::process::umask(rustix::fs::Mode::from_raw_mode(0o077));
}
