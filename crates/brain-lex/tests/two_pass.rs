//! The two-pass search of plain word queries (a block-WAND pool, then exact scores) returns what the
//! one-pass search returns: the same passages in the same order with the same scores, on a corpus
//! large enough that the pool holds a fraction of the matches. Queries with phrases, exclusions or
//! filters, and flat boosts, take the one-pass path unchanged.

use brain_lex::search::{Boosts, LexQuery, MIN_POOL, Searcher};
use brain_lex::{Indexer, LexIndex};
use brain_store::Home;

/// xorshift64*: a deterministic corpus without a dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Index in `0..n`, skewed to small values (a Zipf-like word distribution).
    fn zipf(&mut self, n: usize) -> usize {
        let u = (self.next() >> 11) as f64 / (1u64 << 53) as f64;
        ((n as f64).powf(u) as usize).saturating_sub(1).min(n - 1)
    }
}

const WORDS: &[&str] = &[
    "test",
    "error",
    "cargo",
    "build",
    "lock",
    "writer",
    "index",
    "query",
    "cache",
    "migration",
    "fail",
    "retry",
    "timeout",
    "worker",
    "queue",
    "thread",
    "panic",
    "flaky",
    "deploy",
    "branch",
    "review",
    "vector",
    "embed",
    "model",
    "prompt",
    "session",
    "token",
    "config",
    "parse_config",
    "HttpClient",
    "src/main.rs",
    "--workspace",
    "contention",
    "segment",
    "merge",
    "snippet",
    "latency",
    "memory",
    "schema",
    "tantivy",
    "rayon",
    "stemming",
    "identifier",
    "database",
    "sqlite",
    "checkpoint",
    "rollback",
    "gateway",
    "authorization",
    "failures",
    "rejected",
];

fn corpus(home: &Home, docs: usize) {
    corpus_with(home, docs, |_| "")
}

/// The generated corpus, `extra(d)` added to the frontmatter of document `d`.
fn corpus_with(home: &Home, docs: usize, extra: impl Fn(usize) -> &'static str) {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    std::fs::create_dir_all(home.inbox()).expect("mkdir");
    for d in 0..docs {
        let title: Vec<&str> = (0..3).map(|_| WORDS[rng.zipf(WORDS.len())]).collect();
        let mut body = format!(
            "---\ntitle: {}\ndate: 2026-03-{:02}\n{}---\n",
            title.join(" "),
            1 + d % 28,
            extra(d)
        );
        for s in 0..1 + rng.zipf(6) {
            body.push_str(&format!(
                "\n## part {s} {}\n\n",
                WORDS[rng.zipf(WORDS.len())]
            ));
            for _ in 0..2 + rng.zipf(8) {
                let line: Vec<&str> = (0..4 + rng.zipf(12))
                    .map(|_| WORDS[rng.zipf(WORDS.len())])
                    .collect();
                body.push_str(&line.join(" "));
                body.push('\n');
            }
        }
        std::fs::write(home.inbox().join(format!("d{d:04}.md")), body).expect("write");
    }
    let mut ix = Indexer::open(home, false).expect("open");
    ix.sync_all(&|w| panic!("{w}")).expect("sync");
    ix.finish().expect("finish");
}

/// A searcher on a fresh home holding the generated corpus of `docs` files (and the folder, kept
/// alive by the caller).
fn indexed(docs: usize) -> (tempfile::TempDir, Searcher) {
    let dir = tempfile::tempdir().expect("tempdir");
    let home = Home::at(dir.path());
    corpus(&home, docs);
    let lex = LexIndex::open(&home).expect("open");
    let mut s = Searcher::new(&lex).expect("searcher");
    s.set_one_pass_below(0); // a small corpus: compare the two-pass search on every plain query
    (dir, s)
}

fn words(text: &str) -> LexQuery {
    LexQuery {
        terms: text.split_whitespace().map(str::to_string).collect(),
        ..LexQuery::default()
    }
}

/// The same passages in the same order, scores equal up to float rounding (the two passes sum a
/// passage's term scores in another order than tantivy's scorers do).
fn same(got: &[(f32, tantivy::DocAddress)], want: &[(f32, tantivy::DocAddress)], what: &str) {
    let addrs = |v: &[(f32, tantivy::DocAddress)]| v.iter().map(|x| x.1).collect::<Vec<_>>();
    assert_eq!(addrs(got), addrs(want), "{what}");
    for ((s1, _), (s2, _)) in got.iter().zip(want) {
        assert!(
            (s1 - s2).abs() <= 1e-4 * s2.abs().max(1.0),
            "{what}: {s1} vs {s2}"
        );
    }
}

