//! The read side of the registry: counts per collection, the embedding backlog, the registered files
//! and the integrity check — what `status`, `explain`, `doctor`, MCP and `rank` ask.
//!
//! "Embedded" has one definition, [`EMBEDDED`]: the document has vectors made under the current
//! store fingerprint (model, dimensions, chunking, prompt format). A document embedded under another
//! fingerprint — after a model change — is in the backlog, on every surface.

use std::path::PathBuf;

use super::{DocEntry, Registry, RegistryError};

/// SQL predicate over a `documents` row, with `?1` the current store fingerprint: its vectors are up
/// to date. The one definition every count of "embedded" and "needs embedding" uses.
const EMBEDDED: &str = "(vec_indexed_at IS NOT NULL AND vec_fingerprint = ?1)";

/// The schema from which the registry keeps its backlog counts (migration 6).
const COUNTED: i64 = 6;

/// A fingerprint no row can hold: with no vector store, nothing counts as embedded.
const NO_STORE: &str = "\u{0}no store";

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

impl CollectionCounts {
    /// Documents that still need embedding under the current fingerprint.
    pub fn need_embeddings(&self) -> u64 {
        self.docs.saturating_sub(self.embedded)
    }
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

impl Registry {
    /// Whether the `documents` table exists (a registry `lexindex` has migrated). A registry opened
    /// with [`Registry::open_existing`] may predate it.
    fn has_documents(&self) -> Result<bool, RegistryError> {
        self.conn
            .query_row(
                "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'documents'",
                [],
                |r| r.get::<_, i64>(0),
            )
            .map(|n| n > 0)
            .map_err(|e| self.err(e))
    }

    /// Counts per collection, ordered by name. `fingerprint` is the id of the current vector store's
    /// fingerprint; without one, nothing counts as embedded.
    pub fn counts(
        &self,
        fingerprint: Option<&str>,
    ) -> Result<Vec<CollectionCounts>, RegistryError> {
        if !self.has_documents()? {
            return Ok(Vec::new());
        }
        let sql = format!(
            "SELECT collection, count(*), max(lex_indexed_at),
                    sum(CASE WHEN {EMBEDDED} THEN 1 ELSE 0 END), max(vec_indexed_at)
             FROM documents GROUP BY collection ORDER BY collection"
        );
        let mut st = self.conn.prepare(&sql).map_err(|e| self.err(e))?;
        let rows = st
            .query_map([fingerprint.unwrap_or(NO_STORE)], |r| {
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

    /// Documents per day of their `date` (its first ten characters: the day as the document wrote
    /// it) and collection, days ascending; undated documents are not counted (`brain browse`'s
    /// timeline and its heat strip).
    pub fn day_counts(&self) -> Result<Vec<(String, String, u64)>, RegistryError> {
        let mut st = self
            .conn
            .prepare(
                "SELECT substr(date, 1, 10) AS day, collection, count(*) FROM documents
                 WHERE length(date) >= 10 GROUP BY day, collection ORDER BY day, collection",
            )
            .map_err(|e| self.err(e))?;
        let rows = st
            .query_map([], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get::<_, i64>(2)?.max(0) as u64))
            })
            .map_err(|e| self.err(e))?;
        rows.collect::<Result<Vec<_>, _>>().map_err(|e| self.err(e))
    }

    /// The `n` entries with the newest dates up to `until` (RFC 3339, compared as text: a date
    /// written in another zone may sort a few hours off), newest first.
    pub fn newest(&self, n: usize, until: &str) -> Result<Vec<DocEntry>, RegistryError> {
        let sql = format!(
            "SELECT {} FROM documents WHERE date != '' AND date <= ?2 ORDER BY date DESC, id LIMIT ?1",
            super::COLUMNS
        );
        let mut st = self.conn.prepare(&sql).map_err(|e| self.err(e))?;
        let rows = st
            .query_map(rusqlite::params![n as i64, until], super::entry)
            .map_err(|e| self.err(e))?;
        rows.collect::<Result<Vec<_>, _>>().map_err(|e| self.err(e))
    }

