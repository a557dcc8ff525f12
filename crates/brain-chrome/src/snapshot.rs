//! A private, read-only snapshot of a History database: [`brain_store::sqlite_copy`] (one owner of
//! copying another program's SQLite database), its failures as [`ChromeError`]s.

use std::path::Path;

pub use brain_store::sqlite_copy::{ATTEMPTS, Snapshot, backoff};

use crate::error::ChromeError;

/// Map a SQLite error onto our classes (bad input, locked, internal).
pub fn classify(path: &Path, e: &rusqlite::Error) -> ChromeError {
    brain_store::sqlite_copy::classify(path, e).into()
}
