//! Stale locks: a lock file whose holder note names a process that is gone while nobody holds the lock.
//!
//! Locks are advisory `flock`s ([`brain_store::Lock`]) that the OS releases when a process dies, so a
//! stale file never blocks anyone; but a clean release empties the note, so a note naming a dead pid
//! means a writer died mid-run (killed, crashed) and what it was writing deserves a look.

use std::fs::OpenOptions;
use std::path::{Path, PathBuf};

use brain_store::Home;
use serde::{Deserialize, Serialize};

/// The lock `brain watch` holds while it runs.
pub const WATCH: &str = "watch";
/// The lock the slow clock's loop (`brain schedule run`) holds while it runs.
pub const CLOCK: &str = "clock";

/// One lock file found under the home.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LockInfo {
    /// The lock file.
    pub path: String,
    /// The pid its holder note names, if any.
    pub pid: Option<u32>,
    /// Whether a process holds the lock right now.
    pub held: bool,
    /// Held by nobody, and the noted pid is not running: its writer died mid-run.
    pub stale: bool,
}

/// Whether process `pid` exists (Linux: /proc; elsewhere `kill -0`).
pub fn alive(pid: u32) -> bool {
    let proc = Path::new("/proc");
    if proc.join("self").exists() {
        return proc.join(pid.to_string()).exists();
    }
    std::process::Command::new("kill")
        .args(["-0", &pid.to_string()])
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Whether someone holds the lock at `path` (probed without waiting; our probe lets go at once).
pub fn held(path: &Path) -> bool {
    let Ok(f) = OpenOptions::new().read(true).write(true).open(path) else {
        return false;
    };
    match f.try_lock() {
        Ok(()) => {
            let _ = f.unlock();
            false
        }
        Err(_) => true,
    }
}

/// The lock files of `home`: `locks/*.lock`, and `*.lock` in the home and `state/` (queue and state
/// file locks live beside their files).
pub fn scan(home: &Home) -> Vec<LockInfo> {
    let mut files: Vec<PathBuf> = Vec::new();
    for dir in [
        home.root().join("locks"),
        home.root().to_path_buf(),
        home.root().join("state"),
    ] {
        if let Ok(rd) = std::fs::read_dir(&dir) {
            files.extend(
                rd.flatten()
                    .map(|e| e.path())
                    .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == "lock")),
            );
        }
    }
    files.sort();
    // A loop that lives until it is stopped (the watcher, the slow clock) writes nothing a kill
    // tears: its note naming a dead pid says only that it was stopped.
    let services = [WATCH, CLOCK].map(|l| home.lock_file(l));
    files
        .into_iter()
        .map(|p| {
            let service = services.contains(&p);
            let pid = std::fs::read_to_string(&p)
                .ok()
                .and_then(|t| brain_store::holder_pid(&t));
            let held = held(&p);
            LockInfo {
                path: p.display().to_string(),
                pid,
                held,
                stale: !held && !service && pid.is_some_and(|pid| !alive(pid)),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dead_holder_note_is_stale_a_live_lock_is_not() {
        let dir = tempfile::tempdir().expect("tempdir");
        let home = Home::at(dir.path());
        let live = brain_store::Lock::try_acquire(&home.lock_file("lexindex")).expect("lock");
        std::fs::write(home.lock_file("vecindex"), "pid 999999999").expect("write");
        std::fs::write(home.lock_file("distill"), "").expect("write");
        // A stopped watcher or slow clock loop is not a writer that died mid-run.
        std::fs::write(home.lock_file("clock"), "pid 999999999").expect("write");
        std::fs::write(home.lock_file("watch"), "pid 999999999").expect("write");
        let found = scan(&home);
        let by = |n: &str| {
            found
                .iter()
                .find(|l| l.path.ends_with(n))
                .cloned()
                .expect(n)
        };
        assert!(by("lexindex.lock").held && !by("lexindex.lock").stale);
        assert!(by("vecindex.lock").stale);
        assert!(!by("distill.lock").stale);
        assert!(!by("clock.lock").stale && !by("watch.lock").stale);
        drop(live);
        // Another test thread forking a child shares our descriptors until the child execs, so the
        // released lock may look held for a moment: probe again a few times.
        let free = (0..200).any(|_| {
            let held = scan(&home).iter().any(|l| l.held);
            if held {
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
            !held
        });
        assert!(free, "the released lock is free again");
    }
}
