//! `state.sqlite`: the document registry — what the lexical index holds, from which file, how fresh —
//! plus tables reserved for later stages (vector freshness, recall counts, distill queue).
//!
//! Schema migrations are numbered SQL scripts ([`MIGRATIONS`]) applied in order inside one
//! transaction; `PRAGMA user_version` records how many ran. Add a migration, never edit one.
//!
//! This module is the one owner of `state.sqlite`: every query any stage or surface makes of it is a
//! typed method here (the write side in this file, the read side — counts, backlog, freshness — in
//! [`read`]). No other crate of the workspace uses `rusqlite` on it.

mod read;
mod read_only;

use std::path::{Path, PathBuf};

use rusqlite::{Connection, OpenFlags, OptionalExtension, params};

use crate::Home;

pub use read::{CollectionCounts, FileEntry};

mod access;
mod links;

pub use links::{DocLinks, EntityDef, LinkRow, NAME, cached_entity_defs, entities_file};

/// The migrations, in order. `user_version` = number applied.
pub const MIGRATIONS: &[&str] = &[
    // 1: documents (lexical registry; vec_* columns reserved for vecindex), recall counts, distill queue.
    "CREATE TABLE documents (
        id TEXT PRIMARY KEY,              -- <collection>/<path>
        collection TEXT NOT NULL,
        path TEXT NOT NULL,               -- inside the collection
        file TEXT NOT NULL UNIQUE,        -- absolute path of the markdown file
        mtime_ns INTEGER NOT NULL,        -- file mtime, ns since the epoch
        size INTEGER NOT NULL,            -- bytes
        sha256 TEXT NOT NULL,             -- of the file's bytes
        title TEXT NOT NULL DEFAULT '',
        date TEXT NOT NULL DEFAULT '',    -- RFC 3339
        passages INTEGER NOT NULL DEFAULT 0,
        lex_indexed_at INTEGER NOT NULL,  -- unix seconds of the lexindex commit
        vec_fingerprint TEXT,             -- vecindex: embedder+chunker fingerprint the vectors were made with
        vec_indexed_at INTEGER            -- vecindex: unix seconds; NULL = needs embedding
    );
    CREATE INDEX documents_by_collection ON documents(collection);
    CREATE TABLE recall_counts (
        id TEXT PRIMARY KEY,              -- document id
        count INTEGER NOT NULL DEFAULT 0,
        last_recalled_at INTEGER
    );
    CREATE TABLE distill_queue (
        id TEXT PRIMARY KEY,              -- document id
        enqueued_at INTEGER NOT NULL,
        state TEXT NOT NULL DEFAULT 'pending'
    );",
    // 2: rehearsal (crate::access): listings apart from reads, and the access-log files folded.
    "ALTER TABLE recall_counts ADD COLUMN listed INTEGER NOT NULL DEFAULT 0;
    CREATE TABLE access_folded (
        name TEXT PRIMARY KEY,            -- the log file's name when it was taken aside
        folded_at INTEGER NOT NULL
    );",
    // 3: reads counted elsewhere (an entity's items.json `accessCount` / `lastAccessed`), by source.
    "CREATE TABLE recall_baseline (
        id TEXT PRIMARY KEY,              -- document id
        count INTEGER NOT NULL DEFAULT 0,
        last_recalled_at INTEGER,
        source TEXT NOT NULL              -- what set it (the items.json, as collection/path)
    );
    CREATE INDEX recall_baseline_by_source ON recall_baseline(source);",
    // 4: the memory graph (links.rs): what each document says it relates to, and the entities
    // files define. Written with the document; an index of an older schema is rebuilt, filling them.
    "CREATE TABLE links (
        doc_id TEXT NOT NULL,             -- the document that says it
        kind TEXT NOT NULL,               -- derives_from … related, entity, handle, project
        target TEXT NOT NULL,             -- as written
        line INTEGER NOT NULL DEFAULT 1   -- 1-based line of the file
    );
    CREATE INDEX links_by_doc ON links(doc_id);
    CREATE TABLE entity_defs (
        doc_id TEXT PRIMARY KEY,          -- the defining file (summary.md, or one with entity:)
        entity TEXT NOT NULL,             -- <collection>/<folder>, or the doc id without .md
        kind TEXT NOT NULL,
        name TEXT NOT NULL,
        aliases TEXT NOT NULL DEFAULT '[]', -- JSON list of strings
        archived INTEGER NOT NULL DEFAULT 0
    );",
    // 5: links by kind — the briefing reads one relation (`contradicts`) on every session start.
    "CREATE INDEX links_by_kind ON links(kind);",
    // 6: the embedding backlog as counts the writes keep (read.rs `backlog`): a fresh hybrid query
    // counted every row of `documents` (4-8 ms at 10,000-100,000 documents). Triggers keep them,
    // so every write that changes a row — whoever makes it — keeps them true.
    "CREATE TABLE document_count (
        one INTEGER PRIMARY KEY CHECK (one = 1),
        docs INTEGER NOT NULL             -- rows of documents
    );
    INSERT INTO document_count SELECT 1, count(*) FROM documents;
    CREATE TABLE embedded_counts (
        fingerprint TEXT PRIMARY KEY,     -- a vector store's fingerprint
        docs INTEGER NOT NULL             -- rows embedded under it (vec_indexed_at set)
    );
    INSERT INTO embedded_counts SELECT vec_fingerprint, count(*) FROM documents
        WHERE vec_indexed_at IS NOT NULL AND vec_fingerprint IS NOT NULL GROUP BY vec_fingerprint;
    CREATE TRIGGER documents_counted_in AFTER INSERT ON documents BEGIN
        UPDATE document_count SET docs = docs + 1;
        INSERT INTO embedded_counts SELECT NEW.vec_fingerprint, 1
            WHERE NEW.vec_indexed_at IS NOT NULL AND NEW.vec_fingerprint IS NOT NULL
            ON CONFLICT(fingerprint) DO UPDATE SET docs = docs + 1;
    END;
    CREATE TRIGGER documents_counted_out AFTER DELETE ON documents BEGIN
        UPDATE document_count SET docs = docs - 1;
        UPDATE embedded_counts SET docs = docs - 1
            WHERE fingerprint = OLD.vec_fingerprint AND OLD.vec_indexed_at IS NOT NULL;
    END;
    CREATE TRIGGER documents_counted_again AFTER UPDATE OF vec_fingerprint, vec_indexed_at
        ON documents BEGIN
        UPDATE embedded_counts SET docs = docs - 1
            WHERE fingerprint = OLD.vec_fingerprint AND OLD.vec_indexed_at IS NOT NULL;
        INSERT INTO embedded_counts SELECT NEW.vec_fingerprint, 1
            WHERE NEW.vec_indexed_at IS NOT NULL AND NEW.vec_fingerprint IS NOT NULL
            ON CONFLICT(fingerprint) DO UPDATE SET docs = docs + 1;
    END;",
];

