//! Query embedding latency alone: load the model (timed once), embed one short query N times, print p50.
//!
//!     cargo run --release -p brain-vec --example embed_query -- MODEL_DIR [N]

use std::time::Instant;

use brain_vec::embed::Embedder;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let model = args.get(1).ok_or("usage: embed_query MODEL_DIR [N]")?;
    let n: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(200);
    let s = Instant::now();
    let bert = brain_vec::bert::Bert::load(std::path::Path::new(model))?;
    println!("model load: {:.2} ms", s.elapsed().as_secs_f64() * 1e3);
    let q = "how do I fix authorization failures in the gateway?";
    let mut t: Vec<f64> = (0..n)
        .map(|_| {
            let s = Instant::now();
            let _ = bert.embed(&[q]);
            s.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    t.sort_by(f64::total_cmp);
    println!(
        "query embedding: p50 {:.2} ms, min {:.2} ms over {n}",
        t[n / 2],
        t[0]
    );
    Ok(())
}
