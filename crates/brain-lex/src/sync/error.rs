//! Why an indexing run failed as a whole, with its exit-code class and fix.

use brain_doc::ErrorCode;
use brain_store::{ConfigError, LockError, RegistryError};

use crate::LexError;

/// Why a run failed as a whole.
#[derive(Debug, thiserror::Error)]
pub enum SyncError {
    #[error(transparent)]
    Locked(#[from] LockError),
    #[error(transparent)]
    Lex(#[from] LexError),
    #[error(transparent)]
    Registry(#[from] RegistryError),
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error("writing the lexical index: {0}")]
    Write(#[from] tantivy::TantivyError),
}

impl brain_doc::Classified for SyncError {
    /// Exit-code class: lock contention 70, bad brain.yaml 64, the rest per cause.
    fn code(&self) -> ErrorCode {
        match self {
            SyncError::Locked(e) => e.code(),
            SyncError::Lex(e) => e.code(),
            SyncError::Config(e) => e.code(),
            SyncError::Registry(e) => e.code(),
            SyncError::Write(_) => ErrorCode::Internal,
        }
    }

    /// What to do about it, or empty.
    fn fix(&self) -> String {
        match self {
            SyncError::Locked(_) => {
                "wait for the running lexindex to finish, then run it again".into()
            }
            SyncError::Lex(l) => l.fix(),
            SyncError::Config(e) => e.fix(),
            SyncError::Registry(e) => e.fix(),
            SyncError::Write(_) => String::new(),
        }
    }
}