/// One registered document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DocEntry {
    pub id: String,
    pub collection: String,
    pub path: String,
    pub file: String,
    pub mtime_ns: i64,
    pub size: i64,
    pub sha256: String,
    pub title: String,
    pub date: String,
    pub passages: i64,
    pub lex_indexed_at: i64,
}

/// The stat fields of an entry ([`Registry::stats`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileStat {
    pub id: String,
    pub file: String,
    pub mtime_ns: i64,
    pub size: i64,
    pub sha256: String,
}

impl From<DocEntry> for FileStat {
    fn from(e: DocEntry) -> FileStat {
        FileStat {
            id: e.id,
            file: e.file,
            mtime_ns: e.mtime_ns,
            size: e.size,
            sha256: e.sha256,
        }
    }
}

/// Why the registry failed.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {source}")]
pub struct RegistryError {
    pub path: PathBuf,
    pub source: rusqlite::Error,
}

impl brain_doc::Classified for RegistryError {
    /// A registry that does not open or answer is the store's fault, not the user's (99).
    fn code(&self) -> brain_doc::ErrorCode {
        brain_doc::ErrorCode::Internal
    }

    fn fix(&self) -> String {
        "run `brain doctor` (state_db check) for the repair".into()
    }
}

/// The open registry.
pub struct Registry {
    conn: Connection,
    path: PathBuf,
}

const COLUMNS: &str =
    "id, collection, path, file, mtime_ns, size, sha256, title, date, passages, lex_indexed_at";

fn entry(row: &rusqlite::Row<'_>) -> rusqlite::Result<DocEntry> {
    Ok(DocEntry {
        id: row.get(0)?,
        collection: row.get(1)?,
        path: row.get(2)?,
        file: row.get(3)?,
        mtime_ns: row.get(4)?,
        size: row.get(5)?,
        sha256: row.get(6)?,
        title: row.get(7)?,
        date: row.get(8)?,
        passages: row.get(9)?,
        lex_indexed_at: row.get(10)?,
    })
}

