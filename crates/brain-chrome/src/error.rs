//! What can go wrong reading a browser history, each with the exit code of the contract (README.md).

use std::path::PathBuf;

use brain_doc::ErrorCode;
use brain_store::sqlite_copy::CopyError;

/// A failure of a whole run (a bad row is a warning, not an error).
#[derive(Debug, thiserror::Error)]
pub enum ChromeError {
    /// The History file could not be copied and opened (missing, not SQLite, corrupt, locked):
    /// [`brain_store::sqlite_copy`]'s failure, its class kept.
    #[error(transparent)]
    Copy(#[from] CopyError),
    #[error("{path}: not a browser History database: table `{table}` {what}")]
    MissingTable {
        path: PathBuf,
        table: &'static str,
        what: String,
    },
    #[error("no browser profile found (looked in {looked})")]
    NoProfile { looked: String },
    #[error("{path}: cannot read the policy: {source}")]
    PolicyRead {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: bad policy: {reason}")]
    PolicyParse { path: PathBuf, reason: String },
    #[error("unknown time zone `{name}`: {reason}")]
    TimeZone { name: String, reason: String },
    #[error("{path}: bad state file: {reason}")]
    State { path: PathBuf, reason: String },
    #[error("{path}: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("writing the output: {0}")]
    Output(#[source] std::io::Error),
    #[error(transparent)]
    Lock(#[from] brain_store::LockError),
}

impl ChromeError {
    /// True when a stdout write failed because the reader went away (`| head`): a clean end.
    pub fn is_broken_pipe(&self) -> bool {
        matches!(self, ChromeError::Output(e) if e.kind() == std::io::ErrorKind::BrokenPipe)
    }
}

impl brain_doc::Classified for ChromeError {
    /// The failure class, which decides the exit code: bad input (a missing, non-SQLite, corrupt or
    /// non-History file, a bad policy, state or time zone) is 64; no browser profile found is 65;
    /// a locked database or a held `chrome2md` lock is 70; anything else is 99.
    fn code(&self) -> ErrorCode {
        match self {
            ChromeError::Copy(e) => e.code(),
            ChromeError::MissingTable { .. }
            | ChromeError::PolicyRead { .. }
            | ChromeError::PolicyParse { .. }
            | ChromeError::TimeZone { .. }
            | ChromeError::State { .. } => ErrorCode::BadQuery,
            ChromeError::NoProfile { .. } => ErrorCode::IndexMissing,
            ChromeError::Lock(e) => e.code(),
            ChromeError::Write { .. } | ChromeError::Output(_) => ErrorCode::Internal,
        }
    }

    /// What the user can do about it, or empty.
    fn fix(&self) -> String {
        let fix: &str = {
            match self {
                ChromeError::Copy(CopyError::Missing { .. } | CopyError::NotSqlite { .. })
                | ChromeError::MissingTable { .. } => {
                    "pass the `History` file of a Chromium-based browser profile, or `--profile auto`"
                }
                ChromeError::Copy(CopyError::Corrupt { .. }) => {
                    "copy the profile's History again (with its -wal/-journal files) or let the browser repair it"
                }
                ChromeError::Copy(CopyError::Locked { .. }) => {
                    "close the browser or try again in a moment"
                }
                ChromeError::NoProfile { .. } => {
                    "pass `--history PATH` to the browser's History file"
                }
                ChromeError::Lock(_) => {
                    "another chrome2md run is writing the state file; wait for it to finish"
                }
                ChromeError::State { .. } => "delete the state file or run with `--no-state`",
                _ => "",
            }
        };
        fix.into()
    }
}
