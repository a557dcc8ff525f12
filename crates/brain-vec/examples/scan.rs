//! Query-side figures: store open, brute-force scan p50, and (with a model folder) model load and query
//! embedding — the parts of a fresh-process vector query. Used by bench/query.sh.
//!
//!     cargo run --release -p brain-vec --example scan -- [ROWS | STORE_DIR] [MODEL_DIR]
//!
//! With ROWS, a store of random unit vectors is built in a temp dir and queried with random vectors;
//! with the directory of a real store (`$BRAIN_HOME/index/vec`), its own rows (perturbed) are the
//! queries. Both report the rows the int8 scan had to rescore in f32.

use std::time::Instant;

use brain_vec::chunk::ChunkParams;
use brain_vec::embed::{Embedder, Fingerprint, PROMPT_FORMAT, normalize};
use brain_vec::store::{DocEntry, Filter, Store};
use brain_vec::write::Writer;

/// xorshift64*: deterministic pseudo-random vectors without a dependency.
fn rng(state: &mut u64) -> f32 {
    *state ^= *state >> 12;
    *state ^= *state << 25;
    *state ^= *state >> 27;
    ((state.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 40) as f32 / (1u64 << 24) as f32) - 0.5
}

fn p50(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let real = args
        .get(1)
        .map(std::path::PathBuf::from)
        .filter(|p| p.is_dir());
    let rows: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(100_000);
    let dims = 384;
    let per_doc = 6;
    let tmp = tempfile::tempdir()?;
    let dir = real.clone().unwrap_or_else(|| tmp.path().to_path_buf());
    let fp = Fingerprint {
        model: "local:all-MiniLM-L6-v2".into(),
        dims,
        chunking: ChunkParams::default(),
        prompt: PROMPT_FORMAT.into(),
    };
    let mut s = 0x9E37_79B9_7F4A_7C15u64;
    if real.is_none() {
        build(&dir, rows, dims, per_doc, fp, &mut s)?;
    }
    let t = Instant::now();
    let store = Store::open(&dir)?;
    let open_ms = t.elapsed().as_secs_f64() * 1e3;
    let dims = store.manifest.fingerprint.dims;
    let queries: Vec<Vec<f32>> = (0..21)
        .map(|i| {
            let mut v: Vec<f32> = if real.is_some() {
                let row = store.vector(i * store.len() / 21);
                row.iter().map(|x| x + 0.05 * rng(&mut s)).collect()
            } else {
                (0..dims).map(|_| rng(&mut s)).collect()
            };
            normalize(&mut v);
            v
        })
        .collect();
    let rescored = p50(queries
        .iter()
        .map(|q| store.search_traced(q, 10, &Filter::default()).1 as f64)
        .collect());
    let time = |f: &Filter| {
        p50(queries
            .iter()
            .map(|q| {
                let t = Instant::now();
                let hits = store.search(q, 10, f);
                assert!(hits.len() <= 10);
                t.elapsed().as_secs_f64() * 1e3
            })
            .collect())
    };
    let all = time(&Filter::default());
    let one = time(&Filter {
        collections: vec![
            store
                .docs
                .get(1)
                .map_or_else(String::new, |d| d.collection.to_owned()),
        ],
        ..Filter::default()
    });
    println!(
        "rows: {} × {dims}, docs: {}, int8 copy: {}; rows rescored in f32 per query p50: {rescored:.0}",
        store.len(),
        store.docs.len(),
        store.manifest.int8
    );
    println!(
        "store open: {open_ms:.1} ms; scan p50: {all:.1} ms (all), {one:.1} ms (one collection)"
    );
    if let Some(model) = args.get(2) {
        let t = Instant::now();
        let bert = brain_vec::bert::Bert::load(std::path::Path::new(model))?;
        let load_ms = t.elapsed().as_secs_f64() * 1e3;
        let q = "how do I fix authorization failures in the gateway?";
        let emb = p50((0..11)
            .map(|_| {
                let t = Instant::now();
                let _ = bert.embed(&[q]);
                t.elapsed().as_secs_f64() * 1e3
            })
            .collect());
        println!("model load: {load_ms:.0} ms; query embedding p50: {emb:.1} ms");
        println!(
            "fresh-process vector query ≈ {:.0} ms (load + embed + open + scan); warm ≈ {:.0} ms",
            load_ms + emb + open_ms + all,
            emb + all
        );
    }
    Ok(())
}

/// A store of `rows` random unit vectors, `per_doc` rows per document, in four collections.
fn build(
    dir: &std::path::Path,
    rows: usize,
    dims: usize,
    per_doc: usize,
    fp: Fingerprint,
    s: &mut u64,
) -> Result<(), Box<dyn std::error::Error>> {
    let mut w = Writer::create(dir, None, fp)?;
    let text = "x".repeat(200);
    for d in 0..rows.div_ceil(per_doc) {
        let vecs: Vec<Vec<f32>> = (0..per_doc)
            .map(|_| {
                let mut v: Vec<f32> = (0..dims).map(|_| rng(s)).collect();
                normalize(&mut v);
                v
            })
            .collect();
        let rows: Vec<(u64, &str, &[f32])> = vecs
            .iter()
            .map(|v| (1, text.as_str(), v.as_slice()))
            .collect();
        let entry = DocEntry {
            id: format!("c{}/doc{d}.md", d % 4),
            collection: format!("c{}", d % 4),
            path: format!("doc{d}.md"),
            title: format!("Document {d}"),
            date: format!("2026-0{}-1{}", 1 + d % 9, d % 10),
            project: None,
            agent: None,
            hash: String::new(),
            body_line: 1,
            first: 0,
            count: 0,
        };
        w.push(entry, &rows)?;
    }
    w.commit()?;
    Ok(())
}
