//! BEIR-format evaluation sets (Thakur et al., NeurIPS 2021 datasets track).

use std::collections::HashMap;
use std::io::BufRead;
use std::path::{Path, PathBuf};

use serde::Deserialize;

/// One corpus document.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct CorpusDoc {
    #[serde(rename = "_id")]
    pub id: String,
    #[serde(default)]
    pub title: String,
    #[serde(default)]
    pub text: String,
    /// BEIR's optional `metadata`; a session set (bench/recall) gives each document its session
    /// time, project and agent here.
    #[serde(default)]
    pub metadata: DocMeta,
}

/// What a session set knows of a document beyond its text.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct DocMeta {
    /// Start, RFC 3339 (else a fixed date).
    #[serde(default)]
    pub date: Option<String>,
    /// End, RFC 3339.
    #[serde(default)]
    pub ended: Option<String>,
    #[serde(default)]
    pub project: Option<String>,
    #[serde(default)]
    pub agent: Option<String>,
    #[serde(default)]
    pub session_id: Option<String>,
}

/// One query.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct BeirQuery {
    #[serde(rename = "_id")]
    pub id: String,
    pub text: String,
    /// BEIR's optional `metadata`: `class` groups the queries of a set for per-class scores.
    #[serde(default)]
    pub metadata: QueryMeta,
}

/// A query's class (literal, conceptual, chronological, …), when the set gives one, and the texts
/// that answer it (LoCoMo's evidence turns; [`crate::evidence`]).
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct QueryMeta {
    #[serde(default)]
    pub class: Option<String>,
    #[serde(default)]
    pub evidence: Vec<String>,
}

/// Relevance judgments: query id → (doc id → grade > 0).
pub type Qrels = HashMap<String, HashMap<String, u32>>;

/// A loaded set: the corpus, the queries that have judgments in the split (in file order), the qrels.
#[derive(Debug, Clone)]
pub struct BeirSet {
    pub corpus: Vec<CorpusDoc>,
    pub queries: Vec<BeirQuery>,
    pub qrels: Qrels,
}

/// Why a set could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum BeirError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}:{line}: {reason}")]
    Line {
        path: PathBuf,
        line: usize,
        reason: String,
    },
    #[error("{path}: no judged queries in this split")]
    NoQueries { path: PathBuf },
}

fn lines(path: &Path) -> Result<Vec<(usize, String)>, BeirError> {
    let file = std::fs::File::open(path).map_err(|source| BeirError::Io {
        path: path.into(),
        source,
    })?;
    let mut out = Vec::new();
    for (i, l) in std::io::BufReader::new(file).lines().enumerate() {
        let l = l.map_err(|source| BeirError::Io {
            path: path.into(),
            source,
        })?;
        if !l.trim().is_empty() {
            out.push((i + 1, l));
        }
    }
    Ok(out)
}

fn jsonl<T: serde::de::DeserializeOwned>(path: &Path) -> Result<Vec<T>, BeirError> {
    lines(path)?
        .into_iter()
        .map(|(line, l)| {
            serde_json::from_str(&l).map_err(|e| BeirError::Line {
                path: path.into(),
                line,
                reason: e.to_string(),
            })
        })
        .collect()
}

/// Parse a qrels TSV (`query-id corpus-id score`, header optional); grades ≤ 0 are dropped.
pub fn parse_qrels(path: &Path) -> Result<Qrels, BeirError> {
    let mut q: Qrels = HashMap::new();
    for (line, l) in lines(path)? {
        let cols: Vec<&str> = l.split('\t').map(str::trim).collect();
        let [qid, did, grade, ..] = cols.as_slice() else {
            return Err(BeirError::Line {
                path: path.into(),
                line,
                reason: "expected 3 tab-separated columns".into(),
            });
        };
        let Ok(grade) = grade.parse::<i64>() else {
            if line == 1 {
                continue; // header
            }
            return Err(BeirError::Line {
                path: path.into(),
                line,
                reason: format!("grade `{grade}` is not a number"),
            });
        };
        if grade > 0 {
            q.entry((*qid).to_string())
                .or_default()
                .insert((*did).to_string(), grade as u32);
        }
    }
    Ok(q)
}

