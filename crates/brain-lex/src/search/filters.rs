//! The filters of a query as clauses of the query itself (collection, project, agent, type, tag,
//! tier, guaranteed records, refs, dates, and what a lifecycle hides): a small collection is never
//! starved by a post-filter.

use std::ops::Bound;

use tantivy::collector::DocSetCollector;
use tantivy::query::{BooleanQuery, ConstScoreQuery, Occur, Query, RangeQuery, TermQuery};
use tantivy::schema::{Field, IndexRecordOption, Value};
use tantivy::{TantivyDocument, Term};

use super::words::term;
use super::{LexQuery, Searcher};

impl Searcher {
    /// The filters of `q` as `must` clauses scoring 0: collection / project / agent terms and a
    /// range on the `date` fast field.
    pub(super) fn filter_clauses(&self, q: &LexQuery) -> Vec<(Occur, Box<dyn Query>)> {
        let mut clauses: Vec<(Occur, Box<dyn Query>)> = Vec::new();
        for (field, values) in [
            (self.fields.collection, &q.collections),
            (self.fields.project, &q.projects),
            (self.fields.agent, &q.agents),
            (self.fields.mtype, &q.types),
            (self.fields.tags, &q.tags),
        ] {
            if let Some(f) = any_of(field, values) {
                clauses.push((Occur::Must, f));
            }
        }
        if let Some(t) = &q.tier {
            clauses.extend(self.tier_clauses(t));
        }
        if !q.refs.is_empty() {
            clauses.push((Occur::Must, self.refs_clause(&q.refs)));
        }
        if let Some(memory) = &q.guaranteed {
            clauses.push((Occur::Must, self.guaranteed_clause(memory)));
        }
        if let Some(l) = q.lifecycle
            && self.hides(q)
        {
            clauses.push((Occur::MustNot, self.hidden(l)));
        }
        // A session matches a window it overlaps: it ends at or after `since` and starts at or
        // before `until` (a document without an end is indexed as ending when it starts).
        let range = |field: Field, lower: Option<i64>, upper: Option<i64>| {
            let bound = |t: Option<i64>| {
                t.map_or(Bound::Unbounded, |s| {
                    Bound::Included(Term::from_field_date_for_search(
                        field,
                        crate::schema::instant(s),
                    ))
                })
            };
            let q: Box<dyn Query> = Box::new(ConstScoreQuery::new(
                Box::new(RangeQuery::new(bound(lower), bound(upper))),
                0.0,
            ));
            (Occur::Must, q)
        };
        if q.since.is_some() {
            clauses.push(range(self.fields.ended, q.since, None));
        }
        if q.until.is_some() {
            clauses.push(range(self.fields.date, None, q.until));
        }
        clauses
    }

    /// Documents that refer to one of `refs`: the refs live on a document's first passage, so the
    /// documents are looked up there (few) and every passage of theirs passes, by id. A lookup that
    /// fails passes nothing (a filter never widens).
    fn refs_clause(&self, refs: &[String]) -> Box<dyn Query> {
        let f = &self.fields;
        let wanted: Vec<(Occur, Box<dyn Query>)> = refs
            .iter()
            .map(|r| {
                let q: Box<dyn Query> = Box::new(TermQuery::new(
                    Term::from_field_text(f.refs, &crate::document::ref_query(r)),
                    IndexRecordOption::Basic,
                ));
                (Occur::Should, q)
            })
            .collect();
        let ids: Vec<String> = self
            .searcher
            .search(&BooleanQuery::new(wanted), &DocSetCollector)
            .map(|found| {
                let mut ids: Vec<String> = found
                    .into_iter()
                    .filter_map(|addr| self.searcher.doc::<TantivyDocument>(addr).ok())
                    .filter_map(|d| {
                        d.get_first(f.id)
                            .and_then(|v| v.as_str())
                            .map(str::to_string)
                    })
                    .collect();
                ids.sort();
                ids.dedup();
                ids
            })
            .unwrap_or_default();
        Box::new(ConstScoreQuery::new(
            Box::new(tantivy::query::TermSetQuery::new(
                ids.iter().map(|id| Term::from_field_text(f.id, id)),
            )),
            0.0,
        ))
    }
    /// The clauses of a tier filter: the creation date in one of its windows or the id among its
    /// inclusions (`must`), and not among its exclusions (`must not`); all scoring 0.
    pub(super) fn tier_clauses(
        &self,
        t: &brain_store::access::TierFilter,
    ) -> Vec<(Occur, Box<dyn Query>)> {
        let f = &self.fields;
        let ids = |list: &[String]| -> Box<dyn Query> {
            Box::new(tantivy::query::TermSetQuery::new(
                list.iter().map(|id| Term::from_field_text(f.id, id)),
            ))
        };
        let bound = |s: Option<i64>| {
            s.map_or(Bound::Unbounded, |s| {
                Bound::Included(Term::from_field_date_for_search(
                    f.date,
                    crate::schema::instant(s),
                ))
            })
        };
        let mut any: Vec<(Occur, Box<dyn Query>)> = t
            .windows
            .iter()
            .map(|(lo, hi)| {
                let q: Box<dyn Query> = Box::new(RangeQuery::new(bound(*lo), bound(*hi)));
                (Occur::Should, q)
            })
            .collect();
        if !t.include.is_empty() {
            any.push((Occur::Should, ids(&t.include)));
        }
        let zero = |q: Box<dyn Query>| -> Box<dyn Query> {
            Box::new(tantivy::query::ConstScoreQuery::new(q, 0.0))
        };
        let mut out = vec![(Occur::Must, zero(Box::new(BooleanQuery::new(any))))];
        if !t.exclude.is_empty() {
            out.push((Occur::MustNot, ids(&t.exclude)));
        }
        out
    }

    /// Pinned, importance 5, or a document of one of `memory` (the collections of role
    /// `memory`): what a context block always carries (seed 002's guaranteed memories). Scores 0.
    pub(super) fn guaranteed_clause(&self, memory: &[String]) -> Box<dyn Query> {
        let f = &self.fields;
        let term = |t: Term| -> (Occur, Box<dyn Query>) {
            (
                Occur::Should,
                Box::new(TermQuery::new(t, IndexRecordOption::Basic)),
            )
        };
        let mut any = vec![
            term(Term::from_field_u64(f.pinned, 1)),
            term(Term::from_field_u64(f.importance, 5)),
        ];
        any.extend(
            memory
                .iter()
                .map(|c| term(Term::from_field_text(f.collection, c))),
        );
        Box::new(tantivy::query::ConstScoreQuery::new(
            Box::new(BooleanQuery::new(any)),
            0.0,
        ))
    }
}

/// `field` equal to any of `values`, scoring nothing.
pub(super) fn any_of(field: Field, values: &[String]) -> Option<Box<dyn Query>> {
    if values.is_empty() {
        return None;
    }
    let terms: Vec<(Occur, Box<dyn Query>)> = values
        .iter()
        .map(|v| (Occur::Should, term(field, v, IndexRecordOption::Basic)))
        .collect();
    Some(Box::new(ConstScoreQuery::new(
        Box::new(BooleanQuery::new(terms)),
        0.0,
    )))
}
