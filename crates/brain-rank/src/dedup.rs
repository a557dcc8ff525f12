//! Near-duplicate collapse (issue #23): five copies of one pasted error should not fill a result
//! page or a context block.
//!
//! Two measures; two texts are near-duplicates when either says so:
//! * with vectors (both records embedded by `vecindex`): the cosine of their stored vectors (the
//!   chunk holding the passage, or the mean of the record's chunks for a whole record) at
//!   [`COSINE_THRESHOLD`] or above — seed 002's 0.88, which catches paraphrases;
//! * always: the Jaccard similarity of the two texts' sets of word 3-shingles (words are runs of
//!   letters and digits, lower-cased; a text of fewer than three words is its words) at
//!   [`THRESHOLD`] or above. Measured on the fixtures: an error pasted again with another path or
//!   timestamp scores 0.6–0.9; two different notes of one project stay below 0.2; a paraphrase
//!   stays below it too (that is what the vectors are for).

use std::collections::HashSet;

use brain_doc::Hit;

/// Whether an answer's near-duplicates are collapsed (a request's [`collapse`]
/// (crate::request::SearchRequest::collapse)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Collapse {
    #[default]
    Off,
    /// `brain ask`'s default: collapsed, nothing said of how.
    Quiet,
    /// Asked for (`--dedup`): collapsed, and without a vector store the answer says it compared
    /// words only ([`WORDS_ONLY`]).
    Said,
}

/// Shingle Jaccard at or above which two texts are one by default (our choice, 2026-11-25; see
/// the module docs); `dedup.shingles` of the strategy.
pub const THRESHOLD: f64 = 0.5;

/// Cosine of stored vectors at or above which two texts are one by default (seed 002's dedup
/// threshold); `dedup.cosine` of the strategy.
pub const COSINE_THRESHOLD: f32 = 0.88;

/// The two thresholds in force.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Thresholds {
    pub shingles: f64,
    pub cosine: f32,
}

impl Default for Thresholds {
    fn default() -> Self {
        Thresholds {
            shingles: THRESHOLD,
            cosine: COSINE_THRESHOLD,
        }
    }
}

impl From<crate::strategy::DedupWeights> for Thresholds {
    fn from(w: crate::strategy::DedupWeights) -> Self {
        Thresholds {
            shingles: w.shingles,
            cosine: w.cosine as f32,
        }
    }
}

impl Thresholds {
    /// The cosine threshold moved from all-MiniLM-L6-v2's scale (on which seed 002's 0.88 and
    /// `dedup.cosine` are read) to the scale of the model that made the vectors compared
    /// ([`brain_vec::catalog::cosine_scale`]: the same place between "unrelated" and "answers it";
    /// bge's 0.88 is 0.928), capped below 1.
    pub fn on_scale(self, scale: crate::strength::CosineScale) -> Thresholds {
        let (n0, f0) = brain_vec::catalog::DEFAULT_COSINE;
        let (n1, f1) = scale;
        let moved = n1 + (f64::from(self.cosine) - n0) * (f1 - n1) / (f0 - n0);
        Thresholds {
            cosine: moved.clamp(0.0, 0.995) as f32,
            ..self
        }
    }
}

