//! What every `brain` binary shares: the exit-code contract at the process edge, a stdout that treats a
//! closed pipe as success, a warning reporter that counts what it reported, and progress bars that only
//! draw on a terminal.
//!
//! A binary's `main` is a few lines:
//!
//! ```no_run
//! fn main() -> std::process::ExitCode {
//!     brain_cli::main("jsonl2md", || Ok(brain_cli::Exit::Success))
//! }
//! ```

mod exit;
mod output;
mod progress;

pub use exit::{Exit, Failure, classify};
pub use output::{Stdout, Warnings, is_broken_pipe};
pub use progress::{bar, color_enabled};

use std::process::ExitCode;

/// Run `body`, print any error on stderr as `<name>: error: …` (with its fix), and map the outcome to
/// the exit-code contract. A broken pipe anywhere counts as success.
pub fn main(name: &str, body: impl FnOnce() -> anyhow::Result<Exit>) -> ExitCode {
    match body() {
        Ok(exit) => ExitCode::from(exit.code()),
        Err(err) => {
            if err.chain().any(|c| c.downcast_ref::<std::io::Error>().is_some_and(is_broken_pipe)) {
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
