//! The registry's side of the memory graph (seed 003): what each document says it relates to
//! (`links`: typed relations, the entities it names, its project) and the entities files define
//! (`entity_defs`). Rows are written by the index with their document ([`Registry::apply`]) and
//! read back whole — a personal corpus has thousands of links, not millions; `brain_graph`
//! resolves their targets.

/// The link kind of a record's own name (frontmatter `id:`): not an edge, a name the graph, the
/// resolver and supersession look records up by.
pub const NAME: &str = "name";

use rusqlite::params;

use super::{Registry, RegistryError};

/// One thing a document says about another: a relation kind (`supports`, …, `related` for a
/// `[[wiki link]]`), `entity` (its `entities:`), `handle` (an `@handle` in its prose) or `project`
/// (a session's working directory), with the target as written and the line it is on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkRow {
    pub doc_id: String,
    pub kind: String,
    pub target: String,
    pub line: i64,
}

/// An entity a file defines (a PARA folder's `summary.md`, or a file with `entity:`/`aliases:`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct EntityDef {
    /// The defining document.
    pub doc_id: String,
    /// The entity's id: `<collection>/<folder>` of a PARA folder, else the document id without
    /// its `.md`.
    pub entity: String,
    pub kind: String,
    /// Canonical name.
    pub name: String,
    pub aliases: Vec<String>,
    /// Under `archives/` of a PARA collection, or `status: archived`.
    pub archived: bool,
}

/// What one document's indexing says: its links and the entity it defines, replacing what the
/// registry held for it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct DocLinks {
    pub id: String,
    /// `doc_id` of each row is `id`.
    pub links: Vec<LinkRow>,
    pub entity: Option<EntityDef>,
}

