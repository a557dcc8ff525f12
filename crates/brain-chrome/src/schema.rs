//! Which tables and columns this History has.
//!
//! Chromium has changed the History schema many times (`meta.version` 20 in 2011, 70 in 2026): the
//! search-term column was `term`/`lower_term`, then `term`/`normalized_term`; `context_annotations`,
//! `content_annotations`, `clusters`, `clusters_and_visits` and `cluster_keywords` arrived after
//! version 50. We ask SQLite what is there, read only what we know, and ignore extra columns.

use std::collections::HashSet;
use std::path::Path;

use rusqlite::Connection;

use crate::error::ChromeError;
use crate::snapshot::classify;

/// What the readers may use.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Schema {
    /// `meta.version`, when the `meta` table has it.
    pub version: Option<i64>,
    /// `urls.title` exists.
    pub url_title: bool,
    /// `visits.transition` exists.
    pub transition: bool,
    /// The column of `keyword_search_terms` holding the user's text (`term`, else `lower_term`,
    /// else `normalized_term`), when the table exists with a `url_id`.
    pub search_term: Option<&'static str>,
    /// `content_annotations(visit_id, search_terms)` exists.
    pub content_search_terms: bool,
    /// `clusters(cluster_id, label)` and `clusters_and_visits(cluster_id, visit_id)` exist.
    pub clusters: bool,
    /// `cluster_keywords(cluster_id, keyword)` exists.
    pub cluster_keywords: bool,
    /// `visits_time_index` or another index led by `visits.visit_time` exists.
    pub time_index: bool,
}

/// Inspect `conn` (the snapshot of `path`). A History needs `visits(id, url, visit_time)` and
/// `urls(id, url)`; without them it is bad input.
pub fn detect(conn: &Connection, path: &Path) -> Result<Schema, ChromeError> {
    let cols = |table: &str| -> Result<HashSet<String>, ChromeError> {
        let mut stmt = conn
            .prepare(&format!("PRAGMA table_info(\"{table}\")"))
            .map_err(|e| classify(path, &e))?;
        let names = stmt
            .query_map([], |r| r.get::<_, String>(1))
            .map_err(|e| classify(path, &e))?
            .collect::<Result<HashSet<_>, _>>()
            .map_err(|e| classify(path, &e))?;
        Ok(names)
    };
    let require =
        |table: &'static str, have: &HashSet<String>, need: &[&str]| -> Result<(), ChromeError> {
            if have.is_empty() {
                return Err(ChromeError::MissingTable {
                    path: path.to_path_buf(),
                    table,
                    what: "is missing".into(),
                });
            }
            if let Some(c) = need.iter().find(|c| !have.contains(**c)) {
                return Err(ChromeError::MissingTable {
                    path: path.to_path_buf(),
                    table,
                    what: format!("has no column `{c}`"),
                });
            }
            Ok(())
        };
    let visits = cols("visits")?;
    require("visits", &visits, &["id", "url", "visit_time"])?;
    let urls = cols("urls")?;
    require("urls", &urls, &["id", "url"])?;

    let kst = cols("keyword_search_terms")?;
    let search_term = if kst.contains("url_id") {
        ["term", "lower_term", "normalized_term"]
            .into_iter()
            .find(|c| kst.contains(*c))
    } else {
        None
    };
    let content = cols("content_annotations")?;
    let clusters = cols("clusters")?;
    let cav = cols("clusters_and_visits")?;
    let ckw = cols("cluster_keywords")?;
    let has_clusters = clusters.contains("cluster_id")
        && clusters.contains("label")
        && cav.contains("cluster_id")
        && cav.contains("visit_id");

    let version = if cols("meta")?.contains("key") {
        conn.query_row("SELECT value FROM meta WHERE key = 'version'", [], |r| {
            r.get::<_, rusqlite::types::Value>(0)
        })
        .ok()
        .and_then(|v| match v {
            rusqlite::types::Value::Integer(i) => Some(i),
            rusqlite::types::Value::Text(t) => t.trim().parse().ok(),
            _ => None,
        })
    } else {
        None
    };
    let time_index = conn
        .query_row(
            "SELECT count(*) FROM sqlite_master m, pragma_index_info(m.name) i \
             WHERE m.type = 'index' AND m.tbl_name = 'visits' AND i.seqno = 0 AND i.name = 'visit_time'",
            [],
            |r| r.get::<_, i64>(0),
        )
        .map(|n| n > 0)
        .unwrap_or(false);

    Ok(Schema {
        version,
        url_title: urls.contains("title"),
        transition: visits.contains("transition"),
        search_term,
        content_search_terms: content.contains("visit_id") && content.contains("search_terms"),
        clusters: has_clusters,
        cluster_keywords: has_clusters && ckw.contains("cluster_id") && ckw.contains("keyword"),
        time_index,
    })
}
