//! The judged queries a tuning run learns from and is accepted on: a BEIR set's split, cut into a
//! train part and a dev part, or the user's own clicks (`--from-usage`).

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use crate::beir::{self, BeirQuery, CorpusDoc, Qrels};

/// Share of a split's queries that form the dev part when the set has no dev split.
pub const DEV_SHARE: f64 = 0.2;

/// Queries with clicks (and their text) `--from-usage` needs before it tunes anything (our choice,
/// 2026-11-25: fewer, and one lucky click moves a knob).
pub const MIN_USAGE_QUERIES: usize = 20;

/// One judged query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Query {
    pub id: String,
    pub text: String,
    pub class: Option<String>,
}

impl From<&BeirQuery> for Query {
    fn from(q: &BeirQuery) -> Query {
        Query {
            id: q.id.clone(),
            text: q.text.clone(),
            class: q.metadata.class.clone(),
        }
    }
}

/// Queries to tune on and to accept on, with their judgments.
#[derive(Debug, Clone)]
pub struct Parts {
    pub train: Vec<Query>,
    pub dev: Vec<Query>,
    pub qrels: Qrels,
    /// How the parts were made (for the report): `qrels/dev.tsv`, or the seeded split.
    pub how: String,
}

/// Why a set cannot be tuned on.
#[derive(Debug, thiserror::Error)]
pub enum JudgeError {
    #[error(
        "the `test` split is never tuned on: tune on train (a dev part is split off), and give --final-test to evaluate test once at the end"
    )]
    TestSplit,
    #[error(transparent)]
    Beir(#[from] beir::BeirError),
    #[error(
        "{found} queries with clicks and their text in the usage log; tuning from use needs {need} (`get` a hit of a query within 10 minutes to click it; query text is logged only with `telemetry: {{queries: true}}` in brain.yaml or BRAIN_TELEMETRY_QUERIES=1)"
    )]
    TooFew { found: usize, need: usize },
    #[error("{0}")]
    Split(String),
}

/// A stable, evenly spread number of `seed` and `id`: FNV-1a, then splitmix64's finalizer (FNV's
/// high bits alone are uneven over short ids: 44 % of SciFact's went to a 20 % part).
fn bucket(seed: u64, id: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325 ^ seed.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    for b in id.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h = (h ^ (h >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    h = (h ^ (h >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    h ^ (h >> 31)
}

/// `queries` cut into (train, dev) by a seeded hash of their ids: [`DEV_SHARE`] to dev, at least
/// one to each when there are two or more.
pub fn split(queries: &[Query], seed: u64) -> (Vec<Query>, Vec<Query>) {
    let threshold = (DEV_SHARE * u64::MAX as f64) as u64;
    let (mut dev, mut train): (Vec<Query>, Vec<Query>) = queries
        .iter()
        .cloned()
        .partition(|q| bucket(seed, &q.id) < threshold);
    if dev.is_empty() && train.len() >= 2 {
        dev.push(train.remove(train.len() - 1));
    }
    if train.is_empty() && dev.len() >= 2 {
        train.push(dev.remove(0));
    }
    (train, dev)
}

/// A BEIR set in `dir` with the qrels of `split` to tune on: the corpus and the parts. A `dev`
/// split beside it is the dev part; otherwise a seeded share of `split`'s queries.
pub fn beir_parts(
    dir: &Path,
    split_name: &str,
    seed: u64,
) -> Result<(Vec<CorpusDoc>, Parts), JudgeError> {
    if split_name.eq_ignore_ascii_case("test") {
        return Err(JudgeError::TestSplit);
    }
    let set = beir::load(dir, split_name)?;
    let queries: Vec<Query> = set.queries.iter().map(Query::from).collect();
    let dev_path = dir.join("qrels").join("dev.tsv");
    if split_name != "dev" && dev_path.is_file() {
        let dev = beir::load(dir, "dev")?;
        let mut qrels = set.qrels;
        qrels.extend(dev.qrels);
        return Ok((
            set.corpus,
            Parts {
                train: queries,
                dev: dev.queries.iter().map(Query::from).collect(),
                qrels,
                how: "qrels/dev.tsv".into(),
            },
        ));
    }
    let (train, dev) = split(&queries, seed);
    if train.is_empty() || dev.is_empty() {
        return Err(JudgeError::Split(format!(
            "{} judged queries in qrels/{split_name}.tsv: too few to split into train and dev",
            queries.len()
        )));
    }
    Ok((
        set.corpus,
        Parts {
            how: format!(
                "a seeded split of qrels/{split_name}.tsv (seed {seed}): {} train, {} dev",
                train.len(),
                dev.len()
            ),
            train,
            dev,
            qrels: set.qrels,
        },
    ))
}

/// The judged set of the user's own use: each query whose text the log holds (opt-in) and that was
/// clicked, judged by its clicks (grade 1, by `#docid`); the parts split by `seed`.
pub fn usage_parts(home: &brain_store::Home, seed: u64) -> Result<Parts, JudgeError> {
    let rows = brain_store::telemetry::clicks::all_rows(home);
    let mut text: HashMap<String, String> = HashMap::new();
    let mut clicks: BTreeMap<String, HashMap<String, u32>> = BTreeMap::new();
    for r in &rows {
        let Some(qid) = r.get("query_id").and_then(|v| v.as_str()) else {
            continue;
        };
        if let Some(t) = r.get("query").and_then(|v| v.as_str()) {
            text.entry(qid.to_string()).or_insert_with(|| t.to_string());
        }
        if r.get("event").and_then(|v| v.as_str()) == Some("click")
            && let Some(d) = r.get("docid").and_then(|v| v.as_str())
        {
            clicks
                .entry(qid.to_string())
                .or_default()
                .insert(d.to_string(), 1);
        }
    }
    let queries: Vec<Query> = clicks
        .keys()
        .filter_map(|id| {
            text.get(id).map(|t| Query {
                id: id.clone(),
                text: t.clone(),
                class: None,
            })
        })
        .collect();
    if queries.len() < MIN_USAGE_QUERIES {
        return Err(JudgeError::TooFew {
            found: queries.len(),
            need: MIN_USAGE_QUERIES,
        });
    }
    let (train, dev) = split(&queries, seed);
    Ok(Parts {
        how: format!(
            "clicks in the usage log: {} queries, a seeded split (seed {seed}): {} train, {} dev",
            queries.len(),
            train.len(),
            dev.len()
        ),
        train,
        dev,
        qrels: clicks.into_iter().collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seeded_split_is_stable_and_about_a_fifth() {
        let qs: Vec<Query> = (0..500)
            .map(|i| Query {
                id: format!("{i}"),
                text: String::new(),
                class: None,
            })
            .collect();
        let (t1, d1) = split(&qs, 7);
        let (t2, d2) = split(&qs, 7);
        assert_eq!((t1.clone(), d1.clone()), (t2, d2));
        assert!((80..120).contains(&d1.len()), "{}", d1.len());
        assert_eq!(t1.len() + d1.len(), 500);
        let (_, d3) = split(&qs, 8);
        assert_ne!(d1, d3, "another seed, another split");
    }
}
