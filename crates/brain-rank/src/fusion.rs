//! Reciprocal rank fusion (Cormack, Clarke & Büttcher, SIGIR 2009) as QMD applies it: each list adds
//! `weight / (k + rank)` to its documents (rank 1-based), and a document ranked first in any list gets
//! a top-rank bonus, ranks 2–3 a smaller one. [`fuse_hits`] does this over hit lists (lexical passages,
//! vector chunks) and folds each document to its best passage(s).

use std::collections::HashMap;

use brain_doc::Hit;
use serde_json::{Map, Value};

use crate::strategy::FusionWeights;

/// One ranked list to fuse: document keys best first, and the list's weight.
#[derive(Debug, Clone)]
pub struct RankedList<'a> {
    /// Which retriever produced it (`lex`, `vec`, `hyde`): becomes a signal name.
    pub name: &'a str,
    pub weight: f64,
    /// The share of the top-rank bonuses the list gives (1 but for a vector list the router
    /// weighs down: [`crate::strategy::HybridWeights`]).
    pub share: f64,
    pub keys: Vec<String>,
}

/// A fused document: its key, fused score, and per-list `(name, rank)` for the signals map.
#[derive(Debug, Clone, PartialEq)]
pub struct Fused {
    pub key: String,
    pub score: f64,
    pub ranks: Vec<(String, usize)>,
}

/// Fuse `lists` with the constants of `w`; best first, ties broken by key for determinism.
pub fn rrf(lists: &[RankedList<'_>], w: &FusionWeights) -> Vec<Fused> {
    let mut out: Vec<Fused> = Vec::new();
    let mut at: HashMap<String, usize> = HashMap::new();
    for list in lists {
        for (i, key) in list.keys.iter().enumerate() {
            let rank = i + 1;
            let bonus = match rank {
                1 => w.top_bonus,
                2 | 3 => w.near_top_bonus,
                _ => 0.0,
            };
            let add = list.weight / (w.k + rank as f64) + bonus * list.share;
            match at.get(key) {
                Some(&j) => {
                    out[j].score += add;
                    out[j].ranks.push((list.name.to_string(), rank));
                }
                None => {
                    at.insert(key.clone(), out.len());
                    out.push(Fused {
                        key: key.clone(),
                        score: add,
                        ranks: vec![(list.name.to_string(), rank)],
                    });
                }
            }
        }
    }
    out.sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| a.key.cmp(&b.key)));
    out
}

/// One retriever's hits, documents in rank order (a document may hold several consecutive passage
/// hits), with the full text of each hit's passage or chunk (for the reranker).
#[derive(Debug, Clone)]
pub struct HitList {
    /// `lex`, `vec` or `hyde`.
    pub kind: String,
    pub weight: f64,
    /// The share of the top-rank bonuses ([`RankedList::share`]).
    pub share: f64,
    pub hits: Vec<Hit>,
    pub texts: Vec<String>,
    /// A lexical list whose hits were ranked without snippets (filled in for the fused winners
    /// only, from the plan's parse of its sub-query).
    pub unsnipped: bool,
}

impl HitList {
    pub fn new(kind: &str, weight: f64, hits: Vec<Hit>, texts: Vec<String>) -> HitList {
        HitList {
            kind: kind.into(),
            weight,
            share: 1.0,
            hits,
            texts,
            unsnipped: false,
        }
    }

    /// Document keys (URIs), best first, each once.
    pub fn keys(&self) -> Vec<String> {
        let mut seen = std::collections::HashSet::new();
        self.hits
            .iter()
            .filter(|h| seen.insert(h.uri.as_str()))
            .map(|h| h.uri.clone())
            .collect()
    }
}

