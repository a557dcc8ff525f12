//! Mapping outcomes onto the exit-code contract (README.md's exit codes; the numbers live in
//! [`brain_doc::ErrorCode::exit_code`]).

use brain_doc::{ErrorCode, storage_fault};

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

/// Any classified library error is a failure of its own class, message and fix: the one
/// conversion every binary uses (`?` where a function returns `Result<_, Failure>`,
/// `.map_err(Failure::from)` into `anyhow`).
impl<E: brain_doc::Classified> From<E> for Failure {
    fn from(e: E) -> Failure {
        Failure::new(e.code(), e.to_string()).with_fix(e.fix())
    }
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Failure {}

/// The failure class of an error: the first [`Failure`] in its chain, or `internal`.
/// An internal failure whose cause is the machine, not a bug — a full disk, a read-only file system,
/// a file where a folder is expected or the reverse — is storage the command needs and cannot use:
/// exit 65 with the fix, never 99.
pub fn classify(err: &anyhow::Error) -> Failure {
    let mut found = None;
    for cause in err.chain() {
        if let Some(f) = cause.downcast_ref::<Failure>() {
            found = Some(f.clone());
            break;
        }
    }
    let failure = found.unwrap_or_else(|| Failure::new(ErrorCode::Internal, err.to_string()));
    if failure.code != ErrorCode::Internal {
        return failure;
    }
    let text = format!("{err:#}");
    match storage_fault(&text) {
        Some(fix) => Failure {
            code: ErrorCode::IndexMissing,
            fix: fix.to_string(),
            ..failure
        },
        None => failure,
    }
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
    fn a_full_disk_or_a_folder_for_a_file_is_storage_not_a_bug() {
        let full = anyhow::Error::new(std::io::Error::from_raw_os_error(28)).context("writing x");
        assert_eq!(classify(&full).code.exit_code(), 65);
        assert!(classify(&full).fix.contains("free space"));
        let folder = anyhow::Error::new(Failure::new(
            ErrorCode::Internal,
            format!("state/wm.json: {}", std::io::Error::from_raw_os_error(21)),
        ));
        assert_eq!(classify(&folder).code.exit_code(), 65);
        let denied = anyhow::Error::new(std::io::Error::from_raw_os_error(1)).context("~/.profile");
        assert_eq!(classify(&denied).code.exit_code(), 65);
        assert!(classify(&denied).fix.contains("permission denied"));
        let eacces = anyhow::Error::new(std::io::Error::from_raw_os_error(13));
        assert!(classify(&eacces).fix.contains("permission denied"));
        // EPERM's number is not a prefix match of another (os error 1x).
        assert!(brain_doc::storage_fault("(os error 16)").is_none());
        // A classified failure keeps its class.
        let locked = anyhow::Error::new(Failure::new(ErrorCode::Locked, "(os error 28)"));
        assert_eq!(classify(&locked).code.exit_code(), 70);
    }

    #[test]
    fn an_unclassified_error_is_internal() {
        let err = anyhow::anyhow!("boom");
        assert_eq!(classify(&err).code.exit_code(), 99);
    }
}
