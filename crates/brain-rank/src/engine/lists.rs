//! The lists of a plan, run and ranked: lexical lists here, vector lists on a second thread (see
//! [`Engine::run_lists`]); their hits fused or normalized, reranked, boosted, ties broken; and the
//! snippets of the winners of a fused list.

use brain_doc::{ErrorCode, Hit};
use jiff::Zoned;

use super::Engine;
use crate::error::{RunError, Unavailable};
use crate::fusion;
use crate::plan::Plan;
use crate::query::{Filters, Query};
use crate::rank::RankOptions;
use crate::request::SearchRequest;

impl Engine {
    /// The plan's lists run `depth` deep, and their hits fused (or the one list's, normalized),
    /// reranked, and boosted by the named projects and the time window, ties broken.
    pub(super) fn ranked(
        &self,
        plan: &Plan,
        req: &SearchRequest,
        now: &Zoned,
        fusing: bool,
        depth: usize,
    ) -> Result<(Vec<fusion::HitList>, Vec<Hit>, Option<String>), RunError> {
        let lists = self.run_lists(plan, req, now, fusing, depth)?;
        let mut unreranked = None;
        let _t = brain_doc::timings::span("fusion");
        let mut hits = if lists.len() == 1 && !req.rerank {
            let mut hits = lists.first().map(|l| l.hits.clone()).unwrap_or_default();
            normalize(&mut hits);
            hits
        } else {
            fusion::fuse_hits(&lists, &self.strategy.fusion, req.per_doc)
        };
        if req.rerank {
            // Absent, broken or slower than its budget: the fused order answers, and says so.
            let query = crate::rerank::query_text(&plan.original, req.intent.as_deref());
            let reranked = self
                .reranker()
                .map_err(RunError::Unavailable)
                .and_then(|m| {
                    crate::rerank::rerank(m, &self.strategy.rerank, &query, &lists, hits.clone())
                });
            match reranked {
                Ok(h) => hits = h,
                Err(RunError::Unavailable(u)) => {
                    unreranked = Some(format!(
                        "not reranked: {} (fix: {}); the fused order answers",
                        u.message, u.fix
                    ));
                }
                Err(e) => return Err(e),
            }
        }
        crate::entity::apply(&mut hits, &plan.named, &self.strategy.entity);
        if let Some(w) = &plan.when {
            crate::when::score::apply(&mut hits, w, &self.strategy.time);
        }
        // Memory signals reorder near-ties; a literal query ranks by relevance alone.
        let literal = crate::route::is_literal(&plan.original);
        if !literal {
            // Read per search (a small file of the records ever read): a long-lived server sees a
            // fold at once.
            let rehearsal = brain_store::access::Rehearsal::load(&self.home);
            let role_of = |c: &str| {
                self.config
                    .as_ref()
                    .and_then(|cfg| cfg.collection(c))
                    .map(|c| c.role.clone())
            };
            crate::memory::apply(&mut hits, &self.strategy.memory, &rehearsal, &role_of);
        }
        fusion::break_ties(&mut hits);
        Ok((lists, hits, unreranked))
    }

    /// Snippets for the hits that came from lexical lists ranked without them: a fused list takes
    /// `FUSION_DEPTH` candidates per list, and snippets (tokenizing every line of a passage) were
    /// 37 % of a warm 40-deep lexical list — only the `limit` winners need one.
    pub(super) fn fill_snippets(
        &self,
        hits: &mut [Hit],
        plan: &Plan,
        lists: &[fusion::HitList],
    ) -> Result<(), RunError> {
        for h in hits.iter_mut().filter(|h| h.snippet.is_empty()) {
            let found = lists.iter().zip(&plan.lists).find_map(|(l, p)| {
                if !l.unsnipped {
                    return None;
                }
                let j = l
                    .hits
                    .iter()
                    .position(|x| x.uri == h.uri && x.line == h.line)?;
                Some((p.query.as_ref()?, l.texts.get(j)?))
            });
            if let Some((query, body)) = found {
                self.ranker()?.fill_snippet(h, body, query);
            }
        }
        Ok(())
    }

