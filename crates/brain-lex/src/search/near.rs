//! Near spellings: a word the index does not know ("buisiness", "fest") also matches the terms
//! one edit away, and a short one the terms it begins, at a constant score below any exact match
//! ([`Searcher::near_spellings`]).

use tantivy::Term;
use tantivy::query::{BooleanQuery, ConstScoreQuery, FuzzyTermQuery, Occur, Query, TermQuery};
use tantivy::schema::IndexRecordOption;

use super::{FUZZY_RARE, FUZZY_SCORE, Searcher};

/// The near spellings of one word in one field ([`Searcher::near_spellings`]): the terms the
/// `fuzzy` automata match, in passages without `term` itself.
#[derive(Debug)]
pub(crate) struct Near {
    term: Term,
    fuzzy: Vec<FuzzyTermQuery>,
}

impl Near {
    /// The query: [`FUZZY_SCORE`] where a near term is and the word is not.
    fn query(self) -> Box<dyn Query> {
        let near = self
            .fuzzy
            .into_iter()
            .map(|f| (Occur::Should, Box::new(f) as Box<dyn Query>))
            .collect();
        // Only where the word itself is not: an exact match scores as it would without this.
        let only_near = BooleanQuery::new(vec![
            (Occur::Must, Box::new(BooleanQuery::new(near))),
            (
                Occur::MustNot,
                Box::new(TermQuery::new(self.term, IndexRecordOption::Basic)),
            ),
        ]);
        Box::new(ConstScoreQuery::new(Box::new(only_near), FUZZY_SCORE))
    }

    /// Whether any segment holds a near term other than the word itself: a near spelling that
    /// matches no other term never scores (it matches only where the word is not), so it is
    /// dropped from the query and from the two-pass bounds ([`Searcher::near_forms`]).
    fn live(&self, searcher: &tantivy::Searcher) -> tantivy::Result<bool> {
        let word = self.term.serialized_value_bytes();
        let automata = self
            .fuzzy
            .iter()
            .map(FuzzyTermQuery::automaton)
            .collect::<tantivy::Result<Vec<_>>>()?;
        for seg in searcher.segment_readers() {
            let inv = seg.inverted_index(self.term.field())?;
            for a in &automata {
                let mut terms = inv.terms().search(a).into_stream()?;
                while terms.advance() {
                    if terms.key() != word {
                        return Ok(true);
                    }
                }
            }
        }
        Ok(false)
    }

    /// Which of the passages `docs` (sorted, of the segment `seg`) it matches: each near term's
    /// postings sought to them, not a bitset of the whole segment per automaton (what its query
    /// builds).
    pub(crate) fn matches(
        &self,
        seg: &tantivy::SegmentReader,
        docs: &[tantivy::DocId],
    ) -> tantivy::Result<Vec<bool>> {
        use tantivy::DocSet;
        let inv = seg.inverted_index(self.term.field())?;
        let mut hit = vec![false; docs.len()];
        let seek_all = |postings: &mut dyn DocSet, mark: bool, hit: &mut [bool]| {
            for (i, &d) in docs.iter().enumerate() {
                if postings.doc() <= d && postings.seek(d) == d {
                    hit[i] = mark;
                }
            }
        };
        for f in &self.fuzzy {
            let mut terms = inv.terms().search(f.automaton()?).into_stream()?;
            while terms.advance() {
                let mut p =
                    inv.read_postings_from_terminfo(terms.value(), IndexRecordOption::Basic)?;
                seek_all(&mut p, true, &mut hit);
            }
        }
        if let Some(mut p) = inv.read_postings(&self.term, IndexRecordOption::Basic)? {
            seek_all(&mut p, false, &mut hit);
        }
        Ok(hit)
    }
}

impl Searcher {
    /// The analyzed term of `w` when it gets near spellings: a word of four or more letters (one
    /// part, letters only) that the index holds in at most [`FUZZY_RARE`] passages. `None` for
    /// every other word — the cheap test the two-pass search asks too.
    pub(crate) fn near_term(&self, w: &str) -> Option<String> {
        let mut parts = self.analyzer().tokens(w);
        if parts.len() != 1 {
            return None;
        }
        let t = parts.pop()?;
        if t.chars().count() < 4 || !t.chars().all(char::is_alphabetic) {
            return None;
        }
        let known = self
            .searcher
            .doc_freq(&Term::from_field_text(self.fields.body, &t))
            .unwrap_or(0);
        (known <= FUZZY_RARE).then_some(t)
    }

    /// A misspelled word ("buisiness") or a short form the stemmer keeps apart from its long one
    /// ("fest" / "festival") — a [`Searcher::near_term`] — also matches title and body terms within
    /// one edit (a swap of two letters is one edit) and, for a word of four or five letters, the
    /// terms it begins, at the constant score [`FUZZY_SCORE`], below any exact match and only in
    /// passages without the word itself. One edit only (the tests' misspellings are all one edit
    /// from their stems).
    pub(crate) fn near_spellings(&self, w: &str) -> Vec<Box<dyn Query>> {
        self.near_forms(w).into_iter().map(Near::query).collect()
    }

    /// [`Searcher::near_spellings`] as data: one [`Near`] per field whose terms hold a near
    /// spelling of the word ([`Near::live`]; a field without one would add nothing but the cost of
    /// its automata, and loosen the two-pass bound).
    pub(crate) fn near_forms(&self, w: &str) -> Vec<Near> {
        let Some(t) = self.near_term(w) else {
            return Vec::new();
        };
        let letters = t.chars().count();
        [self.fields.title, self.fields.body]
            .into_iter()
            .map(|field| {
                let term = Term::from_field_text(field, &t);
                let mut fuzzy = vec![FuzzyTermQuery::new(term.clone(), 1, true)];
                if letters <= 5 {
                    fuzzy.push(FuzzyTermQuery::new_prefix(term.clone(), 0, true));
                }
                Near { term, fuzzy }
            })
            // A damaged index fails the search itself; here it just keeps the near spelling.
            .filter(|n| n.live(&self.searcher).unwrap_or(true))
            .collect()
    }
}
