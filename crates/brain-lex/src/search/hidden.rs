//! What a lifecycle hides (issue #22): superseded, expired and archived records are left out inside
//! the search — a clause of the query, or dropped from a two-pass top proven deeper — never by a
//! post-filter that leaves a short list.

use std::ops::Bound;

use tantivy::Term;
use tantivy::query::{BooleanQuery, Occur, Query, RangeQuery, TermQuery};
use tantivy::schema::IndexRecordOption;

use super::{LexQuery, Lifecycle, SearchError, Searcher};

impl Searcher {
    /// Whether `q`'s lifecycle hides anything in this index: some record is superseded, archived,
    /// takes part in supersession or has an expiry (asked once per searcher).
    pub fn hides(&self, q: &LexQuery) -> bool {
        q.lifecycle.is_some()
            && *self.hideable.get_or_init(|| {
                let f = &self.fields;
                let forever = crate::schema::instant(crate::schema::FOREVER);
                let before = |field| -> Box<dyn Query> {
                    Box::new(RangeQuery::new(
                        Bound::Unbounded,
                        Bound::Excluded(Term::from_field_date_for_search(field, forever)),
                    ))
                };
                let any = BooleanQuery::new(vec![
                    (Occur::Should, before(f.superseded)),
                    (Occur::Should, before(f.expires)),
                    (
                        Occur::Should,
                        Box::new(TermQuery::new(
                            Term::from_field_text(f.status, "archived"),
                            IndexRecordOption::Basic,
                        )),
                    ),
                    (
                        Occur::Should,
                        Box::new(TermQuery::new(
                            Term::from_field_u64(f.linked, 1),
                            IndexRecordOption::Basic,
                        )),
                    ),
                ]);
                // A count that fails reads as "maybe": filtering then costs speed, never records.
                self.searcher
                    .search(&any, &tantivy::collector::Count)
                    .map_or(true, |n| n > 0)
            })
    }

    /// Whether the document `id` passes `q`'s filters and lifecycle — what a list from elsewhere
    /// (the vector store, which knows neither) must ask of each of its documents. Always true when
    /// `q` neither filters by type or tag nor hides anything here.
    pub fn visible(&self, id: &str, q: &LexQuery) -> Result<bool, SearchError> {
        if !self.hides(q)
            && q.types.is_empty()
            && q.tags.is_empty()
            && q.tier.is_none()
            && q.guaranteed.is_none()
            && q.refs.is_empty()
        {
            return Ok(true);
        }
        let mut clauses: Vec<(Occur, Box<dyn Query>)> = vec![
            (
                Occur::Must,
                Box::new(TermQuery::new(
                    Term::from_field_text(self.fields.id, id),
                    IndexRecordOption::Basic,
                )),
            ),
            (
                Occur::Must,
                Box::new(TermQuery::new(
                    Term::from_field_u64(self.fields.passage, 0),
                    IndexRecordOption::Basic,
                )),
            ),
        ];
        clauses.extend(self.filter_clauses(q));
        let n = self
            .searcher
            .search(&BooleanQuery::new(clauses), &tantivy::collector::Count)?;
        Ok(n > 0)
    }

    /// The passages not current under `l`: superseded or expired at `l.at`, archived, and with
    /// `as_of`, not yet happened at `l.at`.
    pub(crate) fn hidden(&self, l: Lifecycle) -> Box<dyn Query> {
        let f = &self.fields;
        let at = crate::schema::instant(l.at);
        let upto = |field| -> Box<dyn Query> {
            Box::new(RangeQuery::new(
                Bound::Unbounded,
                Bound::Included(Term::from_field_date_for_search(field, at)),
            ))
        };
        let mut any: Vec<(Occur, Box<dyn Query>)> = vec![
            (Occur::Should, upto(f.superseded)),
            (Occur::Should, upto(f.expires)),
            (
                Occur::Should,
                Box::new(TermQuery::new(
                    Term::from_field_text(f.status, "archived"),
                    IndexRecordOption::Basic,
                )),
            ),
        ];
        if l.as_of {
            any.push((
                Occur::Should,
                Box::new(RangeQuery::new(
                    Bound::Excluded(Term::from_field_date_for_search(f.occurred, at)),
                    Bound::Unbounded,
                )),
            ));
        }
        Box::new(BooleanQuery::new(any))
    }
}