impl Registry {
    /// Open (creating and migrating as needed) the registry of `home`.
    pub fn open(home: &Home) -> Result<Registry, RegistryError> {
        Self::open_path(&home.state_db())
    }

    /// Open the registry at `path`.
    pub fn open_path(path: &Path) -> Result<Registry, RegistryError> {
        let err = |source| RegistryError {
            path: path.to_path_buf(),
            source,
        };
        if let Some(dir) = path.parent() {
            let _ = std::fs::create_dir_all(dir);
        }
        let mut conn = Connection::open(path).map_err(err)?;
        // WAL: readers (explain, status) never block the single writer; NORMAL sync is durable
        // enough for a rebuildable cache of what the index holds. secure_delete: a deleted row's
        // bytes are overwritten, never left in a free page (`brain forget --purge` relies on it).
        conn.execute_batch(
            "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA busy_timeout=2000;
             PRAGMA secure_delete=ON;",
        )
        .map_err(err)?;
        // No checkpoint when a connection closes: the stop-hook path would pay a WAL checkpoint
        // (two fsyncs) on every run; SQLite's auto-checkpoint (every 1000 WAL pages) still bounds
        // the WAL, and readers see it either way.
        conn.set_db_config(
            rusqlite::config::DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE,
            true,
        )
        .map_err(err)?;
        let done: i64 = conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .map_err(err)?;
        if (done as usize) < MIGRATIONS.len() {
            let tx = conn.transaction().map_err(err)?;
            for sql in &MIGRATIONS[done.max(0) as usize..] {
                tx.execute_batch(sql).map_err(err)?;
            }
            tx.execute_batch(&format!("PRAGMA user_version = {}", MIGRATIONS.len()))
                .map_err(err)?;
            tx.commit().map_err(err)?;
        }
        Ok(Registry {
            conn,
            path: path.to_path_buf(),
        })
    }

    /// Open the registry of `home` for reading, when there is one: never creates the file, never
    /// migrates (a home that was never indexed has no registry: `None`). What `status`, `explain`,
    /// `doctor`, MCP and `rank` read through.
    pub fn open_existing(home: &Home) -> Result<Option<Registry>, RegistryError> {
        Self::open_existing_path(&home.state_db())
    }

