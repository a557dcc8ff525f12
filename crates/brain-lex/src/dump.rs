//! Everything the index holds, one record per passage, in id then passage order (`lexindex --dump`):
//! for golden tests, debugging and `explain`.

use serde::{Deserialize, Serialize};
use tantivy::collector::DocSetCollector;
use tantivy::query::AllQuery;
use tantivy::schema::{Field, Value};
use tantivy::{DateTime, TantivyDocument};

use crate::document::format_secs;
use crate::tokenize::{ident_analyzer, tokens};
use crate::{LexError, LexIndex};

/// One indexed passage as `lexindex --dump` prints it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PassageRecord {
    /// Always `"passage"`.
    pub kind: String,
    pub id: String,
    pub collection: String,
    pub path: String,
    pub file: String,
    pub passage: u64,
    pub line: u64,
    pub title: String,
    pub headings: String,
    /// The document date (UTC), or empty.
    pub date: String,
    pub source: String,
    #[serde(default)]
    pub agent: Option<String>,
    #[serde(default)]
    pub project: Option<String>,
    #[serde(default)]
    pub tags: Vec<String>,
    pub sha256: String,
    /// The whole identifiers the `ident` field holds for this passage's text.
    pub idents: Vec<String>,
    pub text: String,
}

fn text(d: &TantivyDocument, f: Field) -> Option<String> {
    d.get_first(f).and_then(|v| v.as_str()).map(str::to_string)
}

/// Read every passage of the index.
pub fn dump(lex: &LexIndex) -> Result<Vec<PassageRecord>, LexError> {
    let tantivy = |source| LexError::Tantivy {
        path: lex.path().to_path_buf(),
        source,
    };
    let searcher = lex.reader()?.searcher();
    let addrs = searcher
        .search(&AllQuery, &DocSetCollector)
        .map_err(tantivy)?;
    let f = lex.fields();
    let mut analyzer = ident_analyzer();
    let mut out = Vec::with_capacity(addrs.len());
    for addr in addrs {
        let d: TantivyDocument = searcher.doc(addr).map_err(tantivy)?;
        let body = text(&d, f.body).unwrap_or_default();
        let date = d
            .get_first(f.date)
            .and_then(|v| v.as_datetime())
            .map(DateTime::into_timestamp_secs);
        let mut idents = tokens(&mut analyzer, &body);
        idents.sort();
        idents.dedup();
        out.push(PassageRecord {
            kind: "passage".into(),
            id: text(&d, f.id).unwrap_or_default(),
            collection: text(&d, f.collection).unwrap_or_default(),
            path: text(&d, f.path).unwrap_or_default(),
            file: text(&d, f.file).unwrap_or_default(),
            passage: d.get_first(f.passage).and_then(|v| v.as_u64()).unwrap_or(0),
            line: d.get_first(f.line).and_then(|v| v.as_u64()).unwrap_or(0),
            title: text(&d, f.title).unwrap_or_default(),
            headings: text(&d, f.headings).unwrap_or_default(),
            date: date.map(format_secs).unwrap_or_default(),
            source: text(&d, f.kind).unwrap_or_default(),
            agent: text(&d, f.agent),
            project: text(&d, f.project),
            tags: d
                .get_all(f.tags)
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect(),
            sha256: text(&d, f.sha256).unwrap_or_default(),
            idents,
            text: body,
        });
    }
    out.sort_by(|a, b| (&a.id, a.passage).cmp(&(&b.id, b.passage)));
    Ok(out)
}
