//! The lexical list a query brings to fusion, timed alone: for each query, the p50 of
//! `Ranker::rank_with_text` at each depth (no snippets, as the hybrid runs it).
//!
//!     cargo run --release -p brain-rank --example lex_list -- DEPTH[,DEPTH…] QUERY…
//!
//! Reads `$BRAIN_HOME`; `BRAIN_NOW` fixes the clock; `RUNS` (default 21) runs per figure;
//! `PER_HIT` sets `pool.per_hit` (the candidates fetched per wanted document).

use std::time::Instant;

use brain_rank::{Query, RankOptions, Ranker, Strategy};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 3 {
        return Err("usage: lex_list DEPTH[,DEPTH…] QUERY…".into());
    }
    let home = brain_store::Home::from_env();
    let ranker = Ranker::open(&home)?;
    let depths: Vec<usize> = args[1]
        .split(',')
        .map(str::parse)
        .collect::<Result<_, _>>()?;
    let mut strategy = Strategy::default();
    if let Some(n) = std::env::var("PER_HIT").ok().and_then(|r| r.parse().ok()) {
        strategy.pool.per_hit = n;
    }
    let now = brain_rank::clock::now();
    let runs: usize = std::env::var("RUNS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(21);
    for text in &args[2..] {
        let q = Query::parse(text, &now)?;
        for &depth in &depths {
            let opts = RankOptions {
                limit: depth,
                per_doc: 1,
                boosts: strategy.boosts(),
                snippets: false,
                pool: strategy.pool,
            };
            let mut ms = Vec::new();
            let mut n = 0;
            for _ in 0..runs {
                let t = Instant::now();
                n = ranker.rank_with_text(&q, &opts, now.timestamp())?.len();
                ms.push(t.elapsed().as_secs_f64() * 1e3);
            }
            ms.sort_by(f64::total_cmp);
            print!(" | depth {depth}: {:6.2} ms ({n} hits)", ms[ms.len() / 2]);
        }
        println!("  {text}");
    }
    Ok(())
}