/// The corpus: BEIR documents (`_id`, `title`, `text`, optional `metadata`), or doc records as
/// `jsonl2md` writes them (`"kind":"doc"`: id, title, body, date, `meta.ended`, `meta.project`,
/// `meta.session_id`, `source.agent`) — so a set of real sessions is the transcripts' own
/// conversion, `jsonl2md … > corpus.jsonl` (bench/recall). A repeated id keeps its first document.
fn corpus(path: &Path) -> Result<Vec<CorpusDoc>, BeirError> {
    let mut out: Vec<CorpusDoc> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for (line, l) in lines(path)? {
        let bad = |e: serde_json::Error| BeirError::Line {
            path: path.into(),
            line,
            reason: e.to_string(),
        };
        let v: serde_json::Value = serde_json::from_str(&l).map_err(bad)?;
        let doc = if v.get("kind").and_then(serde_json::Value::as_str) == Some("doc") {
            let d: brain_doc::Doc = serde_json::from_value(v).map_err(bad)?;
            let meta = |k: &str| {
                d.meta
                    .get(k)
                    .and_then(serde_json::Value::as_str)
                    .map(str::to_string)
            };
            CorpusDoc {
                metadata: DocMeta {
                    date: Some(d.date.clone()).filter(|s| !s.is_empty()),
                    ended: meta("ended"),
                    project: meta("project"),
                    agent: d.source.agent.clone(),
                    session_id: meta("session_id")
                        .or_else(|| (d.source.kind == "session").then(|| d.id.clone())),
                },
                id: d.id,
                title: d.title,
                text: d.body,
            }
        } else {
            serde_json::from_value(v).map_err(bad)?
        };
        if seen.insert(doc.id.clone()) {
            out.push(doc);
        }
    }
    Ok(out)
}

/// Load `dir` with the qrels of `split` (`test`, `dev`, `train`).
pub fn load(dir: &Path, split: &str) -> Result<BeirSet, BeirError> {
    let qrels_path = dir.join("qrels").join(format!("{split}.tsv"));
    let qrels = parse_qrels(&qrels_path)?;
    let corpus = corpus(&dir.join("corpus.jsonl"))?;
    let queries: Vec<BeirQuery> = jsonl::<BeirQuery>(&dir.join("queries.jsonl"))?
        .into_iter()
        .filter(|q| qrels.contains_key(&q.id))
        .collect();
    if queries.is_empty() {
        return Err(BeirError::NoQueries { path: qrels_path });
    }
    Ok(BeirSet {
        corpus,
        queries,
        qrels,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn qrels_skip_the_header_and_zero_grades() {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = dir.path().join("t.tsv");
        std::fs::write(
            &p,
            "query-id\tcorpus-id\tscore\n1\td1\t1\n1\td2\t0\n2\td3\t2\n",
        )
        .expect("write");
        let q = parse_qrels(&p).expect("parse");
        assert_eq!(q["1"].len(), 1);
        assert_eq!(q["1"]["d1"], 1);
        assert_eq!(q["2"]["d3"], 2);
    }

    #[test]
    fn a_corpus_of_doc_records_keeps_session_metadata_and_refuses_a_truncated_line() {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = dir.path().join("corpus.jsonl");
        let rec = |id: &str, body: &str| {
            format!(
                r#"{{"schema":1,"kind":"doc","id":"{id}","collection":null,"path":"{id}.md","title":"T","date":"2026-03-02T23:10:00Z","source":{{"type":"session","agent":"claude","file":"/x"}},"meta":{{"ended":"2026-03-03T01:00:00Z","project":"~/code/x"}},"body":"{body}"}}"#
            )
        };
        let beir = r#"{"_id":"b1","title":"B","text":"plain","metadata":{"date":"2025-01-01"}}"#;
        std::fs::write(
            &p,
            format!(
                "{}
{}
{beir}
",
                rec("s1", "first"),
                rec("s1", "again")
            ),
        )
        .expect("write");
        let c = corpus(&p).expect("corpus");
        assert_eq!(c.len(), 2, "a repeated id keeps its first document");
        assert_eq!(c[0].text, "first");
        assert_eq!(c[0].metadata.ended.as_deref(), Some("2026-03-03T01:00:00Z"));
        assert_eq!(c[0].metadata.project.as_deref(), Some("~/code/x"));
        assert_eq!(c[0].metadata.session_id.as_deref(), Some("s1"));
        assert_eq!(c[1].metadata.date.as_deref(), Some("2025-01-01"));
        // A line cut short is an error naming its line, not a silent skip.
        let cut = rec("s2", "x");
        std::fs::write(
            &p,
            format!(
                "{beir}
{}
",
                &cut[..cut.len() / 2]
            ),
        )
        .expect("write");
        match corpus(&p) {
            Err(BeirError::Line { line, .. }) => assert_eq!(line, 2),
            other => panic!("{other:?}"),
        }
    }
}
