//! `Indexer::index_file`: one file indexed on its own (the `brain inbox` path) is what `--all` would
//! have indexed, so the next `--all` finds it unchanged; a held lock is waited for, within a bound.

use std::time::Duration;

use brain_lex::{Indexer, LexIndex, SyncError, dump};
use brain_store::{Home, Lock};

#[test]
fn one_file_is_indexed_as_all_would_and_then_unchanged() {
    let dir = tempfile::tempdir().expect("tempdir");
    let home = Home::at(dir.path());
    let file = home.inbox().join("2026-04-10.md");
    std::fs::create_dir_all(home.inbox()).expect("mkdir");
    std::fs::write(
        &file,
        "---\ntitle: Inbox 2026-04-10\ndate: 2026-04-10\n---\n## entry\n\nzanzibar note\n",
    )
    .expect("write");
    let mut ix = Indexer::open_within(&home, false, Duration::from_secs(1)).expect("open");
    ix.index_file("inbox", "2026-04-10.md", &file)
        .expect("index")
        .expect("readable");
    let s = ix.finish().expect("finish");
    assert_eq!((s.added, s.passages), (1, 1));
    let passages = dump(&LexIndex::open(&home).expect("open")).expect("dump");
    assert_eq!(passages[0].id, "inbox/2026-04-10.md");
    assert!(passages[0].text.contains("zanzibar"), "{:?}", passages[0]);

    let mut ix = Indexer::open(&home, false).expect("open");
    ix.sync_all(&|w| panic!("{w}")).expect("sync");
    let s = ix.finish().expect("finish");
    assert_eq!((s.added, s.updated, s.removed, s.unchanged), (0, 0, 0, 1));

    let mut ix = Indexer::open(&home, false).expect("open");
    let missing = ix
        .index_file("inbox", "gone.md", &home.inbox().join("gone.md"))
        .expect("no fatal");
    assert!(missing.is_err());
}

#[test]
fn a_held_lock_is_waited_for_then_reported() {
    let dir = tempfile::tempdir().expect("tempdir");
    let home = Home::at(dir.path());
    let held = Lock::try_acquire(&home.lock_file("lexindex")).expect("hold");
    let err = Indexer::open_within(&home, false, Duration::from_millis(50))
        .err()
        .expect("held");
    assert!(matches!(err, SyncError::Locked(_)), "{err}");
    drop(held);
    Indexer::open_within(&home, false, Duration::from_millis(50)).expect("free");
}
