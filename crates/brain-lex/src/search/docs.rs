//! Reading stored passages and documents: a candidate's fields, a whole document, the documents of
//! a session, every live value of a field.

use tantivy::query::{BooleanQuery, Occur, Query, TermQuery};
use tantivy::schema::{Field, IndexRecordOption, Value};
use tantivy::{DocAddress, TantivyDocument, Term};

use super::{Passage, SearchError, Searcher};

impl Searcher {
    /// Load a candidate's stored fields.
    pub fn passage(&self, addr: DocAddress) -> Result<Passage, SearchError> {
        let doc: TantivyDocument = self.searcher.doc(addr)?;
        let f = &self.fields;
        let s = |field: Field| {
            doc.get_first(field)
                .and_then(|v| v.as_str().map(str::to_string))
        };
        let u = |field: Field| doc.get_first(field).and_then(|v| v.as_u64());
        let secs = |field: Field| {
            doc.get_first(field)
                .and_then(|v| v.as_datetime())
                .map(|d| d.into_timestamp_secs())
        };
        let until = |field: Field| secs(field).filter(|t| *t < crate::schema::FOREVER);
        let memory = super::PassageMemory {
            kind: s(f.mtype),
            importance: u(f.importance).map_or(brain_doc::memory::DEFAULT_IMPORTANCE, |i| {
                i.clamp(1, 5) as u8
            }),
            confidence: doc
                .get_first(f.confidence)
                .and_then(|v| v.as_f64())
                .unwrap_or(1.0),
            pinned: u(f.pinned) == Some(1),
            occurred: secs(f.occurred),
            expires: until(f.expires),
            status: s(f.status).unwrap_or_else(|| "active".into()),
            key: s(f.key),
            superseded: until(f.superseded),
            superseded_by: s(f.superseded_by),
        };
        Ok(Passage {
            memory,
            id: s(f.id).unwrap_or_default(),
            collection: s(f.collection).unwrap_or_default(),
            path: s(f.path).unwrap_or_default(),
            file: s(f.file).filter(|x| !x.is_empty()),
            title: s(f.title).unwrap_or_default(),
            date: doc
                .get_first(f.date)
                .and_then(|v| v.as_datetime())
                .map(|d| d.into_timestamp_secs()),
            ended: doc
                .get_first(f.ended)
                .and_then(|v| v.as_datetime())
                .map(|d| d.into_timestamp_secs()),
            session: s(f.session).filter(|x| !x.is_empty()),
            agent: s(f.agent).filter(|x| !x.is_empty()),
            project: s(f.project).filter(|x| !x.is_empty()),
            ordinal: u(f.passage).unwrap_or(0),
            line: u(f.line).unwrap_or(1),
            headings: s(f.headings).unwrap_or_default(),
            body: s(f.body).unwrap_or_default(),
        })
    }

    /// Every passage of the document `id` (for `brain get #docid` and tests), in passage order.
    pub fn document(&self, id: &str) -> Result<Vec<Passage>, SearchError> {
        let q = TermQuery::new(
            Term::from_field_text(self.fields.id, id),
            IndexRecordOption::Basic,
        );
        let top = tantivy::collector::TopDocs::with_limit(100_000).order_by_score();
        let mut out = Vec::new();
        for (_, addr) in self.searcher.search(&q, &top)? {
            out.push(self.passage(addr)?);
        }
        out.sort_by_key(|p| p.ordinal);
        Ok(out)
    }

    /// The ids of the documents whose session id is `session` (sorted, distinct): a session is
    /// one document, unless two files hold it.
    pub fn session_documents(&self, session: &str) -> Result<Vec<String>, SearchError> {
        let q = self.first_passages(Term::from_field_text(self.fields.session, session));
        let top = tantivy::collector::TopDocs::with_limit(10_000).order_by_score();
        let mut ids = Vec::new();
        for (_, addr) in self.searcher.search(&q, &top)? {
            ids.push(self.passage(addr)?.id);
        }
        ids.sort();
        ids.dedup();
        Ok(ids)
    }

    /// The first passage of every document whose memory `key` is `key` (a supersession chain:
    /// records of one key replace each other), oldest date first.
    pub fn keyed(&self, key: &str) -> Result<Vec<Passage>, SearchError> {
        let q = self.first_passages(Term::from_field_text(self.fields.key, key));
        let top = tantivy::collector::TopDocs::with_limit(1_000).order_by_score();
        let mut out = Vec::new();
        for (_, addr) in self.searcher.search(&q, &top)? {
            out.push(self.passage(addr)?);
        }
        out.sort_by(|a, b| a.date.cmp(&b.date).then_with(|| a.id.cmp(&b.id)));
        Ok(out)
    }

    /// Every distinct document id in the index. A deleted document's id stays in its segment's term
    /// dictionary until a merge, so ids are kept only where a live passage carries them.
    pub fn document_ids(&self) -> Result<Vec<String>, SearchError> {
        self.live_values(self.fields.id)
    }

    /// Every project named by a live document (`meta.project`), sorted.
    pub fn projects(&self) -> Result<Vec<String>, SearchError> {
        self.live_values(self.fields.project)
    }

    /// Every agent named by a live document (lower case), sorted.
    pub fn agents(&self) -> Result<Vec<String>, SearchError> {
        self.live_values(self.fields.agent)
    }

    /// How many documents carry each value of a facet, most first (then by value): `kind` (what the
    /// document is: session, browser, note, …), `type` (its memory type: fact, decision, …) or
    /// `agent`. Documents without one are not counted. `None` for another name.
    pub fn facet_counts(&self, facet: &str) -> Result<Option<Vec<(String, u64)>>, SearchError> {
        let field = match facet {
            "kind" => self.fields.kind,
            "type" => self.fields.mtype,
            "agent" => self.fields.agent,
            _ => return Ok(None),
        };
        let mut out = Vec::new();
        for value in self.live_values(field)? {
            if value.is_empty() {
                continue;
            }
            let q = self.first_passages(Term::from_field_text(field, &value));
            let n = self.searcher.search(&q, &tantivy::collector::Count)? as u64;
            if n > 0 {
                out.push((value, n));
            }
        }
        out.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        Ok(Some(out))
    }

    /// Each document's first passage that holds `term`: one hit per document.
    fn first_passages(&self, term: Term) -> BooleanQuery {
        let q =
            |t: Term| -> Box<dyn Query> { Box::new(TermQuery::new(t, IndexRecordOption::Basic)) };
        BooleanQuery::new(vec![
            (Occur::Must, q(term)),
            (Occur::Must, q(Term::from_field_u64(self.fields.passage, 0))),
        ])
    }

    /// The distinct values of a raw string field that some live passage carries, sorted.
    fn live_values(&self, field: Field) -> Result<Vec<String>, SearchError> {
        use tantivy::DocSet;
        let mut out = Vec::new();
        for seg in self.searcher.segment_readers() {
            let inv = seg.inverted_index(field)?;
            let alive = seg.alive_bitset();
            let mut stream = inv.terms().stream()?;
            while stream.advance() {
                let Ok(s) = std::str::from_utf8(stream.key()) else {
                    continue;
                };
                if let Some(bits) = alive {
                    let mut postings =
                        inv.read_postings_from_terminfo(stream.value(), IndexRecordOption::Basic)?;
                    let mut doc = postings.doc();
                    while doc != tantivy::TERMINATED && !bits.is_alive(doc) {
                        doc = postings.advance();
                    }
                    if doc == tantivy::TERMINATED {
                        continue;
                    }
                }
                out.push(s.to_string());
            }
        }
        out.sort();
        out.dedup();
        Ok(out)
    }
}
