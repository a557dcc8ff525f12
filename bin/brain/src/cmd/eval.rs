//! `brain eval DIR` — index a BEIR-format set into a temporary home and score every judged query.

use std::io::Write;
use std::path::PathBuf;

use brain_cli::{Exit, Failure, Stdout};
use brain_eval::{EvalOptions, evaluate};
use brain_rank::{RankOptions, Strategy};

#[derive(clap::Args)]
pub struct Args {
    /// The BEIR folder (corpus.jsonl, queries.jsonl, qrels/<split>.tsv).
    dir: PathBuf,
    /// The qrels split to score.
    #[arg(long, default_value = "test")]
    split: String,
    /// Only the first N judged queries.
    #[arg(long, value_name = "N")]
    max_queries: Option<usize>,
    /// A search_strategy.yaml to evaluate instead of the defaults.
    #[arg(long, value_name = "FILE")]
    strategy: Option<PathBuf>,
    /// Print the report as one JSON object.
    #[arg(long)]
    json: bool,
}

pub fn run(a: Args) -> anyhow::Result<Exit> {
    let strategy = match &a.strategy {
        Some(p) => Strategy::load(p)
            .map_err(|e| Failure::new(brain_doc::ErrorCode::BadQuery, e.to_string()))?,
        None => Strategy::default(),
    };
    let opts = EvalOptions {
        dir: a.dir.clone(),
        split: a.split.clone(),
        max_queries: a.max_queries,
        rank: RankOptions {
            boosts: strategy.boosts(),
            per_doc: 1,
            ..RankOptions::default()
        },
    };
    let r = evaluate(&opts).map_err(|e| Failure::new(e.code(), e.to_string()))?;
    let mut out = Stdout::new();
    if a.json {
        brain_doc::ndjson::write_line(&mut out, &r)?;
    } else {
        writeln!(
            out,
            "{} ({} split): {} docs, {} passages, {} queries",
            r.dataset, r.split, r.docs, r.passages, r.queries
        )?;
        writeln!(out, "nDCG@10    {:.4}", r.ndcg_at_10)?;
        writeln!(out, "MRR@10     {:.4}", r.mrr_at_10)?;
        writeln!(out, "Recall@10  {:.4}", r.recall_at_10)?;
        writeln!(out, "Recall@100 {:.4}", r.recall_at_100)?;
        writeln!(out, "index      {} ms", r.index_ms)?;
        let l = &r.latency_ms;
        writeln!(
            out,
            "latency    p50 {:.2} ms  p95 {:.2} ms  p99 {:.2} ms  max {:.2} ms (in process)",
            l.p50, l.p95, l.p99, l.max
        )?;
    }
    out.flush()?;
    Ok(Exit::Success)
}
