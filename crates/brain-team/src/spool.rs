//! The spool: update requests the engine could not take (it was down, slow or unreachable), kept on
//! disk in order and sent before anything new. Each file is one request body, written atomically
//! (a kill leaves a whole file or none) and deleted only after the engine acknowledged it. Every
//! request is idempotent (ids are stable, an add replaces, a delete of a missing id is a no-op),
//! so a file sent twice — a kill between the acknowledgement and the delete — changes nothing.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::TeamError;

static SEQ: AtomicU64 = AtomicU64::new(0);

/// The spool of one engine index, in `dir`.
pub struct Spool {
    dir: PathBuf,
}

impl Spool {
    pub fn new(dir: PathBuf) -> Spool {
        Spool { dir }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Keep `body` for later; it is sent after every file spooled before it.
    pub fn put(&self, body: &[u8]) -> Result<PathBuf, TeamError> {
        let io = |source| TeamError::Io {
            path: self.dir.clone(),
            source,
        };
        std::fs::create_dir_all(&self.dir).map_err(io)?;
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or_default();
        let name = format!(
            "{nanos:024}-{:010}-{:06}.json",
            std::process::id(),
            SEQ.fetch_add(1, Ordering::Relaxed)
        );
        let path = self.dir.join(name);
        brain_doc::atomic::write(&path, body).map_err(|source| TeamError::Io {
            path: path.clone(),
            source,
        })?;
        Ok(path)
    }

    /// The files waiting, oldest first (temporary files of a killed write are not among them).
    pub fn pending(&self) -> Result<Vec<PathBuf>, TeamError> {
        let entries = match std::fs::read_dir(&self.dir) {
            Ok(e) => e,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(source) => {
                return Err(TeamError::Io {
                    path: self.dir.clone(),
                    source,
                });
            }
        };
        let mut files: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| {
                p.extension().is_some_and(|x| x == "json")
                    && p.file_name()
                        .and_then(|n| n.to_str())
                        .is_some_and(|n| n.as_bytes().first().is_some_and(u8::is_ascii_digit))
            })
            .collect();
        files.sort();
        Ok(files)
    }

    /// Send every waiting file with `send`, oldest first, deleting each once sent; stops at the
    /// first failure (which is returned with the count sent before it).
    pub fn drain(
        &self,
        send: &mut dyn FnMut(&[u8]) -> Result<(), TeamError>,
    ) -> (usize, Result<(), TeamError>) {
        let files = match self.pending() {
            Ok(f) => f,
            Err(e) => return (0, Err(e)),
        };
        let mut sent = 0;
        for f in files {
            let body = match std::fs::read(&f) {
                Ok(b) => b,
                Err(source) => return (sent, Err(TeamError::Io { path: f, source })),
            };
            if let Err(e) = send(&body) {
                return (sent, Err(e));
            }
            if let Err(source) = std::fs::remove_file(&f) {
                return (sent, Err(TeamError::Io { path: f, source }));
            }
            sent += 1;
        }
        (sent, Ok(()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_drain_in_order_and_stop_at_a_failure() {
        let dir = tempfile::tempdir().expect("test setup");
        let s = Spool::new(dir.path().join("spool"));
        for i in 0..5 {
            s.put(format!("{i}").as_bytes()).expect("test setup");
        }
        std::fs::write(s.dir().join("x.json.tmp"), "half").expect("write a test file");
        let mut seen = Vec::new();
        let (n, r) = s.drain(&mut |b| {
            if b == b"3" {
                return Err(TeamError::Config("down".into()));
            }
            seen.push(String::from_utf8(b.to_vec()).expect("test setup"));
            Ok(())
        });
        assert_eq!(
            (n, seen),
            (3, vec!["0".to_string(), "1".into(), "2".into()])
        );
        assert!(r.is_err());
        assert_eq!(s.pending().expect("test setup").len(), 2);
        let (n, r) = s.drain(&mut |_| Ok(()));
        assert_eq!(n, 2);
        assert!(r.is_ok());
        assert!(s.pending().expect("test setup").is_empty());
    }
}
