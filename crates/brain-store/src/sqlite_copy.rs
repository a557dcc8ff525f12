//! A private, read-only copy of another program's SQLite database (a browser's History, Cursor's
//! `state.vscdb`, OpenCode's `opencode.db`): the one way brain reads a database it does not own.
//!
//! A running program holds its database open (a browser with an exclusive lock), and its newest
//! writes may still sit in `-wal` or `-journal`. So we copy the database *and* those files into a
//! temp folder (seed 000 §2: "copies the browser database to a temp path so Chrome's file lock does
//! not block reads") and open the copy read-only: the program is never blocked. If the copied
//! journal is hot (the program was mid-write) a read-only connection cannot roll it back; the copy
//! is ours, so we then reopen it read-write, which lets SQLite recover it without touching the
//! original.
//!
//! **First, SQLite's online backup** (issue 37: a file copy under a browser that writes failed 2 of
//! 17 times as "corrupt" and took 12–60 s of retries): the original is opened read-only and copied
//! page by page in one read transaction, so a busy but healthy database always yields a
//! consistent copy at once, whatever its writer does meanwhile. It needs a shared lock; a program
//! that holds its database exclusively (Chrome's `locking_mode=EXCLUSIVE`) refuses it within
//! [`BACKUP_BUSY`], and so does a database read-only SQLite cannot open (a hot journal, a WAL
//! without its index). Then the file copy below is the way.
//!
//! The program may write while we copy. A copy is taken only when the database and its side files
//! did not change while it was made ([`Stamp`]: sizes, modification times and the header's change
//! counter before and after), and a copy that does not open cleanly is taken again: up to
//! [`ATTEMPTS`] times, backing off from 20 ms, so a run under a busy program waits a moment rather
//! than read a torn file.
//!
//! Copying a large database costs more than everything else an incremental run does (a fresh 100 MB
//! copy plus its deletion ≈ 60–90 ms on ext4; rewriting an existing copy in place ≈ 20 ms, measured
//! 2026-11-22). So a caller that holds its run lock may pass a persistent folder (e.g.
//! `$BRAIN_HOME/cache/chrome2md/<profile>`, mode 0700): the copy there is overwritten in place, and
//! stale side files are removed before the new ones are copied.

use std::path::{Path, PathBuf};

use rusqlite::{Connection, OpenFlags};

/// The first 16 bytes of every SQLite 3 database file (sqlite.org/fileformat.html §1.3.1).
const SQLITE_MAGIC: &[u8; 16] = b"SQLite format 3\0";

/// Side files copied with the database, in this order.
const SIDE_FILES: [&str; 2] = ["-wal", "-journal"];

/// Copies tried before a run gives up on a History that keeps changing (20 + 40 + 80 + 160 ms of
/// waiting at most).
pub const ATTEMPTS: u32 = 5;

/// How long the online backup waits for a writer's lock before the file copy is tried instead.
/// (A writer that commits in bursts leaves gaps far shorter; a program that holds the database
/// exclusively leaves none, and pays this once per run.)
pub const BACKUP_BUSY: std::time::Duration = std::time::Duration::from_secs(1);

/// Copy `history` into `copy` with SQLite's online backup, in one step (one read transaction: a
/// consistent snapshot). The original is only read.
fn online_backup(history: &Path, copy: &Path) -> rusqlite::Result<()> {
    // A WAL database read without its `-wal` and `-shm` would have SQLite make them beside the
    // original: never. (The file copy reads such a database whole: no writer is mid-way.)
    let side = |s: &str| {
        let mut p = history.as_os_str().to_owned();
        p.push(s);
        PathBuf::from(p).is_file()
    };
    if wal_mode(history) && !(side("-wal") && side("-shm")) {
        return Err(rusqlite::Error::SqliteFailure(
            rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_CANTOPEN),
            Some("a WAL database without its -wal and -shm".into()),
        ));
    }
    let src = Connection::open_with_flags(
        history,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    src.busy_timeout(BACKUP_BUSY)?;
    let mut dst = Connection::open_with_flags(
        copy,
        OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    {
        use rusqlite::backup::StepResult;
        let backup = rusqlite::backup::Backup::new(&src, &mut dst)?;
        // Every page in one step: one read transaction on the source, one consistent state. A
        // writer mid-commit makes a step busy: try again until BACKUP_BUSY has passed.
        let started = std::time::Instant::now();
        loop {
            match backup.step(-1)? {
                StepResult::Done => break,
                _ if started.elapsed() < BACKUP_BUSY => {
                    std::thread::sleep(std::time::Duration::from_millis(2));
                }
                _ => {
                    return Err(rusqlite::Error::SqliteFailure(
                        rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_BUSY),
                        Some("the database stayed locked".into()),
                    ));
                }
            }
        }
    }
    // The copy is ours and read alone: a rollback journal, so a read-only connection opens it
    // without a WAL index beside it.
    dst.pragma_update(None, "journal_mode", "DELETE")
}