/// Signal names of the lists: their kind, with `_2`, `_3` … for repeated kinds.
pub fn list_names(lists: &[HitList]) -> Vec<String> {
    let mut count: HashMap<&str, usize> = HashMap::new();
    lists
        .iter()
        .map(|l| {
            let n = count.entry(l.kind.as_str()).or_insert(0);
            *n += 1;
            if *n == 1 {
                l.kind.clone()
            } else {
                format!("{}_{n}", l.kind)
            }
        })
        .collect()
}

/// Fuse hit lists into one ranking of documents. Each document is shown by the passages of the
/// lexical list that ranks it best (they carry query-word snippets), else by the vector hit that ranks
/// it best; up to `per_doc` passages. Scores are the fused score over the best one (the top hit is
/// 1); signals: `rrf` (raw fused score), `ranks` (rank per list), `bm25`, `vec`, `hyde` where the
/// document was in such a list.
pub fn fuse_hits(lists: &[HitList], w: &FusionWeights, per_doc: usize) -> Vec<Hit> {
    let names = list_names(lists);
    let keyed: Vec<Vec<String>> = lists.iter().map(HitList::keys).collect();
    let ranked: Vec<RankedList<'_>> = lists
        .iter()
        .zip(&names)
        .zip(&keyed)
        .map(|((l, n), k)| RankedList {
            name: n,
            weight: l.weight,
            share: l.share,
            keys: k.clone(),
        })
        .collect();
    let fused = rrf(&ranked, w);
    let top = fused.first().map_or(1.0, |f| f.score);
    // Where each document sits in each list: list index → (uri → first hit index).
    let first_hit: Vec<HashMap<&str, usize>> = lists
        .iter()
        .map(|l| {
            let mut m = HashMap::new();
            for (i, h) in l.hits.iter().enumerate() {
                m.entry(h.uri.as_str()).or_insert(i);
            }
            m
        })
        .collect();
    let mut out = Vec::new();
    for f in &fused {
        let rank_in = |li: usize| -> Option<usize> {
            f.ranks
                .iter()
                .find(|(n, _)| *n == names[li])
                .map(|(_, r)| *r)
        };
        // The representative list: lexical first, then best rank.
        let rep = (0..lists.len())
            .filter(|&li| rank_in(li).is_some())
            .min_by_key(|&li| (!lexical(&lists[li].kind), rank_in(li).unwrap_or(usize::MAX)));
        let Some(rep) = rep else { continue };
        let mut signals = Map::new();
        signal(&mut signals, "rrf", f.score);
        let mut ranks = Map::new();
        for (n, r) in &f.ranks {
            ranks.insert(n.clone(), Value::from(*r as u64));
        }
        signals.insert("ranks".into(), Value::Object(ranks));
        for (li, l) in lists.iter().enumerate() {
            let Some(&hi) = first_hit[li].get(f.key.as_str()) else {
                continue;
            };
            // A lexical hit carries `bm25`, a vector hit `vec` (the cosine), named after its list.
            let (src, dst) = if lexical(&l.kind) {
                ("bm25", "bm25")
            } else {
                ("vec", l.kind.as_str())
            };
            if signals.contains_key(dst) {
                continue;
            }
            if let Some(v) = l.hits[hi].signals.get(src).and_then(Value::as_f64) {
                signal(&mut signals, dst, v);
            }
        }
        // The match strength of the words: the best any lexical list saw.
        let held = lists
            .iter()
            .enumerate()
            .filter_map(|(li, l)| {
                let &hi = first_hit[li].get(f.key.as_str())?;
                l.hits[hi].signals.get(crate::strength::MATCH)?.as_f64()
            })
            .fold(None, |a: Option<f64>, b| Some(a.map_or(b, |a| a.max(b))));
        if let Some(m) = held {
            signal(&mut signals, crate::strength::MATCH, m);
        }
        let score = if top > 0.0 { f.score / top } else { 0.0 };
        let start = first_hit[rep][f.key.as_str()];
        let passages = lists[rep].hits[start..]
            .iter()
            .take_while(|h| h.uri == f.key)
            .take(per_doc.max(1));
        let first_raw = lists[rep].hits[start].score.max(f64::MIN_POSITIVE);
        for (j, h) in passages.enumerate() {
            let mut hit = h.clone();
            hit.rank = out.len() as u32 + 1;
            // Later passages of the document keep their strength relative to its best one.
            let rel = if j == 0 {
                1.0
            } else {
                (h.score / first_raw).min(1.0)
            };
            hit.score = round(score * rel);
            let mut s = signals.clone();
            // What the passage says of itself: its place, and (through a team engine) who
            // wrote it on which machine.
            for k in ["passage", "author", "machine"] {
                if let Some(v) = h.signals.get(k) {
                    s.insert(k.into(), v.clone());
                }
            }
            hit.signals = s;
            out.push(hit);
        }
    }
    out
}

