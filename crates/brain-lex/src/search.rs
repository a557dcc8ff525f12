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

use std::ops::Bound;
use std::sync::Mutex;

use tantivy::query::{
    BooleanQuery, BoostQuery, ConstScoreQuery, DisjunctionMaxQuery, Occur, PhraseQuery, Query,
    RangeQuery, TermQuery,
};
use tantivy::schema::{Field, IndexRecordOption, Value};
use tantivy::tokenizer::TextAnalyzer;
use tantivy::{DateTime, DocAddress, Score, TantivyDocument, Term};

use crate::schema::Fields;
use crate::tokenize::{ident_analyzer, text_analyzer, tokens};
use crate::{LexError, LexIndex};

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
}

impl LexQuery {
    /// Words only: no phrase, exclusion or filter.
    pub fn is_plain(&self) -> bool {
        self.phrases.is_empty()
            && self.exclude.is_empty()
            && self.collections.is_empty()
            && self.projects.is_empty()
            && self.agents.is_empty()
            && self.since.is_none()
            && self.until.is_none()
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
    /// Document date, Unix seconds (UTC).
    pub date: Option<i64>,
    pub agent: Option<String>,
    pub project: Option<String>,
    /// 0-based passage ordinal in the document.
    pub ordinal: u64,
    /// 1-based line of the passage start in the file.
    pub line: u64,
    /// The passage text.
    pub body: String,
}

/// The best lines of a passage for a query.
#[derive(Debug, Clone, PartialEq)]
pub struct Snippet {
    /// 1-based line in the file of the best-matching line.
    pub line: u64,
    /// The text shown.
    pub text: String,
}

/// A plain word query as the two-pass search sees it: a table of distinct (field, term, boost) and,
/// per word, its alternatives (one per field, or an identifier term), each a list of terms that must
/// all be present (the parts of a split identifier).
#[derive(Debug, Default)]
struct Plan {
    terms: Vec<(Field, String, f32)>,
    words: Vec<Vec<Vec<usize>>>,
}

impl Plan {
    /// Index of `(field, text)` in the term table, added if new.
    fn term(&mut self, field: Field, text: &str, boost: f32) -> usize {
        match self
            .terms
            .iter()
            .position(|(f, t, _)| *f == field && t == text)
        {
            Some(i) => i,
            None => {
                self.terms.push((field, text.to_string(), boost));
                self.terms.len() - 1
            }
        }
    }

    /// `c` with `E ≤ c·F` for every passage: `E` its score under [`Searcher::query`], `F` its score
    /// under the pool's summed union of the distinct terms. A word's dis-max is at most
    /// `max(1, tie) ×` the sum of its alternatives, which sum their terms; a term counted `m` times
    /// across all alternatives enters that sum `m` times but `F` once; the all-words boost multiplies
    /// by at most `1 + all_terms`.
    fn bound(&self, b: &Boosts) -> f32 {
        let mut uses = vec![0u32; self.terms.len()];
        for t in self.words.iter().flatten().flatten() {
            uses[*t] += 1;
        }
        let m = uses.into_iter().max().unwrap_or(1).max(1) as f32;
        let boost = if self.words.len() > 1 && b.all_terms > 0.0 {
            1.0 + b.all_terms
        } else {
            1.0
        };
        m * b.tie_breaker.max(1.0) * boost
    }

