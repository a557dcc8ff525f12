//! Retrieval evaluation for `brain eval`.
//!
//! * [`beir`] — loading a BEIR-format set: `corpus.jsonl` (`_id`, `title`, `text`), `queries.jsonl`
//!   (`_id`, `text`), `qrels/<split>.tsv` (`query-id`, `corpus-id`, `score`, with a header);
//! * [`evidence`] — evidence in context: whether the text that answers a question is inside the
//!   block an agent receives, at a token budget;
//! * [`metrics`] — nDCG@k (linear gain, as trec_eval/pytrec_eval compute it for BEIR), MRR@k,
//!   Recall@k, latency percentiles;
//! * `bench` — a set indexed into a (temporary) home with the library indexer, the engine open;
//! * [`run`] — rank every query in process, and report;
//! * [`tune`] — `brain tune`: the keep-or-revert loop over the strategy's knobs, judged on a
//!   train part and accepted on a dev part (issue #24).

pub mod beir;
mod bench;
pub mod evidence;
pub mod metrics;
mod report;
mod run;
mod team;
pub mod tune;

pub use evidence::{Assemble, Assembled};
pub use run::{Bench, EvalError, EvalOptions, Latency, Report, evaluate, hit_id};
