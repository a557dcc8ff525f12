//! Term statistics per field, over all segments: distinct terms, terms in one passage only,
//! postings, term bytes. Where the index's term dictionary goes.
//!
//!     cargo run --release -p brain-lex --example terms -- INDEX_DIR [SAMPLE_FIELD]

use brain_lex::LexIndex;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let lex = LexIndex::open_dir(std::path::Path::new(
        args.get(1).ok_or("usage: terms INDEX_DIR")?,
    ))?;
    let searcher = lex.reader()?.searcher();
    let schema = lex.index().schema();
    for (field, entry) in schema.fields() {
        if !entry.is_indexed() {
            continue;
        }
        let mut df: std::collections::HashMap<Vec<u8>, u64> = std::collections::HashMap::new();
        for seg in searcher.segment_readers() {
            let inv = seg.inverted_index(field)?;
            let mut stream = inv.terms().stream()?;
            while stream.advance() {
                *df.entry(stream.key().to_vec()).or_default() += u64::from(stream.value().doc_freq);
            }
        }
        let terms = df.len();
        let once = df.values().filter(|&&n| n == 1).count();
        let postings: u64 = df.values().sum();
        let bytes: usize = df.keys().map(Vec::len).sum();
        let mut sample: Vec<String> = Vec::new();
        if args.get(2).is_some_and(|f| f == entry.name()) {
            let mut keys: Vec<&Vec<u8>> = df
                .iter()
                .filter(|(_, n)| **n == 1)
                .map(|(k, _)| k)
                .collect();
            keys.sort();
            let step = (keys.len() / 60).max(1);
            sample = keys
                .iter()
                .step_by(step)
                .map(|k| String::from_utf8_lossy(k).into_owned())
                .collect();
        }
        println!(
            "{:12} terms {terms:>9}  in one passage {once:>9}  postings {postings:>10}  term bytes {bytes:>10}",
            entry.name()
        );
        if !sample.is_empty() {
            println!("  {}", sample.join(" "));
        }
    }
    Ok(())
}
