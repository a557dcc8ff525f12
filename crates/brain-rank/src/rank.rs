//! Lexical ranking: passages from the index, folded into documents, normalized, turned into hits.

use brain_doc::{ErrorCode, Hit};
use brain_lex::search::{
    Boosts, DocAddress, DocKeys, LexQuery, Lifecycle, Passage, SearchError, Searcher,
};
use brain_lex::{LexError, LexIndex};
use brain_store::Home;
use jiff::{Timestamp, tz::TimeZone};
use serde_json::{Map, Value};

use crate::query::Query;
use crate::strategy::{DEFAULT_LIMIT, DEFAULT_PER_DOC, PoolWeights};
use crate::strength::MATCH;

/// Why ranking failed.
#[derive(Debug, thiserror::Error)]
pub enum RankError {
    #[error(transparent)]
    Search(#[from] SearchError),
}

impl brain_doc::Classified for RankError {
    /// The exit-code class (missing index → 65, else internal).
    fn code(&self) -> ErrorCode {
        match self {
            RankError::Search(SearchError::Index(e)) => e.code(),
            RankError::Search(_) => ErrorCode::Internal,
        }
    }

    /// What the user should run, or empty.
    fn fix(&self) -> String {
        match self {
            RankError::Search(SearchError::Index(e)) => e.fix(),
            RankError::Search(_) => String::new(),
        }
    }
}

/// How many hits, and how the lexical query is weighted.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RankOptions {
    /// Documents returned.
    pub limit: usize,
    /// Passages per document (each its own hit).
    pub per_doc: usize,
    /// Field boosts.
    pub boosts: Boosts,
    /// Compute snippets (and their lines); `brain eval` turns this off, it only needs the order.
    pub snippets: bool,
    /// The candidate pool.
    pub pool: PoolWeights,
}

impl Default for RankOptions {
    fn default() -> Self {
        RankOptions {
            limit: DEFAULT_LIMIT,
            per_doc: DEFAULT_PER_DOC,
            boosts: Boosts::default(),
            snippets: true,
            pool: PoolWeights::default(),
        }
    }
}

/// An opened index ready to rank queries (open once, rank many: `brain eval` runs hundreds).
pub struct Ranker {
    searcher: Searcher,
    tz: TimeZone,
}

impl Ranker {
    /// Open the lexical index of `home`.
    pub fn open(home: &Home) -> Result<Ranker, RankError> {
        let lex = LexIndex::open(home).map_err(SearchError::from)?;
        Ranker::new(&lex)
    }

    /// Rank over an already opened index.
    pub fn new(lex: &LexIndex) -> Result<Ranker, RankError> {
        Ok(Ranker {
            searcher: Searcher::new(lex)?,
            tz: crate::clock::local_tz(),
        })
    }

    /// The underlying searcher (for `brain get` lookups).
    pub fn searcher(&self) -> &Searcher {
        &self.searcher
    }

    /// Rank `q` at time `now`: the best `limit` documents, each with up to `per_doc` passages (best
    /// first), scores normalized so the best hit is 1.
    pub fn rank(
        &self,
        q: &Query,
        opts: &RankOptions,
        now: Timestamp,
    ) -> Result<Vec<Hit>, RankError> {
        Ok(self
            .rank_with_text(q, opts, now)?
            .into_iter()
            .map(|(h, _)| h)
            .collect())
    }

