//! Lexical search over the passage index: a [`LexQuery`] becomes one tantivy query, candidates come back
//! as `(score, address)` in BM25 order, and [`Searcher::passage`] loads a candidate's stored fields with
//! its snippet. Grouping passages into documents is the caller's job (`brain-rank`).
//!
//! The query, for words `w1 … wn`:
//!
//! ```text
//! must     ( should: W(w1) … W(wn)                      -- OR semantics
//!            should: boost(all_terms, must: W(w1) … W(wn)) )   -- all words: strong boost
//! must     P(phrase)   for every "phrase"
//! must_not P(x)        for every -x
//! must     const-0 ( collection ∈ … ), ( project ∈ … ), ( agent ∈ … ), date ∈ [since, until]
//! ```
//!
//! where `W(w)` scores the word in title^t, headings^h, path words^p, body and, as a whole identifier,
//! in `ident`^i (a word the text analyzer splits, `parse_config`, must have all its parts in a field).
//! Filters are clauses of the same query, so a small collection is never starved by a post-filter.
//!
//! Plain word queries are answered in two passes that provably give the same list (`two_pass`);
//! a hit's snippet line is chosen in `snippet`.

use std::sync::Mutex;

use tantivy::query::{BooleanQuery, BoostQuery, ConstScoreQuery, Occur, Query, TermQuery};
use tantivy::schema::IndexRecordOption;
use tantivy::tokenizer::TextAnalyzer;
use tantivy::{DateTime, Score, Term};

use crate::schema::Fields;
use crate::tokenize::{CachedTextTokenizer, ident_analyzer};
use crate::{LexError, LexIndex};

mod docs;
mod filters;
mod hidden;
mod near;
mod snippet;
mod strength;

/// A word the index holds in at most this many passages also matches its near spellings (a typo is
/// rare in the corpus or absent): see [`Searcher::near_spellings`].
pub const FUZZY_RARE: u64 = 1;
/// Most passages [`Searcher::passages_of`] returns (the documents of one ranked list's page:
/// enough for every matching passage of 40 sessions but the longest).
pub const MAX_PASSAGES_READ: usize = 2_000;
/// The constant score of a near-spelling match: below an exact match of a word anywhere (a BM25
/// term score of a rare word is several points; of the commonest, about one).
pub const FUZZY_SCORE: f32 = 0.5;

mod ties;
mod two_pass;
mod words;

pub use snippet::{SNIPPET_CHARS, Snippet};
pub use strength::TermWeights;
/// The address of a passage in the index (what candidates name).
pub use tantivy::DocAddress;
pub use ties::DocKeys;
pub use two_pass::{MIN_POOL, ONE_PASS_BELOW, POOL_FACTOR};

/// What to look for, already parsed (the query language lives in `brain-rank`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LexQuery {
    /// Words, OR-ed, with a boost for passages holding all of them.
    pub terms: Vec<String>,
    /// Phrases that must appear (in title, headings or body).
    pub phrases: Vec<String>,
    /// Words or phrases that must not appear.
    pub exclude: Vec<String>,
    /// Allowed collections; empty = all.
    pub collections: Vec<String>,
    /// Allowed `meta.project` values; empty = all.
    pub projects: Vec<String>,
    /// Allowed agents (lower-cased); empty = all.
    pub agents: Vec<String>,
    /// Earliest document date, Unix seconds.
    pub since: Option<i64>,
    /// Latest document date, Unix seconds.
    pub until: Option<i64>,
    /// Allowed memory `type`s (lower-cased); empty = all.
    pub types: Vec<String>,
    /// Required tags, any of (lower-cased); empty = all.
    pub tags: Vec<String>,
    /// Hide what is not current at an instant (superseded, expired, archived records); `None` shows
    /// every record (`--include-superseded`).
    pub lifecycle: Option<Lifecycle>,
    /// Only records of these decay tiers (resolved by the caller); `None` = all.
    pub tier: Option<std::sync::Arc<brain_store::access::TierFilter>>,
    /// Only guaranteed records (seed 002): pinned, importance 5, or a document of one of these
    /// collections (those of role `memory`); `None` = all.
    pub guaranteed: Option<Vec<String>>,
    /// Only documents that refer to one of these (`ref:` values: a file path or its tail, a URL;
    /// [`crate::document::ref_query`] form).
    pub refs: Vec<String>,
    /// How many words and phrases the query was asked with when routing took some out (question
    /// words): a question is judged as long as it was asked (`strength::FEW_WORDS`). 0: as many
    /// as `terms` and `phrases` hold.
    pub asked: usize,
}

