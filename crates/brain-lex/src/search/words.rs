//! One word or phrase of a query as tantivy queries: the fields it is looked for in, with their
//! boosts, and its forms (the English one, the form in the query's other language).

use tantivy::Term;
use tantivy::query::{
    BooleanQuery, BoostQuery, DisjunctionMaxQuery, Occur, PhraseQuery, Query, TermQuery,
};
use tantivy::schema::{Field, IndexRecordOption};

use super::{Boosts, Searcher};
use crate::tokenize::{Language, tokens};

impl Searcher {
    /// `W(w)`: one word across the fields, or `None` when it analyzes to nothing.
    pub(super) fn word(
        &self,
        w: &str,
        b: &Boosts,
        lang: Option<Language>,
    ) -> Option<Box<dyn Query>> {
        let mut alts = self.word_alts(w, b, lang);
        match alts.len() {
            0 => None,
            1 => alts.pop(),
            _ => Some(Box::new(DisjunctionMaxQuery::with_tie_breaker(
                alts,
                b.tie_breaker,
            ))),
        }
    }

    /// The per-field queries of one word (boosted terms; a split identifier needs all its parts),
    /// and its near spellings when the index does not know it ([`Searcher::near_spellings`]).
    pub(super) fn word_alts(
        &self,
        w: &str,
        b: &Boosts,
        lang: Option<Language>,
    ) -> Vec<Box<dyn Query>> {
        let mut alts: Vec<Box<dyn Query>> = self
            .word_fields(w, b, lang)
            .into_iter()
            .map(|(field, parts, boost)| boosted(all_terms(field, &parts), boost))
            .collect();
        alts.extend(self.near_spellings(w));
        alts
    }

    /// The alternatives of one word: per boosted field, the analyzed parts that must all be there
    /// (and, in a query of another language `lang`, the parts stemmed in it, where they differ);
    /// per identifier token, the `ident` term alone.
    pub(super) fn word_fields(
        &self,
        w: &str,
        b: &Boosts,
        lang: Option<Language>,
    ) -> Vec<(Field, Vec<String>, f32)> {
        let f = &self.fields;
        let parts = self.analyzer().tokens(w);
        let other = lang
            .map(|l| self.analyzer().tokens_in(w, l))
            .filter(|o| !o.is_empty() && *o != parts);
        let mut alts = Vec::new();
        for parts in [Some(parts), other].into_iter().flatten() {
            if parts.is_empty() {
                continue;
            }
            for (field, boost) in [
                (f.title, b.title),
                (f.headings, b.headings),
                (f.path_text, b.path),
                (f.body, b.body),
            ] {
                if boost > 0.0 {
                    alts.push((field, parts.clone(), boost));
                }
            }
        }
        if b.ident > 0.0 {
            for id in tokens(&mut self.ident.clone(), w) {
                alts.push((f.ident, vec![id], b.ident));
            }
        }
        alts
    }

    /// A phrase in title, headings or body (a one-word phrase is a word there).
    pub(super) fn phrase(&self, p: &str) -> Option<Box<dyn Query>> {
        // Positions as indexed: the stop words inside a phrase leave their gaps.
        let mut parts = self.analyzer().positioned_tokens(p);
        if let Some(first) = parts.first().map(|(at, _)| *at) {
            for (at, _) in &mut parts {
                *at -= first;
            }
        }
        let f = &self.fields;
        let alts: Vec<(Occur, Box<dyn Query>)> = [f.title, f.headings, f.body]
            .into_iter()
            .filter_map(|field| -> Option<Box<dyn Query>> {
                match parts.len() {
                    0 => None,
                    1 => Some(term(field, &parts[0].1, IndexRecordOption::WithFreqs)),
                    _ => {
                        let terms = parts
                            .iter()
                            .map(|(at, t)| (*at, Term::from_field_text(field, t)))
                            .collect();
                        Some(Box::new(PhraseQuery::new_with_offset(terms)))
                    }
                }
            })
            .map(|q| (Occur::Should, q))
            .collect();
        (!alts.is_empty()).then(|| Box::new(BooleanQuery::new(alts)) as Box<dyn Query>)
    }
}

pub(super) fn term(field: Field, text: &str, opt: IndexRecordOption) -> Box<dyn Query> {
    Box::new(TermQuery::new(Term::from_field_text(field, text), opt))
}

/// All of `parts` in `field` (a split identifier needs every part).
fn all_terms(field: Field, parts: &[String]) -> Box<dyn Query> {
    if let [one] = parts {
        return term(field, one, IndexRecordOption::WithFreqs);
    }
    let clauses = parts
        .iter()
        .map(|p| (Occur::Must, term(field, p, IndexRecordOption::WithFreqs)))
        .collect();
    Box::new(BooleanQuery::new(clauses))
}

pub(super) fn boosted(q: Box<dyn Query>, boost: f32) -> Box<dyn Query> {
    if (boost - 1.0).abs() < f32::EPSILON {
        q
    } else {
        Box::new(BoostQuery::new(q, boost))
    }
}
