//! The error record and the exit-code contract (README.md, seed 000 §8.4).

use serde::{Deserialize, Serialize};

/// A machine-readable failure class. Each maps to exactly one process exit code; the mapping is the API
/// that scripts and agents rely on, so it lives here, once, and is tested.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// The query or the input could not be understood (exit 64).
    BadQuery,
    /// An index, a model or another engine the command needs is not there (exit 65).
    IndexMissing,
    /// The embedding model is not installed (exit 65).
    ModelMissing,
    /// The work did not finish in the time allowed (exit 66).
    Timeout,
    /// The query ran and matched nothing (exit 67).
    NoResults,
    /// Another writer holds the lock (exit 70).
    Locked,
    /// A policy refused the request, e.g. a secret in an inbox entry (exit 71).
    Refused,
    /// A bug or an unexpected I/O failure (exit 99).
    Internal,
}

impl ErrorCode {
    /// The process exit status for this failure class.
    pub fn exit_code(self) -> u8 {
        match self {
            ErrorCode::BadQuery => 64,
            ErrorCode::IndexMissing | ErrorCode::ModelMissing => 65,
            ErrorCode::Timeout => 66,
            ErrorCode::NoResults => 67,
            ErrorCode::Locked => 70,
            ErrorCode::Refused => 71,
            ErrorCode::Internal => 99,
        }
    }

    /// Every code, for tests and docs.
    pub const ALL: [ErrorCode; 8] = [
        ErrorCode::BadQuery,
        ErrorCode::IndexMissing,
        ErrorCode::ModelMissing,
        ErrorCode::Timeout,
        ErrorCode::NoResults,
        ErrorCode::Locked,
        ErrorCode::Refused,
        ErrorCode::Internal,
    ];

    /// The snake_case name used on the wire (`bad_query`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::BadQuery => "bad_query",
            ErrorCode::IndexMissing => "index_missing",
            ErrorCode::ModelMissing => "model_missing",
            ErrorCode::Timeout => "timeout",
            ErrorCode::NoResults => "no_results",
            ErrorCode::Locked => "locked",
            ErrorCode::Refused => "refused",
            ErrorCode::Internal => "internal",
        }
    }
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One failure, as machine surfaces (`--json`, MCP) report it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ErrorRecord {
    /// Always `"error"`.
    pub kind: String,
    /// The failure class; decides the exit code.
    pub error: ErrorCode,
    /// What went wrong, for a person.
    pub message: String,
    /// What to do about it (a command to run, a flag to add), or empty.
    pub fix: String,
}

impl ErrorRecord {
    /// A new error record.
    pub fn new(error: ErrorCode, message: impl Into<String>, fix: impl Into<String>) -> Self {
        ErrorRecord {
            kind: "error".into(),
            error,
            message: message.into(),
            fix: fix.into(),
        }
    }
}

/// An error that knows its failure class — the exit code of the contract — and what fixes it.
/// Every library error implements it, so the process edge needs no glue: `brain_cli::Failure` is
/// made from any of them (`?` / `Failure::from`), an MCP error record with [`ErrorRecord::of`], and
/// an I/O failure keeps its own class wherever it travels (it can never turn into a bad query on
/// the way).
pub trait Classified: std::error::Error {
    /// The failure class.
    fn code(&self) -> ErrorCode;
    /// What to do about it, or empty.
    fn fix(&self) -> String {
        String::new()
    }
}

impl ErrorRecord {
    /// The record of `e`: its class, its message, its fix.
    pub fn of(e: &(impl Classified + ?Sized)) -> ErrorRecord {
        ErrorRecord::new(e.code(), e.to_string(), e.fix())
    }
}

/// The fix for an I/O failure of the machine named in `text` (an OS error as Rust prints it, which
/// survives every wrapping into strings), if it is one.
pub fn storage_fault(text: &str) -> Option<&'static str> {
    const FAULTS: [(&[&str], &str); 5] = [
        (
            &[
                "(os error 28)",
                "(os error 122)",
                "No space left on device",
                "database or disk is full",
            ],
            "free space on the disk that holds $BRAIN_HOME (or the file named), then run the command again",
        ),
        (
            &["(os error 30)", "Read-only file system"],
            "the file system is mounted read-only: remount it writable or point $BRAIN_HOME elsewhere",
        ),
        (
            &["(os error 21)", "Is a directory"],
            "a folder stands where brain keeps a file: move it away (brain recreates the file)",
        ),
        (
            &["(os error 20)", "Not a directory"],
            "a file stands where brain keeps a folder: move it away (brain recreates the folder)",
        ),
        (
            // EACCES and EPERM as the OS reports them (an immutable file, another user's folder);
            // never brain's own read-only refusals, which carry no OS error number.
            &["(os error 13)", "(os error 1)"],
            "brain may not read or write the file or folder named (permission denied): give your user access to it (owner, mode, `chattr -i`), then run the command again",
        ),
    ];
    FAULTS
        .iter()
        .find(|(marks, _)| marks.iter().any(|m| text.contains(m)))
        .map(|(_, fix)| *fix)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exit_codes_match_the_contract() {
        let got: Vec<(&str, u8)> = ErrorCode::ALL
            .iter()
            .map(|c| (c.as_str(), c.exit_code()))
            .collect();
        assert_eq!(
            got,
            vec![
                ("bad_query", 64),
                ("index_missing", 65),
                ("model_missing", 65),
                ("timeout", 66),
                ("no_results", 67),
                ("locked", 70),
                ("refused", 71),
                ("internal", 99),
            ]
        );
    }

    #[test]
    fn error_record_round_trips_with_snake_case_code() {
        let r = ErrorRecord::new(ErrorCode::IndexMissing, "no index", "run `lexindex --all`");
        let line = serde_json::to_string(&r).expect("serialize");
        assert!(line.contains("\"error\":\"index_missing\""), "{line}");
        let back: ErrorRecord = serde_json::from_str(&line).expect("parse");
        assert_eq!(back, r);
    }
}