    /// [`Registry::open_existing`] at `path`.
    pub fn open_existing_path(path: &Path) -> Result<Option<Registry>, RegistryError> {
        if !path.is_file() {
            return Ok(None);
        }
        let err = |source| RegistryError {
            path: path.to_path_buf(),
            source,
        };
        // Read-write without CREATE: a WAL reader may need to create the -shm file. A process
        // that must write nothing (`brain mcp --read-only`) changes no byte of the database or
        // its side files ([`read_only`]): a read-write connection that closes last checkpoints
        // the WAL a writer left into state.sqlite and removes it.
        let conn = match brain_doc::atomic::read_only() {
            true => read_only::open(path),
            false => Connection::open_with_flags(
                path,
                OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
            ),
        }
        .map_err(err)?;
        conn.busy_timeout(std::time::Duration::from_secs(2))
            .map_err(err)?;
        Ok(Some(Registry {
            conn,
            path: path.to_path_buf(),
        }))
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn err(&self, source: rusqlite::Error) -> RegistryError {
        RegistryError {
            path: self.path.clone(),
            source,
        }
    }

    /// Schema version (number of migrations applied).
    pub fn version(&self) -> Result<i64, RegistryError> {
        self.conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .map_err(|e| self.err(e))
    }

    /// The entry with document id `id`.
    pub fn get(&self, id: &str) -> Result<Option<DocEntry>, RegistryError> {
        self.conn
            .query_row(
                &format!("SELECT {COLUMNS} FROM documents WHERE id = ?1"),
                [id],
                entry,
            )
            .optional()
            .map_err(|e| self.err(e))
    }

    /// Every entry, or those of one collection, ordered by id.
    pub fn entries(&self, collection: Option<&str>) -> Result<Vec<DocEntry>, RegistryError> {
        let (sql, arg) = match collection {
            Some(c) => (
                format!("SELECT {COLUMNS} FROM documents WHERE collection = ?1 ORDER BY id"),
                c,
            ),
            None => (
                format!("SELECT {COLUMNS} FROM documents WHERE ?1 = ?1 ORDER BY id"),
                "",
            ),
        };
        let mut st = self.conn.prepare(&sql).map_err(|e| self.err(e))?;
        let rows = st.query_map([arg], entry).map_err(|e| self.err(e))?;
        rows.collect::<Result<Vec<_>, _>>().map_err(|e| self.err(e))
    }

    /// Fold the WAL back into the database and truncate it, after a bulk write. Without it the
    /// next process to open the registry replays the whole WAL (connections do not checkpoint on
    /// close, so the stop hook stays cheap): after a 10,000-document run that was a 15 MB replay,
    /// ~7 ms, in every later fresh query. Best effort: a reader holding the WAL only delays it.
    pub fn checkpoint(&self) {
        let _ = self
            .conn
            .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()));
    }

    /// What an incremental walk compares, for every entry: id, file, mtime, size and content hash —
    /// five columns, so a no-change run over 10,000 documents reads no titles or dates.
    pub fn stats(&self) -> Result<Vec<FileStat>, RegistryError> {
        let mut st = self
            .conn
            .prepare("SELECT id, file, mtime_ns, size, sha256 FROM documents")
            .map_err(|e| self.err(e))?;
        let rows = st
            .query_map([], |r| {
                Ok(FileStat {
                    id: r.get(0)?,
                    file: r.get(1)?,
                    mtime_ns: r.get(2)?,
                    size: r.get(3)?,
                    sha256: r.get(4)?,
                })
            })
            .map_err(|e| self.err(e))?;
        rows.collect::<Result<Vec<_>, _>>().map_err(|e| self.err(e))
    }

    /// Entries whose file mtime is at or after `mtime_ns`, newest first (then by id): what `brain
    /// recent` walks. A scan of one integer column, no text read.
    pub fn changed_since(&self, mtime_ns: i64) -> Result<Vec<DocEntry>, RegistryError> {
        let mut st = self
            .conn
            .prepare(&format!(
                "SELECT {COLUMNS} FROM documents WHERE mtime_ns >= ?1 ORDER BY mtime_ns DESC, id"
            ))
            .map_err(|e| self.err(e))?;
        let rows = st.query_map([mtime_ns], entry).map_err(|e| self.err(e))?;
        rows.collect::<Result<Vec<_>, _>>().map_err(|e| self.err(e))
    }

    /// Run `work` in one transaction and commit it; any SQLite error names the database.
    fn in_transaction(
        &mut self,
        work: impl FnOnce(&rusqlite::Transaction<'_>) -> rusqlite::Result<()>,
    ) -> Result<(), RegistryError> {
        let path = self.path.clone();
        let err = |source| RegistryError { path, source };
        let tx = match self.conn.transaction() {
            Ok(tx) => tx,
            Err(e) => return Err(err(e)),
        };
        work(&tx).and_then(|()| tx.commit()).map_err(err)
    }

    /// Apply upserts and removals (by id) in one transaction, with the links of the documents
    /// indexed again (`links`: each replaces what its document held; a removal takes its links).
    /// An upsert replacing an entry keeps its vector columns only if the content hash did not
    /// change (else the vectors are stale: NULL).
    pub fn apply(
        &mut self,
        upserts: &[DocEntry],
        removals: &[String],
        links: &[DocLinks],
    ) -> Result<(), RegistryError> {
        self.in_transaction(|tx| {
            links::write(tx, links, removals)?;
            let mut del = tx.prepare_cached("DELETE FROM documents WHERE id = ?1")?;
            for id in removals {
                del.execute([id])?;
            }
            // A file re-registered under a new id (moved between collections) frees its old row.
            let mut del_file =
                tx.prepare_cached("DELETE FROM documents WHERE file = ?1 AND id <> ?2")?;
            let mut up = tx.prepare_cached(&format!(
                "INSERT INTO documents ({COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)
                 ON CONFLICT(id) DO UPDATE SET collection = excluded.collection, path = excluded.path,
                   file = excluded.file, mtime_ns = excluded.mtime_ns, size = excluded.size,
                   title = excluded.title, date = excluded.date, passages = excluded.passages,
                   lex_indexed_at = excluded.lex_indexed_at,
                   vec_fingerprint = CASE WHEN sha256 = excluded.sha256 THEN vec_fingerprint END,
                   vec_indexed_at = CASE WHEN sha256 = excluded.sha256 THEN vec_indexed_at END,
                   sha256 = excluded.sha256"
            ))?;
            for e in upserts {
                del_file.execute(params![e.file, e.id])?;
                up.execute(params![
                    e.id,
                    e.collection,
                    e.path,
                    e.file,
                    e.mtime_ns,
                    e.size,
                    e.sha256,
                    e.title,
                    e.date,
                    e.passages,
                    e.lex_indexed_at
                ])?;
            }
            Ok(())
        })
    }

    /// Record that the documents `ids` have vectors made under the store fingerprint `fingerprint`
    /// (unix seconds `at`), in one transaction: what `vecindex` writes after a run, and what
    /// [`Registry::counts`] and [`Registry::backlog`] read back.
    pub fn mark_embedded<'a>(
        &mut self,
        fingerprint: &str,
        at: i64,
        ids: impl IntoIterator<Item = &'a str>,
    ) -> Result<(), RegistryError> {
        self.in_transaction(|tx| {
            let mut up = tx.prepare_cached(
                "UPDATE documents SET vec_fingerprint = ?1, vec_indexed_at = ?2 WHERE id = ?3",
            )?;
            for id in ids {
                up.execute(params![fingerprint, at, id])?;
            }
            Ok(())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(id: &str, sha: &str) -> DocEntry {
        DocEntry {
            id: id.into(),
            collection: "brain".into(),
            path: id.trim_start_matches("brain/").into(),
            file: format!("/h/corpus/{id}"),
            mtime_ns: 1,
            size: 2,
            sha256: sha.into(),
            title: "t".into(),
            date: "2026-04-02T00:00:00Z".into(),
            passages: 1,
            lex_indexed_at: 3,
        }
    }

    #[test]
    fn a_registry_read_before_migration_3_still_answers_counts() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("state.sqlite");
        let conn = Connection::open(&path).expect("open");
        for sql in &MIGRATIONS[..2] {
            conn.execute_batch(sql).expect("migrate");
        }
        conn.execute_batch(
            "PRAGMA user_version = 2;
             INSERT INTO recall_counts (id, count, listed) VALUES ('brain/a.md', 4, 1);",
        )
        .expect("old rows");
        drop(conn);
        let r = Registry::open_existing_path(&path)
            .expect("open")
            .expect("there");
        let counts = r.access_counts().expect("counts");
        assert_eq!(counts.len(), 1);
        assert_eq!(counts[0].1.reads, 4);
        assert!(r.dates_of_counted().expect("dates").is_empty());
    }

    #[test]
    fn migrations_run_once_and_entries_round_trip() {
        let dir = tempfile::tempdir().expect("tempdir");
        let home = Home::at(dir.path());
        let mut r = Registry::open(&home).expect("open");
        assert_eq!(r.version().expect("v"), MIGRATIONS.len() as i64);
        r.apply(&[e("brain/a.md", "x"), e("brain/b.md", "y")], &[], &[])
            .expect("apply");
        drop(r);
        let mut r = Registry::open(&home).expect("reopen");
        assert_eq!(
            r.get("brain/a.md").expect("get"),
            Some(e("brain/a.md", "x"))
        );
        r.apply(&[], &["brain/a.md".into()], &[]).expect("remove");
        assert_eq!(r.entries(None).expect("all"), vec![e("brain/b.md", "y")]);
        let counts = r.counts(None).expect("counts");
        assert_eq!(counts.len(), 1);
        assert_eq!(
            (counts[0].collection.as_str(), counts[0].docs),
            ("brain", 1)
        );
        let mut newer = e("brain/c.md", "z");
        newer.mtime_ns = 10;
        r.apply(&[newer.clone()], &[], &[]).expect("apply");
        assert_eq!(r.changed_since(5).expect("since"), vec![newer.clone()]);
        assert_eq!(r.changed_since(0).expect("all").len(), 2);
    }

    #[test]
    fn changed_content_clears_vector_freshness() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut r = Registry::open(&Home::at(dir.path())).expect("open");
        r.apply(&[e("brain/a.md", "x")], &[], &[]).expect("apply");
        r.mark_embedded("m1", 5, ["brain/a.md"]).expect("vec");
        assert_eq!(r.backlog(Some("m1")).expect("backlog"), 0);
        r.apply(&[e("brain/a.md", "x")], &[], &[])
            .expect("same content");
        assert_eq!(r.backlog(Some("m1")).expect("backlog"), 0);
        r.apply(&[e("brain/a.md", "z")], &[], &[])
            .expect("new content");
        assert_eq!(r.backlog(Some("m1")).expect("backlog"), 1);
    }
}
