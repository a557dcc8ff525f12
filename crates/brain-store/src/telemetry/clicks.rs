//! Implicit judgments from use (issue #24): a `get` of one of a query's hits, soon after the
//! query, is a **click** — the evidence `brain tune --from-usage` learns from.
//!
//! A query row (`ask` on the CLI, `tool_call` of MCP `query`) carries `query_id` (a hash of the
//! query's words, lower-cased: the same question asked twice is one id, and the text itself is
//! never written unless the user opted in) and `hits` (the `#docid`s of its first
//! [`MAX_HITS_LOGGED`] results, in order). A `get` (CLI `get`, MCP `get`) of a document that the
//! newest query row within [`CLICK_WINDOW_SECS`] listed appends a `click` row: `query_id`,
//! `docid`, `rank`, `after_s` — and `query` when the query row had it.

use std::io::{Read, Seek, SeekFrom};

use serde_json::{Map, Value};

use crate::Home;

/// Results of a query whose docids its row keeps.
pub const MAX_HITS_LOGGED: usize = 20;

/// How long after a query a `get` of one of its hits counts as a click of it (our choice,
/// 2026-11-25: an agent reads a hit within seconds, a person within a few minutes).
pub const CLICK_WINDOW_SECS: i64 = 600;

/// Bytes of the log's end read to find the query a `get` follows (a few hundred rows).
const TAIL_BYTES: u64 = 256 * 1024;

/// The id of a query: a hash of its words, lower-cased, in order.
pub fn query_id(text: &str) -> String {
    let words: Vec<String> = text.split_whitespace().map(str::to_lowercase).collect();
    let hex = brain_doc::sha256_hex(words.join(" ").as_bytes());
    format!("q{}", &hex[..12])
}

/// The fields a query row adds for clicks: `query_id` and `hits` (at most [`MAX_HITS_LOGGED`]).
pub fn query_fields(text: &str, docids: &[String]) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("query_id".into(), Value::from(query_id(text)));
    let hits: Vec<Value> = docids
        .iter()
        .take(MAX_HITS_LOGGED)
        .map(|d| Value::from(d.as_str()))
        .collect();
    m.insert("hits".into(), Value::Array(hits));
    m
}

/// The docids of `hits` in order, each once (a document with several passages is one result).
pub fn unique_docids(hits: &[brain_doc::Hit]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for h in hits {
        if !out.contains(&h.docid) {
            out.push(h.docid.clone());
        }
    }
    out
}

/// Whether `row` is a query row that logged its hits.
fn is_query(row: &Map<String, Value>) -> bool {
    row.get("query_id").is_some() && row.get("hits").is_some_and(Value::is_array)
}

/// Unix seconds of a row's `ts`.
fn secs(row: &Map<String, Value>) -> Option<i64> {
    row.get("ts")
        .and_then(Value::as_str)
        .and_then(|t| t.parse::<jiff::Timestamp>().ok())
        .map(|t| t.as_second())
}

/// The click row fields for a `get` of `docid` at `now` (Unix seconds): the newest query row of
/// the log's end within the window that listed it; `None` when none did.
pub fn click_of(home: &Home, docid: &str, now: i64) -> Option<Map<String, Value>> {
    let rows = tail(&home.usage_log());
    let q = rows.iter().rev().filter(|r| is_query(r)).find(|r| {
        secs(r).is_some_and(|t| now - t >= 0 && now - t <= CLICK_WINDOW_SECS)
            && r.get("hits")
                .and_then(Value::as_array)
                .is_some_and(|h| h.iter().any(|x| x.as_str() == Some(docid)))
    })?;
    let hits = q.get("hits").and_then(Value::as_array)?;
    let rank = hits.iter().position(|x| x.as_str() == Some(docid))? + 1;
    let mut m = Map::new();
    m.insert("query_id".into(), q.get("query_id")?.clone());
    m.insert("docid".into(), Value::from(docid));
    m.insert("rank".into(), Value::from(rank));
    m.insert("after_s".into(), Value::from(now - secs(q)?));
    if let Some(text) = q.get("query") {
        m.insert("query".into(), text.clone());
    }
    Some(m)
}

/// Append a `click` row when a `get` of `docid` follows a query that listed it (never failing the
/// `get`).
pub fn record_get(home: &Home, surface: &str, docid: &str) {
    if !super::enabled() {
        return;
    }
    // The rows' `ts` is the wall clock (never `$BRAIN_NOW`): so is the window.
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64);
    if let Some(fields) = click_of(home, docid, now) {
        let _ = super::append(home, surface, "click", fields);
    }
}

