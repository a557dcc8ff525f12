//! One writer at a time: an exclusive advisory lock on a file, taken without waiting (contention is
//! reported, exit 70) or with a bounded wait.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Why a lock could not be taken.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    #[error("{path} is held by another process ({holder}); try again when it finishes")]
    Held { path: PathBuf, holder: String },
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

impl brain_doc::Classified for LockError {
    /// Another holder is contention (70); a lock file that cannot be opened is internal (99).
    fn code(&self) -> brain_doc::ErrorCode {
        match self {
            LockError::Held { .. } => brain_doc::ErrorCode::Locked,
            LockError::Io { .. } => brain_doc::ErrorCode::Internal,
        }
    }

    fn fix(&self) -> String {
        match self {
            LockError::Held { .. } => "wait for the other run to finish, then try again".into(),
            LockError::Io { .. } => String::new(),
        }
    }
}

/// A held lock; released when dropped (and by the OS if the process dies, so a crash leaves no stale
/// lock behind, only a stale pid note in the file). A clean release empties the note first, so a note
/// naming a dead process means its holder died mid-run (`brain doctor` reports it).
#[derive(Debug)]
pub struct Lock {
    file: File,
    path: PathBuf,
}

impl Lock {
    /// Take the lock at `path` now, or fail with [`LockError::Held`].
    pub fn try_acquire(path: &Path) -> Result<Lock, LockError> {
        Self::acquire_within(path, Duration::ZERO)
    }

    /// Take the lock at `path`, retrying for up to `wait`.
    pub fn acquire_within(path: &Path, wait: Duration) -> Result<Lock, LockError> {
        let io = |source| LockError::Io {
            path: path.to_path_buf(),
            source,
        };
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(io)?;
        }
        let file = OpenOptions::new()
            .create(true)
            .read(true)
            .write(true)
            .truncate(false)
            .open(path)
            .map_err(io)?;
        let start = Instant::now();
        loop {
            match file.try_lock() {
                Ok(()) => break,
                Err(std::fs::TryLockError::WouldBlock) if start.elapsed() < wait => {
                    std::thread::sleep(Duration::from_millis(5));
                }
                Err(std::fs::TryLockError::WouldBlock) => {
                    let holder = std::fs::read_to_string(path)
                        .unwrap_or_default()
                        .trim()
                        .to_string();
                    let holder = if holder.is_empty() {
                        "unknown pid".into()
                    } else {
                        holder
                    };
                    return Err(LockError::Held {
                        path: path.to_path_buf(),
                        holder,
                    });
                }
                Err(std::fs::TryLockError::Error(e)) => return Err(io(e)),
            }
        }
        let mut lock = Lock {
            file,
            path: path.to_path_buf(),
        };
        lock.note_holder();
        Ok(lock)
    }

    fn note_holder(&mut self) {
        let _ = self.file.set_len(0);
        let _ = write!(self.file, "pid {}", std::process::id());
    }

    /// Where the lock lives.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for Lock {
    /// Empty the holder note while the lock is still ours; the OS releases the lock when the file closes.
    fn drop(&mut self) {
        let _ = self.file.set_len(0);
    }
}

/// The pid named by a lock file's holder note (`pid 1234`), if any.
pub fn holder_pid(note: &str) -> Option<u32> {
    note.trim().strip_prefix("pid ")?.trim().parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_taker_is_refused_until_the_first_lets_go() {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = dir.path().join("locks/lex.lock");
        let first = Lock::try_acquire(&p).expect("first");
        let err = Lock::try_acquire(&p).expect_err("held");
        assert!(matches!(err, LockError::Held { .. }), "{err}");
        assert!(
            err.to_string()
                .contains(&format!("pid {}", std::process::id())),
            "{err}"
        );
        drop(first);
        assert_eq!(
            std::fs::read_to_string(&p).expect("read"),
            "",
            "a clean release empties the note"
        );
        let again = Lock::try_acquire(&p).expect("free again");
        assert_eq!(
            holder_pid(&std::fs::read_to_string(again.path()).expect("read")),
            Some(std::process::id())
        );
    }
}
