//! Folding passages into documents: a long transcript whose passages fill the candidate list must not
//! starve the other documents (regression: `-n 10` returned 4 documents on the 10k-file bench corpus).

use brain_lex::{Indexer, LexIndex};
use brain_rank::{Query, RankOptions, Ranker};
use brain_store::Home;

#[test]
fn a_long_transcript_does_not_starve_other_documents() {
    let dir = tempfile::tempdir().expect("tempdir");
    let home = Home::at(dir.path());
    std::fs::write(
        home.config(),
        "version: 1\ncollections:\n  - name: c\n    path: corpus/c\npartition:\n  default: c\n",
    )
    .expect("brain.yaml");
    let corpus = dir.path().join("corpus/c");
    std::fs::create_dir_all(&corpus).expect("dir");
    let long: String = (0..300)
        .map(|i| format!("## Turn {i}\n\nlock lock contention\n\n"))
        .collect();
    std::fs::write(
        corpus.join("long.md"),
        format!("---\ntitle: long\ndate: 2026-04-01\n---\n{long}"),
    )
    .expect("long");
    for i in 0..12 {
        let text = format!(
            "---\ntitle: short {i}\ndate: 2026-04-01\n---\nonce a lock, then many other words here {i}\n"
        );
        std::fs::write(corpus.join(format!("s{i}.md")), text).expect("short");
    }
    let mut ix = Indexer::open(&home, false).expect("indexer");
    ix.sync_all(&|w| panic!("{w}")).expect("sync");
    ix.finish().expect("finish");
    let lex = LexIndex::open(&home).expect("index");
    let ranker = Ranker::new(&lex).expect("ranker");
    let q = Query {
        terms: vec!["lock".into()],
        ..Query::default()
    };
    let hits = ranker
        .rank(
            &q,
            &RankOptions {
                limit: 10,
                ..RankOptions::default()
            },
            "2026-04-02T00:00:00Z".parse().expect("ts"),
        )
        .expect("rank");
    assert_eq!(
        hits.len(),
        10,
        "{:?}",
        hits.iter().map(|h| &h.path).collect::<Vec<_>>()
    );
    assert_eq!(hits[0].path, "long.md");
    let mut paths: Vec<&str> = hits.iter().map(|h| h.path.as_str()).collect();
    paths.dedup();
    assert_eq!(paths.len(), 10, "one hit per document");
    let two = ranker
        .rank(
            &q,
            &RankOptions {
                limit: 3,
                per_doc: 2,
                ..RankOptions::default()
            },
            "2026-04-02T00:00:00Z".parse().expect("ts"),
        )
        .expect("rank");
    assert_eq!(
        two.iter().filter(|h| h.path == "long.md").count(),
        2,
        "--per-doc 2"
    );
    assert_eq!(
        two.len(),
        4,
        "long.md twice, two short docs once (each has one passage)"
    );
}