#[test]
fn two_pass_equals_one_pass_when_the_lifecycle_hides_records() {
    let dir = tempfile::tempdir().expect("tempdir");
    let home = Home::at(dir.path());
    // Every 50th record archived, every 70th expired, every 90th superseded by key (all but the
    // last of them).
    corpus_with(&home, 1500, |d| match d {
        d if d % 50 == 0 => "status: archived\n",
        d if d % 70 == 0 => "expires_at: 2026-04-01\n",
        d if d % 90 == 0 => "key: shared.subject\n",
        _ => "",
    });
    let lex = LexIndex::open(&home).expect("open");
    let mut s = Searcher::new(&lex).expect("searcher");
    s.set_one_pass_below(0);
    let b = Boosts::default();
    let at = |q: &str, when: i64| LexQuery {
        lifecycle: Some(brain_lex::search::Lifecycle {
            at: when,
            as_of: false,
        }),
        ..words(q)
    };
    let june = 1_780_000_000; // 2026-05-28
    let (mut proven, mut compared) = (0, 0);
    for text in [
        "test",
        "lock contention writer",
        "cache migration fail",
        "deploy branch review",
    ] {
        let q = at(text, june);
        assert!(s.hides(&q));
        for limit in [1, 10, 40] {
            let one = s.candidates_one_pass(&q, &b, limit).expect("one pass");
            let (two, was_proven) = s
                .candidates_with_pool(&q, &b, limit, limit * 4)
                .expect("two pass");
            same(&two, &one, &format!("{text:?} limit {limit}"));
            proven += usize::from(was_proven);
            compared += one.len();
            // Nothing hidden comes back, and the top is as deep as asked.
            assert_eq!(one.len(), limit, "{text:?}");
            for (_, a) in &two {
                let id = s.passage(*a).expect("passage").id;
                assert!(s.visible(&id, &q).expect("visible"), "{text:?}: {id}");
            }
        }
    }
    assert!(proven >= 6, "{proven} proven");
    assert!(compared > 100, "{compared}");
    // The comparison means something: unfiltered, hidden records are in those tops.
    let hidden_in_tops: usize = ["test", "lock contention writer"]
        .iter()
        .map(|t| {
            let all = s
                .candidates_one_pass(&words(t), &b, 40)
                .expect("unfiltered");
            all.iter()
                .filter(|(_, a)| {
                    let id = s.passage(*a).expect("passage").id;
                    !s.visible(&id, &at(t, june)).expect("visible")
                })
                .count()
        })
        .sum();
    assert!(hidden_in_tops > 0);
}

#[test]
fn two_pass_equals_one_pass() {
    let (_dir, s) = indexed(1500);
    assert!(
        s.num_passages() > 4 * MIN_POOL as u64,
        "{} passages",
        s.num_passages()
    );
    let b = Boosts::default();
    let queries = [
        "test",
        "lock contention writer",
        "retry timeout in the worker queue",
        "parse_config",
        "cargo test --workspace",
        "why did the cache migration fail",
        "flaky test panic thread",
        "HttpClient gateway authorization failures",
        "src/main.rs build error",
        "sqlite checkpoint rollback database",
        "vector embed model prompt",
        "deploy branch review",
        "the of and",
        // Words the index does not know: their near spellings ("contension" → contention,
        // "timout" → timeout, "cachs" → cache…) score in both passes alike.
        "lock contension writer",
        "retry timout in the worker queue",
        "cachs migration fail",
        "depl branch review",
        "sqlitee checkpoint rollback",
        "buisiness",
    ];
    let (mut compared, mut proven, mut extra) = (0, 0, 0);
    let mut near_proven = 0;
    for text in queries {
        let q = words(text);
        for limit in [1, 10, 40, 160] {
            let one = s.candidates_one_pass(&q, &b, limit).expect("one pass");
            let two = s.candidates(&q, &b, limit).expect("two pass");
            let (pooled, was_proven) = s
                .candidates_with_pool(&q, &b, limit, limit * 4)
                .expect("pooled");
            same(&two, &one, &format!("{text:?} limit {limit}"));
            same(
                &pooled,
                &one,
                &format!("{text:?} limit {limit}, pool {}", limit * 4),
            );
            proven += usize::from(was_proven);
            near_proven += usize::from(was_proven && queries[13..].contains(&text));
            // Everything the two passes prove beyond `limit` is the one pass's longer list.
            let more = s.candidates_at_least(&q, &b, limit).expect("at least");
            assert!(more.len() >= one.len(), "{text:?} limit {limit}");
            let longer = s.candidates_one_pass(&q, &b, more.len()).expect("one pass");
            same(
                &more,
                &longer,
                &format!("{text:?} limit {limit}, {} proven", more.len()),
            );
            extra += more.len() - one.len();
            compared += one.len();
        }
    }
    assert!(compared > 1000, "{compared} passages compared");
    // The comparison means something only if the two-pass path answered a good share of them.
    assert!(extra > 0, "no passage proven beyond the limit");
    assert!(
        proven >= 10,
        "{proven} of {} searches proven in two passes",
        queries.len() * 4
    );
    assert!(
        near_proven >= 4,
        "{near_proven} searches with near spellings proven in two passes"
    );
}

