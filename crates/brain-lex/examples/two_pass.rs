//! The two-pass lexical search against the one-pass search it stands in for: for each query and pool
//! size, the p50 time of each, whether the pool proved its top (or the search fell back to one
//! pass), and how many of the one-pass top `LIMIT` passages it kept (with the largest score
//! difference among them).
//!
//!     cargo run --release -p brain-lex --example two_pass -- INDEX_DIR LIMIT POOL[,POOL…] QUERY…
//!
//! INDEX_DIR is `$BRAIN_HOME/index/lex`; a query's words are split on whitespace, as `rank` does.

use std::time::Instant;

use brain_lex::LexIndex;
use brain_lex::search::{Boosts, LexQuery, Searcher};

fn p50(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 5 {
        return Err("usage: two_pass INDEX_DIR LIMIT POOL[,POOL…] QUERY…".into());
    }
    let lex = LexIndex::open_dir(std::path::Path::new(&args[1]))?;
    let s = Searcher::new(&lex)?;
    let limit: usize = args[2].parse()?;
    let pools: Vec<usize> = args[3]
        .split(',')
        .map(str::parse)
        .collect::<Result<_, _>>()?;
    let b = Boosts::default();
    let runs = 9;
    println!("{} passages; limit {limit}", s.num_passages());
    for text in &args[4..] {
        let q = LexQuery {
            terms: text.split_whitespace().map(str::to_string).collect(),
            ..LexQuery::default()
        };
        let mut one = Vec::new();
        let t1 = p50((0..runs)
            .map(|_| {
                let t = Instant::now();
                one = s.candidates_one_pass(&q, &b, limit).unwrap_or_default();
                t.elapsed().as_secs_f64() * 1e3
            })
            .collect());
        print!("{t1:7.2} ms one pass");
        for &pool in &pools {
            let mut two = Vec::new();
            let mut proven = false;
            let t2 = p50((0..runs)
                .map(|_| {
                    let t = Instant::now();
                    (two, proven) = s
                        .candidates_with_pool(&q, &b, limit, pool)
                        .unwrap_or_default();
                    t.elapsed().as_secs_f64() * 1e3
                })
                .collect());
            let kept = one
                .iter()
                .filter(|(_, a)| two.iter().any(|(_, x)| x == a))
                .count();
            let diff = one
                .iter()
                .filter_map(|(s1, a)| {
                    two.iter()
                        .find(|(_, x)| x == a)
                        .map(|(s2, _)| (s1 - s2).abs())
                })
                .fold(0f32, f32::max);
            let path = if proven { "two pass" } else { "fell back" };
            print!(
                " | pool {pool}: {t2:6.2} ms {path}, kept {kept}/{} (Δ {diff:.1e})",
                one.len()
            );
        }
        println!("  {text}");
    }
    Ok(())
}