    /// [`Ranker::rank`], each hit with its whole passage text (what a reranker reads).
    pub fn rank_with_text(
        &self,
        q: &Query,
        opts: &RankOptions,
        now: Timestamp,
    ) -> Result<Vec<(Hit, String)>, RankError> {
        let lq = lex_query(q, now);
        // Candidates fold into documents by the `tie` column, a key of the id alone, so only the
        // passages kept are read. The key is 64 bits of the id's sha256: two documents sharing one
        // (odds about n²/2^65 for n documents) would share a group — when the passages read show
        // it, the list is folded again by the ids themselves.
        let keys = self.searcher.doc_keys()?;
        let mut folded = self.fold(&lq, opts, &keys, |addr| Ok(keys.of(addr)))?;
        let mut groups = self.read(folded.clone())?;
        if groups.iter().any(|ps| {
            ps.iter()
                .any(|(_, p)| ps.first().is_some_and(|(_, f)| f.id != p.id))
        }) {
            let by_id = |addr| Ok(self.searcher.passage(addr)?.id);
            folded = self.fold(&lq, opts, &keys, by_id)?;
            groups = self.read(folded.clone())?;
        }
        let pool = opts.pool;
        let more = crate::sessions::further_passages(
            &self.searcher,
            &lq,
            &opts.boosts,
            &pool,
            &keys,
            &folded,
            &groups,
        )?;
        let weights = self.searcher.term_weights(&lq);
        // Exact word forms decide what the stemmer ties ("customers" and "customize" meet at
        // "custom"): a passage holding the query's words as written scores up to
        // `pool.exact_form` (EXACT_FORM_BONUS) more; documents are reordered by their best passage (stable).
        let mut scored: Vec<(f64, Vec<(f64, f64, Passage)>)> = groups
            .into_iter()
            .zip(more)
            .map(|(ps, more)| {
                let mut ps: Vec<(f64, f64, Passage)> = ps
                    .into_iter()
                    .map(|(raw, p)| {
                        let exact = exact_share(&lq.terms, &p.title, &p.body);
                        (f64::from(raw), exact, p)
                    })
                    .collect();
                ps.sort_by(|a, b| adjusted(b, &pool).total_cmp(&adjusted(a, &pool)));
                let best = ps.first().map_or(0.0, |c| adjusted(c, &pool));
                // The further passages: those read (per_doc > 1) and those only scored.
                let further = ps
                    .iter()
                    .skip(1)
                    .map(|c| adjusted(c, &pool))
                    .chain(more.into_iter().map(f64::from));
                (crate::sessions::session_score(best, further, &pool), ps)
            })
            .collect();
        // Documents by their session score (stable: equal scores keep the index's order).
        scored.sort_by(|a, b| b.0.total_cmp(&a.0));
        let top = scored.first().map_or(1.0, |(s, _)| *s);
        let mut hits = Vec::new();
        for (session, ps) in scored {
            let best = ps.first().map_or(0.0, |c| adjusted(c, &pool));
            for (raw, exact, p) in ps {
                let rank = hits.len() as u32 + 1;
                let mut hit = self.hit(rank, raw, top, &p, &lq, now, opts.snippets);
                // A passage's share of its document's session score.
                let own = raw * (1.0 + pool.exact_form * exact);
                let scaled = if best > 0.0 {
                    own * session / best
                } else {
                    own
                };
                hit.score = if top > 0.0 { round(scaled / top) } else { 0.0 };
                if exact > 0.0 {
                    hit.signals
                        .insert("exact".into(), Value::from(round(exact)));
                }
                if !weights.is_empty() {
                    let held = self.searcher.coverage(&weights, &p.title, &p.body);
                    hit.signals.insert(MATCH.into(), Value::from(round(held)));
                }
                hits.push((hit, p.body));
            }
        }
        Ok(hits)
    }

    /// The candidate list of `lq` folded into documents by `key`: up to `limit` groups of up to
    /// `per_doc` (score, passage), best first, each group one document; `keys` orders tie runs.
    fn fold<K: PartialEq>(
        &self,
        lq: &LexQuery,
        opts: &RankOptions,
        keys: &DocKeys,
        key: impl Fn(DocAddress) -> Result<K, RankError>,
    ) -> Result<Vec<Vec<(f32, DocAddress)>>, RankError> {
        let per_doc = opts.per_doc.max(1);
        let pool = opts.pool;
        let mut want = (opts.limit * per_doc * pool.per_hit.max(1)).max(pool.min.max(1));
        let mut groups: Vec<(K, Vec<(f32, DocAddress)>)> = Vec::new();
        // Long transcripts hold many matching passages: when the candidates run out before `limit`
        // documents, fetch a wider list and group it again (a wider pool may rank a passage the
        // narrower one never saw above those it did, so the wider list does not merely extend it).
        loop {
            let mut candidates = self.searcher.candidates_at_least(lq, &opts.boosts, want)?;
            let exhausted = candidates.len() < want;
            let fetched = candidates.len();
            // Ties are settled by document id, each run of equal scores as the loop reaches it
            // (two builds of the same files answer alike).
            Searcher::drop_open_run(&mut candidates, exhausted);
            let open_run = fetched - candidates.len() > candidates.len();
            let mut run_end = 0;
            groups.clear();
            for i in 0..candidates.len() {
                // Enough documents: with one passage each, stop; with several, still take their
                // passages from the `want` best (what a list of `want` would have held), not from
                // everything the two-pass search proved beyond it.
                if groups.len() >= opts.limit && (per_doc == 1 || i >= want) {
                    break;
                }
                if i == run_end {
                    run_end = keys.order_run(&mut candidates, i);
                }
                let (score, addr) = candidates[i];
                let k = key(addr)?;
                let full = groups.len() >= opts.limit;
                match groups.iter_mut().find(|(g, _)| *g == k) {
                    Some((_, ps)) if ps.len() < per_doc => ps.push((score, addr)),
                    Some(_) => {}
                    None if !full => groups.push((k, vec![(score, addr)])),
                    None => {}
                }
            }
            if groups.len() >= opts.limit || exhausted {
                break;
            }
            want = wider(
                want,
                groups.len(),
                opts.limit,
                per_doc,
                pool.widen,
                open_run,
            );
        }
        Ok(groups.into_iter().map(|(_, ps)| ps).collect())
    }