    /// The entries dated on days `from` ..= `to` (`YYYY-MM-DD`, the first ten characters of their
    /// `date`), newest first.
    pub fn entries_on_days(&self, from: &str, to: &str) -> Result<Vec<DocEntry>, RegistryError> {
        let sql = format!(
            "SELECT {} FROM documents WHERE substr(date, 1, 10) BETWEEN ?1 AND ?2
             ORDER BY date DESC, id",
            super::COLUMNS
        );
        let mut st = self.conn.prepare(&sql).map_err(|e| self.err(e))?;
        let rows = st
            .query_map([from, to], super::entry)
            .map_err(|e| self.err(e))?;
        rows.collect::<Result<Vec<_>, _>>().map_err(|e| self.err(e))
    }

    /// How many registered documents need embedding under `fingerprint` (all of them without one):
    /// the documents less those embedded under it, two counts the writes keep (migration 6), so
    /// the query path reads two rows instead of every document. A registry of an older schema
    /// (opened read-only, never migrated) is counted row by row.
    pub fn backlog(&self, fingerprint: Option<&str>) -> Result<u64, RegistryError> {
        if !self.has_documents()? {
            return Ok(0);
        }
        if self.version()? >= COUNTED {
            return self
                .conn
                .query_row(
                    "SELECT (SELECT docs FROM document_count),
                            coalesce((SELECT docs FROM embedded_counts WHERE fingerprint = ?1), 0)",
                    [fingerprint.unwrap_or(NO_STORE)],
                    |r| Ok((r.get::<_, Option<i64>>(0)?, r.get::<_, i64>(1)?)),
                )
                .map(|(docs, embedded)| docs.unwrap_or(0).saturating_sub(embedded).max(0) as u64)
                .map_err(|e| self.err(e));
        }
        self.backlog_scanned(fingerprint)
    }

    /// [`Registry::backlog`] counted row by row.
    fn backlog_scanned(&self, fingerprint: Option<&str>) -> Result<u64, RegistryError> {
        self.conn
            .query_row(
                &format!("SELECT count(*) FROM documents WHERE NOT {EMBEDDED}"),
                [fingerprint.unwrap_or(NO_STORE)],
                |r| r.get::<_, i64>(0),
            )
            .map(|n| n.max(0) as u64)
            .map_err(|e| self.err(e))
    }