/// A lexical list: the query's own (`lex`) or a soft filter's (`window`, `project`).
fn lexical(kind: &str) -> bool {
    matches!(kind, "lex" | "window" | "project")
}

/// Order hits of equal score by document ([`brain_doc::tie_key`] of its id, then line) and renumber
/// the ranks, so two builds
/// of the same files — whose segments, and so the index's own order among equal scores, differ —
/// answer in the same order. Only runs of adjacent equal scores move: a doc's grouped passages and
/// every unequal order stay as ranked.
pub fn break_ties(hits: &mut [Hit]) {
    let mut start = 0;
    while start < hits.len() {
        let score = hits[start].score;
        let end = hits[start..]
            .iter()
            .position(|h| h.score.total_cmp(&score).is_ne())
            .map_or(hits.len(), |n| start + n);
        if end - start > 1 {
            // The document id is `<collection>/<path>`; each key computed once.
            hits[start..end].sort_by_cached_key(|h| {
                let id = format!("{}/{}", h.collection, h.path);
                (brain_doc::tie_key(&id), id, h.line)
            });
        }
        start = end;
    }
    for (i, h) in hits.iter_mut().enumerate() {
        h.rank = i as u32 + 1;
    }
}

/// Keep the hits of the first `limit` documents (a document's passages are consecutive).
pub fn truncate_docs(hits: &mut Vec<Hit>, limit: usize) {
    let mut docs = 0;
    let mut last: Option<String> = None;
    let mut keep = hits.len();
    for (i, h) in hits.iter().enumerate() {
        if last.as_deref() != Some(h.uri.as_str()) {
            docs += 1;
            if docs > limit {
                keep = i;
                break;
            }
            last = Some(h.uri.clone());
        }
    }
    hits.truncate(keep);
}

fn round(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0
}

/// Keep at most `per_session` documents of one session ahead of the documents of other sessions:
/// the rest ([`repeated_sessions`]) move, in their order, behind the others (a stable partition; 0
/// leaves the order alone). Snapshot transcripts and resumed sessions repeat one session in several
/// documents, and a question whose answer spans sessions needs distinct ones near the top. A
/// document's passages move together; hits without a session id never move. Ranks are renumbered;
/// scores stay (they tell how good each still is), and a moved hit carries the signal `repeat: 1`.
pub fn spread_sessions(hits: &mut Vec<Hit>, per_session: usize) {
    let later = repeated_sessions(hits, per_session);
    if later.is_empty() {
        return;
    }
    let (mut first, mut rest): (Vec<Hit>, Vec<Hit>) =
        hits.drain(..).partition(|h| !later.contains(&h.uri));
    for h in &mut rest {
        h.signals.insert("repeat".into(), Value::from(1));
    }
    first.extend(rest);
    for (i, h) in first.iter_mut().enumerate() {
        h.rank = i as u32 + 1;
    }
    *hits = first;
}

