//! Match strength: how sure an answer is, on one scale for every query (issue 38). A hit's `score`
//! is relative to the best hit of its answer — the best is always 1.00, even for a query nothing
//! matches — so a person cannot read it across queries. Its `strength` is absolute:
//!
//! * lexically, the share of the query's words (weighted by rarity) its passage holds
//!   ([`brain_lex::search::TermWeights`], the `match` signal);
//! * by vectors, its cosine mapped from the model's scale ([`from_cosine`]);
//! * the stronger of the two when both lists found it.
//!
//! A hit below another is never rated stronger than it ([`follow_rank`]). Below [`WEAK`] a hit is
//! a weak match, and says so. An answer whose every hit is weak and whose
//! short query holds a word the memory has never seen is "no results" (exit 67, as the contract
//! says), with the weak hits a flag away (`--min-score 0`): [`hold_back`].

use brain_doc::Hit;
use serde_json::Value;

/// The signal a lexical hit carries: the share of the query's weight its passage holds.
pub const MATCH: &str = "match";

pub use brain_doc::WEAK;

/// A model's cosines between a query and a passage about something else sit near one value; one
/// that answers it sits higher. A cosine maps linearly from the first of the model's scale
/// (strength 0) to the second (strength 1): all-MiniLM-L6-v2's 0.15 and 0.65, bge-small-en-v1.5's
/// 0.585 and 0.82 ([`brain_vec::catalog::cosine_scale`]: each model's own, or a store made by
/// bge would call an unrelated passage a good match).
pub type CosineScale = (f64, f64);

/// A cosine as a strength on `scale`.
pub fn from_cosine(c: f64, scale: CosineScale) -> f64 {
    let (none, full) = scale;
    if full <= none {
        return f64::from(u8::from(c >= full));
    }
    ((c - none) / (full - none)).clamp(0.0, 1.0)
}

/// The strength of one hit from its signals, `None` when it has none (a recency walk).
pub fn of(h: &Hit, scale: CosineScale) -> Option<f64> {
    let lex = h.signals.get(MATCH).and_then(Value::as_f64);
    let vec = h
        .signals
        .get("vec")
        .and_then(Value::as_f64)
        .map(|c| from_cosine(c, scale));
    match (lex, vec) {
        (Some(a), Some(b)) => Some(a.max(b)),
        (a, b) => a.or(b),
    }
    .map(|s| (s * 100.0).round() / 100.0)
}

/// Set every hit's strength from its signals (cosines read on `scale`: the vector store's model's).
pub fn apply(hits: &mut [Hit], scale: CosineScale) {
    for h in hits {
        h.strength = of(h, scale);
    }
}

/// Strengths that agree with the ranking (issue 59): a hit is never rated stronger than a hit
/// above it — its strength is its own or the one above's, whichever is lower. The ranking
/// (fusion, BM25, the memory signals, a reranker) orders better than the share of words alone:
/// ordering the real-session recall set by strength instead took MRR@10 from 0.7819 to 0.7029
/// (lex) and 0.9501 to 0.9134 (auto), so the order stays and the label follows it. The top hit
/// keeps its own strength; a hit's own share stays in its signals (`match`, `vec`). Hits without a
/// strength (a recency walk) are left as they are.
pub fn follow_rank(hits: &mut [Hit]) {
    let mut above: Option<f64> = None;
    for h in hits {
        if let Some(s) = h.strength {
            let s = above.map_or(s, |a| s.min(a));
            h.strength = Some(s);
            above = Some(s);
        }
    }
}

/// True when a hit clears `min` (a hit without a strength, from a recency walk, always does).
pub fn clears(h: &Hit, min: f64) -> bool {
    h.strength.is_none_or(|s| s >= min)
}

/// The signal of a hit found by meaning alone for a query whose words the memory does not hold:
/// a semantic neighbour, labelled so wherever a hit is shown ([`brain_doc::strength_text`]).
pub use brain_doc::SEMANTIC;

/// A semantic neighbour is shown only at this strength or more (its cosine past half-way from
/// the model's "about something else" to its "answers it"); below, the answer is no results.
pub const SEMANTIC_MIN: f64 = 0.5;

/// The words of a short query the memory has never held, and whether that is every word of it.
pub type Unknown = (Vec<String>, bool);