/// Which records are current: those not superseded, expired or archived at `at`; with `as_of`,
/// also not yet happened then (`--as-of`: what did I believe that day).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lifecycle {
    /// Unix seconds.
    pub at: i64,
    pub as_of: bool,
}

impl LexQuery {
    /// The other language its words are in, when one is told ([`crate::tokenize::query_language`]
    /// of its words and phrases): each word also looks for its stem in that language.
    pub fn language(&self) -> Option<crate::tokenize::Language> {
        let text = self
            .terms
            .iter()
            .chain(&self.phrases)
            .map(String::as_str)
            .collect::<Vec<_>>()
            .join(" ");
        crate::tokenize::query_language(&text)
    }

    /// Words only: no phrase, exclusion or filter (the lifecycle is not a filter of the query; the
    /// searcher decides whether it hides anything, [`Searcher::hides`]).
    pub fn is_plain(&self) -> bool {
        self.phrases.is_empty()
            && self.exclude.is_empty()
            && self.collections.is_empty()
            && self.projects.is_empty()
            && self.agents.is_empty()
            && self.since.is_none()
            && self.until.is_none()
            && self.types.is_empty()
            && self.tags.is_empty()
            && self.tier.is_none()
            && self.guaranteed.is_none()
            && self.refs.is_empty()
    }
}

/// Field weights and the conjunction boost.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Boosts {
    pub title: f32,
    pub headings: f32,
    pub path: f32,
    pub body: f32,
    pub ident: f32,
    /// Multiplier of the extra clause matching passages that hold every word.
    pub all_terms: f32,
    /// DisjunctionMax tie-breaker across the fields of one word (1.0 = sum of fields, 0.0 = best field).
    pub tie_breaker: f32,
}

impl Default for Boosts {
    /// Measured on BEIR SciFact (test split, 300 queries) with `brain eval --strategy`, 2026-11-22:
    /// tie-breaker 0.5 (title 1.0, ident 1.0) gives nDCG@10 0.6835; summing fields (tie 1.0) 0.6577;
    /// best field only without ident (tie 0.0) 0.6748. 0.5 is also what BEIR's Elasticsearch BM25
    /// baseline uses (`multi_match`, `best_fields`, `tie_breaker: 0.5`). Headings weigh like a title
    /// (our choice for sessions and notes; SciFact has none). See docs/query.md.
    fn default() -> Self {
        Boosts {
            title: 1.0,
            headings: 1.0,
            path: 0.5,
            body: 1.0,
            ident: 1.0,
            all_terms: 1.0,
            tie_breaker: 0.5,
        }
    }
}

/// One passage with its stored fields and best snippet.
#[derive(Debug, Clone, PartialEq)]
pub struct Passage {
    /// Document id `<collection>/<path>`.
    pub id: String,
    pub collection: String,
    pub path: String,
    /// Absolute markdown file path, when stored.
    pub file: Option<String>,
    pub title: String,
    /// Document date, Unix seconds (UTC): a session's start.
    pub date: Option<i64>,
    /// A session's end, Unix seconds (the date for a document without one).
    pub ended: Option<i64>,
    /// The agent's session id.
    pub session: Option<String>,
    pub agent: Option<String>,
    pub project: Option<String>,
    /// 0-based passage ordinal in the document.
    pub ordinal: u64,
    /// 1-based line of the passage start in the file.
    pub line: u64,
    /// The heading path of the passage (`A › B`), empty before the first heading.
    pub headings: String,
    /// The passage text.
    pub body: String,
    /// The record's memory fields as indexed ([`crate::schema`]).
    pub memory: PassageMemory,
}

