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
    pin_thread_count();
    match body() {
        Ok(exit) => ExitCode::from(exit.code()),
        Err(err) => {
            if err.chain().any(|c| {
                c.downcast_ref::<std::io::Error>()
                    .is_some_and(is_broken_pipe)
            }) {
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

/// Fix the worker-thread count for the process (`RAYON_NUM_THREADS`, unless the user set it) to
/// what the OS lets us use. candle asks for the count on every matmul and, unset, reads and parses
/// `/proc/cpuinfo` each time (candle-core 0.11 `utils::get_num_threads`): about 3 ms of a 12 ms query
/// embedding (perf, 2026-11-22).
fn pin_thread_count() {
    if std::env::var_os("RAYON_NUM_THREADS").is_some() {
        return;
    }
    let n = std::thread::available_parallelism().map_or(1, |n| n.get());
    #[allow(unsafe_code)]
    // SAFETY: called first thing in `main`, before this process starts any thread, so nothing can
    // read the environment concurrently.
    unsafe {
        std::env::set_var("RAYON_NUM_THREADS", n.to_string());
    }
}