    /// The passages of folded groups, read from the index.
    fn read(
        &self,
        groups: Vec<Vec<(f32, DocAddress)>>,
    ) -> Result<Vec<Vec<(f32, Passage)>>, RankError> {
        groups
            .into_iter()
            .map(|ps| {
                ps.into_iter()
                    .map(|(score, addr)| Ok((score, self.searcher.passage(addr)?)))
                    .collect()
            })
            .collect()
    }

    /// Give a hit ranked without its snippet (`snippets: false`, so `hit.line` is its passage's
    /// first line) the snippet and line it would have had; `body` is the passage text.
    pub fn fill_snippet(&self, hit: &mut Hit, body: &str, q: &Query) {
        let s = self
            .searcher
            .snippet_of(body, hit.line, &lex_query(q, Timestamp::now()));
        hit.line = s.line;
        hit.snippet = s.text;
    }

    /// The newest `limit` documents passing `filters`, newest first (the recency walk): each shown by
    /// its first passage, scored 1 → 0 by position, with `age_days` as the signal.
    pub fn latest(
        &self,
        filters: &crate::Filters,
        limit: usize,
        now: Timestamp,
    ) -> Result<Vec<Hit>, RankError> {
        let lq = lex_query(
            &Query {
                filters: filters.clone(),
                ..Query::default()
            },
            now,
        );
        let addrs = self.searcher.latest(&lq, limit)?;
        let n = addrs.len().max(1) as f64;
        let mut hits = Vec::new();
        for (i, addr) in addrs.into_iter().enumerate() {
            let p = self.searcher.passage(addr)?;
            let mut h = self.hit(i as u32 + 1, 1.0, 1.0, &p, &lq, now, false);
            h.score = round(1.0 - i as f64 / n);
            h.snippet = first_line(&p.body);
            h.signals = Map::new();
            h.signals.insert("age_days".into(), Value::from(h.age_days));
            hits.push(h);
        }
        Ok(hits)
    }

    /// Document `id` as the recency walk shows one (its first passage), or `None` when the index
    /// does not hold it.
    pub fn document(&self, id: &str, now: Timestamp) -> Result<Option<Hit>, RankError> {
        let passages = self.searcher.document(id)?;
        let Some(p) = passages.first() else {
            return Ok(None);
        };
        let lq = lex_query(&Query::default(), now);
        let mut h = self.hit(1, 1.0, 1.0, p, &lq, now, false);
        h.snippet = first_line(&p.body);
        h.signals = Map::new();
        Ok(Some(h))
    }

    #[allow(clippy::too_many_arguments)]
    fn hit(
        &self,
        rank: u32,
        bm25: f64,
        top: f64,
        p: &Passage,
        lq: &LexQuery,
        now: Timestamp,
        snippets: bool,
    ) -> Hit {
        let snippet = if snippets {
            self.searcher.snippet(p, lq)
        } else {
            brain_lex::search::Snippet {
                line: p.line,
                text: String::new(),
            }
        };
        let date = p.date.and_then(|s| Timestamp::from_second(s).ok());
        let mut signals = Map::new();
        signals.insert("bm25".into(), round(bm25).into());
        signals.insert("passage".into(), Value::from(p.ordinal));
        Hit {
            schema: brain_doc::SCHEMA,
            kind: "hit".into(),
            rank,
            score: if top > 0.0 { round(bm25 / top) } else { 0.0 },
            strength: None,
            uri: format!("brain://{}/{}", p.collection, p.path),
            docid: brain_doc::docid(&p.id),
            collection: p.collection.clone(),
            path: p.path.clone(),
            file: p.file.clone(),
            title: p.title.clone(),
            date: date.map(|d| d.to_string()).unwrap_or_default(),
            age_days: date.map_or(0, |d| age_days(d, now, &self.tz)),
            started: date.map(|d| d.to_string()),
            ended: p
                .ended
                .filter(|e| Some(*e) != p.date)
                .and_then(|s| Timestamp::from_second(s).ok())
                .map(|d| d.to_string()),
            session_id: p.session.clone(),
            project: p.project.clone(),
            agent: p.agent.clone(),
            line: snippet.line,
            snippet: snippet.text,
            signals,
            untrusted: false,
            memory: hit_memory(&p.memory, lq.lifecycle.map_or(now.as_second(), |l| l.at)),
            anchor: section_anchor(p),
            link: None,
        }
    }
}

