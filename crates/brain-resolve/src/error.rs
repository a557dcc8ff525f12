//! Why a document could not be found or read.

use std::path::PathBuf;

use brain_doc::ErrorCode;
use brain_lex::LexError;
use brain_lex::search::SearchError;

/// A reference that does not resolve, or a file that cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum DocsError {
    #[error("no document `{0}`")]
    NotFound(String),
    #[error("{docid} is ambiguous: {ids}")]
    Ambiguous { docid: String, ids: String },
    #[error("bad glob `{pattern}`: {reason}")]
    BadGlob { pattern: String, reason: String },
    #[error(
        "`{0}` is not inside a collection: use brain://collection/path, collection/path or a #docid"
    )]
    NotInCollection(String),
    /// A file under a collection folder that is not one of its documents (hidden, not matching the
    /// collection's files, or reached through a link out of it): never served.
    #[error("{0}: not served")]
    Refused(brain_store::walk::Refused),
    #[error(transparent)]
    Index(#[from] LexError),
    #[error(transparent)]
    Search(SearchError),
    #[error(transparent)]
    Registry(#[from] brain_store::RegistryError),
    /// A document (PDF, HTML, DOCX, text) whose markdown is not kept: not converted yet, or it
    /// could not be.
    #[error("{0}")]
    NotConverted(String),
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

impl From<SearchError> for DocsError {
    fn from(e: SearchError) -> Self {
        match e {
            SearchError::Index(e) => DocsError::Index(e),
            other => DocsError::Search(other),
        }
    }
}

impl brain_doc::Classified for DocsError {
    /// The failure class: not found 67, ambiguous or bad reference 64, no index 65, else internal.
    fn code(&self) -> ErrorCode {
        match self {
            DocsError::NotFound(_) => ErrorCode::NoResults,
            DocsError::Ambiguous { .. }
            | DocsError::BadGlob { .. }
            | DocsError::NotInCollection(_)
            | DocsError::NotConverted(_) => ErrorCode::BadQuery,
            DocsError::Refused(_) => ErrorCode::Refused,
            DocsError::Index(e) => e.code(),
            DocsError::Registry(e) => e.code(),
            DocsError::Search(_) | DocsError::Io { .. } => ErrorCode::Internal,
        }
    }

    /// What to do about it, or empty.
    fn fix(&self) -> String {
        let fix: &str = {
            match self {
                DocsError::NotFound(_) | DocsError::NotInCollection(_) => {
                    "use a path, brain://collection/path or a #docid from `brain ask`"
                }
                DocsError::Ambiguous { .. } => {
                    "use the brain://collection/path of the one you mean"
                }
                DocsError::BadGlob { .. } => "globs use *, ?, [abc] and ** over collection/path",
                DocsError::NotConverted(_) => {
                    "`lexindex --all` converts documents first; one that failed is tried again when its file changes"
                }
                DocsError::Refused(_) => {
                    "only a collection's documents are served (docs/security.md); a link out of a collection is followed only with `follow_links: true` in brain.yaml"
                }
                DocsError::Index(e) => return e.fix(),
                DocsError::Registry(e) => return e.fix(),
                DocsError::Search(_) | DocsError::Io { .. } => "",
            }
        };
        fix.into()
    }
}
