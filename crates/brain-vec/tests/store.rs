//! The vector store and incremental indexing, with a deterministic fake embedder (no model needed).

use std::sync::atomic::{AtomicUsize, Ordering};

use brain_doc::{Doc, Source};
use brain_vec::chunk::ChunkParams;
use brain_vec::embed::normalize;
use brain_vec::index::{Input, Options, update};
use brain_vec::store::{Filter, Store, day_number};
use brain_vec::{Embedder, VecError};

/// Embeds a text as the normalized counts of the letters a–h; counts the texts it embedded.
struct Letters {
    calls: AtomicUsize,
    name: &'static str,
}

impl Letters {
    fn new(name: &'static str) -> Self {
        Letters {
            calls: AtomicUsize::new(0),
            name,
        }
    }
}

impl Embedder for Letters {
    fn model_id(&self) -> String {
        self.name.into()
    }
    fn dims(&self) -> usize {
        8
    }
    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, VecError> {
        self.calls.fetch_add(texts.len(), Ordering::Relaxed);
        Ok(texts
            .iter()
            .map(|t| {
                let mut v: Vec<f32> = "abcdefgh"
                    .chars()
                    .map(|c| t.chars().filter(|x| *x == c).count() as f32 + 0.01)
                    .collect();
                normalize(&mut v);
                v
            })
            .collect())
    }
}

fn input(id: &str, date: &str, body: &str) -> Input {
    let mut d = Doc::new(id, "", date, Source::new("note", ""));
    d.collection = id.split('/').next().map(str::to_string);
    d.body = body.into();
    Input::from_doc(d)
}

fn query(e: &Letters, text: &str) -> Vec<f32> {
    e.embed(&[text]).expect("embed").remove(0)
}

#[test]
fn search_ranks_documents_by_their_best_chunk_and_filters_inside_the_scan() {
    let dir = tempfile::tempdir().expect("tempdir");
    let e = Letters::new("letters");
    let docs = vec![
        input("a/1.md", "2026-01-10", "aaaa aaaa\n\n# Other\n\nbbbb"),
        input("a/2.md", "2025-06-01", "hhhh hhhh"),
        input("b/3.md", "2026-02-01", "aaab"),
    ];
    let r = update(dir.path(), &e, &docs, &Options::default(), &|_| {}).expect("update");
    assert_eq!((r.embedded, r.chunks), (3, 4));
    let s = Store::open(dir.path()).expect("open");
    let hits = s.search(&query(&e, "aaaa"), 10, &Filter::default());
    assert_eq!(
        hits.iter()
            .map(|h| s.docs[h.doc].id.as_str())
            .collect::<Vec<_>>(),
        ["a/1.md", "b/3.md", "a/2.md"]
    );
    assert!(
        s.text(hits[0].row).contains("aaaa"),
        "best chunk of a/1 is its first"
    );
    let only_b = Filter {
        collections: vec!["b".into()],
        ..Filter::default()
    };
    assert_eq!(s.search(&query(&e, "aaaa"), 10, &only_b).len(), 1);
    let since = Filter {
        since: brain_vec::store::date_seconds("2026-01-01"),
        ..Filter::default()
    };
    let ids: Vec<&str> = s
        .search(&query(&e, "h"), 10, &since)
        .iter()
        .map(|h| s.docs[h.doc].id.as_str())
        .collect();
    assert!(!ids.contains(&"a/2.md"), "{ids:?}");
}

#[test]
fn unchanged_documents_are_never_reembedded_and_a_new_fingerprint_reembeds_all() {
    let dir = tempfile::tempdir().expect("tempdir");
    let e = Letters::new("letters");
    let mut docs = vec![
        input("a/1.md", "2026-01-01", "abc"),
        input("a/2.md", "2026-01-01", "def"),
    ];
    update(dir.path(), &e, &docs, &Options::default(), &|_| {}).expect("first");
    assert_eq!(e.calls.load(Ordering::Relaxed), 2);
    let r = update(dir.path(), &e, &docs, &Options::default(), &|_| {}).expect("again");
    assert_eq!(
        (r.embedded, r.unchanged, e.calls.load(Ordering::Relaxed)),
        (0, 2, 2)
    );
    docs[1] = input("a/2.md", "2026-01-01", "ggg");
    let r = update(dir.path(), &e, &docs, &Options::default(), &|_| {}).expect("changed");
    assert_eq!((r.embedded, r.unchanged), (1, 1));
    let s = Store::open(dir.path()).expect("open");
    assert_eq!(s.docs.len(), 2);
    let e2 = Letters::new("letters-v2");
    let r = update(dir.path(), &e2, &docs, &Options::default(), &|_| {}).expect("new model");
    assert!(r.rebuilt);
    assert_eq!(r.embedded, 2);
}

