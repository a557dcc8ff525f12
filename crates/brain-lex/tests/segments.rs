//! Segment hygiene: a run that is not a bulk walk (the stop hook's stdin run, `brain inbox`'s one
//! file) writes one or two small segments, and every segment costs every query; such runs merge the
//! small segments once there are `SMALL_SEGMENTS_BEFORE_MERGE` of them, and never a large one.

use std::collections::HashSet;
use std::time::Duration;

use brain_lex::{Indexer, LexIndex, SMALL_SEGMENT_PASSAGES, SMALL_SEGMENTS_BEFORE_MERGE, dump};
use brain_store::Home;

/// (segment id, passages) of every searchable segment.
fn segments(home: &Home) -> Vec<(String, u32)> {
    let lex = LexIndex::open(home).expect("open");
    lex.index()
        .searchable_segment_metas()
        .expect("metas")
        .iter()
        .map(|m| (m.id().uuid_string(), m.num_docs()))
        .collect()
}

/// A note of `sections` sections (a passage each) mentioning `word`.
fn note(word: &str, sections: usize) -> String {
    let mut s = format!("---\ntitle: note {word}\ndate: 2026-04-10\n---\n");
    for i in 0..sections {
        s.push_str(&format!("\n## part {i}\n\n{word} section {i} text\n"));
    }
    s
}

#[test]
fn one_file_runs_merge_their_small_segments_and_leave_large_ones() {
    let dir = tempfile::tempdir().expect("tempdir");
    let home = Home::at(dir.path());
    std::fs::create_dir_all(home.inbox()).expect("mkdir");
    // A bulk walk first, large enough for segments above the small size.
    for f in 0..700 {
        std::fs::write(
            home.inbox().join(format!("bulk{f:04}.md")),
            note("bulk", 10),
        )
        .expect("write");
    }
    let mut ix = Indexer::open(&home, false).expect("open");
    ix.sync_all(&|w| panic!("{w}")).expect("sync");
    ix.finish().expect("finish");
    let large: HashSet<String> = segments(&home)
        .into_iter()
        .filter(|(_, n)| *n > SMALL_SEGMENT_PASSAGES)
        .map(|(id, _)| id)
        .collect();
    assert!(!large.is_empty(), "no large segment: {:?}", segments(&home));

    let mut merged = false;
    for run in 0..40 {
        let name = format!("hook{run:02}.md");
        let file = home.inbox().join(&name);
        std::fs::write(&file, note(&format!("word{run}"), 3)).expect("write");
        let mut ix = Indexer::open_within(&home, false, Duration::from_secs(5)).expect("open");
        ix.index_file("inbox", &name, &file)
            .expect("index")
            .expect("readable");
        assert_eq!(ix.finish().expect("finish").added, 1, "run {run}");
        let now = segments(&home);
        let small = now.iter().filter(|(id, _)| !large.contains(id)).count();
        // The commit's merge is waited for: what is left is below the merge threshold.
        assert!(
            small < SMALL_SEGMENTS_BEFORE_MERGE,
            "run {run}: {small} small segments: {now:?}"
        );
        // The large segments are untouched.
        for id in &large {
            assert!(now.iter().any(|(i, _)| i == id), "run {run}: {id} merged");
        }
        merged |= run > 0 && small == 1;
    }
    assert!(merged, "no run merged");
    // Nothing lost: every passage is there, once.
    let passages = dump(&LexIndex::open(&home).expect("open")).expect("dump");
    assert_eq!(passages.len(), 700 * 10 + 40 * 3);
    let ids: HashSet<&str> = passages.iter().map(|p| p.id.as_str()).collect();
    for run in 0..40 {
        assert!(
            ids.contains(format!("inbox/hook{run:02}.md").as_str()),
            "{run}"
        );
    }
}

/// An index of several segments holding at least the passages asked is merged into one, nothing
/// lost and every query answered alike; a smaller one is left as it is. (A new index is published
/// this way: `NEW_INDEX_ONE_SEGMENT`.)
#[test]
fn an_index_in_many_segments_is_merged_into_one_with_the_same_answers() {
    use brain_lex::search::{Boosts, LexQuery, Searcher};
    let dir = tempfile::tempdir().expect("tempdir");
    let home = Home::at(dir.path());
    std::fs::create_dir_all(home.inbox()).expect("mkdir");
    // One-file runs: a segment each (fewer than the small-segment merge).
    let runs = SMALL_SEGMENTS_BEFORE_MERGE - 2;
    for run in 0..runs {
        let name = format!("n{run}.md");
        let file = home.inbox().join(&name);
        std::fs::write(&file, note(&format!("word{run} shared"), 4)).expect("write");
        let mut ix = Indexer::open_within(&home, false, Duration::from_secs(5)).expect("open");
        ix.index_file("inbox", &name, &file)
            .expect("index")
            .expect("readable");
        ix.finish().expect("finish");
    }
    let n = segments(&home).len();
    assert!(n >= 3, "{:?}", segments(&home));
    let answer = || {
        let lex = LexIndex::open(&home).expect("open");
        let s = Searcher::new(&lex).expect("searcher");
        let q = LexQuery {
            terms: vec!["shared".into(), "word3".into()],
            ..LexQuery::default()
        };
        let found = s.candidates(&q, &Boosts::default(), 50).expect("search");
        let mut ids: Vec<(String, u32)> = found
            .iter()
            .map(|(score, a)| (s.passage(*a).expect("passage").id, (score * 1e4) as u32))
            .collect();
        ids.sort();
        ids
    };
    let before = answer();
    let lex = LexIndex::open(&home).expect("open");
    let held = (runs * 4) as u64;
    assert!(
        !lex.merge_into_one(held + 1, 2).expect("merge"),
        "too small: left"
    );
    assert!(
        lex.merge_into_one(held, 2).expect("merge"),
        "large enough: merged"
    );
    assert!(
        !lex.merge_into_one(0, 2).expect("merge"),
        "one segment: left"
    );
    drop(lex);
    assert_eq!(segments(&home).len(), 1);
    assert_eq!(answer(), before);
    let passages = dump(&LexIndex::open(&home).expect("open")).expect("dump");
    assert_eq!(passages.len(), runs * 4);
}
