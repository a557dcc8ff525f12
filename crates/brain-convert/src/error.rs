//! Why a document was not converted.

use brain_doc::ErrorCode;

#[derive(Debug, thiserror::Error)]
pub enum ConvertError {
    /// The file could not be read at all.
    #[error("{0}")]
    Read(std::io::Error),
    /// Damaged, encrypted or not of its kind: the reason says which.
    #[error("{0}")]
    Unreadable(String),
    /// Larger than the limit (the file, or what it unpacks to).
    #[error("too large: {0}")]
    TooLarge(String),
    /// The parse did not end in time (0: the child's own CPU limit ended it).
    #[error("{}", timeout_text(*.0))]
    Timeout(u64),
    /// Writing the output, or starting the reader's child, failed.
    #[error("{0}")]
    Output(std::io::Error),
}

fn timeout_text(secs: u64) -> String {
    match secs {
        0 => "the PDF reader ran out of CPU time (stopped)".into(),
        s => format!("the PDF reader did not finish in {s} s (stopped; --timeout sets the limit)"),
    }
}

impl brain_doc::Classified for ConvertError {
    fn code(&self) -> ErrorCode {
        match self {
            ConvertError::Read(_) | ConvertError::Unreadable(_) | ConvertError::TooLarge(_) => {
                ErrorCode::BadQuery
            }
            ConvertError::Timeout(_) => ErrorCode::Timeout,
            ConvertError::Output(_) => ErrorCode::Internal,
        }
    }

    fn fix(&self) -> String {
        match self {
            ConvertError::TooLarge(_) => "raise --max-bytes if the file is what you meant".into(),
            ConvertError::Timeout(_) => "raise --timeout, or leave the file out".into(),
            _ => String::new(),
        }
    }
}