/// Whether the database file's header says WAL (file format read and write versions 2).
fn wal_mode(db: &Path) -> bool {
    use std::io::Read;
    let mut head = [0u8; 20];
    std::fs::File::open(db)
        .and_then(|mut f| f.read_exact(&mut head))
        .is_ok_and(|()| head[18] == 2 && head[19] == 2)
}

/// What changes when SQLite writes a database: the sizes and modification times of the file and
/// its side files, and the file change counter in the header (offset 24, bumped by every commit in
/// rollback-journal mode).
#[derive(PartialEq, Eq)]
struct Stamp(Vec<Option<(u64, Option<std::time::SystemTime>)>>, [u8; 4]);

impl Stamp {
    fn of(history: &Path) -> Stamp {
        use std::io::{Read, Seek};
        let files = std::iter::once(history.to_path_buf())
            .chain(SIDE_FILES.iter().map(|s| {
                let mut p = history.as_os_str().to_owned();
                p.push(s);
                PathBuf::from(p)
            }))
            .map(|p| {
                std::fs::metadata(p)
                    .ok()
                    .map(|m| (m.len(), m.modified().ok()))
            })
            .collect();
        let mut counter = [0u8; 4];
        if let Ok(mut f) = std::fs::File::open(history)
            && f.seek(std::io::SeekFrom::Start(24)).is_ok()
        {
            let _ = f.read_exact(&mut counter);
        }
        Stamp(files, counter)
    }
}

/// Why a database could not be copied and opened.
#[derive(Debug, thiserror::Error)]
pub enum CopyError {
    #[error("{path}: no such file")]
    Missing { path: PathBuf },
    #[error("{path}: cannot copy to a temporary snapshot: {source}")]
    Snapshot {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: not a SQLite database ({reason})")]
    NotSqlite { path: PathBuf, reason: String },
    #[error("{path}: the database is corrupt ({reason})")]
    Corrupt { path: PathBuf, reason: String },
    #[error("{path}: the database is locked ({reason})")]
    Locked { path: PathBuf, reason: String },
    #[error("{path}: SQLite: {reason}")]
    Sqlite { path: PathBuf, reason: String },
}

impl brain_doc::Classified for CopyError {
    /// A missing, non-SQLite or corrupt file is bad input (64); a locked one 70; the rest 99.
    fn code(&self) -> brain_doc::ErrorCode {
        use brain_doc::ErrorCode;
        match self {
            CopyError::Missing { .. } | CopyError::NotSqlite { .. } | CopyError::Corrupt { .. } => {
                ErrorCode::BadQuery
            }
            CopyError::Locked { .. } => ErrorCode::Locked,
            CopyError::Snapshot { .. } | CopyError::Sqlite { .. } => ErrorCode::Internal,
        }
    }
}

/// An open snapshot; a temp folder goes away when it is dropped, a persistent one stays for the next
/// run.
pub struct Snapshot {
    /// The connection to the copy.
    pub conn: Connection,
    /// The side files (`-wal`, `-journal`) that were copied, as original paths.
    pub parts: Vec<PathBuf>,
    _dir: Option<tempfile::TempDir>,
}

impl Snapshot {
    /// Copy `history` and its side files to `reuse` (a folder only this run writes to, kept between
    /// runs) or else to a fresh temp folder, and open the copy.
    pub fn open(history: &Path, reuse: Option<&Path>) -> Result<Snapshot, CopyError> {
        Self::open_as(history, reuse, "History")
    }

