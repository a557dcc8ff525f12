//! Plain word queries in two passes: a pool drawn with block-WAND from a summed union of the query's
//! terms, every pooled passage scored exactly as [`Searcher::query`] scores it, and a bound that proves
//! the answer is the one-pass answer (or the one pass runs). See [`Searcher::two_pass`].

use tantivy::query::{BooleanQuery, Occur, Query, TermQuery};
use tantivy::schema::{Field, IndexRecordOption};
use tantivy::{DocAddress, Score, Term};

use super::near::Near;
use super::words::boosted;
use super::{Boosts, FUZZY_SCORE, LexQuery, SearchError, Searcher};

/// Candidate pool of a plain word query, per passage asked for: the pool is drawn with block-WAND on a
/// summed union of (word, field) terms and scored exactly (see [`Searcher::two_pass`]). Measured on
/// the 10,000-file bench corpus (`examples/two_pass.rs`, docs/query.md): 4× proves most top-k of
/// queries with common words at once; a larger first pool costs more than it proves.
pub const POOL_FACTOR: usize = 4;
/// Most hidden passages (superseded, expired, archived records) a two-pass search drops from a
/// deeper top rather than running in one pass (our choice, 2026-11-25): a top this much deeper
/// costs less than one pass over a common word on the bench corpus.
pub const MAX_HIDDEN_IN_POOL: usize = 1_000;
/// How much deeper the second pool is when the first did not prove its top. Measured on the
/// 100,000-file bench corpus (bench/scale.sh; `examples/two_pass.rs`): queries with near spellings
/// of unknown words missed the first pool's proof by a few percent of the bound and ran in one
/// pass, 14–19 ms against 2–4 ms for a pool.
pub const DEEPER: usize = 4;
/// Floor of the candidate pool.
pub const MIN_POOL: usize = 200;
/// Plain word queries whose terms hold fewer postings than this run in one pass: it visits them all
/// in about 15–35 ns each on the 10,000-file bench corpus, ~1 ms below this, while the pools cost
/// 1–1.5 ms whatever the query (`examples/two_pass.rs`; on SciFact every query is below it).
pub const ONE_PASS_BELOW: u64 = 50_000;

/// A plain word query as the two-pass search sees it: a table of distinct leaves and, per word, its
/// alternatives (one per field, an identifier term, a near spelling), each a list of leaves that must
/// all be present (the parts of a split identifier).
#[derive(Debug, Default)]
struct Plan {
    terms: Vec<Leaf>,
    words: Vec<Vec<Vec<usize>>>,
}

/// What a word's alternative scores.
#[derive(Debug)]
enum Leaf {
    /// A (field, term, boost): its BM25 score times the boost.
    Term(Field, String, f32),
    /// A near spelling ([`Searcher::near_spellings`]): a constant score where it matches; not in the
    /// pools' union, bounded by [`Plan::near_bound`].
    Near(Near),
}

impl Plan {
    /// Index of `(field, text)` in the term table, added if new.
    fn term(&mut self, field: Field, text: &str, boost: f32) -> usize {
        let known = self
            .terms
            .iter()
            .position(|l| matches!(l, Leaf::Term(f, t, _) if *f == field && t == text));
        known.unwrap_or_else(|| {
            self.terms.push(Leaf::Term(field, text.to_string(), boost));
            self.terms.len() - 1
        })
    }

    /// `c` with `E ≤ c·F` for every passage that misses a word (and `E ≤ boost·c·F` for one that
    /// holds them all, `boost` from [`Plan::all_words_boost`]): `E` its score under
    /// [`Searcher::query`], `F` its score under the pool's summed union of the distinct terms. A
    /// word's dis-max is at most `max(1, tie) ×` the sum of its alternatives, which sum their terms;
    /// a term counted `m` times across all alternatives enters that sum `m` times but `F` once.
    fn bound(&self, b: &Boosts) -> f32 {
        let mut uses = vec![0u32; self.terms.len()];
        for t in self.words.iter().flatten().flatten() {
            uses[*t] += 1;
        }
        let m = uses.into_iter().max().unwrap_or(1).max(1) as f32;
        m * b.tie_breaker.max(1.0)
    }

