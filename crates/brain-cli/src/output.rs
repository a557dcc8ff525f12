//! stdout for data, stderr for people.

use std::io::{self, BufWriter, Write};
use std::sync::atomic::{AtomicU64, Ordering};

/// True for the error a write to a closed pipe returns (`… | head`): the reader is done, so are we.
pub fn is_broken_pipe(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::BrokenPipe
}

/// Whether `e` is, or wraps, a closed pipe: an `io::Error` of kind `BrokenPipe`, found also inside
/// an `io::Error` that carries another error (`io::Error::other(…)` around a serializer's error
/// around the pipe's).
pub fn closed_pipe(e: &(dyn std::error::Error + 'static)) -> bool {
    let mut next = Some(e);
    while let Some(e) = next {
        if let Some(io) = e.downcast_ref::<io::Error>() {
            if is_broken_pipe(io) {
                return true;
            }
            if let Some(inner) = io.get_ref()
                && closed_pipe(inner)
            {
                return true;
            }
        }
        if e.to_string().ends_with("Broken pipe (os error 32)") {
            return true;
        }
        next = e.source();
    }
    false
}

/// A buffered, locked stdout. Write records through it with `?`; a closed pipe surfaces as an
/// `io::Error` of kind `BrokenPipe`, which [`crate::main`] turns into a clean exit.
pub struct Stdout {
    inner: BufWriter<io::StdoutLock<'static>>,
}

impl Stdout {
    /// Lock stdout for the life of the process.
    pub fn new() -> Self {
        Stdout {
            inner: BufWriter::with_capacity(64 * 1024, io::stdout().lock()),
        }
    }
}

impl Default for Stdout {
    fn default() -> Self {
        Self::new()
    }
}

impl Write for Stdout {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.inner.write(buf)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.inner.write_all(buf)
    }
}

/// Reports per-record problems on stderr (`<stage>: warning: file:line: reason`) and counts them for the
/// end-of-run summary. Shareable across rayon workers.
pub struct Warnings {
    stage: &'static str,
    count: AtomicU64,
    quiet: bool,
}

impl Warnings {
    /// A reporter for `stage`; `quiet` counts without printing.
    pub fn new(stage: &'static str, quiet: bool) -> Self {
        Warnings {
            stage,
            count: AtomicU64::new(0),
            quiet,
        }
    }

    /// Report one problem.
    pub fn warn(&self, msg: impl std::fmt::Display) {
        self.count.fetch_add(1, Ordering::Relaxed);
        if !self.quiet {
            eprintln!("{}: warning: {msg}", self.stage);
        }
    }

    /// Report something the user should know that is not a skipped record (not counted):
    /// `<stage>: note: …`.
    pub fn note(&self, msg: impl std::fmt::Display) {
        if !self.quiet {
            eprintln!("{}: note: {msg}", self.stage);
        }
    }

    /// How many problems were reported.
    pub fn count(&self) -> u64 {
        self.count.load(Ordering::Relaxed)
    }
}
