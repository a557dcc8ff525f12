//! Retrieval evaluation for `brain eval`.
//!
//! * [`beir`] — loading a BEIR-format set: `corpus.jsonl` (`_id`, `title`, `text`), `queries.jsonl`
//!   (`_id`, `text`), `qrels/<split>.tsv` (`query-id`, `corpus-id`, `score`, with a header);
//! * [`metrics`] — nDCG@k (linear gain, as trec_eval/pytrec_eval compute it for BEIR), MRR@k,
//!   Recall@k, latency percentiles;
//! * [`run`] — index a set into a temporary home with the library indexer, rank every query in
//!   process, and report.

pub mod beir;
pub mod metrics;
mod run;

pub use run::{EvalError, EvalOptions, Latency, Report, evaluate};
