//! Reading rows out of a History snapshot: visits joined with their URLs in time order, and the side
//! tables (search terms, content annotations, clusters) as small maps keyed for the join.

use std::collections::HashMap;
use std::path::Path;

use rusqlite::Connection;
use rusqlite::types::ValueRef;

use crate::error::ChromeError;
use crate::schema::Schema;
use crate::snapshot::classify;

/// One visit joined with its URL row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Visit {
    /// `visits.id`.
    pub id: i64,
    /// `visits.visit_time`, WebKit µs.
    pub time: i64,
    /// `visits.url` (the `urls.id`).
    pub url_id: i64,
    /// `urls.url`.
    pub url: String,
    /// `urls.title`, empty when missing.
    pub title: String,
    /// `visits.transition` (page transition bits), 0 when missing.
    pub transition: i64,
}

/// A cluster (Chrome "Journeys") label with its keywords.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Topic {
    /// `clusters.label`.
    pub label: String,
    /// `cluster_keywords.keyword`, best first.
    pub keywords: Vec<String>,
}

/// The side tables, restricted to the visits being read.
#[derive(Debug, Default)]
pub struct Extras {
    /// `keyword_search_terms`: url id → the term typed.
    pub search_by_url: HashMap<i64, String>,
    /// `content_annotations.search_terms`: visit id → terms of a results page.
    pub search_by_visit: HashMap<i64, String>,
    /// `clusters_and_visits`: visit id → cluster ids.
    pub clusters_by_visit: HashMap<i64, Vec<i64>>,
    /// `clusters` + `cluster_keywords`: cluster id → topic.
    pub topics: HashMap<i64, Topic>,
}

/// Text of a column that may be NULL, TEXT or (in damaged rows) a BLOB or a number.
fn text(v: ValueRef<'_>) -> String {
    match v {
        ValueRef::Text(t) | ValueRef::Blob(t) => brain_doc::bytes::lossy(t),
        ValueRef::Integer(i) => i.to_string(),
        ValueRef::Real(r) => r.to_string(),
        ValueRef::Null => String::new(),
    }
}

/// Stream the visits with an integer `lo <= visit_time < hi` in time order (other times are
/// [`unplaceable`]'s). A row that cannot be used (no URL row, a non-integer url) goes to `odd` with
/// a reason; the stream goes on.
pub fn visits(
    conn: &Connection,
    path: &Path,
    schema: &Schema,
    (lo, hi): (i64, i64),
    mut each: impl FnMut(Visit) -> Result<(), ChromeError>,
    mut odd: impl FnMut(i64, String),
) -> Result<(), ChromeError> {
    let title = if schema.url_title { "u.title" } else { "NULL" };
    let transition = if schema.transition {
        "v.transition"
    } else {
        "0"
    };
    let sql = format!(
        "SELECT v.id, v.visit_time, v.url, u.url, {title}, {transition} FROM visits v \
         LEFT JOIN urls u ON u.id = v.url WHERE v.visit_time >= ?1 AND v.visit_time < ?2 \
         AND typeof(v.visit_time) = 'integer' ORDER BY v.visit_time, v.id"
    );
    let mut stmt = conn.prepare(&sql).map_err(|e| classify(path, &e))?;
    let mut rows = stmt.query([lo, hi]).map_err(|e| classify(path, &e))?;
    while let Some(row) = rows.next().map_err(|e| classify(path, &e))? {
        let id = row.get::<_, i64>(0).unwrap_or(0);
        let (Ok(time), Ok(url_id)) = (row.get::<_, i64>(1), row.get::<_, i64>(2)) else {
            odd(id, "visit_time or url is not an integer".into());
            continue;
        };
        let url = row.get_ref(3).map(text).unwrap_or_default();
        if url.is_empty() {
            odd(id, format!("no URL row {url_id}"));
            continue;
        }
        let title = row.get_ref(4).map(text).unwrap_or_default();
        let transition = row.get::<_, i64>(5).unwrap_or(0);
        each(Visit {
            id,
            time,
            url_id,
            url,
            title,
            transition,
        })?;
    }
    Ok(())
}

