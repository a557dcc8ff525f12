//! Match strength: how sure an answer is, on one scale for every query (issue 38). A hit's `score`
//! is relative to the best hit of its answer — the best is always 1.00, even for a query nothing
//! matches — so a person cannot read it across queries. Its `strength` is absolute:
//!
//! * lexically, the share of the query's words (weighted by rarity) its passage holds
//!   ([`brain_lex::search::TermWeights`], the `match` signal);
//! * by vectors, its cosine mapped from the model's scale ([`from_cosine`]);
//! * the stronger of the two when both lists found it.
//!
//! Below [`WEAK`] a hit is a weak match, and says so. An answer whose every hit is weak and whose
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

/// True when a hit clears `min` (a hit without a strength, from a recency walk, always does).
pub fn clears(h: &Hit, min: f64) -> bool {
    h.strength.is_none_or(|s| s >= min)
}

/// Hold back an answer that holds nothing of what was asked: every hit weak (below [`WEAK`]) and
/// a word of a short query that the memory has never held (`unknown`, asked only then) — "zzqxv nonexistent". An
/// answer of weak hits to words the memory does hold ("which database do we use", answered by a
/// fact that never says "database") stays, its hits labelled weak. The returned warning says
/// what was held back and how to see it.
pub fn hold_back(hits: &mut Vec<Hit>, unknown: impl FnOnce() -> Vec<String>) -> Option<String> {
    let all_weak = hits.iter().all(|h| h.strength.is_some_and(|s| s < WEAK));
    if hits.is_empty() || !all_weak {
        return None;
    }
    // Asked only of an answer all weak (a look-up per word in the index).
    let unknown = unknown();
    if unknown.is_empty() {
        return None;
    }
    let best = hits.iter().filter_map(|h| h.strength).fold(0.0, f64::max);
    hits.clear();
    let words: Vec<String> = unknown.iter().map(|w| format!("`{w}`")).collect();
    Some(format!(
        "nothing in the memory mentions {}: its weak hits for the other words are held back (best strength {best:.2}); `--min-score 0` shows them",
        words.join(", ")
    ))
}