#[test]
fn limit_leaves_the_rest_pending_and_prune_drops_vanished_docs() {
    let dir = tempfile::tempdir().expect("tempdir");
    let e = Letters::new("letters");
    let docs: Vec<Input> = (0..5)
        .map(|i| input(&format!("a/{i}.md"), "2026-01-01", "abc"))
        .collect();
    let opts = Options {
        limit: Some(2),
        ..Options::default()
    };
    let r = update(dir.path(), &e, &docs, &opts, &|_| {}).expect("limited");
    assert_eq!((r.embedded, r.pending), (2, 3));
    let r = update(dir.path(), &e, &docs, &Options::default(), &|_| {}).expect("rest");
    assert_eq!((r.embedded, r.unchanged, r.pending), (3, 2, 0));
    let prune = Options {
        prune: true,
        ..Options::default()
    };
    let r = update(dir.path(), &e, &docs[..1], &prune, &|_| {}).expect("prune");
    assert_eq!(r.removed, 4);
    assert_eq!(Store::open(dir.path()).expect("open").docs.len(), 1);
}

#[test]
fn an_unfinished_generation_leaves_the_previous_store_usable() {
    let dir = tempfile::tempdir().expect("tempdir");
    let e = Letters::new("letters");
    update(
        dir.path(),
        &e,
        &[input("a/1.md", "2026-01-01", "abc")],
        &Options::default(),
        &|_| {},
    )
    .expect("first");
    // A crash after writing part of generation 2: files exist, the manifest still names 1.
    std::fs::write(dir.path().join("g2.vec"), b"partial").expect("write");
    let s = Store::open(dir.path()).expect("open");
    assert_eq!((s.manifest.generation, s.docs.len()), (1, 1));
    let r = update(
        dir.path(),
        &e,
        &[input("a/2.md", "2026-01-01", "def")],
        &Options::default(),
        &|_| {},
    )
    .expect("next");
    assert_eq!(r.generation, 2);
    let s = Store::open(dir.path()).expect("open");
    assert_eq!(s.docs.len(), 2, "upsert keeps a/1");
    assert!(
        !dir.path().join("g1.vec").exists(),
        "old generation removed"
    );
}

#[test]
fn day_numbers() {
    assert_eq!(day_number("1970-01-02T00:00:00Z"), 1);
    assert_eq!(day_number("2026-04-02"), 20545);
    assert_eq!(day_number("garbage"), i32::MIN);
}

#[test]
fn chunk_params_default_is_256_tokens() {
    assert_eq!(ChunkParams::default().max_tokens, 256);
}

#[test]
fn equal_scores_keep_the_documents_of_the_lowest_tie_keys_whatever_the_order_of_indexing() {
    let e = Letters::new("letters");
    let top = |reverse: bool| -> Vec<String> {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut docs: Vec<Input> = (0..60)
            .map(|i| input(&format!("n/{i:03}.md"), "2026-01-10", "abc abc"))
            .collect();
        if reverse {
            docs.reverse();
        }
        update(dir.path(), &e, &docs, &Options::default(), &|_| {}).expect("update");
        let s = Store::open(dir.path()).expect("open");
        s.search(&query(&e, "abc"), 5, &Filter::default())
            .iter()
            .map(|h| s.docs[h.doc].id.clone())
            .collect()
    };
    let forward = top(false);
    let mut want: Vec<String> = (0..60).map(|i| format!("n/{i:03}.md")).collect();
    want.sort_by_key(|id| brain_doc::tie_key(id));
    assert_eq!(forward, want[..5]);
    assert_eq!(
        top(true),
        forward,
        "the same answer from the reversed build"
    );
}