#[test]
fn filtered_phrase_and_flat_queries_take_one_pass() {
    let (_dir, s) = indexed(300);
    let mut filtered = words("cache migration");
    filtered.collections = vec!["inbox".into()];
    let mut phrase = words("cache");
    phrase.phrases = vec!["lock writer".into()];
    let mut exclude = words("cache migration");
    exclude.exclude = vec!["panic".into()];
    let flat = Boosts {
        tie_breaker: 1.0,
        all_terms: 0.0,
        ..Boosts::default()
    };
    for (q, b) in [
        (&filtered, Boosts::default()),
        (&phrase, Boosts::default()),
        (&exclude, Boosts::default()),
        (&words("cache migration"), flat),
    ] {
        let one = s.candidates_one_pass(q, &b, 20).expect("one pass");
        assert!(!one.is_empty(), "{q:?}");
        assert_eq!(s.candidates(q, &b, 20).expect("candidates"), one, "{q:?}");
    }
}

/// The segments are searched as tasks of the rayon pool (`Searcher::search_segments`): the answer is
/// tantivy's own single-threaded search of the same query, score for score, on an index of several
/// segments — plain words, near spellings (a one-pass query) and words the index lacks.
#[test]
fn segments_searched_in_parallel_give_tantivys_answer() {
    let (dir, s) = indexed(1500);
    let lex = LexIndex::open(&Home::at(dir.path())).expect("open");
    let raw = lex.reader().expect("reader").searcher();
    assert!(
        raw.segment_readers().len() > 1,
        "one segment: nothing to compare"
    );
    let b = Boosts::default();
    let mut compared = 0;
    for text in [
        "test",
        "lock contention writer",
        "why did the cache migration fail",
        "contension migraton",
        "deploy branch reveiw",
        "zzzz qqqq",
    ] {
        let q = words(text);
        for limit in [1, 10, 40, 400] {
            let got = s.candidates_one_pass(&q, &b, limit).expect("one pass");
            let want = match s.query(&q, &b) {
                Some(query) => raw
                    .search(
                        &*query,
                        &tantivy::collector::TopDocs::with_limit(limit).order_by_score(),
                    )
                    .expect("tantivy"),
                None => Vec::new(),
            };
            assert_eq!(got, want, "{text:?} limit {limit}");
            assert_eq!(got.is_empty(), text.starts_with("zzzz"), "{text:?}");
            compared += got.len();
        }
    }
    assert!(compared > 1000, "{compared} passages compared");
}

/// Scoring a page's sessions reads their further passages: sought term by term for plain word
/// queries, it gives exactly what one search restricted to those documents gives — lifecycle-hidden
/// passages left out, near spellings scored, unknown ids ignored, queries with phrases or filters
/// through the one search.
#[test]
fn passages_of_a_page_equal_one_restricted_search() {
    let dir = tempfile::tempdir().expect("tempdir");
    let home = Home::at(dir.path());
    corpus_with(&home, 1500, |d| match d {
        d if d % 50 == 0 => "status: archived\n",
        d if d % 90 == 0 => "key: shared.subject\n",
        _ => "",
    });
    let lex = LexIndex::open(&home).expect("open");
    let s = Searcher::new(&lex).expect("searcher");
    let b = Boosts::default();
    let hiding = |q: LexQuery| LexQuery {
        lifecycle: Some(brain_lex::search::Lifecycle {
            at: 1_780_000_000,
            as_of: false,
        }),
        ..q
    };
    let phrase = LexQuery {
        phrases: vec!["lock contention".into()],
        ..words("writer")
    };
    let mut compared = 0;
    for q in [
        words("test"),
        words("lock contention writer"),
        words("parse_config HttpClient"),
        // Near spellings of words the index does not hold (one edit; a prefix of a short word).
        words("lock writr contntion"),
        hiding(words("cache migratoin")),
        hiding(words("cache migration fail")),
        hiding(words("deploy branch review")),
        phrase,
        words("the"),
    ] {
        for page in [1usize, 10, 40] {
            let found = s.candidates(&q, &b, page * 4).expect("candidates");
            let mut ids: Vec<String> = Vec::new();
            for (_, a) in &found {
                let id = s.passage(*a).expect("passage").id;
                if !ids.contains(&id) && ids.len() < page {
                    ids.push(id);
                }
            }
            // Documents the list did not hold, hidden ones and an id no document has.
            ids.extend(["d0050.md", "d0090.md", "d0007.md", "no/such.md"].map(String::from));
            let ids: Vec<&str> = ids.iter().map(String::as_str).collect();
            let got = s.passages_of(&q, &b, &ids).expect("passages_of");
            let want = s.passages_of_one_pass(&q, &b, &ids).expect("one pass");
            same(&got, &want, &format!("{:?} page {page}", q.terms));
            compared += want.len();
        }
    }
    assert!(compared > 500, "{compared}");
    assert!(
        s.passages_of(&words("test"), &b, &[])
            .expect("empty")
            .is_empty()
    );
}
