//! How much of a query a passage holds, on a scale that reads the same across queries: the share
//! of the query's weight (each word weighted by its rarity, BM25's idf) whose analyzed terms the
//! passage holds. A passage with every word scores 1; one that shares only a common word with the
//! query scores little, however it ranks. BM25 itself is not comparable across queries (its scale
//! grows with the words and their rarity), which is why the rank's own score is relative to the
//! top hit and this one is not.
//!
//! In a query of a few words ([`FEW_WORDS`]) each word is the point, and one the index has never
//! seen weighs double: it is the best evidence that the memory does not hold what was asked
//! ("zzqxv nonexistent" holds one real word and is still a weak match). In a longer question one
//! unknown word is common ("organised", a name) and weighs as any rare word.
//! A passage holds such a word when it holds a near spelling of it (one edit, or a word it
//! begins), as the search itself matches a misspelling.

use super::{LexQuery, Searcher};
use tantivy::Term;

/// A query of at most this many words is a few words (see the module docs).
pub const FEW_WORDS: usize = 2;

/// The words of one query with their weights, computed once per search.
#[derive(Debug, Default, Clone)]
pub struct TermWeights {
    /// Each word (or phrase) as its analyzed terms, and its weight.
    words: Vec<(Vec<String>, f64)>,
    /// Per word: unknown to the index (held by a near spelling).
    unknown: Vec<bool>,
    /// Per word: as the query wrote it (what a message names).
    written: Vec<String>,
    total: f64,
}

impl TermWeights {
    /// True when no word survived analysis (a query of stop words or filters alone).
    pub fn is_empty(&self) -> bool {
        self.words.is_empty() || self.total <= 0.0
    }

    /// True when the index has seen none of the query's words (each unknown, as analyzed).
    pub fn all_unknown(&self) -> bool {
        !self.unknown.is_empty() && self.unknown.iter().all(|u| *u)
    }

    /// The words of a query of a few words that the index has never seen (as analyzed): what a
    /// "nothing in the memory mentions …" answer names.
    pub fn unknown(&self) -> Vec<String> {
        self.words
            .iter()
            .zip(&self.unknown)
            .zip(&self.written)
            .filter(|((_, u), _)| **u)
            .map(|(_, w)| w.clone())
            .collect()
    }
}

impl Searcher {
    /// The weights of `q`'s words and phrases: the idf of a word's rarest term (a word the index
    /// never saw weighs the most — a query about something the memory does not hold is weak
    /// wherever it lands).
    pub fn term_weights(&self, q: &LexQuery) -> TermWeights {
        let n = self.searcher.num_docs();
        let df = |t: &str| {
            let in_field = |f| {
                self.searcher
                    .doc_freq(&Term::from_field_text(f, t))
                    .unwrap_or(0)
            };
            in_field(self.fields.body).max(in_field(self.fields.title))
        };
        self.term_weights_by(q, n, &df)
    }

    /// The analyzed terms of `q`'s words and phrases, each once: what [`Self::term_weights_by`]
    /// asks the statistics of.
    pub fn query_terms(&self, q: &LexQuery) -> Vec<String> {
        let mut terms: Vec<String> = q
            .terms
            .iter()
            .chain(&q.phrases)
            .flat_map(|w| self.analyzer().tokens(w))
            .collect();
        terms.sort_unstable();
        terms.dedup();
        terms
    }

