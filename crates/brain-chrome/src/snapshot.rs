//! A private, read-only snapshot of a History database: [`brain_store::sqlite_copy`] (one owner of
//! copying another program's SQLite database), its failures as [`ChromeError`]s.

use std::path::Path;

use brain_store::sqlite_copy::CopyError;
pub use brain_store::sqlite_copy::{ATTEMPTS, Snapshot, backoff};

use crate::error::ChromeError;

impl From<CopyError> for ChromeError {
    fn from(e: CopyError) -> Self {
        match e {
            CopyError::Missing { path } => ChromeError::Missing { path },
            CopyError::Snapshot { path, source } => ChromeError::Snapshot { path, source },
            CopyError::NotSqlite { path, reason } => ChromeError::NotSqlite { path, reason },
            CopyError::Corrupt { path, reason } => ChromeError::Corrupt { path, reason },
            CopyError::Locked { path, reason } => ChromeError::Locked { path, reason },
            CopyError::Sqlite { path, reason } => ChromeError::Sqlite { path, reason },
        }
    }
}

/// Map a SQLite error onto our classes (bad input, locked, internal).
pub fn classify(path: &Path, e: &rusqlite::Error) -> ChromeError {
    brain_store::sqlite_copy::classify(path, e).into()
}