    /// Every registered file, ordered by id.
    pub fn files(&self) -> Result<Vec<FileEntry>, RegistryError> {
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
    pub fn integrity(&self) -> Result<Vec<String>, RegistryError> {
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

#[cfg(test)]
mod tests {
    use crate::{DocEntry, Home, Registry};

    fn entry(id: &str, collection: &str) -> DocEntry {
        DocEntry {
            id: id.into(),
            collection: collection.into(),
            path: id.into(),
            file: format!("/h/{id}"),
            mtime_ns: 1,
            size: 1,
            sha256: format!("sha-{id}"),
            title: String::new(),
            date: String::new(),
            passages: 1,
            lex_indexed_at: 7,
        }
    }

    /// The bug this module fixed: MCP counted `vec_indexed_at IS NULL` as the backlog, so after a model
    /// change it said 0 pending while `explain` said all of them. Every count now reads [`EMBEDDED`].
    #[test]
    fn a_model_change_puts_every_document_back_in_the_backlog_on_every_count() {
        let dir = tempfile::tempdir().expect("tempdir");
        let home = Home::at(dir.path());
        let mut r = Registry::open(&home).expect("open");
        r.apply(
            &[entry("a", "notes"), entry("b", "notes"), entry("c", "web")],
            &[],
            &[],
        )
        .expect("apply");
        r.mark_embedded("old-model", 9, ["a", "b", "c"])
            .expect("mark");
        assert_eq!(r.backlog(Some("old-model")).expect("backlog"), 0);
        let counts = r.counts(Some("old-model")).expect("counts");
        assert_eq!(counts.iter().map(|c| c.need_embeddings()).sum::<u64>(), 0);
        // The store is rebuilt with another model: nothing is current any more.
        assert_eq!(r.backlog(Some("new-model")).expect("backlog"), 3);
        let counts = r.counts(Some("new-model")).expect("counts");
        assert_eq!(counts.iter().map(|c| c.need_embeddings()).sum::<u64>(), 3);
        assert_eq!(counts[0].last_vec, Some(9));
        // No store at all: everything waits.
        assert_eq!(r.backlog(None).expect("backlog"), 3);
        r.mark_embedded("new-model", 10, ["a"]).expect("mark");
        assert_eq!(r.backlog(Some("new-model")).expect("backlog"), 2);
    }

    /// The counts the triggers keep equal a count of the rows after every kind of write: upserts
    /// with the same and a changed hash, a file moved to another id, removals, documents embedded
    /// under one fingerprint and again under another; and a registry migrated from schema 5 starts
    /// from its rows.
    #[test]
    fn the_kept_backlog_counts_equal_a_count_of_the_rows() {
        let dir = tempfile::tempdir().expect("tempdir");
        let home = Home::at(dir.path());
        let mut r = Registry::open(&home).expect("open");
        let check = |r: &Registry, step: &str| {
            for fp in [None, Some("m1"), Some("m2"), Some("never")] {
                assert_eq!(
                    r.backlog(fp).expect("counted"),
                    r.backlog_scanned(fp).expect("scanned"),
                    "{step}: {fp:?}"
                );
            }
        };
        let ids: Vec<String> = (0..40).map(|i| format!("d{i}")).collect();
        let mut state = 0x2545_F491u64;
        let mut next = |n: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % n as u64) as usize
        };
        check(&r, "empty");
        for step in 0..300 {
            let id = ids[next(ids.len())].as_str();
            match next(6) {
                0 | 1 => {
                    let mut e = entry(id, "notes");
                    e.sha256 = format!("sha-{}", next(2)); // the same content, or changed
                    r.apply(&[e], &[], &[]).expect("upsert");
                }
                2 => r.apply(&[], &[id.to_string()], &[]).expect("remove"),
                3 => {
                    // The same file under another id: the old row goes.
                    let other = ids[next(ids.len())].as_str();
                    let mut e = entry(other, "web");
                    e.file = format!("/h/{id}");
                    r.apply(&[e], &[], &[]).expect("move");
                }
                4 => r.mark_embedded("m1", 5, [id]).expect("mark m1"),
                _ => r.mark_embedded("m2", 6, [id, "missing"]).expect("mark m2"),
            }
            check(&r, &format!("step {step}"));
        }
        drop(r);

        // A registry of schema 5 with rows: migration 6 counts them.
        let path = dir.path().join("old.sqlite");
        let conn = rusqlite::Connection::open(&path).expect("open");
        for sql in &crate::registry::MIGRATIONS[..5] {
            conn.execute_batch(sql).expect("migrate");
        }
        conn.execute_batch(
            "PRAGMA user_version = 5;
             INSERT INTO documents (id, collection, path, file, mtime_ns, size, sha256,
                 lex_indexed_at, vec_fingerprint, vec_indexed_at)
             VALUES ('a', 'c', 'a', '/a', 1, 1, 'x', 1, 'm1', 3),
                    ('b', 'c', 'b', '/b', 1, 1, 'x', 1, 'm1', NULL),
                    ('c', 'c', 'c', '/c', 1, 1, 'x', 1, NULL, NULL);",
        )
        .expect("old rows");
        drop(conn);
        let old = Registry::open_existing_path(&path)
            .expect("open")
            .expect("there");
        assert_eq!(old.backlog(Some("m1")).expect("scanned"), 2);
        drop(old);
        let migrated = Registry::open_path(&path).expect("migrate");
        check(&migrated, "migrated");
        assert_eq!(migrated.backlog(Some("m1")).expect("counted"), 2);
    }

    #[test]
    fn the_read_side_never_creates_a_registry() {
        let dir = tempfile::tempdir().expect("tempdir");
        let home = Home::at(dir.path());
        assert!(Registry::open_existing(&home).expect("open").is_none());
        assert!(!home.state_db().exists());
        // A file that predates the migrations answers empty, not an error.
        std::fs::write(home.state_db(), b"").expect("empty db");
        let r = Registry::open_existing(&home)
            .expect("open")
            .expect("exists");
        assert!(r.counts(Some("x")).expect("counts").is_empty());
        assert_eq!(r.backlog(None).expect("backlog"), 0);
        assert!(r.files().expect("files").is_empty());
    }
}
