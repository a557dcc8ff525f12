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
}

/// One query.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct BeirQuery {
    #[serde(rename = "_id")]
    pub id: String,
    pub text: String,
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

/// Load `dir` with the qrels of `split` (`test`, `dev`, `train`).
pub fn load(dir: &Path, split: &str) -> Result<BeirSet, BeirError> {
    let qrels_path = dir.join("qrels").join(format!("{split}.tsv"));
    let qrels = parse_qrels(&qrels_path)?;
    let corpus: Vec<CorpusDoc> = jsonl(&dir.join("corpus.jsonl"))?;
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
}
