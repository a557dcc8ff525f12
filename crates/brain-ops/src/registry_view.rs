//! Read-only questions to `state.sqlite` (the document registry `lexindex` and `vecindex` keep): counts,
//! last updates and the embedding backlog per collection. Never creates or migrates the database: a
//! home that was never indexed simply has no registry.

use std::path::{Path, PathBuf};

use brain_store::Home;
use rusqlite::{Connection, OpenFlags};

use crate::OpsError;

/// Per collection, what the registry says.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CollectionCounts {
    pub collection: String,
    /// Registered (lexically indexed) documents.
    pub docs: u64,
    /// Unix seconds of the newest lexindex commit that touched one of them.
    pub last_lex: Option<i64>,
    /// Documents whose vectors are up to date under the current store fingerprint.
    pub embedded: u64,
    /// Unix seconds of the newest vecindex run that recorded one of them.
    pub last_vec: Option<i64>,
}

/// A registered file, as far as freshness checks need it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileEntry {
    pub id: String,
    pub collection: String,
    pub file: PathBuf,
    pub mtime_ns: i64,
    pub size: i64,
    /// Passages the lexical index holds for it (0: an empty document, absent from the index).
    pub passages: i64,
}

/// An open, read-only view of the registry.
pub struct RegistryView {
    conn: Connection,
    path: PathBuf,
}

impl RegistryView {
    /// Open `state.sqlite` of `home`; `None` when there is none.
    pub fn open(home: &Home) -> Result<Option<RegistryView>, OpsError> {
        Self::open_path(&home.state_db())
    }

    /// Open the registry at `path`; `None` when the file does not exist.
    pub fn open_path(path: &Path) -> Result<Option<RegistryView>, OpsError> {
        if !path.is_file() {
            return Ok(None);
        }
        let err = |source| OpsError::Registry {
            path: path.to_path_buf(),
            source,
        };
        // Read-write without CREATE: a WAL reader may need to create the -shm file.
        let conn = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(err)?;
        conn.busy_timeout(std::time::Duration::from_secs(2))
            .map_err(err)?;
        Ok(Some(RegistryView {
            conn,
            path: path.to_path_buf(),
        }))
    }

    fn err(&self, source: rusqlite::Error) -> OpsError {
        OpsError::Registry {
            path: self.path.clone(),
            source,
        }
    }

    /// Whether the `documents` table exists (a registry `lexindex` has migrated).
    fn has_documents(&self) -> Result<bool, OpsError> {
        self.conn
            .query_row(
                "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'documents'",
                [],
                |r| r.get::<_, i64>(0),
            )
            .map(|n| n > 0)
            .map_err(|e| self.err(e))
    }

    /// Counts per collection, ordered by name. `vec_fingerprint` is the id of the current vector store's
    /// fingerprint; without one, nothing counts as embedded.
    pub fn counts(&self, vec_fingerprint: Option<&str>) -> Result<Vec<CollectionCounts>, OpsError> {
        if !self.has_documents()? {
            return Ok(Vec::new());
        }
        let mut st = self
            .conn
            .prepare(
                "SELECT collection, count(*), max(lex_indexed_at),
                        sum(CASE WHEN vec_indexed_at IS NOT NULL AND vec_fingerprint = ?1 THEN 1 ELSE 0 END),
                        max(vec_indexed_at)
                 FROM documents GROUP BY collection ORDER BY collection",
            )
            .map_err(|e| self.err(e))?;
        let fp = vec_fingerprint.unwrap_or("\u{0}no store");
        let rows = st
            .query_map([fp], |r| {
                Ok(CollectionCounts {
                    collection: r.get(0)?,
                    docs: r.get::<_, i64>(1)?.max(0) as u64,
                    last_lex: r.get(2)?,
                    embedded: r.get::<_, Option<i64>>(3)?.unwrap_or(0).max(0) as u64,
                    last_vec: r.get(4)?,
                })
            })
            .map_err(|e| self.err(e))?;
        rows.collect::<Result<Vec<_>, _>>().map_err(|e| self.err(e))
    }

    /// Every registered file.
    pub fn files(&self) -> Result<Vec<FileEntry>, OpsError> {
        if !self.has_documents()? {
            return Ok(Vec::new());
        }
        let mut st = self
            .conn
            .prepare(
                "SELECT id, collection, file, mtime_ns, size, passages FROM documents ORDER BY id",
            )
            .map_err(|e| self.err(e))?;
        let rows = st
            .query_map([], |r| {
                Ok(FileEntry {
                    id: r.get(0)?,
                    collection: r.get(1)?,
                    file: PathBuf::from(r.get::<_, String>(2)?),
                    mtime_ns: r.get(3)?,
                    size: r.get(4)?,
                    passages: r.get(5)?,
                })
            })
            .map_err(|e| self.err(e))?;
        rows.collect::<Result<Vec<_>, _>>().map_err(|e| self.err(e))
    }

    /// `PRAGMA integrity_check`: `ok`, or the problems SQLite lists.
    pub fn integrity(&self) -> Result<Vec<String>, OpsError> {
        let mut st = self
            .conn
            .prepare("PRAGMA integrity_check")
            .map_err(|e| self.err(e))?;
        let rows = st
            .query_map([], |r| r.get::<_, String>(0))
            .map_err(|e| self.err(e))?;
        rows.collect::<Result<Vec<_>, _>>().map_err(|e| self.err(e))
    }
}

/// Unix seconds → RFC 3339 (UTC).
pub fn rfc3339(secs: i64) -> String {
    brain_lex::format_secs(secs)
}