    /// [`Snapshot::open`] with the copy named `name` in its folder.
    pub fn open_as(
        history: &Path,
        reuse: Option<&Path>,
        name: &str,
    ) -> Result<Snapshot, CopyError> {
        let meta = std::fs::metadata(history).map_err(|_| CopyError::Missing {
            path: history.to_path_buf(),
        })?;
        if !meta.is_file() {
            return Err(CopyError::NotSqlite {
                path: history.to_path_buf(),
                reason: "not a regular file".into(),
            });
        }
        check_magic(history)?;
        let snap_err = |source| CopyError::Snapshot {
            path: history.to_path_buf(),
            source,
        };
        let (temp, dir) = match reuse {
            Some(d) => {
                private_dir(d).map_err(|source| CopyError::Snapshot {
                    path: d.to_path_buf(),
                    source,
                })?;
                (None, d.to_path_buf())
            }
            None => {
                let t = tempfile::Builder::new()
                    .prefix("brain-sqlite.")
                    .tempdir()
                    .map_err(snap_err)?;
                let p = t.path().to_path_buf();
                (Some(t), p)
            }
        };
        let copy = dir.join(name);
        for stale in ["-wal", "-journal", "-shm"] {
            let _ = std::fs::remove_file(dir.join(format!("{name}{stale}")));
        }
        // The side files the snapshot reads through SQLite (its provenance), as they were before.
        let parts: Vec<PathBuf> = SIDE_FILES
            .iter()
            .map(|s| {
                let mut p = history.as_os_str().to_owned();
                p.push(s);
                PathBuf::from(p)
            })
            .filter(|p| p.is_file())
            .collect();
        if online_backup(history, &copy).is_ok()
            && let Ok(conn) = open_checked(&copy, OpenFlags::SQLITE_OPEN_READ_ONLY, history)
        {
            return Ok(Snapshot {
                conn,
                parts,
                _dir: temp,
            });
        }
        let mut attempt = 0;
        let (conn, parts) = loop {
            attempt += 1;
            let last = attempt >= ATTEMPTS;
            let before = Stamp::of(history);
            let parts = copy_files(history, &dir, &copy, name)?;
            if !last && Stamp::of(history) != before {
                backoff(attempt);
                continue; // the browser wrote while we copied
            }
            let opened = match open_checked(&copy, OpenFlags::SQLITE_OPEN_READ_ONLY, history) {
                Err(CopyError::Sqlite { .. }) | Err(CopyError::Locked { .. }) => {
                    open_checked(&copy, OpenFlags::SQLITE_OPEN_READ_WRITE, history)
                }
                other => other,
            };
            match opened {
                Ok(conn) => break (conn, parts),
                Err(CopyError::Corrupt { .. } | CopyError::Sqlite { .. }) if !last => {
                    backoff(attempt);
                }
                Err(e) => return Err(e),
            }
        };
        Ok(Snapshot {
            conn,
            parts,
            _dir: temp,
        })
    }
}

/// Copy `history` to `copy` and its side files beside it (stale ones removed); the side files
/// copied, as original paths.
fn copy_files(
    history: &Path,
    dir: &Path,
    copy: &Path,
    name: &str,
) -> Result<Vec<PathBuf>, CopyError> {
    for stale in ["-wal", "-journal", "-shm"] {
        let _ = std::fs::remove_file(dir.join(format!("{name}{stale}")));
    }
    copy_in_place(history, copy).map_err(|source| CopyError::Snapshot {
        path: history.to_path_buf(),
        source,
    })?;
    let mut parts = Vec::new();
    for suffix in SIDE_FILES {
        let mut side = history.as_os_str().to_owned();
        side.push(suffix);
        let side = PathBuf::from(side);
        if side.is_file() {
            let to = dir.join(format!("{name}{suffix}"));
            match std::fs::copy(&side, &to) {
                Ok(_) => parts.push(side),
                // Committed and deleted between the check and the copy: nothing to roll back.
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(source) => return Err(CopyError::Snapshot { path: side, source }),
            }
        }
    }
    Ok(parts)
}

pub fn backoff(attempt: u32) {
    std::thread::sleep(std::time::Duration::from_millis(10 << attempt.min(5)));
}

/// Overwrite `to` with the bytes of `from` without first deleting it (the kernel copies in place,
/// `copy_file_range` on Linux), then cut it to length.
fn copy_in_place(from: &Path, to: &Path) -> std::io::Result<()> {
    let mut src = std::fs::File::open(from)?;
    let mut dst = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(false)
        .open(to)?;
    let n = std::io::copy(&mut src, &mut dst)?;
    dst.set_len(n)
}

/// Create `dir` readable by its owner only: it holds an unfiltered copy of the browser history.
fn private_dir(dir: &Path) -> std::io::Result<()> {
    let mut b = std::fs::DirBuilder::new();
    b.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
        b.mode(0o700);
        b.create(dir)?;
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
    }
    #[cfg(not(unix))]
    b.create(dir)
}

