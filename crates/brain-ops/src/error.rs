//! Why an operation failed as a whole (a failing doctor *check* is not an error: it is in the report).

use std::path::{Path, PathBuf};

use brain_doc::ErrorCode;

/// A failure of `status`, `explain`, `doctor`, or an install/remove of a hook, schedule or skill.
#[derive(Debug, thiserror::Error)]
pub enum OpsError {
    /// A file could not be read or written.
    #[error("{}", io_text(path, source))]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    /// A settings file that is not the JSON we can edit safely; nothing was written.
    #[error("{path}: {reason}")]
    BadSettings { path: PathBuf, reason: String },
    /// The shipped pipelines (stop-hook.sh, nightly.mk, templates, skills) are nowhere to be found.
    #[error(
        "the brain pipelines folder (stop-hook.sh, nightly.mk, schedules/, skills/) was not found; looked in {looked}"
    )]
    PipelinesMissing { looked: String },
    /// A helper command (crontab, systemctl, launchctl) failed.
    #[error("`{command}` failed: {reason}")]
    Command { command: String, reason: String },
    /// The state DB could not be queried.
    #[error(transparent)]
    Registry(#[from] brain_store::RegistryError),
}

/// `path: error`, or the error alone when it already names the path (brain_doc::atomic's do).
fn io_text(path: &Path, source: &std::io::Error) -> String {
    let text = source.to_string();
    let path = path.display().to_string();
    if text.starts_with(&path) {
        text
    } else {
        format!("{path}: {text}")
    }
}

/// What a helper command's reason says when the program is not on this machine at all.
pub(crate) const NOT_INSTALLED: &str = "is not installed here";

impl OpsError {
    /// An I/O error on `path`.
    pub fn io(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> OpsError {
        let path = path.into();
        move |source| OpsError::Io { path, source }
    }
}

impl brain_doc::Classified for OpsError {
    /// The exit-code class of this failure.
    fn code(&self) -> ErrorCode {
        match self {
            OpsError::BadSettings { .. } => ErrorCode::BadQuery,
            // A scheduler that is not installed or does not answer (no crontab, no user session
            // bus) is a program the command needs and cannot use, like a missing model: 65.
            OpsError::PipelinesMissing { .. } | OpsError::Command { .. } => ErrorCode::IndexMissing,
            OpsError::Registry(e) => e.code(),
            OpsError::Io { .. } => ErrorCode::Internal,
        }
    }

    /// What the user should do about it.
    fn fix(&self) -> String {
        match self {
            OpsError::BadSettings { path, .. } => format!(
                "repair {} by hand (or move it away), then run the command again",
                path.display()
            ),
            OpsError::PipelinesMissing { .. } => {
                "run `make install` (or set $BRAIN_PIPELINES to the pipelines folder of a checkout)"
                    .into()
            }
            OpsError::Command { reason, .. } if reason.contains(NOT_INSTALLED) => {
                "install it, or pick another scheduler (--cron, --systemd where a user session bus runs, --launchd on macOS); with none of them: `brain schedule install --login` (your login starts brain's own loop)".into()
            }
            OpsError::Command { command, .. } => format!(
                "check that `{command}` works here, or pick another scheduler (--cron, --systemd, --launchd; --login where none runs)"
            ),
            OpsError::Registry(e) => e.fix(),
            OpsError::Io { .. } => String::new(),
        }
    }
}
