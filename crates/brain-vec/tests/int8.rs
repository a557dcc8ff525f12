//! The int8 scan returns exactly what scoring every row in f32 returns: same documents, rows, scores
//! and order, with filters, ties and every k — on clustered vectors, where near-ties are the rule.
//! A store of the schema before (f32 rows beside the int8 copy, or f32 alone) is still read.

use brain_vec::chunk::ChunkParams;
use brain_vec::embed::{Fingerprint, PROMPT_FORMAT, normalize};
use brain_vec::store::{Filter, Store};
use brain_vec::write::Writer;

mod common;

/// xorshift64*: deterministic pseudo-random numbers in [-0.5, 0.5).
fn rng(state: &mut u64) -> f32 {
    *state ^= *state >> 12;
    *state ^= *state << 25;
    *state ^= *state >> 27;
    ((state.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 40) as f32 / (1u64 << 24) as f32) - 0.5
}

/// A store of `docs` documents of 1–7 rows around a few cluster centres (so many scores are close),
/// with some rows repeated exactly (ties) and some documents without rows (the scan walks rows
/// document by document, across blocks of 1,024 rows); returns the centres.
fn build(dir: &std::path::Path, docs: usize, dims: usize, seed: u64) -> Vec<Vec<f32>> {
    let fp = Fingerprint {
        model: "test".into(),
        dims,
        chunking: ChunkParams::default(),
        prompt: PROMPT_FORMAT.into(),
    };
    let mut w = Writer::create(dir, None, fp).expect("writer");
    let mut s = seed;
    let centres: Vec<Vec<f32>> = (0..5)
        .map(|_| {
            let mut v: Vec<f32> = (0..dims).map(|_| rng(&mut s)).collect();
            normalize(&mut v);
            v
        })
        .collect();
    let mut last: Vec<f32> = centres[0].clone();
    for d in 0..docs {
        let n = if d % 13 == 5 { 0 } else { 1 + (d * 7 + 3) % 7 };
        let vecs: Vec<Vec<f32>> = (0..n)
            .map(|r| {
                if (d + r) % 11 == 0 {
                    return last.clone(); // an exact tie with the previous row
                }
                let c = &centres[(d + r) % centres.len()];
                let mut v: Vec<f32> = c.iter().map(|x| x + 0.15 * rng(&mut s)).collect();
                normalize(&mut v);
                last = v.clone();
                v
            })
            .collect();
        let rows: Vec<(u64, &str, &[f32])> = vecs.iter().map(|v| (1, "t", v.as_slice())).collect();
        let collection = if d % 3 == 0 { "a" } else { "b" };
        let entry = common::entry(d, collection, &format!("2026-01-{:02}", 1 + d % 28));
        w.push(entry, &rows).expect("push");
    }
    w.commit().expect("commit");
    centres
}

/// Rewrite a current store as one of schema 2 without its int8 copy: its rows as f32 (the
/// vectors the int8 rows stand for), the manifest saying schema 2 and no `int8` field.
fn as_schema_2_f32(dir: &std::path::Path) {
    let g = common::write_f32_rows(dir);
    std::fs::remove_file(dir.join(format!("g{g}.q8"))).expect("rm q8");
    common::set_manifest(dir, "schema", Some(2.into()));
    common::set_manifest(dir, "int8", None);
}

#[test]
fn int8_scan_equals_the_f32_scan() {
    for (seed, docs, dims) in [(1u64, 600, 384), (7, 250, 37), (42, 1500, 64)] {
        let int8 = tempfile::tempdir().expect("tmp");
        let f32dir = tempfile::tempdir().expect("tmp");
        let centres = build(int8.path(), docs, dims, seed);
        build(f32dir.path(), docs, dims, seed);
        as_schema_2_f32(f32dir.path());
        let (a, b) = (
            Store::open(int8.path()).expect("open"),
            Store::open(f32dir.path()).expect("open"),
        );
        assert!(a.manifest.int8 && !b.manifest.int8);
        assert_eq!(
            (a.manifest.schema, b.manifest.schema),
            (brain_vec::store::SCHEMA, 2)
        );
        let mut s = seed ^ 0xABCD;
        let mut queries: Vec<Vec<f32>> = centres.clone();
        for c in &centres {
            let mut q: Vec<f32> = c.iter().map(|x| x + 0.3 * rng(&mut s)).collect();
            normalize(&mut q);
            queries.push(q);
        }
        let filters = [
            Filter::default(),
            Filter {
                collections: vec!["a".into()],
                ..Filter::default()
            },
            Filter {
                since: Some(1_767_225_600 + 20 * 86_400),
                ..Filter::default()
            }, // 2026-01-21
            Filter {
                collections: vec!["none".into()],
                ..Filter::default()
            },
        ];
        for q in &queries {
            for f in &filters {
                for k in [1, 3, 10, 50, docs + 5] {
                    let got = a.search(q, k, f);
                    assert_eq!(
                        got,
                        a.search_exhaustive(q, k, f),
                        "seed {seed} k {k} filter {f:?}"
                    );
                    assert_eq!(got, b.search(q, k, f), "seed {seed} k {k} filter {f:?}");
                }
            }
        }
    }
}

#[test]
fn a_store_without_the_int8_field_opens_and_scans_in_f32() {
    let dir = tempfile::tempdir().expect("tmp");
    let centres = build(dir.path(), 40, 16, 3);
    let want = Store::open(dir.path())
        .expect("open")
        .search(&centres[0], 5, &Filter::default());
    as_schema_2_f32(dir.path());
    let s = Store::open(dir.path()).expect("open");
    assert!(!s.manifest.int8);
    assert_eq!(s.search(&centres[0], 5, &Filter::default()), want);
}

/// A schema-3 store holds no f32 rows: its vectors are its int8 rows, a quarter of the bytes, and
/// each is within int8 rounding of the vector written (cosine ≥ 0.999). Int8 rows cut short, or a
/// schema-3 manifest that says it has none, are a damaged store.
#[test]
fn a_schema_3_store_is_its_int8_rows() {
    let dir = tempfile::tempdir().expect("tmp");
    build(dir.path(), 60, 384, 9);
    let s = Store::open(dir.path()).expect("open");
    let g = s.manifest.generation;
    assert!(!dir.path().join(format!("g{g}.vec")).exists());
    let q8 = std::fs::metadata(dir.path().join(format!("g{g}.q8")))
        .expect("q8")
        .len() as usize;
    assert_eq!(q8, s.len() * (384 + 8));
    for i in 0..s.len() {
        let v = s.vector(i);
        let norm: f32 = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        assert!((norm - 1.0).abs() < 0.01, "row {i}: norm {norm}");
    }
    drop(s);
    // Its int8 rows cut short: a damaged store, not rows read out of bounds.
    let q8_path = dir.path().join(format!("g{g}.q8"));
    let q8_bytes = std::fs::read(&q8_path).expect("q8");
    std::fs::write(&q8_path, &q8_bytes[..q8_bytes.len() - 5]).expect("cut");
    assert!(matches!(
        Store::open(dir.path()),
        Err(brain_vec::VecError::IndexCorrupt { .. })
    ));
    std::fs::write(&q8_path, &q8_bytes).expect("restore");
    common::set_manifest(dir.path(), "int8", Some(false.into()));
    assert!(matches!(
        Store::open(dir.path()),
        Err(brain_vec::VecError::IndexCorrupt { .. })
    ));
}