/// Visits no time range selects — a `visit_time` that is not an integer (a float, text, a blob) or
/// is `i64::MAX` — with id above `after` (all when `None`), each to `odd` with a reason: counted and
/// named, never dropped silently.
pub fn unplaceable(
    conn: &Connection,
    path: &Path,
    after: Option<i64>,
    mut odd: impl FnMut(i64, String),
) -> Result<(), ChromeError> {
    let mut stmt = conn
        .prepare(
            "SELECT id, typeof(visit_time), quote(visit_time) FROM visits \
             WHERE id > ?1 AND (typeof(visit_time) != 'integer' OR visit_time = 9223372036854775807) \
             ORDER BY id",
        )
        .map_err(|e| classify(path, &e))?;
    let mut rows = stmt
        .query([after.unwrap_or(i64::MIN)])
        .map_err(|e| classify(path, &e))?;
    while let Some(row) = rows.next().map_err(|e| classify(path, &e))? {
        let id = row.get::<_, i64>(0).unwrap_or(0);
        let kind = row.get::<_, String>(1).unwrap_or_default();
        let value: String = row
            .get::<_, String>(2)
            .unwrap_or_default()
            .chars()
            .take(40)
            .collect();
        odd(id, format!("impossible visit_time {value} ({kind})"));
    }
    Ok(())
}

/// The smallest and largest visit id with `lo <= visit_time < hi`, to restrict the side tables.
pub fn id_range(
    conn: &Connection,
    path: &Path,
    (lo, hi): (i64, i64),
) -> Result<Option<(i64, i64)>, ChromeError> {
    conn.query_row(
        "SELECT min(id), max(id) FROM visits WHERE visit_time >= ?1 AND visit_time < ?2",
        [lo, hi],
        |r| Ok(r.get::<_, Option<i64>>(0)?.zip(r.get::<_, Option<i64>>(1)?)),
    )
    .map_err(|e| classify(path, &e))
}

/// Load the side tables the schema has, for visit ids in `ids` (inclusive).
pub fn extras(
    conn: &Connection,
    path: &Path,
    schema: &Schema,
    ids: (i64, i64),
) -> Result<Extras, ChromeError> {
    let err = |e: rusqlite::Error| classify(path, &e);
    let mut x = Extras::default();
    let pairs = |sql: &str,
                 params: &[i64],
                 f: &mut dyn FnMut(i64, ValueRef<'_>)|
     -> Result<(), ChromeError> {
        let mut stmt = conn.prepare(sql).map_err(err)?;
        let mut rows = stmt
            .query(rusqlite::params_from_iter(params))
            .map_err(err)?;
        while let Some(r) = rows.next().map_err(err)? {
            if let (Ok(k), Ok(v)) = (r.get::<_, i64>(0), r.get_ref(1)) {
                f(k, v);
            }
        }
        Ok(())
    };
    if let Some(col) = schema.search_term {
        let sql = format!("SELECT url_id, \"{col}\" FROM keyword_search_terms");
        pairs(&sql, &[], &mut |k, v| {
            x.search_by_url.insert(k, text(v));
        })?;
    }
    if schema.content_search_terms {
        let sql = "SELECT visit_id, search_terms FROM content_annotations \
                   WHERE visit_id BETWEEN ?1 AND ?2 AND search_terms IS NOT NULL AND search_terms != ''";
        pairs(sql, &[ids.0, ids.1], &mut |k, v| {
            x.search_by_visit.insert(k, text(v));
        })?;
    }
    if schema.clusters {
        let sql =
            "SELECT visit_id, cluster_id FROM clusters_and_visits WHERE visit_id BETWEEN ?1 AND ?2";
        pairs(sql, &[ids.0, ids.1], &mut |k, v| {
            if let ValueRef::Integer(c) = v {
                x.clusters_by_visit.entry(k).or_default().push(c);
            }
        })?;
        let mut wanted: Vec<i64> = x.clusters_by_visit.values().flatten().copied().collect();
        wanted.sort_unstable();
        wanted.dedup();
        for cid in wanted {
            let label: Option<String> = conn
                .query_row(
                    "SELECT label FROM clusters WHERE cluster_id = ?1",
                    [cid],
                    |r| r.get_ref(0).map(text),
                )
                .ok();
            let Some(label) = label.filter(|l| !l.trim().is_empty()) else {
                continue;
            };
            let mut keywords = Vec::new();
            if schema.cluster_keywords {
                let mut stmt = conn
                    .prepare_cached("SELECT keyword FROM cluster_keywords WHERE cluster_id = ?1 ORDER BY score DESC, keyword")
                    .or_else(|_| conn.prepare_cached("SELECT keyword FROM cluster_keywords WHERE cluster_id = ?1 ORDER BY keyword"))
                    .map_err(err)?;
                let mut rows = stmt.query([cid]).map_err(err)?;
                while let Some(r) = rows.next().map_err(err)? {
                    let k = r.get_ref(0).map(text).unwrap_or_default();
                    if !k.trim().is_empty() {
                        keywords.push(k.trim().to_string());
                    }
                }
            }
            x.topics.insert(
                cid,
                Topic {
                    label: label.trim().to_string(),
                    keywords,
                },
            );
        }
    }
    Ok(x)
}
