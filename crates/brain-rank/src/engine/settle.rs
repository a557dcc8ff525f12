//! What an attempt keeps of its ranked hits: one session spread out, match strength, the limit,
//! weak answers held back, trust marks, near-duplicates collapsed.

use brain_doc::Hit;
use jiff::Zoned;

use super::Engine;
use crate::fusion;
use crate::plan::Plan;
use crate::request::SearchRequest;

impl Engine {
    /// The ranked hits as the answer keeps them: one session spread out, each hit's strength,
    /// `--min-score` applied, cut to `limit` documents, an answer that holds nothing of a plain
    /// query held back (only a plain query's words say what was asked: sub-queries — `--hyde`, a
    /// query document, expansions — searched for more than its words), and the strengths made to
    /// follow the order.
    pub(super) fn settle(
        &self,
        hits: &mut Vec<Hit>,
        req: &SearchRequest,
        limit: usize,
        plan: &Plan,
        now: &Zoned,
        warnings: &mut Vec<String>,
    ) {
        fusion::spread_sessions(hits, self.strategy.per_session);
        crate::strength::apply(hits, self.cosine_scale());
        hits.retain(|h| crate::strength::clears(h, req.min_score));
        fusion::truncate_docs(hits, limit);
        if req.hold_weak
            && req.lines.is_empty()
            && let Some(w) = crate::strength::hold_back(hits, || self.unknown_words(plan, now))
        {
            warnings.push(w);
        }
        // The labels follow the order; --min-score then cuts the list where they fall below it.
        crate::strength::follow_rank(hits);
        hits.retain(|h| crate::strength::clears(h, req.min_score));
    }

    /// The words of the plan's lexical query the index has never seen (a short query's only;
    /// none without a lexical list or index), and whether that is all of them.
    fn unknown_words(&self, plan: &Plan, now: &Zoned) -> crate::strength::Unknown {
        if self.remote.is_some() {
            return (Vec::new(), false);
        }
        let (Ok(r), Some(q)) = (
            self.ranker(),
            plan.lists.iter().find_map(|l| l.query.as_ref()),
        ) else {
            return (Vec::new(), false);
        };
        let weights = r
            .searcher()
            .term_weights(&crate::rank::lex_query(q, now.timestamp()));
        (weights.unknown(), weights.all_unknown())
    }

    /// Mark the hits of low-trust collections (`trust: low`), which every agent-facing surface
    /// fences.
    pub(super) fn mark_trust(&self, hits: &mut [Hit]) {
        if let Some(config) = &self.config {
            for h in hits.iter_mut() {
                h.untrusted = config.is_low_trust(&h.collection);
            }
        }
        // A team engine's text was written on other machines, by other people's agents: it
        // reaches an agent fenced, as low-trust text does.
        if self.remote.is_some() {
            for h in hits {
                h.untrusted = true;
            }
        }
    }

    /// `hits` without the near-duplicates of a better document, cut to `want` documents, ranks
    /// numbered again; and how many went. Documents are compared by their best passage (title,
    /// snippet, its stored vector: a paraphrase is a duplicate too, no model loaded); the other
    /// passages `--per-doc` asked for stay with their document.
    pub(super) fn collapse(&self, mut hits: Vec<Hit>, want: usize) -> (Vec<Hit>, usize) {
        let _t = brain_doc::timings::span("dedup");
        // Through the store a hybrid search already opened, else one opened now.
        let vectors = |wanted: &[(String, Option<u64>)]| {
            self.with_stored_vectors(|s| crate::dedup::stored_vectors(s, wanted))
                .unwrap_or_else(|| vec![None; wanted.len()])
        };
        let mut seen = std::collections::HashSet::new();
        let firsts: Vec<Hit> = hits
            .iter()
            .filter(|h| seen.insert(h.uri.clone()))
            .cloned()
            .collect();
        let (kept, dropped) = crate::dedup::dedup_hits(firsts, &vectors, self.dedup_thresholds());
        let kept: std::collections::HashSet<String> = kept.into_iter().map(|h| h.uri).collect();
        hits.retain(|h| kept.contains(&h.uri));
        fusion::truncate_docs(&mut hits, want);
        for (i, h) in hits.iter_mut().enumerate() {
            h.rank = i as u32 + 1;
        }
        (hits, dropped)
    }
}

/// The number of documents `hits` holds (`--per-doc` passages count once).
pub(super) fn distinct_docs(hits: &[Hit]) -> usize {
    let mut seen = std::collections::HashSet::new();
    hits.iter().filter(|h| seen.insert(h.uri.as_str())).count()
}
