//! The registry's side of rehearsal (crate::access): `recall_counts` and the log files folded.

use std::collections::HashMap;

use rusqlite::{OptionalExtension, params};

use super::{Registry, RegistryError};
use crate::access::Counts;

impl Registry {
    /// Whether the access-log file `name` was folded already.
    pub fn access_folded(&self, name: &str) -> Result<bool, RegistryError> {
        self.conn
            .query_row(
                "SELECT 1 FROM access_folded WHERE name = ?1",
                [name],
                |_| Ok(()),
            )
            .optional()
            .map(|r| r.is_some())
            .map_err(|e| self.err(e))
    }

    /// Add `counts` (by document id) and record `name` as folded, in one transaction: a file is
    /// counted once whatever happens after.
    pub fn add_access(
        &self,
        name: &str,
        counts: &HashMap<String, Counts>,
    ) -> Result<(), RegistryError> {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs() as i64);
        let tx = self.conn.unchecked_transaction().map_err(|e| self.err(e))?;
        tx.execute(
            "INSERT OR IGNORE INTO access_folded (name, folded_at) VALUES (?1, ?2)",
            params![name, now],
        )
        .map_err(|e| self.err(e))?;
        for (id, c) in counts {
            tx.execute(
                "INSERT INTO recall_counts (id, count, listed, last_recalled_at) VALUES (?1, ?2, ?3, ?4)
                 ON CONFLICT(id) DO UPDATE SET count = count + excluded.count,
                   listed = listed + excluded.listed,
                   last_recalled_at = max(coalesce(last_recalled_at, excluded.last_recalled_at),
                                          coalesce(excluded.last_recalled_at, last_recalled_at))",
                params![
                    id,
                    c.reads.min(i64::MAX as u64) as i64,
                    c.listed.min(i64::MAX as u64) as i64,
                    c.last_read
                ],
            )
            .map_err(|e| self.err(e))?;
        }
        tx.commit().map_err(|e| self.err(e))
    }

    /// Replace the reads `source` counted elsewhere (an entity's `items.json`) with `counts`, in
    /// one transaction: a fact that left the file leaves no baseline behind.
    pub fn set_baselines(
        &self,
        source: &str,
        counts: &[(String, Counts)],
    ) -> Result<(), RegistryError> {
        let tx = self.conn.unchecked_transaction().map_err(|e| self.err(e))?;
        tx.execute("DELETE FROM recall_baseline WHERE source = ?1", [source])
            .map_err(|e| self.err(e))?;
        for (id, c) in counts {
            tx.execute(
                "INSERT OR REPLACE INTO recall_baseline (id, count, last_recalled_at, source)
                 VALUES (?1, ?2, ?3, ?4)",
                params![id, c.reads.min(i64::MAX as u64) as i64, c.last_read, source],
            )
            .map_err(|e| self.err(e))?;
        }
        tx.commit().map_err(|e| self.err(e))
    }

    /// The sources that set baselines (`set_baselines`), for dropping those whose file is gone.
    pub fn baseline_sources(&self) -> Result<Vec<String>, RegistryError> {
        let mut stmt = self
            .conn
            .prepare("SELECT DISTINCT source FROM recall_baseline ORDER BY source")
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map([], |r| r.get::<_, String>(0))
            .map_err(|e| self.err(e))?;
        rows.collect::<Result<_, _>>().map_err(|e| self.err(e))
    }

    /// Forget every count of `ids` (reads, listings, baselines) and their place in the
    /// distillation queue: `brain forget --purge`.
    pub fn forget_access(&self, ids: &[&str]) -> Result<(), RegistryError> {
        let tx = self.conn.unchecked_transaction().map_err(|e| self.err(e))?;
        for id in ids {
            for table in ["recall_counts", "recall_baseline", "distill_queue"] {
                tx.execute(&format!("DELETE FROM {table} WHERE id = ?1"), [id])
                    .map_err(|e| self.err(e))?;
            }
        }
        tx.commit().map_err(|e| self.err(e))
    }

    /// Whether the baselines table is there: a registry opened for reading only
    /// ([`Registry::open_existing`]) may predate migration 3 until the next write migrates it.
    fn has_baselines(&self) -> Result<bool, RegistryError> {
        Ok(self.version()? >= 3)
    }

    /// `(id, date)` of the indexed records that have counts (reads, listings or baselines): the
    /// few whose tier their reads may change.
    pub fn dates_of_counted(&self) -> Result<Vec<(String, String)>, RegistryError> {
        let mut stmt = self
            .conn
            .prepare(&format!(
                "SELECT d.id, d.date FROM documents d
                 WHERE d.id IN (SELECT id FROM recall_counts{})",
                if self.has_baselines()? {
                    " UNION SELECT id FROM recall_baseline"
                } else {
                    ""
                }
            ))
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))
            .map_err(|e| self.err(e))?;
        rows.collect::<Result<_, _>>().map_err(|e| self.err(e))
    }

    /// Every record's counts: reads through brain plus reads counted elsewhere (baselines); the
    /// later of the two last reads.
    pub fn access_counts(&self) -> Result<Vec<(String, Counts)>, RegistryError> {
        let mut stmt = self
            .conn
            .prepare(&format!(
                "SELECT id, sum(count), sum(listed), max(last_recalled_at) FROM (
                   SELECT id, count, listed, last_recalled_at FROM recall_counts{}
                 ) GROUP BY id ORDER BY id",
                if self.has_baselines()? {
                    " UNION ALL SELECT id, count, 0, last_recalled_at FROM recall_baseline"
                } else {
                    ""
                }
            ))
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map([], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    Counts {
                        reads: r.get::<_, i64>(1)?.max(0) as u64,
                        listed: r.get::<_, i64>(2)?.max(0) as u64,
                        last_read: r.get(3)?,
                    },
                ))
            })
            .map_err(|e| self.err(e))?;
        rows.collect::<Result<_, _>>().map_err(|e| self.err(e))
    }
}