    /// The score [`Searcher::query`] gives a passage whose term scores are `score(t)`, or `None` when
    /// it matches no word: per word the dis-max of its matching alternatives (an alternative scores
    /// the sum of its terms, and matches only when all are present), summed over words, and raised
    /// by the all-words boost when every word matches.
    fn score(&self, score: impl Fn(usize) -> Option<Score>, b: &Boosts) -> Option<Score> {
        let mut total: Option<Score> = None;
        let mut all = true;
        for alts in &self.words {
            let (mut max, mut sum, mut any) = (0.0f32, 0.0f32, false);
            for alt in alts {
                if let Some(s) = alt.iter().map(|&t| score(t)).sum::<Option<Score>>() {
                    max = max.max(s);
                    sum += s;
                    any = true;
                }
            }
            if !any {
                all = false;
                continue;
            }
            let w = if alts.len() == 1 {
                sum
            } else {
                max + (sum - max) * b.tie_breaker
            };
            total = Some(total.unwrap_or(0.0) + w);
        }
        let total = total?;
        Some(if self.words.len() > 1 && b.all_terms > 0.0 && all {
            total + total * b.all_terms
        } else {
            total
        })
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
    text: Mutex<TextAnalyzer>,
    ident: TextAnalyzer,
    /// Threads for the per-segment searches of the candidate pool, started on first use.
    executor: std::sync::OnceLock<tantivy::Executor>,
}

/// Candidate pool of a plain word query, per passage asked for: the pool is drawn with block-WAND on a
/// summed union of (word, field) terms and scored exactly (see [`Searcher::two_pass`]). Measured on
/// the 10,000-file bench corpus (`examples/two_pass.rs`, docs/query.md): 4× proves most top-k of
/// queries with common words at once; a larger first pool costs more than it proves.
pub const POOL_FACTOR: usize = 4;
/// Floor of the candidate pool.
pub const MIN_POOL: usize = 200;
/// Pools tried (each four times the last) before a query whose pool cannot prove its top falls back
/// to the one-pass search. Measured: a second, larger pool rarely proves what the first did not and
/// costs more than the one pass it would save (queries of rare words, whose one pass is cheap).
pub const MAX_POOLS: usize = 1;

/// Longest snippet, in characters (about two terminal lines).
pub const SNIPPET_CHARS: usize = 220;

impl Searcher {
    /// A searcher on the last commit of `lex`.
    pub fn new(lex: &LexIndex) -> Result<Searcher, SearchError> {
        let searcher = lex.reader()?.searcher();
        Ok(Searcher {
            searcher,
            fields: *lex.fields(),
            text: Mutex::new(text_analyzer()),
            ident: ident_analyzer(),
            executor: std::sync::OnceLock::new(),
        })
    }