/// The memory fields of a passage's record.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PassageMemory {
    /// `type`, lower-case.
    pub kind: Option<String>,
    /// 1–5.
    pub importance: u8,
    /// 0–1.
    pub confidence: f64,
    pub pinned: bool,
    /// When it happened (`occurred_at`, else the date), Unix seconds.
    pub occurred: Option<i64>,
    /// When it stops being true, Unix seconds.
    pub expires: Option<i64>,
    /// `active`, `superseded` or `archived` as written.
    pub status: String,
    pub key: Option<String>,
    /// When a successor took over, Unix seconds, and its id.
    pub superseded: Option<i64>,
    pub superseded_by: Option<String>,
}

impl PassageMemory {
    /// Where the record stands at `at` (Unix seconds): `archived`, `superseded`, `expired` or
    /// `current` — the rule the search's own filter ([`Searcher::hides`]) applies.
    pub fn state(&self, at: i64) -> &'static str {
        if self.status == "archived" {
            "archived"
        } else if self.status == "superseded" || self.superseded.is_some_and(|t| t <= at) {
            "superseded"
        } else if self.expires.is_some_and(|t| t <= at) {
            "expired"
        } else {
            "current"
        }
    }
}

/// Why a search failed.
#[derive(Debug, thiserror::Error)]
pub enum SearchError {
    #[error(transparent)]
    Index(#[from] LexError),
    #[error("search failed: {0}")]
    Tantivy(#[from] tantivy::TantivyError),
    #[error("reading the index: {0}")]
    Io(#[from] std::io::Error),
}

/// A reader on the index with the analyzers the query side needs. Open once, query many times.
pub struct Searcher {
    searcher: tantivy::Searcher,
    fields: Fields,
    /// The text analyzer, shared so that its word cache (stemming is most of a snippet's cost) stays
    /// warm across queries in a long-lived process.
    text: Mutex<CachedTextTokenizer>,
    ident: TextAnalyzer,
    /// Plain word queries with fewer postings run in one pass ([`ONE_PASS_BELOW`]).
    one_pass_below: u64,
    /// Whether any record could be hidden by a lifecycle (superseded, expiring, archived), asked
    /// once: an index without one searches exactly as before.
    hideable: std::sync::OnceLock<bool>,
}

impl Searcher {
    /// A searcher on the last commit of `lex`.
    pub fn new(lex: &LexIndex) -> Result<Searcher, SearchError> {
        let searcher = lex.reader()?.searcher();
        Ok(Searcher {
            searcher,
            fields: *lex.fields(),
            text: Mutex::new(CachedTextTokenizer::default()),
            ident: ident_analyzer(),
            one_pass_below: ONE_PASS_BELOW,
            hideable: std::sync::OnceLock::new(),
        })
    }

    /// A searcher on an empty index of the same schema and analyzers, in memory: what weighs a
    /// query's words and reads a passage's share of them where there is no index of one's own (a
    /// team member who only asks the engine). Every word weighs the same there.
    pub fn empty() -> Result<Searcher, SearchError> {
        let (schema, fields) = crate::schema::build();
        let index = tantivy::Index::create_in_ram(schema);
        crate::tokenize::register(&index);
        let searcher = index
            .reader_builder()
            .reload_policy(tantivy::ReloadPolicy::Manual)
            .try_into()?
            .searcher();
        Ok(Searcher {
            searcher,
            fields,
            text: Mutex::new(CachedTextTokenizer::default()),
            ident: ident_analyzer(),
            one_pass_below: ONE_PASS_BELOW,
            hideable: std::sync::OnceLock::new(),
        })
    }

    /// Run plain word queries with fewer than `postings` postings in one pass (default
    /// [`ONE_PASS_BELOW`]; 0 sends every plain word query to the two-pass search, as the tests that
    /// compare the two do).
    pub fn set_one_pass_below(&mut self, postings: u64) {
        self.one_pass_below = postings;
    }

    /// The shared text analyzer (a poisoned lock still holds a usable analyzer: it has no invariant a
    /// panic could break).
    fn analyzer(&self) -> std::sync::MutexGuard<'_, CachedTextTokenizer> {
        self.text
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// `collector` over every segment, the segments searched as tasks of the process's one rayon
    /// pool when there are several. Not tantivy's own executor: its threads would be a pool of their
    /// own, and beside a vector scan (a task of the rayon pool) the lexical search and the scan then
    /// ran on three or four threads over two cores, preempting each other.
    pub(crate) fn search_segments<C: tantivy::collector::Collector>(
        &self,
        query: &dyn Query,
        collector: &C,
        scoring: tantivy::query::EnableScoring<'_>,
    ) -> tantivy::Result<C::Fruit> {
        use rayon::prelude::*;
        let weight = query.weight(scoring)?;
        collector.check_schema(self.searcher.schema())?;
        let segments = self.searcher.segment_readers();
        let collect = |(ord, segment): (usize, &tantivy::SegmentReader)| {
            collector.collect_segment(weight.as_ref(), ord as u32, segment)
        };
        let fruits: tantivy::Result<Vec<_>> = if segments.len() > 1 {
            segments.par_iter().enumerate().map(collect).collect()
        } else {
            segments.iter().enumerate().map(collect).collect()
        };
        collector.merge_fruits(fruits?)
    }

    /// Number of passages in the index.
    pub fn num_passages(&self) -> u64 {
        self.searcher.num_docs()
    }

    /// The tantivy query for `q`, or `None` when nothing in it survives analysis (only stop words).
    pub fn query(&self, q: &LexQuery, b: &Boosts) -> Option<Box<dyn Query>> {
        // Flat mode (tie-breaker 1, no conjunction boost): every (word, field) term is a clause of one
        // union, which tantivy scores with block-WAND instead of visiting every matching passage.
        let flat = b.tie_breaker >= 1.0 && b.all_terms <= 0.0;
        let lang = q.language();
        let words: Vec<Box<dyn Query>> = if flat {
            q.terms
                .iter()
                .flat_map(|w| self.word_alts(w, b, lang))
                .collect()
        } else {
            q.terms
                .iter()
                .filter_map(|w| self.word(w, b, lang))
                .collect()
        };
        let phrases: Vec<Box<dyn Query>> =
            q.phrases.iter().filter_map(|p| self.phrase(p)).collect();
        if words.is_empty() && phrases.is_empty() {
            return None;
        }
        let mut clauses: Vec<(Occur, Box<dyn Query>)> = Vec::new();
        if !words.is_empty() {
            let mut any: Vec<(Occur, Box<dyn Query>)> = Vec::new();
            if words.len() > 1 && b.all_terms > 0.0 {
                let all =
                    BooleanQuery::new(words.iter().map(|w| (Occur::Must, w.box_clone())).collect());
                any.push((
                    Occur::Should,
                    Box::new(BoostQuery::new(Box::new(all), b.all_terms)),
                ));
            }
            any.extend(words.into_iter().map(|w| (Occur::Should, w)));
            if q.is_plain() && !self.hides(q) {
                return Some(Box::new(BooleanQuery::new(any)));
            }
            clauses.push((Occur::Must, Box::new(BooleanQuery::new(any))));
        }
        clauses.extend(phrases.into_iter().map(|p| (Occur::Must, p)));
        clauses.extend(
            q.exclude
                .iter()
                .filter_map(|x| self.phrase(x))
                .map(|x| (Occur::MustNot, x)),
        );
        clauses.extend(self.filter_clauses(q));
        Some(Box::new(BooleanQuery::new(clauses)))
    }

    /// The passages of the documents `ids` that match `q`, best first, at most
    /// [`MAX_PASSAGES_READ`]: with the scores [`Searcher::query`] gives them (the ids filter adds
    /// nothing), whatever pool a candidate list was drawn from — what scoring a session by several
    /// of its passages reads. Group them by [`Searcher::doc_keys`].
    ///
    /// A plain word query scores only those documents' passages (each term's postings sought to
    /// them); any other runs [`Searcher::passages_of_one_pass`], which the tests hold it to.
    pub fn passages_of(
        &self,
        q: &LexQuery,
        b: &Boosts,
        ids: &[&str],
    ) -> Result<Vec<(Score, DocAddress)>, SearchError> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        match self.exact_within(q, b, ids)? {
            Some(mut found) => {
                found.truncate(MAX_PASSAGES_READ);
                Ok(found)
            }
            None => self.passages_of_one_pass(q, b, ids),
        }
    }

    /// The live passages of the documents `ids`, sorted: each id's postings read segment by
    /// segment (a term lookup each; a set query over the ids walked the term dictionary and
    /// filled a bitset of the whole index per segment, about 1 ms in a fresh process).
    fn passages_of_ids(&self, ids: &[&str]) -> Result<Vec<DocAddress>, SearchError> {
        use tantivy::DocSet;
        let mut out = Vec::new();
        for (ord, seg) in self.searcher.segment_readers().iter().enumerate() {
            let inv = seg.inverted_index(self.fields.id)?;
            let alive = seg.alive_bitset();
            for id in ids {
                let term = Term::from_field_text(self.fields.id, id);
                let Some(mut postings) = inv.read_postings(&term, IndexRecordOption::Basic)? else {
                    continue;
                };
                let mut doc = postings.doc();
                while doc != tantivy::TERMINATED {
                    if alive.is_none_or(|bits| bits.is_alive(doc)) {
                        out.push(DocAddress::new(ord as u32, doc));
                    }
                    doc = postings.advance();
                }
            }
        }
        out.sort();
        out.dedup();
        Ok(out)
    }

    /// [`Searcher::passages_of`] as one search: `q` intersected with the documents' passages.
    pub fn passages_of_one_pass(
        &self,
        q: &LexQuery,
        b: &Boosts,
        ids: &[&str],
    ) -> Result<Vec<(Score, DocAddress)>, SearchError> {
        let Some(query) = self.query(q, b).filter(|_| !ids.is_empty()) else {
            return Ok(Vec::new());
        };
        // Every passage of the documents (one sorted walk of each segment's term dictionary).
        let of_ids = tantivy::query::TermSetQuery::new(
            ids.iter()
                .map(|id| Term::from_field_text(self.fields.id, id)),
        );
        let both = BooleanQuery::new(vec![
            (Occur::Must, query),
            (
                Occur::Must,
                Box::new(ConstScoreQuery::new(Box::new(of_ids), 0.0)),
            ),
        ]);
        let top = tantivy::collector::TopDocs::with_limit(MAX_PASSAGES_READ).order_by_score();
        Ok(self.searcher.search(&both, &top)?)
    }

    /// [`Searcher::candidates`] in one pass, whatever the query (what the two-pass path must agree
    /// with; tests compare them).
    pub fn candidates_one_pass(
        &self,
        q: &LexQuery,
        b: &Boosts,
        limit: usize,
    ) -> Result<Vec<(Score, DocAddress)>, SearchError> {
        let Some(query) = self.query(q, b) else {
            return Ok(Vec::new());
        };
        let top = tantivy::collector::TopDocs::with_limit(limit.max(1)).order_by_score();
        let scoring = tantivy::query::EnableScoring::enabled_from_searcher(&self.searcher);
        Ok(self.search_segments(&*query, &top, scoring)?)
    }

    /// The newest `limit` documents passing the filters of `q` (its words are ignored), newest first,
    /// documents of one date by id: the address of each document's first passage, ordered by the
    /// `date` fast field.
    pub fn latest(&self, q: &LexQuery, limit: usize) -> Result<Vec<DocAddress>, SearchError> {
        let mut clauses: Vec<(Occur, Box<dyn Query>)> = vec![(
            Occur::Must,
            Box::new(TermQuery::new(
                Term::from_field_u64(self.fields.passage, 0),
                IndexRecordOption::Basic,
            )),
        )];
        clauses.extend(self.filter_clauses(q));
        let query = BooleanQuery::new(clauses);
        let limit = limit.max(1);
        // Documents of one date tie: widen until the list ends past the tie at the cut.
        let mut want = limit;
        loop {
            let top = tantivy::collector::TopDocs::with_limit(want)
                .order_by_fast_field::<DateTime>(crate::schema::DATE, tantivy::Order::Desc);
            let mut found = self.searcher.search(&query, &top)?;
            let exhausted = found.len() < want;
            self.settle_ties(&mut found, exhausted)?;
            if found.len() >= limit || exhausted {
                return Ok(found.into_iter().take(limit).map(|(_, a)| a).collect());
            }
            want = want.saturating_mul(4);
        }
    }
}
