//! Property tests over random small corpora, indexed with the real indexer: filters never return a
//! document outside them, and deleting a file removes its hits.

use brain_lex::{Indexer, LexIndex};
use brain_rank::{Query, RankOptions, Ranker};
use brain_store::Home;
use proptest::prelude::*;

const WORDS: [&str; 8] = [
    "lock", "writer", "index", "cache", "retry", "panic", "tantivy", "schema",
];
const COLLECTIONS: [&str; 2] = ["alpha", "beta"];
const PROJECTS: [&str; 2] = ["brain", "webapp"];
const AGENTS: [&str; 2] = ["claude", "codex"];

#[derive(Debug, Clone)]
struct Note {
    collection: usize,
    project: usize,
    agent: usize,
    day: u32,
    words: Vec<usize>,
}

fn note() -> impl Strategy<Value = Note> {
    (
        0..2usize,
        0..2usize,
        0..2usize,
        1..28u32,
        proptest::collection::vec(0..8usize, 1..12),
    )
        .prop_map(|(collection, project, agent, day, words)| Note {
            collection,
            project,
            agent,
            day,
            words,
        })
}

fn write_corpus(home: &Home, notes: &[Note]) {
    let mut yaml = String::from("version: 1\ncollections:\n");
    for c in COLLECTIONS {
        yaml.push_str(&format!("  - name: {c}\n    path: corpus/{c}\n"));
        std::fs::create_dir_all(home.root().join("corpus").join(c)).expect("dir");
    }
    yaml.push_str("partition:\n  default: alpha\n");
    std::fs::write(home.config(), yaml).expect("brain.yaml");
    for (i, n) in notes.iter().enumerate() {
        let body: Vec<&str> = n.words.iter().map(|w| WORDS[*w]).collect();
        let text = format!(
            "---\ntitle: note {i}\ndate: 2026-04-{:02}T10:00:00Z\nproject: {}\nsource:\n  type: note\n  agent: {}\n  file: x\n---\n{}\n",
            n.day,
            PROJECTS[n.project],
            AGENTS[n.agent],
            body.join(" ")
        );
        let path = home
            .root()
            .join("corpus")
            .join(COLLECTIONS[n.collection])
            .join(format!("n{i}.md"));
        std::fs::write(path, text).expect("note");
    }
}

fn sync(home: &Home) {
    let mut ix = Indexer::open(home, false).expect("indexer");
    ix.sync_all(&|w| panic!("{w}")).expect("sync");
    ix.finish().expect("finish");
}

fn rank(home: &Home, q: &Query) -> Vec<brain_doc::Hit> {
    let lex = LexIndex::open(home).expect("index");
    let opts = RankOptions {
        limit: 50,
        ..RankOptions::default()
    };
    Ranker::new(&lex)
        .expect("ranker")
        .rank(q, &opts, "2026-05-01T00:00:00Z".parse().expect("ts"))
        .expect("rank")
}

fn note_of(path: &str) -> usize {
    path.trim_start_matches('n')
        .trim_end_matches(".md")
        .parse()
        .expect("note index")
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    #[test]
    fn filters_never_return_a_doc_outside_them(
        notes in proptest::collection::vec(note(), 1..25),
        word in 0..8usize,
        collection in proptest::option::of(0..2usize),
        project in proptest::option::of(0..2usize),
        agent in proptest::option::of(0..2usize),
        since in proptest::option::of(1..28u32),
    ) {
        let dir = tempfile::tempdir().expect("tempdir");
        let home = Home::at(dir.path());
        write_corpus(&home, &notes);
        sync(&home);
        let mut q = Query { terms: vec![WORDS[word].to_string()], ..Query::default() };
        q.filters.collections.extend(collection.map(|c| COLLECTIONS[c].to_string()));
        q.filters.projects.extend(project.map(|p| PROJECTS[p].to_string()));
        q.filters.agents.extend(agent.map(|a| AGENTS[a].to_string()));
        q.filters.since = since.map(|d| format!("2026-04-{d:02}T00:00:00Z").parse().expect("ts"));
        let hits = rank(&home, &q);
        let expected: Vec<usize> = (0..notes.len())
            .filter(|&i| {
                let n = &notes[i];
                n.words.contains(&word)
                    && collection.is_none_or(|c| n.collection == c)
                    && project.is_none_or(|p| n.project == p)
                    && agent.is_none_or(|a| n.agent == a)
                    && since.is_none_or(|d| n.day >= d)
            })
            .collect();
        let mut got: Vec<usize> = hits.iter().map(|h| note_of(&h.path)).collect();
        got.sort_unstable();
        prop_assert_eq!(got, expected, "filters applied inside the search: exactly the matching notes");
    }

    #[test]
    fn deleting_a_file_removes_its_hits(notes in proptest::collection::vec(note(), 2..15), victim in 0..15usize) {
        let victim = victim % notes.len();
        let dir = tempfile::tempdir().expect("tempdir");
        let home = Home::at(dir.path());
        write_corpus(&home, &notes);
        sync(&home);
        let word = WORDS[notes[victim].words[0]];
        let q = Query { terms: vec![word.to_string()], ..Query::default() };
        prop_assert!(rank(&home, &q).iter().any(|h| note_of(&h.path) == victim));
        let path = home.root().join("corpus").join(COLLECTIONS[notes[victim].collection]).join(format!("n{victim}.md"));
        std::fs::remove_file(path).expect("rm");
        sync(&home);
        prop_assert!(rank(&home, &q).iter().all(|h| note_of(&h.path) != victim));
    }
}