/// Cosine of two unit vectors (0 when their lengths differ).
pub fn cosine(a: &[f32], b: &[f32]) -> f32 {
    if a.len() != b.len() {
        return 0.0;
    }
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// The word 3-shingles of `text`, hashed.
pub fn shingles(text: &str) -> HashSet<u64> {
    let words: Vec<String> = text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    let hash = |parts: &[String]| {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        parts.hash(&mut h);
        h.finish()
    };
    if words.len() < 3 {
        return words
            .iter()
            .map(|w| hash(std::slice::from_ref(w)))
            .collect();
    }
    words.windows(3).map(hash).collect()
}

/// Jaccard similarity of two shingle sets (0 when both are empty).
pub fn similarity(a: &HashSet<u64>, b: &HashSet<u64>) -> f64 {
    if a.is_empty() && b.is_empty() {
        return 0.0;
    }
    let inter = a.intersection(b).count();
    inter as f64 / (a.len() + b.len() - inter) as f64
}

/// Which of `texts` (best first) are near-duplicates of an earlier one: `out[i] = Some(j)`, `j <
/// i` the text it repeats. By shingles alone.
pub fn duplicates_of(texts: &[&str]) -> Vec<Option<usize>> {
    duplicates_with(texts, &vec![None; texts.len()], Thresholds::default())
}

/// [`duplicates_of`] with each text's stored vector where it has one (`vectors[i]`): a pair is one
/// by cosine or by shingles (see the module docs).
pub fn duplicates_with(
    texts: &[&str],
    vectors: &[Option<Vec<f32>>],
    t: Thresholds,
) -> Vec<Option<usize>> {
    let sets: Vec<HashSet<u64>> = texts.iter().map(|t| shingles(t)).collect();
    let vec_of = |i: usize| vectors.get(i).and_then(Option::as_deref);
    let mut out = vec![None; texts.len()];
    for i in 0..sets.len() {
        // Jaccard ≥ t needs the smaller set to be at least t of the larger: most pairs stop here.
        let fits = |a: usize, b: usize| (a.min(b) as f64) >= t.shingles * a.max(b) as f64;
        out[i] = (0..i).find(|&j| {
            if out[j].is_some() {
                return false;
            }
            if let (Some(a), Some(b)) = (vec_of(i), vec_of(j))
                && cosine(a, b) >= t.cosine
            {
                return true;
            }
            fits(sets[i].len(), sets[j].len()) && similarity(&sets[i], &sets[j]) >= t.shingles
        });
    }
    out
}

/// What a collapse says when it had no vectors to compare (issue 40): paraphrases cannot be told
/// apart by their words, so both are kept. One owner for `brain ask --dedup` and `brain context`.
pub const WORDS_ONLY: &str = "near-duplicates compared by their words only: no vector store, so paraphrases of one another are both kept (`vecindex --all` embeds them)";

/// Stored vectors of records by (id, line — `None` for a whole record), all asked at once (one
/// store open); a record without one is `None`. [`stored_vectors`] reads them.
pub type Vectors<'a> = &'a dyn Fn(&[(String, Option<u64>)]) -> Vec<Option<Vec<f32>>>;

/// The stored vectors of `wanted` (record id, line — `None`: the whole record) in `store`
/// ([`brain_vec::store::Store::text_vector`]); `None` for a record it does not hold.
pub fn stored_vectors(
    store: &brain_vec::store::Store,
    wanted: &[(String, Option<u64>)],
) -> Vec<Option<Vec<f32>>> {
    let ids: Vec<&str> = wanted.iter().map(|(id, _)| id.as_str()).collect();
    store
        .find(&ids)
        .into_iter()
        .zip(wanted)
        .map(|(at, (_, line))| at.and_then(|d| store.text_vector(d, *line)))
        .collect()
}

/// `hits` (best first) without the near-duplicates of a better one, ranks numbered again; and how
/// many went. Each hit is compared by what the hit itself holds — its title and snippet — and its
/// passage's stored vector: no file is read and no token counted (that made a default `brain ask`
/// 6× slower: 5.8 → 36.6 ms p50 on bench/ask.sh's sessions, measured 2026-11-26).
pub fn dedup_hits(hits: Vec<Hit>, vectors: Vectors<'_>, t: Thresholds) -> (Vec<Hit>, usize) {
    let texts: Vec<String> = hits
        .iter()
        .map(|h| format!("{}\n{}", h.title, h.snippet))
        .collect();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let wanted: Vec<(String, Option<u64>)> = hits
        .iter()
        .map(|h| (format!("{}/{}", h.collection, h.path), Some(h.line)))
        .collect();
    let vecs = vectors(&wanted);
    let dup = duplicates_with(&refs, &vecs, t);
    let dropped = dup.iter().filter(|d| d.is_some()).count();
    let mut kept: Vec<Hit> = hits
        .into_iter()
        .zip(dup)
        .filter(|(_, d)| d.is_none())
        .map(|(h, _)| h)
        .collect();
    for (n, h) in kept.iter_mut().enumerate() {
        h.rank = n as u32 + 1;
    }
    (kept, dropped)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cosine_threshold_moves_to_the_model_s_scale() {
        let t = Thresholds::default();
        let same = t.on_scale(brain_vec::catalog::DEFAULT_COSINE);
        assert!((same.cosine - t.cosine).abs() < 1e-6);
        let bge = t.on_scale(brain_vec::catalog::cosine_scale("local:bge-small-en-v1.5"));
        assert!((bge.cosine - 0.928).abs() < 0.001, "{}", bge.cosine);
        assert_eq!(bge.shingles, t.shingles);
        // Never 1 or past it: two copies of one text still meet.
        let high = Thresholds { cosine: 0.99, ..t }.on_scale((0.79, 0.875));
        assert!(high.cosine <= 0.995);
    }

    #[test]
    fn a_pasted_error_again_is_a_duplicate_and_another_note_is_not() {
        let a = "error[E0502]: cannot borrow `self.index` as mutable because it is also borrowed as immutable at src/lib.rs:42";
        let b = "error[E0502]: cannot borrow `self.index` as mutable because it is also borrowed as immutable at src/main.rs:7";
        let c = "the release checklist: tag, build, upload the artifacts, announce";
        assert_eq!(duplicates_of(&[a, b, c]), [None, Some(0), None]);
        assert!(similarity(&shingles(a), &shingles(c)) < 0.1);
        assert_eq!(duplicates_of(&["", ""]), [None, None]);
    }

    #[test]
    fn vectors_make_a_paraphrase_a_duplicate_and_only_above_the_threshold() {
        let (a, b, c) = (
            "rotate the password",
            "change the secret",
            "release checklist",
        );
        let unit = |x: f32| {
            let y = (1.0 - x * x).sqrt();
            Some(vec![x, y])
        };
        // cos(a, b) = 0.95, cos(a, c) = 0.6.
        let v = [Some(vec![1.0, 0.0]), unit(0.95), unit(0.6)];
        let t = Thresholds::default();
        assert_eq!(duplicates_with(&[a, b, c], &v, t), [None, Some(0), None]);
        assert_eq!(
            duplicates_with(&[a, b, c], &[None, None, None], t),
            [None, None, None]
        );
        let v = [Some(vec![1.0, 0.0]), unit(0.87), None];
        assert_eq!(duplicates_with(&[a, b, c], &v, t), [None, None, None]);
        // A lower cosine threshold from the strategy makes it one.
        let low = Thresholds { cosine: 0.8, ..t };
        assert_eq!(duplicates_with(&[a, b, c], &v, low), [None, Some(0), None]);
    }
}