/// The memory fields of a record as a hit shows them, with its state at `at` (Unix seconds);
/// `None` for a record that carries none.
fn hit_memory(m: &brain_lex::search::PassageMemory, at: i64) -> Option<brain_doc::HitMemory> {
    let plain = m.kind.is_none()
        && m.importance == brain_doc::memory::DEFAULT_IMPORTANCE
        && m.confidence >= 1.0
        && !m.pinned
        && m.key.is_none()
        && m.expires.is_none()
        && m.superseded.is_none()
        && m.status == "active";
    if plain {
        return None;
    }
    let state = m.state(at);
    let rfc = |t: Option<i64>| {
        t.and_then(|s| Timestamp::from_second(s).ok())
            .map(|t| t.to_string())
    };
    Some(brain_doc::HitMemory {
        kind: m.kind.clone(),
        importance: m.importance,
        confidence: m.confidence,
        pinned: m.pinned,
        key: m.key.clone(),
        occurred_at: rfc(m.occurred).filter(|_| m.kind.is_some() || m.key.is_some()),
        expires_at: rfc(m.expires),
        state: state.into(),
        superseded_by: m.superseded_by.clone(),
    })
}

/// The next candidate count when `want` candidates held only `found` of the `limit` documents:
/// `widen` times as many. With one passage per document the answer is the first `limit` documents
/// of the list however deep it is fetched, so the count follows the documents found per candidate
/// instead (a quarter more than that rate says, between 1.5× and `widen`×), and a list most of
/// which was one `open_run` of equal scores at its end (such runs go on: a near-spelling match
/// scores a constant) widens twice over at once. With several passages per document the passages
/// come from the `want` best, so `want` keeps its steps.
fn wider(
    want: usize,
    found: usize,
    limit: usize,
    per_doc: usize,
    widen: usize,
    open_run: bool,
) -> usize {
    let widen = widen.max(2);
    if per_doc > 1 {
        return want.saturating_mul(widen);
    }
    if open_run || found == 0 {
        return want.saturating_mul(widen).saturating_mul(widen);
    }
    let rate = want.saturating_mul(limit).div_ceil(found);
    // Both ends saturate alike (2× ≥ 1.5×), so the lower never passes the upper.
    rate.saturating_add(rate / 4)
        .clamp(want.saturating_add(want / 2), want.saturating_mul(widen))
}

/// A candidate's score with the exact-form bonus: (raw BM25, share of query words held as written).
fn adjusted(c: &(f64, f64, Passage), pool: &PoolWeights) -> f64 {
    c.0 * (1.0 + pool.exact_form * c.1)
}

/// The share of `terms` that `title` or `body` holds as written (whole words, any case).
fn exact_share(terms: &[String], title: &str, body: &str) -> f64 {
    if terms.is_empty() {
        return 0.0;
    }
    let title = title.to_lowercase();
    let body = body.to_lowercase();
    let whole = |text: &str, w: &str| {
        let bytes = text.as_bytes();
        memchr::memmem::find_iter(bytes, w.as_bytes()).any(|i| {
            let before = text[..i].chars().next_back();
            let after = text[i + w.len()..].chars().next();
            !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric)
        })
    };
    let held = terms
        .iter()
        .map(|t| t.to_lowercase())
        .filter(|t| !t.is_empty() && (whole(&title, t) || whole(&body, t)))
        .count();
    held as f64 / terms.len() as f64
}

