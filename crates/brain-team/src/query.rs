//! brain's query language compiled to the engine's (Solr's) request parameters, and the engine's
//! answer mapped back to hits.
//!
//! Nothing the user typed is ever read as the engine's syntax: every word, phrase and exclusion
//! becomes a quoted string (`\` and `"` escaped), every filter value a quoted term of its field,
//! and the query text starts with a quote, so it can never open local parameters (`{!…}`). Dates
//! are printed by brain. The lexical list is edismax over the lexical passages' title and body
//! (BM25, the fields' best plus half the others, as brain's own index scores them); the vector
//! list is `{!knn}` over the chunks, with the same filters applied before the nearest neighbours
//! are chosen. Both collapse a document's records to its best one.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// What to search for (the parsed query's parts) and within what.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Search {
    pub words: Vec<String>,
    pub phrases: Vec<String>,
    pub exclude: Vec<String>,
    pub filter: Filter,
}

/// Restrictions applied inside the engine (filter queries), never after.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Filter {
    pub collections: Vec<String>,
    pub projects: Vec<String>,
    pub agents: Vec<String>,
    pub types: Vec<String>,
    pub authors: Vec<String>,
    /// Unix seconds, inclusive.
    pub since: Option<i64>,
    pub until: Option<i64>,
    /// What the lifecycle hides: `None` shows everything (`--include-superseded`).
    pub hide: Option<Hide>,
    /// Only records that must be in a context: pinned, importance 5, or of these collections.
    pub guaranteed: Option<Vec<String>>,
}

/// The lifecycle's cut: archived and superseded records, and those expired by `at`; with
/// `as_of`, what was current at `at` (records that happened later go, a superseded one returns).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hide {
    pub at: i64,
    pub as_of: bool,
}

/// The fields a hit is made of, but its text.
const FIELDS: &str = "id,doc_id,seq,line,collection,path,date,source,agent,project,type,status,key,importance,confidence,pinned,occurred,expires,author,machine,score";

/// The records of one unit ([`crate::record::Text`]): `lex`, what words search (and what a
/// document's newest record and its recency are read from: every document has one), or `vec`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Unit {
    Lex,
    Vec,
}

impl Unit {
    fn filter(self) -> String {
        match self {
            Unit::Lex => "unit:lex".into(),
            Unit::Vec => "unit:vec".into(),
        }
    }

    /// The stored fields of a hit, its text as `title` and `body` whichever unit it is.
    fn fields(self) -> String {
        match self {
            Unit::Lex => format!("{FIELDS},title,body"),
            Unit::Vec => format!("{FIELDS},title:chunk_title,body:chunk"),
        }
    }
}

/// The parameters of the lexical list, `rows` documents deep.
pub fn lexical(s: &Search, rows: usize) -> Vec<(String, String)> {
    let mut q = Vec::new();
    for w in &s.words {
        q.push(quoted(w));
    }
    for p in &s.phrases {
        q.push(format!("+{}", quoted(p)));
    }
    for x in &s.exclude {
        q.push(format!("-{}", quoted(x)));
    }
    let mut params = vec![
        p("defType", "edismax"),
        p("q", &q.join(" ")),
        p("qf", "title body"),
        p("tie", "0.5"),
        p("q.op", "OR"),
        p("mm", "0"),
        p("uf", "-*"),
        p("lowercaseOperators", "false"),
    ];
    finish(&mut params, &s.filter, Unit::Lex, rows);
    params
}

/// The parameters of the vector list: the `rows` documents whose passages are nearest `vector`
/// (`top_k` passages are taken per shard before a document's passages collapse to its best).
pub fn vector(vector: &[f32], filter: &Filter, rows: usize) -> Vec<(String, String)> {
    let top_k = (rows * 3).max(10);
    let floats: Vec<String> = vector
        .iter()
        .map(|f| {
            if f.is_finite() {
                format!("{f}")
            } else {
                "0".into()
            }
        })
        .collect();
    let mut params = vec![p(
        "q",
        &format!("{{!knn f=vec topK={top_k}}}[{}]", floats.join(",")),
    )];
    finish(&mut params, filter, Unit::Vec, rows);
    params
}

/// The parameters of the recency walk: newest first, no text.
pub fn recent(filter: &Filter, rows: usize) -> Vec<(String, String)> {
    let mut params = vec![p("q", "*:*"), p("sort", "date desc,id asc")];
    finish(&mut params, filter, Unit::Lex, rows);
    params
}

