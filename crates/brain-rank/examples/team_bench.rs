//! The team engine's push and query costs (bench/team.sh): every collection of a home sent through
//! the `teamindex` sink with synthetic unit vectors (embedding a million passages for real is a
//! night's work on two cores, and the engine indexes any vectors at the same cost), then queries
//! answered through brain's full path against the engine, warm, in process.
//!
//!   cargo run --release -p brain-rank --example team_bench -- HOME URL INDEX [RUNS]
//!
//! Prints one JSON line: documents, passages, push seconds and passages/s; lexical (brain's plan,
//! fusion and signals, in process) and k-NN (one `{!knn}` request) p50 and p95 in ms.

use std::time::{Duration, Instant};

use brain_rank::engine::Remote;
use brain_store::{Config, Home};
use brain_team::TeamError;
use brain_team::mapping::Mapping;
use brain_team::record::{Piece, Pieces};
use brain_team::sink::{Options, Vectors};

const DIMS: usize = 384;
const QUERIES: [&str; 6] = [
    "why did the cache migration fail",
    "retry timeout in the worker queue",
    "flaky test panic thread",
    "how do we deploy a branch for review",
    "lock contention between two writers",
    "what broke the embedding model",
];

/// Unit vectors from a hash of the text (a fixed stream per passage).
struct Synthetic(brain_team::home::Cutting);

fn unit(seed: &str) -> Vec<f32> {
    let mut x =
        u64::from_str_radix(&brain_doc::sha256_hex(seed.as_bytes())[..16], 16).unwrap_or(1) | 1;
    let mut v: Vec<f32> = (0..DIMS)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 40) as f32 / (1u64 << 24) as f32 - 0.5
        })
        .collect();
    let n = v
        .iter()
        .map(|a| a * a)
        .sum::<f32>()
        .sqrt()
        .max(f32::MIN_POSITIVE);
    v.iter_mut().for_each(|a| *a /= n);
    v
}

impl Vectors for Synthetic {
    fn mapping(&self) -> Mapping {
        Mapping::new("synthetic", DIMS)
    }
    fn pieces(&self, collection: &str, body: &str) -> Pieces {
        self.0.pieces(collection, body)
    }
    fn embed(&self, title: &str, pieces: &[Piece]) -> Result<Vec<Vec<f32>>, TeamError> {
        Ok(pieces
            .iter()
            .map(|p| unit(&format!("{title}\n{}", p.text)))
            .collect())
    }
}

fn pct(v: &mut [f64], p: f64) -> f64 {
    v.sort_by(f64::total_cmp);
    let i = ((v.len() as f64 - 1.0) * p).round() as usize;
    (v.get(i).copied().unwrap_or(0.0) * 10.0).round() / 10.0
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let [_, home, url, index, rest @ ..] = args.as_slice() else {
        return Err("usage: team_bench HOME URL INDEX [RUNS]".into());
    };
    let runs: usize = rest.first().and_then(|r| r.parse().ok()).unwrap_or(5);
    let home = Home::at(home);
    let config = Config::load(&home)?;
    let engine = brain_team::Engine::connect(url, index, None, Duration::from_secs(300))?;
    let inputs = brain_team::home::inputs(brain_vec::corpus::read(&config, &|w| eprintln!("{w}")));
    let shared: Vec<String> = config.collections.iter().map(|c| c.name.clone()).collect();
    let docs = inputs.len();
    let t = Instant::now();
    let s = brain_team::sink::push(
        &home.team_state(&brain_team::sink::state_key(&engine)),
        &engine,
        &Synthetic(brain_team::home::Cutting::of(&config)),
        inputs,
        &shared,
        &brain_team::record::Who::from_env(None),
        &Options {
            batch: 1000,
            prune: true,
            ..Options::default()
        },
        &|w| eprintln!("{w}"),
        &|_| {},
    )?;
    let push_s = t.elapsed().as_secs_f64();
    if let Some(why) = s.offline {
        return Err(why.into());
    }
    let total = engine.select(&[("q".into(), "*:*".into()), ("rows".into(), "0".into())])?;
    let held = total["response"]["numFound"].as_u64().unwrap_or(0);

    let now = brain_rank::clock::now();
    let local = brain_rank::Engine::open(&home)?;
    let eng = local.with_remote(Remote::new(
        brain_team::Engine::connect(url, index, None, Duration::from_secs(60))?,
        Vec::new(),
    ));
    let (mut lex, mut knn) = (Vec::new(), Vec::new());
    for _ in 0..runs {
        for q in QUERIES {
            let req = eng
                .request(&now)
                .plain(q)?
                .limit(10, 1)
                .mode(brain_rank::route::Mode::Lex)
                .build();
            let t = Instant::now();
            let a = eng.search(&req, &now)?;
            lex.push(t.elapsed().as_secs_f64() * 1e3);
            if a.hits.is_empty() {
                return Err(format!("no hits for {q}").into());
            }
            let params =
                brain_team::query::vector(&unit(q), &brain_team::query::Filter::default(), 10);
            let t = Instant::now();
            let v = engine.select(&params)?;
            knn.push(t.elapsed().as_secs_f64() * 1e3);
            if brain_team::query::found(&v).is_empty() {
                return Err(format!("no k-NN hits for {q}").into());
            }
        }
    }
    println!(
        "{}",
        serde_json::json!({
            "docs": docs, "passages": s.passages, "held": held,
            "sent": s.sent, "unchanged": s.unchanged,
            "push_s": (push_s * 10.0).round() / 10.0,
            "passages_per_s": if push_s > 0.0 { (s.passages as f64 / push_s).round() } else { 0.0 },
            "lex_p50_ms": pct(&mut lex, 0.5), "lex_p95_ms": pct(&mut lex, 0.95),
            "knn_p50_ms": pct(&mut knn, 0.5), "knn_p95_ms": pct(&mut knn, 0.95),
        })
    );
    Ok(())
}