    /// Run every planned list: lexical ones here, vector ones (model load, one embedding call for all
    /// their texts, one scan each) on a scoped thread at the same time. The lists come back in plan
    /// order, one per planned list.
    fn run_lists(
        &self,
        plan: &Plan,
        req: &SearchRequest,
        now: &Zoned,
        fusing: bool,
        depth: usize,
    ) -> Result<Vec<fusion::HitList>, RunError> {
        let vec_plan: Vec<(usize, &str)> = plan
            .lists
            .iter()
            .enumerate()
            .filter(|(_, l)| l.kind.is_vector())
            .map(|(i, l)| (i, l.text.as_str()))
            .collect();
        let lex_lists = || -> Vec<(usize, Result<Vec<(Hit, String)>, RunError>)> {
            plan.lists
                .iter()
                .enumerate()
                .filter_map(|(i, l)| Some((i, l.query.as_ref()?)))
                .map(|(i, q)| {
                    let _t = brain_doc::timings::span("lex.list");
                    (i, self.lex_list(q, &plan.filters, depth, req, now, !fusing))
                })
                .collect()
        };
        let vec_lists = || {
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| match &self.remote {
                Some(r) => self.remote_vectors(r, &vec_plan, &plan.filters, depth, now),
                None => self.vector_lists(&vec_plan, &plan.filters, depth, now),
            }))
            .unwrap_or_else(|_| {
                Err(RunError::Unavailable(Unavailable {
                    code: ErrorCode::Internal,
                    message: "the vector search panicked".into(),
                    fix: String::new(),
                }))
            })
        };
        let (lex_results, vec_results) = if vec_plan.is_empty() {
            (lex_lists(), None)
        } else if matches!(self.vec.get(), Some(Ok(_))) {
            // Warm (model and store open): both sides are CPU work; as tasks of the one pool they
            // share its two workers instead of a third thread preempting the scan's.
            let (lex, vec) = rayon::join(lex_lists, vec_lists);
            (lex, Some(vec))
        } else {
            // Fresh: the vector side blocks on loading the model and the store; the lexical lists
            // and the backlog count run meanwhile on this thread.
            std::thread::scope(|scope| {
                let vec_job = scope.spawn(vec_lists);
                let lex = lex_lists();
                // The embedding backlog (a registry count) while the query is embedded and
                // scanned: waits for the model to open, then runs beside the vector thread's
                // work; the warning later reads the cached answer.
                {
                    let _t = brain_doc::timings::span("backlog");
                    let _ = self.vector_lag();
                }
                let vec = vec_job.join().unwrap_or_else(|_| {
                    Err(RunError::Unavailable(Unavailable {
                        code: ErrorCode::Internal,
                        message: "the vector search thread panicked".into(),
                        fix: String::new(),
                    }))
                });
                (lex, Some(vec))
            })
        };
        let mut lists: Vec<Option<fusion::HitList>> = plan.lists.iter().map(|_| None).collect();
        for (i, r) in lex_results {
            let (hits, texts) = r?.into_iter().unzip();
            let mut list =
                fusion::HitList::new(plan.lists[i].name, plan.lists[i].weight, hits, texts);
            list.share = plan.lists[i].share;
            list.unsnipped = fusing && req.snippets;
            lists[i] = Some(list);
        }
        if let Some(r) = vec_results {
            for (i, hits_texts) in r? {
                let (hits, texts) = hits_texts.into_iter().unzip();
                let l = &plan.lists[i];
                let mut list = fusion::HitList::new(l.kind.name(), l.weight, hits, texts);
                list.share = l.share;
                lists[i] = Some(list);
            }
        }
        Ok(lists.into_iter().flatten().collect())
    }

    /// One lexical list: the sub-query's parse with the plan's filters added. Without `snippets`,
    /// hits carry their passage's first line and no snippet (see [`Engine::fill_snippets`]).
    fn lex_list(
        &self,
        query: &Query,
        filters: &Filters,
        depth: usize,
        req: &SearchRequest,
        now: &Zoned,
        snippets: bool,
    ) -> Result<Vec<(Hit, String)>, RunError> {
        if let Some(r) = &self.remote {
            return self.remote_lex(r, query, filters, depth, now, req.snippets);
        }
        let mut q = query.clone();
        q.filters.merge(filters);
        let opts = RankOptions {
            limit: depth,
            per_doc: req.per_doc,
            boosts: self.strategy.boosts(),
            snippets: req.snippets && snippets,
            pool: self.strategy.pool,
        };
        Ok(self.ranker()?.rank_with_text(&q, &opts, now.timestamp())?)
    }
}

/// Scale scores so the best hit is 1 and none is below 0 (a lexical list already is; cosines are
/// not).
fn normalize(hits: &mut [Hit]) {
    let top = hits.first().map_or(1.0, |h| h.score);
    if top > 0.0 && (top - 1.0).abs() > f64::EPSILON {
        for h in hits.iter_mut() {
            h.score = ((h.score / top).max(0.0) * 10_000.0).round() / 10_000.0;
        }
    }
}