    /// What a plan's near spellings can add to a passage's score beyond `c·F`: per word with `k`
    /// near leaves (each [`FUZZY_SCORE`] where it matches), its dis-max `(1 - tie)·max + tie·sum`
    /// grows by at most `FUZZY_SCORE·(1 + tie·(k - 1))` (`tie·k·FUZZY_SCORE` for a tie above 1).
    /// 0 without near spellings.
    fn near_bound(&self, b: &Boosts) -> f32 {
        let tie = b.tie_breaker;
        self.words
            .iter()
            .map(|alts| {
                let k = alts
                    .iter()
                    .filter(|a| a.iter().any(|&t| matches!(self.terms[t], Leaf::Near(_))))
                    .count() as f32;
                if k == 0.0 {
                    0.0
                } else if tie <= 1.0 {
                    FUZZY_SCORE * (1.0 + tie * (k - 1.0))
                } else {
                    FUZZY_SCORE * tie * k
                }
            })
            .sum()
    }

    /// The factor a passage holding every word gets: `1 + all_terms` for several words, else 1.
    fn all_words_boost(&self, b: &Boosts) -> f32 {
        if self.words.len() > 1 && b.all_terms > 0.0 {
            1.0 + b.all_terms
        } else {
            1.0
        }
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

impl Searcher {
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
            && self.postings(&plan)? >= self.one_pass_below
        {
            // A pool that did not prove its top is drawn once more, deeper: its floor `F_min`
            // falls, and with it the bound (near spellings above all raise it).
            for pool in [pool, pool.saturating_mul(DEEPER)] {
                if let Some(found) = self.two_pass_visible(q, &plan, b, limit, pool)? {
                    return Ok(found);
                }
            }
        }
        // One pass visits every match whatever it keeps: keeping the pool's worth costs little more.
        self.candidates_one_pass(q, b, pool)
    }

    /// [`Searcher::two_pass`] without the passages `q`'s lifecycle hides: those (few: superseded,
    /// expired, archived records) are dropped from a top proven that much deeper, so what is left
    /// is the filtered top, exactly. `None` when the pools do not prove it, or too many passages
    /// are hidden ([`MAX_HIDDEN_IN_POOL`]).
    fn two_pass_visible(
        &self,
        q: &LexQuery,
        plan: &Plan,
        b: &Boosts,
        limit: usize,
        pool: usize,
    ) -> Result<Option<Vec<(Score, DocAddress)>>, SearchError> {
        let Some(hidden) = self.hidden_passages(q)? else {
            return Ok(None);
        };
        let want = limit + hidden.len();
        let pool = pool.max(want.saturating_mul(POOL_FACTOR));
        Ok(self.two_pass(q, plan, b, want, pool)?.map(|mut found| {
            found.retain(|(_, a)| !hidden.contains(a));
            found
        }))
    }

    /// The passages `q`'s lifecycle hides, when few enough to drop from a two-pass top
    /// ([`MAX_HIDDEN_IN_POOL`]); empty when it hides nothing; `None` when too many (one pass then
    /// filters them inside the query).
    fn hidden_passages(
        &self,
        q: &LexQuery,
    ) -> Result<Option<std::collections::HashSet<DocAddress>>, SearchError> {
        let Some(l) = q.lifecycle.filter(|_| self.hides(q)) else {
            return Ok(Some(Default::default()));
        };
        let found = self
            .searcher
            .search(&*self.hidden(l), &tantivy::collector::DocSetCollector)?;
        Ok((found.len() <= MAX_HIDDEN_IN_POOL).then_some(found))
    }

    /// The postings a one-pass search of `plan` would visit: the document frequencies of its terms.
    fn postings(&self, plan: &Plan) -> Result<u64, SearchError> {
        let mut n = 0;
        for (field, text) in plan.terms.iter().filter_map(|l| match l {
            Leaf::Term(field, text, _) => Some((field, text)),
            Leaf::Near(_) => None,
        }) {
            n += self
                .searcher
                .doc_freq(&Term::from_field_text(*field, text))?;
        }
        Ok(n)
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
            && let Some(mut found) = self.two_pass_visible(q, &plan, b, limit, pool)?
        {
            found.truncate(limit);
            return Ok((found, true));
        }
        Ok((self.candidates_one_pass(q, b, limit)?, false))
    }

    /// The terms and word structure of a plain word query, for the two-pass search; `None` when the
    /// query is already flat (one pass is block-WAND already) or carries phrases, exclusions or filters
    /// (a pool drawn without them could starve a narrow filter; those queries run in one pass).
    ///
    /// A word the index does not know brings its near spellings as leaves of their own
    /// ([`Leaf::Near`]): scored exactly in the pooled passages, and bounded for the passages left
    /// out by what they can add at most ([`Plan::near_bound`]). (They ran in one pass before: a union
    /// of every near term's postings, the slowest queries at 100,000 documents — 23 ms against 5
    /// at 10,000.)
    fn plan(&self, q: &LexQuery, b: &Boosts) -> Option<Plan> {
        let flat = b.tie_breaker >= 1.0 && b.all_terms <= 0.0;
        if flat || !q.is_plain() {
            return None;
        }
        let mut plan = Plan::default();
        let lang = q.language();
        // The alternatives `word` builds its query from, as indexes into the term table.
        for w in &q.terms {
            let mut alts: Vec<Vec<usize>> = self
                .word_fields(w, b, lang)
                .into_iter()
                .map(|(field, parts, boost)| {
                    parts.iter().map(|p| plan.term(field, p, boost)).collect()
                })
                .collect();
            for near in self.near_forms(w) {
                plan.terms.push(Leaf::Near(near));
                alts.push(vec![plan.terms.len() - 1]);
            }
            if !alts.is_empty() {
                plan.words.push(alts);
            }
        }
        (!plan.words.is_empty()).then_some(plan)
    }

    /// Two passes over a plain word query, exact: at least the best `limit` passages (every pooled
    /// passage whose place is proven, in order), or `None` when the pools do not prove the best
    /// `limit`, or a pool would be larger than a quarter of the index (the caller then runs the
    /// one-pass query).
    ///
    /// The union pool: every (word, field) term — each part of a split identifier on its own — as
    /// one summed union `F`, which tantivy runs with block-WAND (skipping posting blocks that cannot
    /// reach the pool's floor) instead of scoring every passage that holds a common word; it
    /// matches a superset of what [`Searcher::query`] matches. Each pooled passage then gets the
    /// exact score `E` of [`Searcher::query`]: every term's BM25 score read by seeking its postings
    /// to the pooled passages, combined as the query combines them ([`Plan::score`]).
    ///
    /// Why that is the one-pass answer: `E ≤ c·F + N` for a passage missing a word and `E ≤
    /// boost·(c·F + N)` for one holding them all ([`Plan::bound`], [`Plan::all_words_boost`];
    /// `N` what near spellings can add, [`Plan::near_bound`], 0 without them). A passage outside the
    /// pool has `F` at most the pool's floor `F_min` (0 when the pool is not full: it holds every
    /// passage with a term), so when the `limit`-th exact score exceeds `boost·(c·F_min + N)`
    /// nothing outside can enter the top `limit`. A pool that holds every match (not full, no near
    /// spellings) is exact outright.
    ///
    /// When the boost keeps that bound above the `limit`-th score (queries mixing rare and common
    /// words, where many passages have close `F`), a conjunction pool settles it: the best passages
    /// holding every word, ranked by tantivy on the conjunction of the words, bound every such
    /// passage left out by the boost times their lowest score, so the union pool needs to bound
    /// only the passages missing a word, by `c·F_min` without the boost. (A union pool widened
    /// below `F_min` was tried: on the bench corpus and the tests' corpus that bound was never the
    /// one that failed.)
    fn two_pass(
        &self,
        q: &LexQuery,
        plan: &Plan,
        b: &Boosts,
        limit: usize,
        pool: usize,
    ) -> Result<Option<Vec<(Score, DocAddress)>>, SearchError> {
        let budget = (self.searcher.num_docs() / 4) as usize;
        let pool = pool.max(limit);
        if pool > budget {
            return Ok(None); // a small index: one pass costs less than a pool of a quarter of it
        }
        let scoring = tantivy::query::EnableScoring::enabled_from_searcher(&self.searcher);
        let exact = Exact::new(plan, scoring)?;
        let c = plan.bound(b);
        let near = plan.near_bound(b);
        let boost = plan.all_words_boost(b);
        let top = tantivy::collector::TopDocs::with_limit(pool).order_by_score();
        let found = self.search_segments(&exact.union, &top, scoring)?;
        // Every passage left out of a full pool has `F ≤ f_min`; a pool that is not full holds every
        // match.
        let f_min = if found.len() == pool {
            found.last().map_or(0.0, |x| x.0)
        } else {
            0.0
        };
        let mut addrs: Vec<DocAddress> = found.into_iter().map(|(_, a)| a).collect();
        addrs.sort();
        let mut out = self.exact_scores(&exact, plan, b, &addrs)?;
        sort_best_first(&mut out);
        let proven = |out: &[(Score, DocAddress)], cut: Score| {
            out.iter().take_while(|(e, _)| *e > cut).count()
        };
        let first = proven(&out, boost * (c * f_min + near) * SLACK);
        if first >= limit || (f_min == 0.0 && near == 0.0) {
            out.truncate(first);
            return Ok(Some(out));
        }
        if boost <= 1.0 {
            return Ok(None);
        }
        // The conjunction pool, and what it bounds: every passage holding all words outside it.
        let lang = q.language();
        let conj = BooleanQuery::new(
            q.terms
                .iter()
                .filter_map(|w| self.word(w, b, lang))
                .map(|w| (Occur::Must, w))
                .collect(),
        );
        let top = tantivy::collector::TopDocs::with_limit(pool).order_by_score();
        let found = self.search_segments(&conj, &top, scoring)?;
        let bound_all = if found.len() == pool {
            boost * found[pool - 1].0 * SLACK
        } else {
            0.0
        };
        // `addrs` is sorted: the conjunction pool's passages not scored yet.
        let mut more: Vec<DocAddress> = found
            .into_iter()
            .map(|(_, a)| a)
            .filter(|a| addrs.binary_search(a).is_err())
            .collect();
        more.sort();
        out.append(&mut self.exact_scores(&exact, plan, b, &more)?);
        sort_best_first(&mut out);
        let cut = bound_all.max((c * f_min + near) * SLACK);
        let proven = proven(&out, cut);
        if proven < limit {
            return Ok(None);
        }
        out.truncate(proven);
        Ok(Some(out))
    }

    /// The passages of the documents `ids` that match a plain word query, with the scores
    /// [`Searcher::query`] gives them, best first, those `q`'s lifecycle hides left out: each term's
    /// postings sought to the passages, so the cost follows the documents, not the index (a union of the
    /// terms, restricted by an intersection, refills its 4,096-passage window at every jump: most of
    /// a one-pass search). `None` for the queries the two-pass search leaves to one pass (phrases,
    /// exclusions, filters, flat boosts) or when too many passages are hidden.
    pub(super) fn exact_within(
        &self,
        q: &LexQuery,
        b: &Boosts,
        ids: &[&str],
    ) -> Result<Option<Vec<(Score, DocAddress)>>, SearchError> {
        let Some(plan) = self.plan(q, b) else {
            return Ok(None);
        };
        let Some(hidden) = self.hidden_passages(q)? else {
            return Ok(None);
        };
        // Read only once the query is known to take this path.
        let addrs = self.passages_of_ids(ids)?;
        let scoring = tantivy::query::EnableScoring::enabled_from_searcher(&self.searcher);
        let exact = Exact::new(&plan, scoring)?;
        let mut out = self.exact_scores(&exact, &plan, b, &addrs)?;
        out.retain(|(_, a)| !hidden.contains(a));
        sort_best_first(&mut out);
        Ok(Some(out))
    }

    /// The exact scores (as [`Searcher::query`] gives them) of the passages `addrs` (sorted) that
    /// match the query: every term's BM25 score read by seeking its postings to them.
    fn exact_scores(
        &self,
        exact: &Exact,
        plan: &Plan,
        b: &Boosts,
        addrs: &[DocAddress],
    ) -> Result<Vec<(Score, DocAddress)>, SearchError> {
        // scores[t][i]: leaf t's score in passage i (None: absent).
        let mut scores: Vec<Vec<Option<Score>>> = vec![vec![None; addrs.len()]; exact.terms.len()];
        for (t, leaf) in exact.terms.iter().enumerate() {
            let mut at = 0;
            for seg in addrs.chunk_by(|x, y| x.segment_ord == y.segment_ord) {
                let reader = self.searcher.segment_reader(seg[0].segment_ord);
                let docs: Vec<tantivy::DocId> = seg.iter().map(|a| a.doc_id).collect();
                for (i, s) in leaf.scores(reader, &docs)?.into_iter().enumerate() {
                    scores[t][at + i] = s;
                }
                at += seg.len();
            }
        }
        Ok(addrs
            .iter()
            .enumerate()
            .filter_map(|(i, a)| plan.score(|t| scores[t][i], b).map(|s| (s, *a)))
            .collect())
    }
}

/// A plan's leaves ready to score: one weight per leaf with its field boost, and the pool's summed
/// union of its terms.
struct Exact<'p> {
    terms: Vec<Scoring<'p>>,
    union: BooleanQuery,
}

