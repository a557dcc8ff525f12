//! The vector store and incremental indexing, with a deterministic fake embedder (no model needed).

use std::sync::atomic::Ordering;

use brain_vec::chunk::ChunkParams;
use brain_vec::index::{Input, Options, update};
use brain_vec::store::{Filter, Store, day_number};

mod letters;

use letters::{Letters, input, query, three_docs};

#[test]
fn search_ranks_documents_by_their_best_chunk_and_filters_inside_the_scan() {
    let dir = tempfile::tempdir().expect("tempdir");
    let e = Letters::new("letters");
    let docs = three_docs();
    let r = update(dir.path(), &e, &docs, &Options::default(), &|_| {}).expect("update");
    assert_eq!((r.embedded, r.chunks), (3, 4));
    let s = Store::open(dir.path()).expect("open");
    let hits = s.search(&query(&e, "aaaa"), 10, &Filter::default());
    assert_eq!(
        hits.iter()
            .map(|h| s.docs.get(h.doc).expect("doc").id)
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
        .map(|h| s.docs.get(h.doc).expect("doc").id)
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
            .map(|h| s.docs.get(h.doc).expect("doc").id.to_owned())
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

#[test]
fn a_cut_off_run_embeds_the_newest_documents_first() {
    let dir = tempfile::tempdir().expect("tempdir");
    let e = Letters::new("letters");
    let docs = vec![
        input("a/old.md", "2025-01-01", "abc"),
        input("a/newest.md", "2026-03-03T09:00:00Z", "bcd"),
        input("a/undated.md", "", "cde"),
        input("a/newer.md", "2026-03-01", "def"),
    ];
    let opts = Options {
        limit: Some(2),
        ..Options::default()
    };
    let r = update(dir.path(), &e, &docs, &opts, &|_| {}).expect("limited");
    assert_eq!((r.embedded, r.pending), (2, 2));
    let s = Store::open(dir.path()).expect("open");
    let mut ids: Vec<&str> = s.docs.iter().map(|d| d.id).collect();
    ids.sort();
    assert_eq!(ids, ["a/newer.md", "a/newest.md"]);
    let r = update(dir.path(), &e, &docs, &opts, &|_| {}).expect("next");
    assert_eq!((r.embedded, r.pending), (2, 0));
    let s = Store::open(dir.path()).expect("open");
    assert!(
        s.docs.iter().any(|d| d.id == "a/undated.md"),
        "undated last"
    );
}

#[test]
fn no_chunk_text_is_embedded_twice_within_a_run_or_across_runs() {
    let dir = tempfile::tempdir().expect("tempdir");
    let e = Letters::new("letters");
    let long = "abc def\n\n".repeat(1000); // several chunks
    let n = brain_vec::chunk::chunk(&long, ChunkParams::default()).len();
    assert!(n > 2, "{n} chunks");
    // Three copies in one run: embedded once.
    let docs: Vec<Input> = (0..3)
        .map(|i| input(&format!("a/{i}.md"), "2026-01-01", &long))
        .collect();
    let r = update(dir.path(), &e, &docs, &Options::default(), &|_| {}).expect("first");
    assert_eq!((r.embedded, r.chunks), (3, 3 * n));
    let distinct = {
        let mut t: Vec<String> = brain_vec::chunk::chunk(&long, ChunkParams::default())
            .into_iter()
            .map(|c| c.text)
            .collect();
        t.sort();
        t.dedup();
        t.len()
    };
    assert_eq!(e.calls.load(Ordering::Relaxed), distinct);
    assert_eq!(r.reused, 3 * n - distinct);
    // A later run: a renamed copy and a document that grew (a snapshot transcript repeating its
    // history) embed only what is new.
    let grown = format!("{long}ghh fff\n");
    let more = vec![
        input("a/renamed.md", "2026-01-02", &long),
        input("a/grown.md", "2026-01-02", &grown),
    ];
    let before = e.calls.load(Ordering::Relaxed);
    let r = update(dir.path(), &e, &more, &Options::default(), &|_| {}).expect("second");
    assert_eq!(r.embedded, 2);
    let computed = e.calls.load(Ordering::Relaxed) - before;
    assert!(computed <= 1, "{computed} texts embedded for one new chunk");
    // Reused vectors are the vectors: a search finds the copies with the same score.
    let s = Store::open(dir.path()).expect("open");
    let hits = s.search(&query(&e, "abc def"), 10, &Filter::default());
    let score = |id: &str| {
        hits.iter()
            .find(|h| s.docs.get(h.doc).expect("doc").id == id)
            .map(|h| h.score)
    };
    assert_eq!(score("a/0.md"), score("a/renamed.md"));
    assert!(score("a/0.md").is_some());
}

#[test]
fn a_run_records_its_rate_and_status_projects_the_backlog_with_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let e = Letters::new("letters");
    let docs: Vec<Input> = (0..40)
        .map(|i| {
            let body = format!("{} {i}", "abcdefgh".repeat(i % 7 + 1));
            input(&format!("a/{i}.md"), "2026-01-01", &body)
        })
        .collect();
    let r = update(dir.path(), &e, &docs, &Options::default(), &|_| {}).expect("first");
    assert!(r.chunks - r.reused >= brain_vec::store::Rate::MIN_CHUNKS);
    let s = Store::open(dir.path()).expect("open");
    let rate = s.manifest.rate.clone().expect("a rate");
    assert_eq!((rate.docs, rate.kernel.as_str()), (40, "remote"));
    assert!(rate.secs_per_doc > 0.0 && rate.secs_per_chunk > 0.0);
    // A run that embeds too little to measure keeps the rate it had.
    let mut more = docs.clone();
    more.push(input("b/new.md", "2026-02-01", "hhh"));
    update(dir.path(), &e, &more, &Options::default(), &|_| {}).expect("small");
    let s = Store::open(dir.path()).expect("open");
    // Equal but for the last bit a JSON round trip may move (serde_json parses floats to within
    // one ulp).
    let kept = s.manifest.rate.clone().expect("kept");
    let close = |a: f64, b: f64| (a - b).abs() <= a.abs() * 1e-12;
    assert!(
        close(kept.secs_per_doc, rate.secs_per_doc)
            && close(kept.secs_per_chunk, rate.secs_per_chunk)
            && (kept.docs, &kept.kernel, &kept.measured_at)
                == (rate.docs, &rate.kernel, &rate.measured_at),
        "{kept:?} vs {rate:?}"
    );
    // Status: pending documents × the measured seconds per document.
    more.push(input("b/later.md", "2026-02-02", "ggg"));
    more.push(input("b/last.md", "2026-02-03", "fff"));
    let recs = brain_vec::stage::status_records(
        dir.path(),
        "letters".into(),
        "",
        ChunkParams::default(),
        &more,
    );
    let b = recs.iter().find(|r| r.collection == "b").expect("b");
    assert_eq!(b.need_embeddings, 2);
    let d = b.drain_secs.expect("projected");
    assert!((d - 2.0 * rate.secs_per_doc).abs() < 1e-12, "{d}");
    let a = recs.iter().find(|r| r.collection == "a").expect("a");
    assert_eq!((a.need_embeddings, a.drain_secs), (0, None));
}

#[test]
fn max_chunks_refuses_a_big_run_whole_and_counts_only_chunks_not_yet_embedded() {
    let dir = tempfile::tempdir().expect("tempdir");
    let e = Letters::new("letters");
    let body: String = (0..400).map(|i| format!("para {i} abc\n\n")).collect();
    let n = brain_vec::chunk::chunk(&body, ChunkParams::default()).len();
    assert!(n > 3, "{n}");
    let capped = |cap| Options {
        max_chunks: Some(cap),
        ..Options::default()
    };
    let docs = [input("a/s.md", "2026-01-01", &body)];
    let r = update(dir.path(), &e, &docs, &capped(n - 1), &|_| {}).expect("over");
    assert_eq!((r.embedded, r.pending, r.over_cap), (0, 1, Some(n)));
    assert_eq!(e.calls.load(Ordering::Relaxed), 0, "nothing embedded");
    assert!(Store::open(dir.path()).is_err(), "nothing written");
    let r = update(dir.path(), &e, &docs, &capped(n), &|_| {}).expect("at the cap");
    assert_eq!((r.embedded, r.over_cap), (1, None));
    // The session grows by one turn: one chunk to compute, under a cap of 1.
    let grown = [input(
        "a/s.md",
        "2026-01-01",
        &format!("{body}para new ghh\n"),
    )];
    let before = e.calls.load(Ordering::Relaxed);
    let r = update(dir.path(), &e, &grown, &capped(1), &|_| {}).expect("grown");
    assert_eq!((r.embedded, r.over_cap), (1, None));
    assert!(e.calls.load(Ordering::Relaxed) - before <= 1);
}

/// A model switch: the store in force keeps its model's vectors while the next model's are built
/// beside it (a cut-off run, then a killed one, resume), and takes their place only complete.
#[test]
fn a_model_switch_builds_beside_the_store_in_force_and_promotes_only_complete() {
    use brain_vec::switch;
    let home = tempfile::tempdir().expect("tempdir");
    let dir = home.path().join("vec");
    let next = switch::next_dir(&dir);
    let old = Letters::new("old-model");
    let new = Letters::new("new-model");
    let docs = three_docs();
    let all = Options {
        prune: true,
        ..Options::default()
    };
    let s = switch::update(&dir, &old, &docs, &all, &|_| {}).expect("first");
    assert!(!s.staged && !s.promoted);
    let model_of = |d: &std::path::Path| {
        Store::open(d)
            .expect("open")
            .manifest
            .fingerprint
            .model
            .clone()
    };
    assert_eq!(model_of(&dir), "old-model");

    // The switch, cut off after one document: the old store answers, whole and alone.
    let one = Options {
        limit: Some(1),
        ..all.clone()
    };
    let s = switch::update(&dir, &new, &docs, &one, &|_| {}).expect("cut off");
    assert!(s.staged && !s.promoted, "{s:?}");
    assert_eq!(s.report.pending, 2);
    assert_eq!(model_of(&dir), "old-model");
    assert_eq!(Store::open(&dir).expect("open").docs.len(), 3);
    assert_eq!(model_of(&next), "new-model");
    assert_eq!(Store::open(&next).expect("open").docs.len(), 1);

    // A run over some documents on stdin (no --all) never promotes.
    let some = Options::default();
    let s = switch::update(&dir, &new, &docs[..2], &some, &|_| {}).expect("some");
    assert!(s.staged && !s.promoted);
    assert_eq!(model_of(&dir), "old-model");

    // The whole corpus: resumed, then promoted.
    let calls = new.calls.load(Ordering::Relaxed);
    let s = switch::update(&dir, &new, &docs, &all, &|_| {}).expect("rest");
    assert!(s.staged && s.promoted, "{s:?}");
    assert_eq!(s.report.pending, 0);
    // The runs before embedded all three (one cut off, two from stdin): nothing is embedded again.
    assert_eq!((s.report.embedded, s.report.unchanged), (0, 3));
    assert_eq!(new.calls.load(Ordering::Relaxed), calls);
    assert_eq!(model_of(&dir), "new-model");
    assert_eq!(Store::open(&dir).expect("open").docs.len(), 3);
    assert!(!next.exists());

    // A kill between the swap's two renames: the next writer finishes it.
    let s = switch::update(&dir, &old, &docs, &all, &|_| {}).expect("back");
    assert!(s.promoted);
    let _ = switch::update(&dir, &new, &docs, &one, &|_| {}).expect("staged");
    std::fs::rename(&dir, dir.with_file_name("vec.old")).expect("first rename");
    // The next store is not marked complete: recovery brings the old one back, never a partial.
    switch::recover(&dir).expect("recover");
    assert_eq!(model_of(&dir), "old-model");
    assert!(!dir.with_file_name("vec.old").exists());
    // Marked complete (the swap's first step), then killed after the first rename: the next
    // writer promotes it.
    let s = switch::update(&dir, &new, &docs, &one, &|_| {}).expect("staged");
    assert!(s.staged && !s.promoted);
    std::fs::write(next.join("complete"), b"").expect("mark");
    std::fs::rename(&dir, dir.with_file_name("vec.old")).expect("first rename");
    switch::recover(&dir).expect("recover");
    assert_eq!(model_of(&dir), "new-model");
    assert!(!next.exists() && !dir.with_file_name("vec.old").exists());
}