/// The documents (URIs) of `hits` that come after `per_session` others of their session (none
/// when `per_session` is 0).
pub fn repeated_sessions(hits: &[Hit], per_session: usize) -> std::collections::HashSet<String> {
    let mut later = std::collections::HashSet::new();
    if per_session == 0 {
        return later;
    }
    let mut docs_of: HashMap<&str, usize> = HashMap::new();
    let mut seen = std::collections::HashSet::new();
    for h in hits {
        if !seen.insert(h.uri.as_str()) {
            continue;
        }
        if let Some(sid) = &h.session_id {
            let n = docs_of.entry(sid.as_str()).or_insert(0);
            *n += 1;
            if *n > per_session {
                later.insert(h.uri.clone());
            }
        }
    }
    later
}

/// Signals object helper: insert `key: value` rounded to four decimals.
pub(crate) fn signal(map: &mut Map<String, Value>, key: &str, value: f64) {
    map.insert(
        key.into(),
        Value::from((value * 10_000.0).round() / 10_000.0),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list<'a>(name: &'a str, weight: f64, keys: &[&str]) -> RankedList<'a> {
        RankedList {
            name,
            weight,
            share: 1.0,
            keys: keys.iter().map(|s| s.to_string()).collect(),
        }
    }

    fn hit(uri: &str, session: Option<&str>) -> Hit {
        Hit {
            session_id: session.map(str::to_string),
            ..crate::test_hit(uri)
        }
    }

    #[test]
    fn one_session_cannot_fill_the_top_hits() {
        let mut hits = vec![
            hit("a1", Some("A")),
            hit("a1", Some("A")), // a second passage of a1 moves with it
            hit("a2", Some("A")),
            hit("a3", Some("A")),
            hit("b", Some("B")),
            hit("n", None),
            hit("c", Some("C")),
        ];
        assert_eq!(repeated_sessions(&hits, 1).len(), 2);
        spread_sessions(&mut hits, 1);
        let order: Vec<&str> = hits.iter().map(|h| h.uri.as_str()).collect();
        assert_eq!(order, ["a1", "a1", "b", "n", "c", "a2", "a3"]);
        assert!(hits.iter().enumerate().all(|(i, h)| h.rank == i as u32 + 1));
        assert_eq!(hits[5].signals.get("repeat"), Some(&Value::from(1)));
        assert!(hits[0].signals.get("repeat").is_none());
        // Two per session; 0 leaves the order alone.
        let mut hits = vec![
            hit("a1", Some("A")),
            hit("a2", Some("A")),
            hit("a3", Some("A")),
            hit("b", Some("B")),
        ];
        spread_sessions(&mut hits, 2);
        assert_eq!(hits[2].uri, "b");
        let mut hits = vec![
            hit("a1", Some("A")),
            hit("a2", Some("A")),
            hit("b", Some("B")),
        ];
        spread_sessions(&mut hits, 0);
        assert_eq!(hits[1].uri, "a2");
        assert!(repeated_sessions(&[], 1).is_empty());
    }

    #[test]
    fn agreement_beats_a_single_first_place() {
        let fused = rrf(
            &[
                list("bm25", 1.0, &["a", "b", "c"]),
                list("vec", 1.0, &["b", "c", "a"]),
            ],
            &FusionWeights::default(),
        );
        let keys: Vec<&str> = fused.iter().map(|f| f.key.as_str()).collect();
        assert_eq!(keys, vec!["b", "a", "c"]);
        // b: 1/62 + 0.02 + 1/61 + 0.05
        let b = 1.0 / 62.0 + 0.02 + 1.0 / 61.0 + 0.05;
        assert!((fused[0].score - b).abs() < 1e-12);
        assert_eq!(
            fused[0].ranks,
            vec![("bm25".to_string(), 2), ("vec".to_string(), 1)]
        );
    }

    #[test]
    fn weight_scales_a_list() {
        let fused = rrf(
            &[list("bm25", 2.0, &["a"]), list("vec", 1.0, &["b"])],
            &FusionWeights::default(),
        );
        assert_eq!(fused[0].key, "a");
    }
}
