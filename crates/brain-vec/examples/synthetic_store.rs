//! A vector store for an indexed home with random unit vectors in place of embeddings: every
//! collection read and chunked exactly as `vecindex --all` does (so the row count is the real one),
//! without the hours of CPU embedding 10,000 files takes. For latency benchmarks only
//! (bench/hybrid.sh): a brute-force scan costs the same whatever the vectors say. The registry is
//! marked as vecindex marks it, so the engine sees no embedding backlog.
//!
//!     cargo run --release -p brain-vec --example synthetic_store -- $BRAIN_HOME

use brain_store::{Config, Home, Registry};
use brain_vec::chunk::{self, ChunkParams};
use brain_vec::embed::{EmbedderSpec, Fingerprint, PROMPT_FORMAT, normalize};
use brain_vec::store::DocEntry;
use brain_vec::write::Writer;

/// xorshift64*: deterministic pseudo-random numbers without a dependency.
fn rng(state: &mut u64) -> f32 {
    *state ^= *state >> 12;
    *state ^= *state << 25;
    *state ^= *state >> 27;
    ((state.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 40) as f32 / (1u64 << 24) as f32) - 0.5
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let root = std::env::args()
        .nth(1)
        .ok_or("usage: synthetic_store BRAIN_HOME")?;
    let home = Home::at(root);
    let config = Config::load(&home)?;
    let inputs = brain_vec::corpus::read(&config, &|w| eprintln!("warning: {w}"));
    let dims = 384;
    // Made as if by the model in force ($BRAIN_EMBEDDER, else the home's), so its queries open it.
    let spec = EmbedderSpec::from_env(&home.models())?;
    let fp = Fingerprint {
        model: spec.model_id(),
        dims,
        chunking: ChunkParams::default(),
        prompt: format!("{PROMPT_FORMAT}{}", spec.recipe_tag()),
    };
    let dir = home.vectors();
    let mut w = Writer::create(&dir, None, fp.clone())?;
    let mut s = 0x9E37_79B9_7F4A_7C15u64;
    let mut rows_total = 0;
    for input in &inputs {
        let chunks = chunk::chunk(&input.doc.body, ChunkParams::default());
        let vecs: Vec<Vec<f32>> = chunks
            .iter()
            .map(|_| {
                let mut v: Vec<f32> = (0..dims).map(|_| rng(&mut s)).collect();
                normalize(&mut v);
                v
            })
            .collect();
        let rows: Vec<(u64, &str, &[f32])> = chunks
            .iter()
            .zip(&vecs)
            .map(|(c, v)| (c.line, c.text.as_str(), v.as_slice()))
            .collect();
        rows_total += rows.len();
        let d = &input.doc;
        let entry = DocEntry {
            id: d.id.clone(),
            collection: input.collection(),
            path: d.path.clone(),
            title: d.title.clone(),
            date: d.date.clone(),
            project: None,
            agent: d.source.agent.clone(),
            hash: input.hash(),
            body_line: input.body_line,
            first: 0,
            count: 0,
        };
        w.push(entry, &rows)?;
    }
    w.commit()?;
    let mut reg = Registry::open(&home)?;
    let ids: Vec<String> = reg.files()?.into_iter().map(|f| f.id).collect();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64);
    reg.mark_embedded(&fp.id(), now, ids.iter().map(String::as_str))?;
    eprintln!(
        "synthetic store: {} documents, {rows_total} rows in {}",
        inputs.len(),
        dir.display()
    );
    Ok(())
}