pub(super) fn write(
    tx: &rusqlite::Transaction<'_>,
    docs: &[DocLinks],
    removals: &[String],
) -> rusqlite::Result<()> {
    let mut del_links = tx.prepare_cached("DELETE FROM links WHERE doc_id = ?1")?;
    let mut del_def = tx.prepare_cached("DELETE FROM entity_defs WHERE doc_id = ?1")?;
    for id in removals {
        del_links.execute([id])?;
        del_def.execute([id])?;
    }
    let mut add = tx
        .prepare_cached("INSERT INTO links (doc_id, kind, target, line) VALUES (?1, ?2, ?3, ?4)")?;
    let mut def = tx.prepare_cached(
        "INSERT INTO entity_defs (doc_id, entity, kind, name, aliases, archived)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )?;
    for d in docs {
        del_links.execute([&d.id])?;
        del_def.execute([&d.id])?;
        for l in &d.links {
            add.execute(params![d.id, l.kind, l.target, l.line])?;
        }
        if let Some(e) = &d.entity {
            let aliases = serde_json::to_string(&e.aliases).unwrap_or_else(|_| "[]".into());
            def.execute(params![
                d.id,
                e.entity,
                e.kind,
                e.name,
                aliases,
                i64::from(e.archived)
            ])?;
        }
    }
    Ok(())
}

/// `index/entities.json`: the registry's entity definitions as one small file, written by the
/// index after a run that changed documents (absent when there are none), so a query learns the
/// names it may expand without opening the registry (a stat when there is no file: a fresh
/// `brain ask` stays within its few milliseconds).
pub fn entities_file(home: &crate::Home) -> std::path::PathBuf {
    home.index().join("entities.json")
}

/// The entity definitions [`Registry::write_entities_file`] left, none when there is no file (or
/// it does not read: the next index run writes it again).
pub fn cached_entity_defs(home: &crate::Home) -> Vec<EntityDef> {
    std::fs::read(entities_file(home))
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default()
}

impl Registry {
    /// Write [`entities_file`] from the registry (remove it when no file defines an entity); what
    /// failed, for the caller to report.
    pub fn write_entities_file(&self, home: &crate::Home) -> Result<(), String> {
        let defs = self.entity_defs().map_err(|e| e.to_string())?;
        let path = entities_file(home);
        let said = |e: std::io::Error| format!("{}: {e}", path.display());
        if defs.is_empty() {
            return match std::fs::remove_file(&path) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(said(e)),
                _ => Ok(()),
            };
        }
        let bytes = serde_json::to_vec(&defs).map_err(|e| e.to_string())?;
        if std::fs::read(&path).is_ok_and(|old| old == bytes) {
            return Ok(());
        }
        brain_doc::atomic::write(&path, &bytes).map_err(said)
    }

    /// The documents whose frontmatter `id:` is `name` (any case), in id order.
    pub fn docs_named(&self, name: &str) -> Result<Vec<String>, RegistryError> {
        if self.version()? < 4 {
            return Ok(Vec::new());
        }
        let mut st = self
            .conn
            .prepare(
                "SELECT DISTINCT doc_id FROM links WHERE kind = ?1 AND lower(target) = lower(?2)
                 ORDER BY doc_id",
            )
            .map_err(|e| self.err(e))?;
        let rows = st
            .query_map(params![NAME, name.trim()], |r| r.get::<_, String>(0))
            .map_err(|e| self.err(e))?;
        rows.collect::<Result<Vec<_>, _>>().map_err(|e| self.err(e))
    }

    /// Every record name (frontmatter `id:`) as `(document, name)`, in document order.
    pub fn names(&self) -> Result<Vec<(String, String)>, RegistryError> {
        if self.version()? < 4 {
            return Ok(Vec::new());
        }
        let mut st = self
            .conn
            .prepare("SELECT doc_id, target FROM links WHERE kind = ?1 ORDER BY doc_id")
            .map_err(|e| self.err(e))?;
        let rows = st
            .query_map(params![NAME], |r| Ok((r.get(0)?, r.get(1)?)))
            .map_err(|e| self.err(e))?;
        rows.collect::<Result<Vec<_>, _>>().map_err(|e| self.err(e))
    }

    /// The links of one kind (`contradicts`, `project`, …), ordered by document, then as written:
    /// a surface that needs one relation reads it without the whole graph.
    pub fn links_of_kind(&self, kind: &str) -> Result<Vec<LinkRow>, RegistryError> {
        if self.version()? < 4 {
            return Ok(Vec::new());
        }
        let mut st = self
            .conn
            .prepare(
                "SELECT doc_id, kind, target, line FROM links WHERE kind = ?1 ORDER BY doc_id, rowid",
            )
            .map_err(|e| self.err(e))?;
        let rows = st
            .query_map(params![kind], link_row)
            .map_err(|e| self.err(e))?;
        rows.collect::<Result<Vec<_>, _>>().map_err(|e| self.err(e))
    }

    /// Every link of every document, ordered by document, then as written.
    pub fn links(&self) -> Result<Vec<LinkRow>, RegistryError> {
        if self.version()? < 4 {
            return Ok(Vec::new());
        }
        let mut st = self
            .conn
            .prepare("SELECT doc_id, kind, target, line FROM links ORDER BY doc_id, rowid")
            .map_err(|e| self.err(e))?;
        let rows = st.query_map([], link_row).map_err(|e| self.err(e))?;
        rows.collect::<Result<Vec<_>, _>>().map_err(|e| self.err(e))
    }

    /// Every entity definition, ordered by entity id, then defining document.
    pub fn entity_defs(&self) -> Result<Vec<EntityDef>, RegistryError> {
        if self.version()? < 4 {
            return Ok(Vec::new());
        }
        let mut st = self
            .conn
            .prepare(
                "SELECT doc_id, entity, kind, name, aliases, archived FROM entity_defs
                 ORDER BY entity, doc_id",
            )
            .map_err(|e| self.err(e))?;
        let rows = st
            .query_map([], |r| {
                let aliases: String = r.get(4)?;
                Ok(EntityDef {
                    doc_id: r.get(0)?,
                    entity: r.get(1)?,
                    kind: r.get(2)?,
                    name: r.get(3)?,
                    aliases: serde_json::from_str(&aliases).unwrap_or_default(),
                    archived: r.get::<_, i64>(5)? != 0,
                })
            })
            .map_err(|e| self.err(e))?;
        rows.collect::<Result<Vec<_>, _>>().map_err(|e| self.err(e))
    }
}

/// A `links` row (doc_id, kind, target, line) as read.
fn link_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<LinkRow> {
    Ok(LinkRow {
        doc_id: r.get(0)?,
        kind: r.get(1)?,
        target: r.get(2)?,
        line: r.get(3)?,
    })
}