/// Hold back an answer that holds nothing of what was asked. Two cases, both for a short query
/// with a word the memory has never held (`unknown`, asked only then):
///
/// * every hit weak (below [`WEAK`]) — "zzqxv nonexistent": no results;
/// * none of its words in the memory ("kubernetes") and no hit's passage holding a fair share of
///   them (lexically weak): only what vectors found close in meaning ([`SEMANTIC_MIN`]) stays,
///   marked a semantic neighbour (never a match of the words, so never `strong`); with nothing
///   left, no results. A paraphrase that shares a word with the memory ("authorization
///   failures") keeps its vector hits as they are.
///
/// An answer of weak hits to words the memory does hold ("which database do we use", answered by
/// a fact that never says "database") stays, its hits labelled weak. The returned warning says
/// what happened and how to see what was held back (`--min-score 0`); no results is exit 67.
pub fn hold_back(hits: &mut Vec<Hit>, unknown: impl FnOnce() -> Unknown) -> Option<String> {
    let words_weak = hits.iter().all(|h| {
        h.strength.is_some() && h.signals.get(MATCH).and_then(Value::as_f64).unwrap_or(0.0) < WEAK
    });
    if hits.is_empty() || !words_weak {
        return None;
    }
    let all_weak = hits.iter().all(|h| h.strength.is_some_and(|s| s < WEAK));
    let found_by_meaning = |h: &Hit| h.signals.contains_key("vec");
    if !all_weak && !hits.iter().any(found_by_meaning) {
        return None;
    }
    // Asked only of such an answer (a look-up per word in the index).
    let (unknown, every_word) = unknown();
    if unknown.is_empty() || !(all_weak || every_word) {
        return None;
    }
    let words: Vec<String> = unknown.iter().map(|w| format!("`{w}`")).collect();
    let best = hits.iter().filter_map(|h| h.strength).fold(0.0, f64::max);
    match every_word {
        true => {
            hits.retain(|h| found_by_meaning(h) && h.strength.is_some_and(|s| s >= SEMANTIC_MIN))
        }
        false => hits.clear(),
    }
    if hits.is_empty() {
        return Some(format!(
            "nothing in the memory mentions {}: its weak hits are held back (best strength {best:.2}); `--min-score 0` shows them",
            words.join(", ")
        ));
    }
    for (i, h) in hits.iter_mut().enumerate() {
        h.rank = i as u32 + 1;
        h.signals.insert(SEMANTIC.into(), Value::Bool(true));
    }
    Some(format!(
        "nothing in the memory mentions {}; {} close in meaning (semantic neighbours, not matches of the words)",
        words.join(", "),
        match hits.len() {
            1 => "1 document is".to_string(),
            n => format!("{n} documents are"),
        }
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A hit with a lexical `match` share and/or a vector strength.
    fn hit(uri: &str, lex: Option<f64>, vec: Option<f64>) -> Hit {
        let mut h = crate::test_hit(uri);
        if let Some(m) = lex {
            h.signals.insert(MATCH.into(), m.into());
        }
        if let Some(v) = vec {
            h.signals.insert("vec".into(), v.into());
        }
        h.strength = [lex, vec].into_iter().flatten().reduce(f64::max);
        h
    }

    /// Unknown `words`, every word of the query when `every`.
    fn unknown(words: &[&str], every: bool) -> impl FnOnce() -> Unknown {
        let words: Vec<String> = words.iter().map(|w| w.to_string()).collect();
        move || (words, every)
    }

    #[test]
    fn a_hit_is_never_rated_stronger_than_one_above_it() {
        let mut hits = vec![
            hit("a", Some(1.0), None),
            hit("b", Some(0.23), None),
            hit("c", Some(0.39), None),
            hit("d", None, Some(0.7)),
        ];
        hits.push(crate::test_hit("walk"));
        follow_rank(&mut hits);
        let s: Vec<Option<f64>> = hits.iter().map(|h| h.strength).collect();
        assert_eq!(s, [Some(1.0), Some(0.23), Some(0.23), Some(0.23), None]);
        // The hit's own share stays in its signals.
        assert_eq!(hits[2].signals[MATCH], 0.39);
        let mut top_weak = vec![hit("a", Some(0.1), None), hit("b", Some(0.9), None)];
        follow_rank(&mut top_weak);
        assert_eq!(top_weak[1].strength, Some(0.1));
    }

    #[test]
    fn words_in_no_document_are_no_results_or_semantic_neighbours() {
        // Only far neighbours by meaning: no results, the word named.
        let mut hits = vec![hit("a", None, Some(0.42)), hit("b", Some(0.1), Some(0.3))];
        let w = hold_back(&mut hits, unknown(&["kubernetes"], true)).expect("held back");
        assert!(hits.is_empty());
        assert!(
            w.contains("nothing in the memory mentions `kubernetes`"),
            "{w}"
        );
        // Close ones stay, renumbered, marked semantic — never a match of the words.
        let mut hits = vec![
            hit("a", None, Some(0.3)),
            hit("b", Some(0.1), Some(0.9)),
            hit("c", None, Some(0.6)),
        ];
        let w = hold_back(&mut hits, unknown(&["kubernetes"], true)).expect("said");
        assert!(w.contains("2 documents are close in meaning"), "{w}");
        let kept: Vec<(&str, u32)> = hits.iter().map(|h| (h.uri.as_str(), h.rank)).collect();
        assert_eq!(kept, [("b", 1), ("c", 2)]);
        for h in &hits {
            assert_eq!(h.signals[SEMANTIC], true);
            let text = brain_doc::strength_text(h).expect("text");
            assert!(text.starts_with("semantic "), "{text}");
        }
    }

    #[test]
    fn known_words_and_real_matches_are_left_alone() {
        // A word of the query in the passage: a match, whatever else.
        let mut hits = vec![hit("a", Some(0.6), Some(0.2))];
        assert_eq!(hold_back(&mut hits, unknown(&["kubernetes"], true)), None);
        assert_eq!(hits.len(), 1);
        // Weak hits to words the memory holds: kept, labelled weak (the unknown list is empty).
        let mut hits = vec![hit("a", Some(0.1), Some(0.4))];
        assert_eq!(hold_back(&mut hits, unknown(&[], false)), None);
        assert_eq!(hits.len(), 1);
        // A lexical list alone, all weak, a word never seen: no results (as before).
        let mut hits = vec![hit("a", Some(0.2), None)];
        assert!(hold_back(&mut hits, unknown(&["zzqxv"], false)).is_some());
        assert!(hits.is_empty());
        // A paraphrase sharing a word with the memory keeps its vector hits as they are.
        let mut hits = vec![hit("a", Some(0.1), Some(0.36))];
        assert_eq!(
            hold_back(&mut hits, unknown(&["authorization"], false)),
            None
        );
        assert_eq!(hits.len(), 1);
        // A recency walk (no strength) is never held back.
        let mut hits = vec![crate::test_hit("a")];
        assert_eq!(hold_back(&mut hits, unknown(&["zzqxv"], false)), None);
    }
}
