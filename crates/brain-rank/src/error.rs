//! Why a search produced no answer, with its exit-code class and fix: the one error type every
//! front door (`rank`, `brain ask`, MCP, `brain eval`) reports.

use brain_doc::ErrorCode;

use crate::query::QueryError;
use crate::querydoc::QueryDocError;
use crate::rank::RankError;
use crate::strategy::StrategyError;

/// Why a query produced no answer.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error("bad query: {0}")]
    Query(#[from] QueryError),
    #[error("bad query document: {0}")]
    QueryDoc(#[from] QueryDocError),
    #[error("{0}")]
    BadInput(String),
    /// stdin could not be read.
    #[error("reading the query from stdin: {0}")]
    Stdin(std::io::Error),
    /// `-c NAME` or `collection:NAME` names no collection of brain.yaml.
    #[error("no collection `{name}`")]
    UnknownCollection { name: String, known: String },
    #[error(transparent)]
    Strategy(#[from] StrategyError),
    #[error(transparent)]
    Rank(#[from] RankError),
    /// A part the search needs is missing or failed: lexical index, vector store, model, backend.
    #[error("{}", .0.message)]
    Unavailable(Unavailable),
}

/// A failure kept by value (an engine reports it on every call that needs the missing part).
#[derive(Debug, Clone, PartialEq)]
pub struct Unavailable {
    pub code: ErrorCode,
    pub message: String,
    pub fix: String,
}

impl brain_doc::Classified for RunError {
    /// The exit-code class: bad query 64, missing index or model 65, timeout 66, else internal.
    fn code(&self) -> ErrorCode {
        match self {
            RunError::Query(_)
            | RunError::QueryDoc(_)
            | RunError::BadInput(_)
            | RunError::UnknownCollection { .. } => ErrorCode::BadQuery,
            RunError::Strategy(e) => e.code(),
            RunError::Stdin(_) => ErrorCode::Internal,
            RunError::Rank(e) => e.code(),
            RunError::Unavailable(u) => u.code,
        }
    }

    /// What to do about it.
    fn fix(&self) -> String {
        match self {
            RunError::Query(_) => {
                "quote phrases with \"…\", use -word to exclude, field:value for collection/project/agent/since/until (docs/query.md)".into()
            }
            RunError::QueryDoc(crate::querydoc::QueryDocError::TooMany { .. }) => format!(
                "keep at most {} lex:/vec:/hyde: lines (docs/query.md)",
                crate::querydoc::MAX_SEARCHES
            ),
            RunError::QueryDoc(_) => {
                "start every line with lex:, vec:, hyde: or intent: (docs/query.md)".into()
            }
            RunError::Strategy(e) => e.fix(),
            RunError::BadInput(_) | RunError::Stdin(_) => String::new(),
            RunError::UnknownCollection { known, .. } => format!("collections: {known}"),
            RunError::Rank(e) => e.fix(),
            RunError::Unavailable(u) => u.fix.clone(),
        }
    }
}