fn finish(params: &mut Vec<(String, String)>, f: &Filter, unit: Unit, rows: usize) {
    params.push(p("fq", &unit.filter()));
    for fq in filters(f) {
        params.push(p("fq", &fq));
    }
    params.push(p("fq", "{!collapse field=doc_id}"));
    params.push(p("fl", &unit.fields()));
    params.push(p("rows", &rows.clamp(1, 10_000).to_string()));
    // Every shard has a replica on every node of a small cluster: the node asked answers from its
    // own, and fetches the stored fields in the same pass (SciFact on the 2-node cluster, one
    // lexical request: 25 ms p50 → 8 ms, measured 2026-11-27).
    params.push(p("shards.preference", "replica.location:local"));
    params.push(p("distrib.singlePass", "true"));
}

/// The filter queries of `f`, one per restriction.
pub fn filters(f: &Filter) -> Vec<String> {
    let mut out = Vec::new();
    for (field, values) in [
        ("collection", &f.collections),
        ("project", &f.projects),
        ("agent", &f.agents),
        ("type", &f.types),
        ("author", &f.authors),
    ] {
        if !values.is_empty() {
            let any: Vec<String> = values.iter().map(|v| quoted(v)).collect();
            out.push(format!("{field}:({})", any.join(" OR ")));
        }
    }
    if f.since.is_some() || f.until.is_some() {
        let at = |t: Option<i64>| {
            t.and_then(crate::record::instant)
                .unwrap_or_else(|| "*".into())
        };
        out.push(format!("date:[{} TO {}]", at(f.since), at(f.until)));
    }
    if let Some(g) = &f.guaranteed {
        let mut any = vec!["pinned:true".to_string(), "importance:5".to_string()];
        if !g.is_empty() {
            let names: Vec<String> = g.iter().map(|v| quoted(v)).collect();
            any.push(format!("collection:({})", names.join(" OR ")));
        }
        out.push(any.join(" OR "));
    }
    if let Some(h) = f.hide
        && let Some(at) = crate::record::instant(h.at)
    {
        if h.as_of {
            out.push(format!(
                "-status:\"archived\" -expires:[* TO {at}] -date:{{{at} TO *]"
            ));
        } else {
            out.push(format!(
                "-status:(\"archived\" OR \"superseded\") -expires:[* TO {at}]"
            ));
        }
    }
    out
}

/// `s` as one quoted string of the engine's syntax: control characters out, `\` and `"` escaped.
pub fn quoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars().filter(|c| !c.is_control()) {
        if c == '\\' || c == '"' {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
    out
}

fn p(k: &str, v: &str) -> (String, String) {
    (k.to_string(), v.to_string())
}

/// One passage the engine answered with.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Found {
    pub doc_id: String,
    #[serde(default)]
    pub seq: u32,
    #[serde(default)]
    pub line: u64,
    #[serde(default)]
    pub collection: String,
    #[serde(default)]
    pub path: String,
    #[serde(default)]
    pub title: String,
    #[serde(default)]
    pub body: String,
    #[serde(default)]
    pub date: Option<String>,
    #[serde(default)]
    pub agent: Option<String>,
    #[serde(default)]
    pub project: Option<String>,
    #[serde(rename = "type", default)]
    pub kind: Option<String>,
    #[serde(default)]
    pub status: Option<String>,
    #[serde(default)]
    pub key: Option<String>,
    #[serde(default)]
    pub importance: Option<u8>,
    #[serde(default)]
    pub confidence: Option<f64>,
    #[serde(default)]
    pub pinned: Option<bool>,
    #[serde(default)]
    pub occurred: Option<String>,
    #[serde(default)]
    pub expires: Option<String>,
    #[serde(default)]
    pub author: Option<String>,
    #[serde(default)]
    pub machine: Option<String>,
    #[serde(default)]
    pub score: f64,
}

/// The passages of an answer, best first; a malformed document is skipped, never a failure.
pub fn found(answer: &Value) -> Vec<Found> {
    answer["response"]["docs"]
        .as_array()
        .map(|docs| {
            docs.iter()
                .filter_map(|d| serde_json::from_value::<Found>(d.clone()).ok())
                .collect()
        })
        .unwrap_or_default()
}

/// The parameters asking, for each of `keys`, its newest active record (by date; within `hide`'s
/// as-of instant when it has one): what decides which records a later one supersedes.
pub fn newest_of_keys(keys: &[String], hide: Hide) -> Vec<(String, String)> {
    let any: Vec<String> = keys.iter().map(|k| quoted(k)).collect();
    let mut params = vec![
        p("q", "*:*"),
        p("fq", &Unit::Lex.filter()),
        p("fq", &format!("key:({})", any.join(" OR "))),
        p("fq", "status:\"active\""),
        p("group", "true"),
        p("group.field", "key"),
        p("group.sort", "date desc,doc_id asc"),
        p("group.limit", "1"),
        p("fl", "doc_id,key,date"),
        p("rows", &keys.len().clamp(1, 10_000).to_string()),
    ];
    if hide.as_of
        && let Some(at) = crate::record::instant(hide.at)
    {
        params.push(p("fq", &format!("date:[* TO {at}]")));
    }
    params
}

