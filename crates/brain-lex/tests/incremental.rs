//! Property tests of incremental indexing over random small collections: re-indexing unchanged files
//! changes nothing, and deleting files removes exactly their passages.

use std::collections::BTreeSet;

use brain_lex::{Indexer, LexIndex, PassageRecord, dump};
use brain_store::Home;
use proptest::prelude::*;

fn files() -> impl Strategy<Value = Vec<(String, String)>> {
    let name = "[a-c]{1,2}(/[a-c]{1,2})?";
    let line = prop_oneof![
        "[a-z ]{0,30}",
        "# [a-z]{1,8}",
        "parse_[a-z]{1,5} src/[a-z]{1,4}\\.rs",
        Just(String::new())
    ];
    let text = proptest::collection::vec(line, 0..12).prop_map(|ls| ls.join("\n") + "\n");
    proptest::collection::btree_map(name, text, 1..8)
        .prop_map(|m| m.into_iter().map(|(n, t)| (format!("{n}.md"), t)).collect())
}

fn run(home: &Home) -> brain_lex::Summary {
    let mut ix = Indexer::open(home, false).expect("open");
    ix.sync_all(&|w| panic!("{w}")).expect("sync");
    ix.finish().expect("finish")
}

fn ids(d: &[PassageRecord]) -> BTreeSet<String> {
    d.iter().map(|p| p.id.clone()).collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    #[test]
    fn unchanged_input_changes_nothing_and_deletions_remove_their_passages(files in files(), drop_mask in any::<u8>()) {
        let dir = tempfile::tempdir().expect("tempdir");
        let home = Home::at(dir.path());
        let root = dir.path().join("corpus/brain");
        for (rel, text) in &files {
            let p = root.join(rel);
            std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
            std::fs::write(&p, text).expect("write");
        }
        let first = run(&home);
        prop_assert_eq!(first.added as usize, files.len());
        let before = dump(&LexIndex::open(&home).expect("open")).expect("dump");
        prop_assert_eq!(ids(&before).len(), files.len());

        let again = run(&home);
        prop_assert_eq!((again.added, again.updated, again.removed, again.unchanged), (0, 0, 0, files.len() as u64));
        prop_assert_eq!(&dump(&LexIndex::open(&home).expect("open")).expect("dump"), &before);

        let dropped: BTreeSet<String> = files.iter().enumerate()
            .filter(|(i, _)| drop_mask & (1 << i) != 0)
            .map(|(_, (rel, _))| { std::fs::remove_file(root.join(rel)).expect("rm"); format!("brain/{rel}") })
            .collect();
        let third = run(&home);
        prop_assert_eq!(third.removed as usize, dropped.len());
        let after = dump(&LexIndex::open(&home).expect("open")).expect("dump");
        prop_assert!(ids(&after).is_disjoint(&dropped));
        let kept: Vec<&PassageRecord> = before.iter().filter(|p| !dropped.contains(&p.id)).collect();
        prop_assert_eq!(after.iter().collect::<Vec<_>>(), kept);
    }
}