/// The search-side form of a parsed query; records not current at `now` (or at `--as-of`) are
/// hidden unless superseded ones are asked for.
pub fn lex_query(q: &Query, now: Timestamp) -> LexQuery {
    let f = &q.filters;
    let lifecycle = (!f.include_superseded).then(|| Lifecycle {
        at: f.as_of.unwrap_or(now).as_second(),
        as_of: f.as_of.is_some(),
    });
    LexQuery {
        types: f.types.clone(),
        tags: f.tags.clone(),
        lifecycle,
        terms: q.lexical_terms(),
        phrases: q.phrases.clone(),
        exclude: q.exclude.clone(),
        collections: q.filters.collections.clone(),
        projects: q.filters.projects.clone(),
        agents: q.filters.agents.iter().map(|a| a.to_lowercase()).collect(),
        since: q.filters.since.map(|t| t.as_second()),
        until: q.filters.until.map(|t| t.as_second()),
        tier: q.filters.tier_filter.clone(),
        guaranteed: q.filters.guaranteed.clone(),
        refs: q.filters.refs.clone(),
        asked: q.asked,
    }
}

/// Calendar days between `date` and `now` in `tz`: 0 today, 1 yesterday; never negative.
pub fn age_days(date: Timestamp, now: Timestamp, tz: &TimeZone) -> i64 {
    let d = date.to_zoned(tz.clone()).date();
    let n = now.to_zoned(tz.clone()).date();
    d.until(n)
        .map(|s| i64::from(s.get_days()))
        .unwrap_or(0)
        .max(0)
}

/// The first non-empty, non-heading line of a passage, cut to a snippet's length.
fn first_line(body: &str) -> String {
    let line = body
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with('#'))
        .or_else(|| body.lines().map(str::trim).find(|l| !l.is_empty()))
        .unwrap_or("");
    match line.char_indices().nth(brain_lex::search::SNIPPET_CHARS) {
        Some((i, _)) => format!("{}…", &line[..i]),
        None => line.to_string(),
    }
}

/// Four decimals: enough to order, stable to read in golden files.
fn round(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0
}

impl From<LexError> for RankError {
    fn from(e: LexError) -> Self {
        RankError::Search(SearchError::Index(e))
    }
}

/// The section of a document beyond markdown (doc2md's: a PDF page, a heading) its passage is in,
/// so a citation points into the original (`report.pdf#page-3`); none for markdown.
fn section_anchor(p: &Passage) -> Option<String> {
    brain_store::documents::format_of(&p.path)?;
    let heading = p.headings.rsplit(" › ").next()?;
    let anchor = brain_doc::markdown::anchor(heading);
    (!anchor.is_empty()).then_some(anchor)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn age_counts_calendar_days() {
        let tz = TimeZone::UTC;
        let now: Timestamp = "2026-04-10T01:00:00Z".parse().expect("ts");
        let at = |s: &str| s.parse::<Timestamp>().expect("ts");
        assert_eq!(age_days(at("2026-04-10T00:30:00Z"), now, &tz), 0);
        assert_eq!(age_days(at("2026-04-09T23:30:00Z"), now, &tz), 1);
        assert_eq!(age_days(at("2026-03-31T12:00:00Z"), now, &tz), 10);
        assert_eq!(
            age_days(at("2026-05-01T00:00:00Z"), now, &tz),
            0,
            "future dates are today"
        );
    }

    #[test]
    fn a_narrow_list_widens_by_the_documents_it_found() {
        // Several passages per document: `widen` times, whatever was found.
        assert_eq!(wider(160, 39, 40, 2, 4, false), 640);
        assert_eq!(wider(160, 0, 40, 3, 4, true), 640);
        // One: a quarter more than the rate of documents per candidate says…
        assert_eq!(wider(160, 20, 40, 1, 4, false), 400);
        // …at least half as many again, at most `widen` times…
        assert_eq!(wider(160, 39, 40, 1, 4, false), 240);
        assert_eq!(wider(160, 2, 40, 1, 4, false), 640);
        // …and twice over at once when one run of equal scores filled the list or nothing was found.
        assert_eq!(wider(160, 10, 40, 1, 4, true), 2560);
        assert_eq!(wider(160, 0, 40, 1, 4, false), 2560);
        // A `widen` below 2 still grows; huge counts saturate instead of wrapping.
        assert_eq!(wider(10, 0, 40, 2, 0, false), 20);
        assert_eq!(wider(usize::MAX / 2, 0, 40, 1, 16, true), usize::MAX);
        assert!(wider(usize::MAX / 2, 1, usize::MAX, 1, 4, false) >= usize::MAX / 2);
    }
}
