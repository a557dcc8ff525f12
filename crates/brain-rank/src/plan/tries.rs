//! The searches one request may take, decided once before any runs: [`tries`] lists them in
//! order, [`Engine::search`](crate::Engine::search) runs them in one loop and stops at the first
//! that fills the list. Each try after the first runs only when the attempt before it came up
//! short in the way that try repairs ([`Try::runs_after`]):
//!
//! * [`Try::Sessions`] — a single list (nothing fused) fetched `limit` deep lost places to
//!   documents that repeat a session: the same request again, deeper by twice as many as moved.
//! * [`Try::Duplicates`] — collapsing near-duplicates emptied places of a full list: the same
//!   request with [`deeper_limit`] (its own session refill may follow).
//! * [`Try::Relaxed`] — nothing matched a "quoted phrase" or a -negation (auto mode): the words
//!   without them, with the same refills after it.

use crate::dedup::Collapse;
use crate::request::SearchRequest;
use crate::route::Mode;

/// One search of the loop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Try {
    /// The request as asked.
    Asked,
    /// Phrases read as words, exclusions dropped.
    Relaxed,
    /// The request of the attempt before, deeper by twice the documents that repeated a session.
    Sessions,
    /// The request of the attempt before, `limit` [`deeper_limit`] (near-duplicates collapsed it).
    Duplicates,
}

/// How an attempt came up short: what a deeper search of the same request would refill.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Short {
    /// The list is as full as the request can fill it.
    #[default]
    No,
    /// A single list lost this many places to documents repeating a session (the attempt stopped
    /// before settling: the next try runs deeper).
    Sessions(usize),
    /// Collapsing near-duplicates emptied places of a full list.
    Duplicates,
}

/// A deduplicated answer that lost documents searches again this many times `limit` deep …
const DEDUP_DEPTH: usize = 3;
/// … but at most this many documents more (a `-n 500` does not search 1,500 deep).
const DEDUP_EXTRA_MAX: usize = 40;

/// The tries of `req`, in order: the request as asked and its refills, then (auto mode, a plain
/// query with a phrase or an exclusion) the relaxed request and its refills. A session refill
/// follows each search because its attempt may lose places to repeated sessions; a duplicate
/// refill only when the request collapses near-duplicates.
pub fn tries(req: &SearchRequest) -> Vec<Try> {
    let refills: &[Try] = if req.collapse == Collapse::Off {
        &[Try::Sessions]
    } else {
        &[Try::Sessions, Try::Duplicates, Try::Sessions]
    };
    let mut out = vec![Try::Asked];
    out.extend_from_slice(refills);
    if req.mode == Mode::Auto && req.plain.as_ref().is_some_and(|p| p.relaxable()) {
        out.push(Try::Relaxed);
        out.extend_from_slice(refills);
    }
    out
}

impl Try {
    /// Whether this try runs after an attempt that came up `short`, the answer so far holding
    /// hits or not (`found`).
    pub fn runs_after(self, short: Short, found: bool) -> bool {
        match self {
            Try::Asked => true,
            Try::Relaxed => !found,
            Try::Sessions => matches!(short, Short::Sessions(_)),
            Try::Duplicates => short == Short::Duplicates,
        }
    }
}

/// The limit a duplicate refill searches with, for an answer of `want` documents.
pub fn deeper_limit(want: usize) -> usize {
    want.saturating_mul(DEDUP_DEPTH)
        .min(want.saturating_add(DEDUP_EXTRA_MAX))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::strategy::Strategy;

    fn req(text: &str, mode: Mode, collapse: Collapse) -> SearchRequest {
        let now: jiff::Zoned = "2026-04-10T12:00:00+00:00[UTC]".parse().expect("now");
        let mut r = SearchRequest::builder(&now, &Strategy::default())
            .text(text)
            .expect("text")
            .mode(mode)
            .build();
        r.collapse = collapse;
        r
    }

    #[test]
    fn the_tries_of_a_request_are_listed_once_in_order() {
        use Try::*;
        let cases = [
            (
                "cache migration",
                Mode::Auto,
                Collapse::Off,
                vec![Asked, Sessions],
            ),
            (
                "cache migration",
                Mode::Auto,
                Collapse::Quiet,
                vec![Asked, Sessions, Duplicates, Sessions],
            ),
            (
                "\"cache migration\" -redis",
                Mode::Auto,
                Collapse::Off,
                vec![Asked, Sessions, Relaxed, Sessions],
            ),
            (
                "\"cache migration\"",
                Mode::Auto,
                Collapse::Said,
                vec![
                    Asked, Sessions, Duplicates, Sessions, Relaxed, Sessions, Duplicates, Sessions,
                ],
            ),
            // Asked for a mode: the phrase is a requirement, not a hint.
            (
                "\"cache migration\"",
                Mode::Lex,
                Collapse::Off,
                vec![Asked, Sessions],
            ),
        ];
        for (text, mode, collapse, want) in cases {
            assert_eq!(
                tries(&req(text, mode, collapse)),
                want,
                "{text} {mode:?} {collapse:?}"
            );
        }
    }

    #[test]
    fn each_refill_runs_only_after_the_shortfall_it_repairs() {
        let cases = [
            (Try::Asked, Short::No, false, true),
            (Try::Sessions, Short::No, true, false),
            (Try::Sessions, Short::Sessions(2), true, true),
            (Try::Sessions, Short::Duplicates, true, false),
            (Try::Duplicates, Short::Duplicates, true, true),
            (Try::Duplicates, Short::Sessions(1), true, false),
            (Try::Relaxed, Short::No, true, false),
            (Try::Relaxed, Short::No, false, true),
        ];
        for (t, short, found, runs) in cases {
            assert_eq!(
                t.runs_after(short, found),
                runs,
                "{t:?} after {short:?}, found {found}"
            );
        }
    }

    #[test]
    fn a_duplicate_refill_searches_three_times_deeper_and_at_most_forty_more() {
        assert_eq!(deeper_limit(5), 15);
        assert_eq!(deeper_limit(20), 60);
        assert_eq!(deeper_limit(500), 540);
        assert_eq!(deeper_limit(usize::MAX), usize::MAX);
    }
}