    /// The shared text analyzer (a poisoned lock still holds a usable analyzer: it has no invariant a
    /// panic could break).
    fn analyzer(&self) -> std::sync::MutexGuard<'_, TextAnalyzer> {
        self.text
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The executor of the pool search: segments searched in parallel on up to two threads (this
    /// product's 2-core target) when the index has several segments; one thread otherwise.
    fn executor(&self) -> &tantivy::Executor {
        self.executor.get_or_init(|| {
            let n = self.searcher.segment_readers().len().min(2);
            if n > 1 {
                tantivy::Executor::multi_thread(n, "brain-lex-search")
                    .unwrap_or_else(|_| tantivy::Executor::single_thread())
            } else {
                tantivy::Executor::single_thread()
            }
        })
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
        let words: Vec<Box<dyn Query>> = if flat {
            q.terms.iter().flat_map(|w| self.word_alts(w, b)).collect()
        } else {
            q.terms.iter().filter_map(|w| self.word(w, b)).collect()
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
            if q.is_plain() {
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

    /// The filters of `q` as `must` clauses scoring 0: collection / project / agent terms and a
    /// range on the `date` fast field.
    fn filter_clauses(&self, q: &LexQuery) -> Vec<(Occur, Box<dyn Query>)> {
        let mut clauses: Vec<(Occur, Box<dyn Query>)> = Vec::new();
        for (field, values) in [
            (self.fields.collection, &q.collections),
            (self.fields.project, &q.projects),
            (self.fields.agent, &q.agents),
        ] {
            if let Some(f) = any_of(field, values) {
                clauses.push((Occur::Must, f));
            }
        }
        if q.since.is_some() || q.until.is_some() {
            let bound = |t: Option<i64>, incl: fn(Term) -> Bound<Term>| {
                t.map_or(Bound::Unbounded, |s| {
                    incl(Term::from_field_date_for_search(
                        self.fields.date,
                        DateTime::from_timestamp_secs(s),
                    ))
                })
            };
            let range = RangeQuery::new(
                bound(q.since, Bound::Included),
                bound(q.until, Bound::Included),
            );
            clauses.push((
                Occur::Must,
                Box::new(ConstScoreQuery::new(Box::new(range), 0.0)),
            ));
        }
        clauses
    }

    /// The best `limit` passages for `q`, best first. Empty when the query has no searchable word.
    ///
    /// A plain word query runs in two passes when that is provably the same answer
    /// ([`Searcher::two_pass`]): a pool of `POOL_FACTOR × limit` passages drawn with block-WAND, every
    /// pooled passage scored exactly as [`Searcher::query`] scores it. Queries with phrases,
    /// exclusions or filters, and pools that cannot prove their top, run in one pass.
    pub fn candidates(
        &self,
        q: &LexQuery,
        b: &Boosts,
        limit: usize,
    ) -> Result<Vec<(Score, DocAddress)>, SearchError> {
        let mut found = self.candidates_at_least(q, b, limit)?;
        found.truncate(limit.max(1));
        Ok(found)
    }

    /// [`Searcher::candidates`] without the cut: when the two passes prove more than `limit`
    /// passages (every pooled passage whose place is certain), all of them, in the same order the
    /// one pass would give; a one-pass search keeps the pool's worth (`POOL_FACTOR × limit`, at
    /// least [`MIN_POOL`]). Fewer than `limit` only when fewer passages match. A caller folding
    /// passages into documents gets a longer list for little and widens less often.
    pub fn candidates_at_least(
        &self,
        q: &LexQuery,
        b: &Boosts,
        limit: usize,
    ) -> Result<Vec<(Score, DocAddress)>, SearchError> {
        let limit = limit.max(1);
        let pool = limit.saturating_mul(POOL_FACTOR).max(MIN_POOL);
        if let Some(plan) = self.plan(q, b)
            && let Some(found) = self.two_pass(&plan, b, limit, pool)?
        {
            return Ok(found);
        }
        // One pass visits every match whatever it keeps: keeping the pool's worth costs little more.
        self.candidates_one_pass(q, b, pool)
    }

    /// [`Searcher::candidates`] with an explicit first pool size for plain word queries, and whether
    /// the two-pass answer was proven (`false`: the one-pass search ran). For the pool-size
    /// measurement (`examples/two_pass.rs`) and the tests.
    pub fn candidates_with_pool(
        &self,
        q: &LexQuery,
        b: &Boosts,
        limit: usize,
        pool: usize,
    ) -> Result<(Vec<(Score, DocAddress)>, bool), SearchError> {
        let limit = limit.max(1);
        if let Some(plan) = self.plan(q, b)
            && let Some(mut found) = self.two_pass(&plan, b, limit, pool)?
        {
            found.truncate(limit);
            return Ok((found, true));
        }
        Ok((self.candidates_one_pass(q, b, limit)?, false))
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
        Ok(self.searcher.search(&query, &top)?)
    }

    /// The terms and word structure of a plain word query, for the two-pass search; `None` when the
    /// query is already flat (one pass is block-WAND already) or carries phrases, exclusions or filters
    /// (a pool drawn without them could starve a narrow filter; those queries run in one pass).
    fn plan(&self, q: &LexQuery, b: &Boosts) -> Option<Plan> {
        let flat = b.tie_breaker >= 1.0 && b.all_terms <= 0.0;
        if flat || !q.is_plain() {
            return None;
        }
        let mut plan = Plan::default();
        // The alternatives `word` builds its query from, as indexes into the term table.
        for w in &q.terms {
            let alts: Vec<Vec<usize>> = self
                .word_fields(w, b)
                .into_iter()
                .map(|(field, parts, boost)| {
                    parts.iter().map(|p| plan.term(field, p, boost)).collect()
                })
                .collect();
            if !alts.is_empty() {
                plan.words.push(alts);
            }
        }
        (!plan.words.is_empty()).then_some(plan)
    }

    /// Two passes over a plain word query, exact: at least the best `limit` passages (every pooled
    /// passage whose place is proven, in order), or `None` when [`MAX_POOLS`] pools did not prove the
    /// result, or proving it would take a pool larger than a quarter of the index (the caller then
    /// runs the one-pass query).
    ///
    /// The pool: every (word, field) term — each part of a split identifier on its own — as one summed
    /// union `F`, which tantivy runs with block-WAND (skipping posting blocks that cannot reach the
    /// pool's current top) instead of scoring every passage that holds a common word; it matches a
    /// superset of what [`Searcher::query`] matches. Each pooled passage then gets the exact score `E`
    /// of [`Searcher::query`]: every term's BM25 score read by seeking its postings to the pooled
    /// passages, combined as the query combines them ([`Plan::score`]).
    ///
    /// Why that is the one-pass answer: `E ≤ c·F` for every passage, with `c` from the plan
    /// ([`Plan::bound`]: a word's dis-max is at most the sum of its terms, the all-words boost at
    /// most doubles). A passage outside the pool has `F` at most the pool's lowest, `F_min`, so
    /// when the `limit`-th exact score exceeds `c·F_min` nothing outside can enter the top `limit`.
    /// Otherwise the pool grows fourfold and the check repeats. (A pool that holds every match is
    /// exact outright.)
    fn two_pass(
        &self,
        plan: &Plan,
        b: &Boosts,
        limit: usize,
        pool: usize,
    ) -> Result<Option<Vec<(Score, DocAddress)>>, SearchError> {
        use tantivy::DocSet;
        let scoring = tantivy::query::EnableScoring::enabled_from_searcher(&self.searcher);
        let term_queries: Vec<(TermQuery, f32)> = plan
            .terms
            .iter()
            .map(|(field, t, boost)| {
                let term = Term::from_field_text(*field, t);
                (TermQuery::new(term, IndexRecordOption::WithFreqs), *boost)
            })
            .collect();
        let pool_query = BooleanQuery::new(
            term_queries
                .iter()
                .map(|(tq, boost)| {
                    (
                        Occur::Should,
                        boosted(Box::new(tq.clone()) as Box<dyn Query>, *boost),
                    )
                })
                .collect(),
        );
        let bound = plan.bound(b);
        let budget = (self.searcher.num_docs() / 4) as usize;
        let mut pool = pool.max(limit);
        if pool > budget {
            return Ok(None); // a small index: one pass costs less than a pool of a quarter of it
        }
        let mut attempts = 0;
        loop {
            let top = tantivy::collector::TopDocs::with_limit(pool).order_by_score();
            let found =
                self.searcher
                    .search_with_executor(&pool_query, &top, self.executor(), scoring)?;
            let complete = found.len() < pool;
            let floor = found.last().map_or(0.0, |(f, _)| *f);
            let mut addrs: Vec<DocAddress> = found.into_iter().map(|(_, a)| a).collect();
            addrs.sort();
            // scores[t][i]: term t's boosted BM25 score in pooled passage i (None: absent).
            let mut scores: Vec<Vec<Option<Score>>> =
                vec![vec![None; addrs.len()]; term_queries.len()];
            for (t, (tq, boost)) in term_queries.iter().enumerate() {
                let weight = tq.weight(scoring)?;
                let mut start = 0;
                for seg in addrs.chunk_by(|x, y| x.segment_ord == y.segment_ord) {
                    let reader = self.searcher.segment_reader(seg[0].segment_ord);
                    let mut scorer = weight.scorer(reader, *boost)?;
                    for (i, a) in seg.iter().enumerate() {
                        if scorer.doc() <= a.doc_id && scorer.seek(a.doc_id) == a.doc_id {
                            scores[t][start + i] = Some(scorer.score());
                        }
                    }
                    start += seg.len();
                }
            }
            let mut out: Vec<(Score, DocAddress)> = addrs
                .iter()
                .enumerate()
                .filter_map(|(i, a)| plan.score(|t| scores[t][i], b).map(|s| (s, *a)))
                .collect();
            out.sort_by(|x, y| y.0.total_cmp(&x.0).then(x.1.cmp(&y.1)));
            // Every pooled passage scoring above `c·F_min` (with slack for the float rounding of two
            // summation orders) is placed as the one pass would place it.
            let cut = bound * floor * (1.0 + 1e-4);
            let proven = if complete {
                out.len()
            } else {
                out.iter().take_while(|(e, _)| *e > cut).count()
            };
            if complete || proven >= limit {
                out.truncate(proven);
                return Ok(Some(out));
            }
            attempts += 1;
            if attempts >= MAX_POOLS || pool >= budget {
                return Ok(None);
            }
            pool = pool.saturating_mul(4).min(budget);
        }
    }

    /// The newest `limit` documents passing the filters of `q` (its words are ignored), newest first:
    /// the address of each document's first passage, ordered by the `date` fast field.
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
        let top = tantivy::collector::TopDocs::with_limit(limit.max(1))
            .order_by_fast_field::<DateTime>(crate::schema::DATE, tantivy::Order::Desc);
        Ok(self
            .searcher
            .search(&query, &top)?
            .into_iter()
            .map(|(_, addr)| addr)
            .collect())
    }

    /// Load a candidate's stored fields.
    pub fn passage(&self, addr: DocAddress) -> Result<Passage, SearchError> {
        let doc: TantivyDocument = self.searcher.doc(addr)?;
        let f = &self.fields;
        let s = |field: Field| {
            doc.get_first(field)
                .and_then(|v| v.as_str().map(str::to_string))
        };
        let u = |field: Field| doc.get_first(field).and_then(|v| v.as_u64());
        Ok(Passage {
            id: s(f.id).unwrap_or_default(),
            collection: s(f.collection).unwrap_or_default(),
            path: s(f.path).unwrap_or_default(),
            file: s(f.file).filter(|x| !x.is_empty()),
            title: s(f.title).unwrap_or_default(),
            date: doc
                .get_first(f.date)
                .and_then(|v| v.as_datetime())
                .map(|d| d.into_timestamp_secs()),
            agent: s(f.agent).filter(|x| !x.is_empty()),
            project: s(f.project).filter(|x| !x.is_empty()),
            ordinal: u(f.passage).unwrap_or(0),
            line: u(f.line).unwrap_or(1),
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

    /// Every distinct document id in the index. A deleted document's id stays in its segment's term
    /// dictionary until a merge, so ids are kept only where a live passage carries them.
    pub fn document_ids(&self) -> Result<Vec<String>, SearchError> {
        use tantivy::DocSet;
        let mut ids = Vec::new();
        for seg in self.searcher.segment_readers() {
            let inv = seg.inverted_index(self.fields.id)?;
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
                ids.push(s.to_string());
            }
        }
        ids.sort();
        ids.dedup();
        Ok(ids)
    }

    /// The best line(s) of `p` for `q`: a matching text line before any heading line (a heading
    /// repeats what the title and headings already show), then the most distinct query words, then
    /// more occurrences, then the earlier line; cut to [`SNIPPET_CHARS`] around the first match.
    pub fn snippet(&self, p: &Passage, q: &LexQuery) -> Snippet {
        let mut text = self.analyzer();
        let mut wanted: Vec<String> = Vec::new();
        for w in q.terms.iter().chain(&q.phrases) {
            wanted.extend(tokens(&mut text, w));
        }
        wanted.sort();
        wanted.dedup();
        let lines: Vec<&str> = p.body.lines().collect();
        let mut best: Option<(usize, (bool, usize, usize))> = None; // (line index, (text match, distinct, count))
        for (i, line) in lines.iter().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let toks = tokens(&mut text, line);
            let count = toks
                .iter()
                .filter(|t| wanted.binary_search(t).is_ok())
                .count();
            let mut hit: Vec<&String> = toks
                .iter()
                .filter(|t| wanted.binary_search(t).is_ok())
                .collect();
            hit.sort();
            hit.dedup();
            let text_match = !hit.is_empty() && !line.trim_start().starts_with('#');
            let cand = (i, (text_match, hit.len(), count));
            best = match best {
                None => Some(cand),
                Some(b) if cand.1 > b.1 => Some(cand),
                keep => keep,
            };
        }
        let Some((i, _)) = best else {
            return Snippet {
                line: p.line,
                text: String::new(),
            };
        };
        let mut shown = lines[i].trim().to_string();
        if shown.chars().count() < 60
            && let Some(next) = lines.get(i + 1).map(|l| l.trim()).filter(|l| !l.is_empty())
        {
            shown.push(' ');
            shown.push_str(next);
        }
        Snippet {
            line: p.line + i as u64,
            text: clip(&shown, &wanted, &mut text),
        }
    }

    /// `W(w)`: one word across the fields, or `None` when it analyzes to nothing.
    fn word(&self, w: &str, b: &Boosts) -> Option<Box<dyn Query>> {
        let mut alts = self.word_alts(w, b);
        match alts.len() {
            0 => None,
            1 => alts.pop(),
            _ => Some(Box::new(DisjunctionMaxQuery::with_tie_breaker(
                alts,
                b.tie_breaker,
            ))),
        }
    }

    /// The per-field queries of one word (boosted terms; a split identifier needs all its parts).
    fn word_alts(&self, w: &str, b: &Boosts) -> Vec<Box<dyn Query>> {
        self.word_fields(w, b)
            .into_iter()
            .map(|(field, parts, boost)| boosted(all_terms(field, &parts), boost))
            .collect()
    }

    /// The alternatives of one word: per boosted field, the analyzed parts that must all be there;
    /// per identifier token, the `ident` term alone.
    fn word_fields(&self, w: &str, b: &Boosts) -> Vec<(Field, Vec<String>, f32)> {
        let f = &self.fields;
        let parts = tokens(&mut self.analyzer(), w);
        let mut alts = Vec::new();
        if !parts.is_empty() {
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
    fn phrase(&self, p: &str) -> Option<Box<dyn Query>> {
        let parts = tokens(&mut self.analyzer(), p);
        let f = &self.fields;
        let alts: Vec<(Occur, Box<dyn Query>)> = [f.title, f.headings, f.body]
            .into_iter()
            .filter_map(|field| -> Option<Box<dyn Query>> {
                match parts.len() {
                    0 => None,
                    1 => Some(term(field, &parts[0], IndexRecordOption::WithFreqs)),
                    _ => {
                        let terms = parts
                            .iter()
                            .map(|t| Term::from_field_text(field, t))
                            .collect();
                        Some(Box::new(PhraseQuery::new(terms)))
                    }
                }
            })
            .map(|q| (Occur::Should, q))
            .collect();
        (!alts.is_empty()).then(|| Box::new(BooleanQuery::new(alts)) as Box<dyn Query>)
    }
}

fn term(field: Field, text: &str, opt: IndexRecordOption) -> Box<dyn Query> {
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

fn boosted(q: Box<dyn Query>, boost: f32) -> Box<dyn Query> {
    if (boost - 1.0).abs() < f32::EPSILON {
        q
    } else {
        Box::new(BoostQuery::new(q, boost))
    }
}

/// `field` equal to any of `values`, scoring nothing.
fn any_of(field: Field, values: &[String]) -> Option<Box<dyn Query>> {
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

/// `line` cut to [`SNIPPET_CHARS`] characters, starting a little before the first wanted word.
fn clip(line: &str, wanted: &[String], text: &mut TextAnalyzer) -> String {
    let chars: Vec<char> = line.chars().collect();
    if chars.len() <= SNIPPET_CHARS {
        return line.to_string();
    }
    let mut first = 0usize;
    let mut stream = text.token_stream(line);
    while stream.advance() {
        if wanted.binary_search(&stream.token().text).is_ok() {
            first = line[..stream.token().offset_from].chars().count();
            break;
        }
    }
    let start = first
        .saturating_sub(40)
        .min(chars.len().saturating_sub(SNIPPET_CHARS));
    let end = (start + SNIPPET_CHARS).min(chars.len());
    let mut out = String::new();
    if start > 0 {
        out.push('…');
    }
    out.extend(&chars[start..end]);
    if end < chars.len() {
        out.push('…');
    }
    out
}