/// The newest record of each key in an answer to [`newest_of_keys`]: key → (document id, date).
pub fn newest(answer: &Value) -> std::collections::HashMap<String, (String, String)> {
    let mut out = std::collections::HashMap::new();
    for g in answer["grouped"]["key"]["groups"]
        .as_array()
        .into_iter()
        .flatten()
    {
        let doc = &g["doclist"]["docs"][0];
        if let (Some(key), Some(id)) = (g["groupValue"].as_str(), doc["doc_id"].as_str()) {
            let date = doc["date"].as_str().unwrap_or_default().to_string();
            out.insert(key.to_string(), (id.to_string(), date));
        }
    }
    out
}

/// The most terms [`term_counts`] asks about (a query document's words are bounded before, this
/// bounds the request).
pub const MAX_COUNTED_TERMS: usize = 64;

/// The parameters asking how many lexical passages the engine holds, and how many of them hold
/// each of `terms` (as indexed: brain's analyzer and the engine's agree on words, lower case and
/// English stems) in their title and in their body: the statistics a member without a local
/// index weighs a query's words by. Each term is passed by reference (`v=$t0`), never parsed as
/// the engine's syntax; past [`MAX_COUNTED_TERMS`] terms are not asked (they count as unseen).
pub fn term_counts(terms: &[String]) -> Vec<(String, String)> {
    let mut params = vec![
        p("q", "*:*"),
        p("fq", &Unit::Lex.filter()),
        p("rows", "0"),
        p("facet", "true"),
        p("shards.preference", "replica.location:local"),
    ];
    for (i, t) in terms.iter().take(MAX_COUNTED_TERMS).enumerate() {
        for field in ["title", "body"] {
            params.push(p("facet.query", &format!("{{!term f={field} v=$t{i}}}")));
        }
        params.push((format!("t{i}"), t.clone()));
    }
    params
}

/// The answer to [`term_counts`]: the passages the engine holds, and for each of `terms` the
/// passages holding it in their title or their body, whichever are more (as a local index counts).
pub fn counted(answer: &Value, terms: &[String]) -> (u64, Vec<u64>) {
    let n = answer["response"]["numFound"].as_u64().unwrap_or(0);
    let queries = &answer["facet_counts"]["facet_queries"];
    let df = (0..terms.len())
        .map(|i| {
            ["title", "body"]
                .iter()
                .filter_map(|f| queries[format!("{{!term f={f} v=$t{i}}}")].as_u64())
                .max()
                .unwrap_or(0)
        })
        .collect();
    (n, df)
}

/// How many records the engine holds, passages and chunks (of one document, when `doc_id` is
/// given).
pub fn count_params(doc_id: Option<&str>) -> Vec<(String, String)> {
    let mut params = vec![p("q", "*:*"), p("rows", "0")];
    if let Some(id) = doc_id {
        params.push(p("fq", &format!("doc_id:{}", quoted(id))));
    }
    params
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A term reaches the engine as a parameter's value, never inside the query syntax, however
    /// it is spelled; the counts come back per term, the larger of title and body.
    #[test]
    fn term_counts_pass_terms_by_reference() {
        let terms: Vec<String> = ["tokio", "}{!knn f=vec}$t0", "\" OR *:*"]
            .iter()
            .map(|t| t.to_string())
            .collect();
        let params = term_counts(&terms);
        let syntax: Vec<&str> = params
            .iter()
            .filter(|(k, _)| k == "facet.query")
            .map(|(_, v)| v.as_str())
            .collect();
        assert_eq!(syntax.len(), 6);
        assert!(
            syntax
                .iter()
                .all(|q| !terms[1..].iter().any(|t| q.contains(t.as_str())))
        );
        assert!(params.contains(&("t1".to_string(), terms[1].clone())));
        assert!(params.contains(&("fq".to_string(), "unit:lex".to_string())));
        let answer = serde_json::json!({
            "response": {"numFound": 7},
            "facet_counts": {"facet_queries": {
                "{!term f=title v=$t0}": 1, "{!term f=body v=$t0}": 3,
                "{!term f=title v=$t2}": 2
            }}
        });
        assert_eq!(counted(&answer, &terms), (7, vec![3, 0, 2]));
        assert_eq!(counted(&serde_json::json!({}), &terms), (0, vec![0, 0, 0]));
        let many: Vec<String> = (0..500).map(|i| format!("w{i}")).collect();
        assert_eq!(
            term_counts(&many)
                .iter()
                .filter(|(k, _)| k == "facet.query")
                .count(),
            2 * MAX_COUNTED_TERMS
        );
    }
}