/// The rows of the last [`TAIL_BYTES`] of the log (a torn first line skipped).
fn tail(path: &std::path::Path) -> Vec<Map<String, Value>> {
    let Ok(mut f) = std::fs::File::open(path) else {
        return Vec::new();
    };
    let len = f.metadata().map_or(0, |m| m.len());
    let start = len.saturating_sub(TAIL_BYTES);
    if f.seek(SeekFrom::Start(start)).is_err() {
        return Vec::new();
    }
    let mut bytes = Vec::new();
    if f.read_to_end(&mut bytes).is_err() {
        return Vec::new();
    }
    let text = brain_doc::bytes::text(&bytes).0;
    text.lines()
        .skip(usize::from(start > 0))
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

/// Every row of the log and of its rotated predecessor (`usage.jsonl.1` first), for reading back
/// clicks and queries; rows that do not parse are skipped.
pub fn all_rows(home: &Home) -> Vec<Map<String, Value>> {
    let log = home.usage_log();
    let mut old = log.as_os_str().to_owned();
    old.push(".1");
    let mut out = Vec::new();
    for p in [std::path::PathBuf::from(old), log] {
        if let Ok(text) = std::fs::read_to_string(&p) {
            out.extend(text.lines().filter_map(|l| serde_json::from_str(l).ok()));
        }
    }
    out
}

/// Remove a purged document from the usage log (and its rotated predecessor): its click rows go,
/// and a query row that listed it loses the docid and — when the user opted in to keeping query
/// text — the query's text. Returns the rows changed or removed. The live log is rewritten under
/// its append lock and swapped in by rename (an appender that waited notices and reopens).
pub fn scrub_docid(home: &Home, docid: &str) -> std::io::Result<usize> {
    let log = home.usage_log();
    let mut old = log.as_os_str().to_owned();
    old.push(".1");
    let mut changed = 0;
    for p in [std::path::PathBuf::from(old), log] {
        let f = match std::fs::File::open(&p) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(e),
        };
        f.lock()?;
        let text = std::fs::read_to_string(&p)?;
        let mut out = String::with_capacity(text.len());
        let mut here = 0;
        for line in text.lines() {
            let Ok(mut row) = serde_json::from_str::<Map<String, Value>>(line) else {
                out.push_str(line);
                out.push('\n');
                continue;
            };
            if row.get("docid").and_then(Value::as_str) == Some(docid) {
                here += 1;
                continue;
            }
            let listed = row
                .get("hits")
                .and_then(Value::as_array)
                .is_some_and(|h| h.iter().any(|d| d.as_str() == Some(docid)));
            if listed {
                here += 1;
                if let Some(Value::Array(h)) = row.get_mut("hits") {
                    h.retain(|d| d.as_str() != Some(docid));
                }
                row.remove("query");
                out.push_str(&serde_json::to_string(&row).map_err(std::io::Error::other)?);
                out.push('\n');
                continue;
            }
            out.push_str(line);
            out.push('\n');
        }
        if here > 0 {
            brain_doc::atomic::write(&p, out.as_bytes())?;
            changed += here;
        }
        f.unlock()?;
    }
    Ok(changed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_get_of_a_listed_hit_within_the_window_is_a_click_of_the_newest_such_query() {
        let dir = tempfile::tempdir().expect("tempdir");
        let home = Home::at(dir.path());
        let row = |ts: &str, text: &str, hits: &[&str]| {
            let mut m = query_fields(
                text,
                &hits.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
            );
            m.insert("ts".into(), Value::from(ts));
            m.insert("event".into(), Value::from("ask"));
            serde_json::to_string(&m).expect("json")
        };
        std::fs::create_dir_all(home.usage_log().parent().expect("dir")).expect("logs");
        std::fs::write(
            home.usage_log(),
            format!(
                "{}\n{}\nnot json\n{}\n",
                row("2026-05-01T10:00:00Z", "old question", &["#aaaaaa"]),
                row(
                    "2026-05-01T11:59:00Z",
                    "Lock  contention",
                    &["#bbbbbb", "#aaaaaa"]
                ),
                row("2026-05-01T11:59:30Z", "other", &["#cccccc"]),
            ),
        )
        .expect("log");
        let now = "2026-05-01T12:00:00Z"
            .parse::<jiff::Timestamp>()
            .expect("now")
            .as_second();
        let c = click_of(&home, "#aaaaaa", now).expect("a click");
        assert_eq!(c["query_id"], query_id("lock contention"));
        assert_eq!(c["rank"], 2);
        assert_eq!(c["after_s"], 60);
        assert!(
            c.get("query").is_none(),
            "no text unless the query row had it"
        );
        assert!(click_of(&home, "#dddddd", now).is_none());
        // Past the window, no click.
        assert!(click_of(&home, "#aaaaaa", now + CLICK_WINDOW_SECS + 61).is_none());
    }
}

#[cfg(test)]
mod scrub_tests {
    use super::*;

    #[test]
    fn a_purged_docid_leaves_the_log_with_its_clicks_and_the_text_of_queries_that_listed_it() {
        let dir = tempfile::tempdir().expect("tempdir");
        let home = Home::at(dir.path());
        std::fs::create_dir_all(dir.path().join("logs")).expect("logs");
        let rows = [
            r##"{"event":"ask","query_id":"q1","query":"the secret plan","hits":["#aaaaaa","#bbbbbb"]}"##,
            r##"{"event":"click","query_id":"q1","query":"the secret plan","docid":"#aaaaaa","rank":1}"##,
            r##"{"event":"ask","query_id":"q2","query":"other","hits":["#bbbbbb"]}"##,
            "not json",
        ];
        std::fs::write(home.usage_log(), rows.join("\n") + "\n").expect("log");
        assert_eq!(scrub_docid(&home, "#aaaaaa").expect("scrub"), 2);
        let text = std::fs::read_to_string(home.usage_log()).expect("log");
        assert!(
            !text.contains("#aaaaaa") && !text.contains("secret plan"),
            "{text}"
        );
        assert!(text.contains(r##""hits":["#bbbbbb"]"##) && text.contains("\"other\""));
        assert!(text.contains("not json"));
        assert_eq!(scrub_docid(&home, "#aaaaaa").expect("again"), 0);
    }
}