/// How a leaf is scored: a term by its weight's scorer and its boost, a near spelling by
/// [`Near::matches`].
enum Scoring<'p> {
    Term(Box<dyn tantivy::query::Weight>, f32),
    Near(&'p Near),
}

impl Scoring<'_> {
    /// The leaf's score in each of the passages `docs` (sorted) of the segment `reader`: a term's
    /// boosted BM25 score, its postings sought to them; a near spelling's constant score.
    fn scores(
        &self,
        reader: &tantivy::SegmentReader,
        docs: &[tantivy::DocId],
    ) -> tantivy::Result<Vec<Option<Score>>> {
        use tantivy::DocSet;
        match self {
            Scoring::Near(near) => Ok(near
                .matches(reader, docs)?
                .into_iter()
                .map(|hit| hit.then_some(FUZZY_SCORE))
                .collect()),
            Scoring::Term(weight, boost) => {
                let mut scorer = weight.scorer(reader, *boost)?;
                Ok(docs
                    .iter()
                    .map(|&d| (scorer.doc() <= d && scorer.seek(d) == d).then(|| scorer.score()))
                    .collect())
            }
        }
    }
}

impl<'p> Exact<'p> {
    fn new(
        plan: &'p Plan,
        scoring: tantivy::query::EnableScoring<'_>,
    ) -> Result<Exact<'p>, SearchError> {
        let mut union = Vec::new();
        let mut terms = Vec::with_capacity(plan.terms.len());
        for leaf in &plan.terms {
            match leaf {
                Leaf::Term(field, t, boost) => {
                    let term = Term::from_field_text(*field, t);
                    let tq = TermQuery::new(term, IndexRecordOption::WithFreqs);
                    terms.push(Scoring::Term(tq.weight(scoring)?, *boost));
                    union.push((
                        Occur::Should,
                        boosted(Box::new(tq) as Box<dyn Query>, *boost),
                    ));
                }
                Leaf::Near(near) => terms.push(Scoring::Near(near)),
            }
        }
        Ok(Exact {
            terms,
            union: BooleanQuery::new(union),
        })
    }
}

/// Best score first; equal scores by address, as tantivy's top-k orders them.
fn sort_best_first(v: &mut [(Score, DocAddress)]) {
    v.sort_by(|x, y| y.0.total_cmp(&x.0).then(x.1.cmp(&y.1)));
}

/// Relative slack on score bounds: the pools and the exact scores sum the same terms in other orders.
const SLACK: f32 = 1.0 + 1e-4;