fn check_magic(path: &Path) -> Result<(), CopyError> {
    use std::io::Read;
    let mut head = [0u8; 16];
    let mut f = std::fs::File::open(path).map_err(|_| CopyError::Missing {
        path: path.to_path_buf(),
    })?;
    let n = f.read(&mut head).unwrap_or(0);
    if n < 16 || &head != SQLITE_MAGIC {
        let reason = if n == 0 {
            "empty file".to_string()
        } else {
            "no SQLite header".to_string()
        };
        return Err(CopyError::NotSqlite {
            path: path.to_path_buf(),
            reason,
        });
    }
    Ok(())
}

/// Open `copy` with `flags` and read the schema once, so a bad file fails here, classified.
fn open_checked(copy: &Path, flags: OpenFlags, original: &Path) -> Result<Connection, CopyError> {
    let flags = flags | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = Connection::open_with_flags(copy, flags).map_err(|e| classify(original, &e))?;
    // Page cache for the big ordered scan; no mmap, so file pages do not count against our RSS.
    // Source: our measurement on the 1M-visit bench (2026-11): 16 MB is past the knee.
    conn.pragma_update(None, "cache_size", -16_000)
        .map_err(|e| classify(original, &e))?;
    conn.query_row("SELECT count(*) FROM sqlite_master", [], |r| {
        r.get::<_, i64>(0)
    })
    .map_err(|e| classify(original, &e))?;
    Ok(conn)
}

/// Map a SQLite error onto our classes (bad input, locked, internal).
pub fn classify(path: &Path, e: &rusqlite::Error) -> CopyError {
    use rusqlite::ErrorCode as C;
    let path = path.to_path_buf();
    let reason = e.to_string();
    match e.sqlite_error_code() {
        Some(C::NotADatabase) => CopyError::NotSqlite { path, reason },
        Some(C::DatabaseCorrupt) => CopyError::Corrupt { path, reason },
        Some(C::DatabaseBusy) | Some(C::DatabaseLocked) => CopyError::Locked { path, reason },
        _ => CopyError::Sqlite { path, reason },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A database another connection keeps writing to, in `mode` (`wal` or `delete`).
    fn busy(dir: &Path, mode: &str) -> (PathBuf, std::sync::Arc<std::sync::atomic::AtomicBool>) {
        let db = dir.join("History");
        let conn = Connection::open(&db).expect("open");
        conn.pragma_update(None, "journal_mode", mode)
            .expect("mode");
        conn.execute_batch("CREATE TABLE urls(id INTEGER PRIMARY KEY, url TEXT, pad TEXT);")
            .expect("schema");
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let flag = stop.clone();
        std::thread::spawn(move || {
            let mut n = 0;
            while !flag.load(std::sync::atomic::Ordering::Relaxed) {
                let tx = conn.unchecked_transaction().expect("tx");
                for _ in 0..50 {
                    n += 1;
                    tx.execute(
                        "INSERT INTO urls(url, pad) VALUES (?1, ?2)",
                        (format!("https://example.com/{n}"), "x".repeat(100)),
                    )
                    .expect("insert");
                }
                tx.commit().expect("commit");
                // A browser writes in bursts, not in a loop that never lets a reader in.
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
        });
        (db, stop)
    }

    #[test]
    fn a_busy_healthy_database_always_gives_a_whole_snapshot() {
        for mode in ["wal", "delete"] {
            let dir = tempfile::tempdir().expect("tempdir");
            let (db, stop) = busy(dir.path(), mode);
            std::thread::sleep(std::time::Duration::from_millis(50));
            let mut last = 0;
            for _ in 0..30 {
                let snap = Snapshot::open(&db, None).expect("a snapshot while it writes");
                let ok: String = snap
                    .conn
                    .query_row("PRAGMA integrity_check", [], |r| r.get(0))
                    .expect("check");
                assert_eq!(ok, "ok", "{mode}");
                let n: i64 = snap
                    .conn
                    .query_row("SELECT count(*) FROM urls", [], |r| r.get(0))
                    .expect("count");
                // Whole transactions only (50 rows each), never fewer than the last snapshot saw.
                assert_eq!(n % 50, 0, "{mode}: {n}");
                assert!(n >= last, "{mode}");
                last = n;
            }
            stop.store(true, std::sync::atomic::Ordering::Relaxed);
            assert!(last > 0, "{mode}");
        }
    }
}