    /// [`Self::term_weights`] from another index's statistics: `n` passages, of which `df(term)`
    /// hold the analyzed term in their title or body (the larger of the two) — a team engine's,
    /// for a member without a local index.
    pub fn term_weights_by(&self, q: &LexQuery, n: u64, df: &dyn Fn(&str) -> u64) -> TermWeights {
        let n = n as f64;
        let idf = |df: f64| (1.0 + (n - df + 0.5) / (df + 0.5)).ln().max(0.0);
        let mut words = Vec::new();
        let mut unknown = Vec::new();
        let mut written = Vec::new();
        let few = (q.terms.len() + q.phrases.len()).max(q.asked) <= FEW_WORDS;
        for w in q.terms.iter().chain(&q.phrases) {
            let parts = self.analyzer().tokens(w);
            if parts.is_empty() {
                continue;
            }
            let dfs: Vec<f64> = parts.iter().map(|t| df(t) as f64).collect();
            // An empty index ([`Searcher::empty`]) has seen no word: none is unknown there.
            let never = n > 0.0 && few && parts.len() == 1 && dfs.iter().all(|d| *d == 0.0);
            let weight = dfs.iter().map(|d| idf(*d)).fold(0.0, f64::max);
            words.push((parts, if never { 2.0 * weight } else { weight }));
            unknown.push(never);
            written.push(w.clone());
        }
        let total = words.iter().map(|(_, w)| w).sum();
        TermWeights {
            words,
            unknown,
            written,
            total,
        }
    }

    /// The share of `w`'s weight held by a passage (its title and body), in [0, 1]; a word counts
    /// when every one of its terms is there.
    pub fn coverage(&self, w: &TermWeights, title: &str, body: &str) -> f64 {
        if w.is_empty() {
            return 0.0;
        }
        let wanted: Vec<&str> = w
            .words
            .iter()
            .flat_map(|(p, _)| p.iter().map(String::as_str))
            .collect();
        let mut seen = vec![false; wanted.len()];
        // An unknown word's near spellings may begin with another letter: read every token then.
        let near: Vec<&str> = w
            .words
            .iter()
            .zip(&w.unknown)
            .filter(|(_, u)| **u)
            .filter_map(|((p, _), _)| p.first().map(String::as_str))
            .collect();
        let mut firsts: Vec<char> = wanted.iter().filter_map(|t| t.chars().next()).collect();
        firsts.sort_unstable();
        firsts.dedup();
        {
            let mut a = self.analyzer();
            let mut look = |t: &str| {
                for (i, x) in wanted.iter().enumerate() {
                    if *x == t || (near.contains(x) && near_spelling(x, t)) {
                        seen[i] = true;
                    }
                }
            };
            for text in [title, body] {
                if near.is_empty() {
                    a.for_each_token_from(text, &firsts, |_, t| look(t));
                } else {
                    a.for_each_token(text, |_, t| look(t));
                }
            }
        }
        let mut held = 0.0;
        let mut i = 0;
        for (parts, weight) in &w.words {
            if seen[i..i + parts.len()].iter().all(|s| *s) {
                held += weight;
            }
            i += parts.len();
        }
        (held / w.total).clamp(0.0, 1.0)
    }
}

/// `t` is a near spelling of `w` as the search matches one ([`Searcher::near_spellings`]): one
/// edit away (a swap of two neighbours is one edit), or, for a word of four or five letters, a
/// word it begins.
fn near_spelling(w: &str, t: &str) -> bool {
    let a: Vec<char> = w.chars().collect();
    let b: Vec<char> = t.chars().collect();
    if a.len() < 4 {
        return false;
    }
    if a.len() <= 5 && b.starts_with(&a) {
        return true;
    }
    if a.len().abs_diff(b.len()) > 1 {
        return false;
    }
    // Optimal string alignment distance, stopped at 2.
    let (n, m) = (a.len(), b.len());
    let mut d = vec![vec![0usize; m + 1]; n + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    if let Some(first) = d.first_mut() {
        for (j, cell) in first.iter_mut().enumerate() {
            *cell = j;
        }
    }
    for i in 1..=n {
        for j in 1..=m {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut v = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = v;
        }
    }
    d[n][m] <= 1
}

#[cfg(test)]
mod tests {
    use super::near_spelling;

    #[test]
    fn near_spellings_are_one_edit_or_a_prefix_of_a_short_word() {
        assert!(near_spelling("buisness", "business"));
        assert!(near_spelling("fest", "festival"));
        assert!(near_spelling("tantvy", "tantivy"));
        assert!(!near_spelling("zzqxv", "zebra"));
        assert!(!near_spelling("abc", "abd"));
        assert!(!near_spelling("nonexistant", "existing"));
    }
}
