//! Mapping outcomes onto the exit-code contract (README.md's exit codes; the numbers live in
//! [`brain_doc::ErrorCode::exit_code`]).

use brain_doc::ErrorCode;

/// How a run that did not fail ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// Exit 0.
    Success,
    /// Exit with the code of this failure class, the message already printed (e.g. no results: 67).
    Code(ErrorCode),
}

impl Exit {
    /// The process exit status.
    pub fn code(self) -> u8 {
        match self {
            Exit::Success => 0,
            Exit::Code(c) => c.exit_code(),
        }
    }
}

/// A classified failure: return it (inside `anyhow::Error`) from a library or a binary to choose the exit
/// code and give the user a fix.
#[derive(Debug, Clone)]
pub struct Failure {
    /// The failure class.
    pub code: ErrorCode,
    /// What went wrong.
    pub message: String,
    /// What to do about it, or empty.
    pub fix: String,
}

impl Failure {
    /// A failure of class `code`.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Failure {
            code,
            message: message.into(),
            fix: String::new(),
        }
    }

    /// Attach the command or action that fixes it.
    pub fn with_fix(mut self, fix: impl Into<String>) -> Self {
        self.fix = fix.into();
        self
    }

    /// The error record machine surfaces print.
    pub fn record(&self) -> brain_doc::ErrorRecord {
        brain_doc::ErrorRecord::new(self.code, self.message.clone(), self.fix.clone())
    }
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Failure {}

/// The failure class of an error: the first [`Failure`] in its chain, or `internal`.
pub fn classify(err: &anyhow::Error) -> Failure {
    for cause in err.chain() {
        if let Some(f) = cause.downcast_ref::<Failure>() {
            return f.clone();
        }
    }
    Failure::new(ErrorCode::Internal, err.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failure_inside_context_keeps_its_class() {
        let err =
            anyhow::Error::new(Failure::new(ErrorCode::Locked, "index is locked").with_fix("wait"))
                .context("while indexing");
        let f = classify(&err);
        assert_eq!(f.code, ErrorCode::Locked);
        assert_eq!(f.fix, "wait");
        assert_eq!(Exit::Code(f.code).code(), 70);
    }

    #[test]
    fn an_unclassified_error_is_internal() {
        let err = anyhow::anyhow!("boom");
        assert_eq!(classify(&err).code.exit_code(), 99);
    }
}
