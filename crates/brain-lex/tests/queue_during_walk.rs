//! The index queue across a walk of every collection (issue 58): a file a hook wrote or changed
//! after the walk saw its folder, and queued, is indexed by that walk's run as it is now; what is
//! queued while a run commits stays for the next writer; a purge's rewrite is never undone.

use brain_lex::queue::{self, Entry};
use brain_lex::{Indexer, LexIndex, dump};
use brain_store::Home;

/// A home with one collection `notes` of `n` notes, each naming its number.
fn home_with_notes(dir: &std::path::Path, n: usize) -> Home {
    let notes = dir.join("notes");
    std::fs::create_dir_all(&notes).expect("notes");
    for i in 0..n {
        std::fs::write(
            notes.join(format!("n{i}.md")),
            format!("# note {i}\n\nplain{i}\n"),
        )
        .expect("note");
    }
    std::fs::write(
        dir.join("brain.yaml"),
        format!(
            "version: 1\ncollections:\n  - name: notes\n    path: {}\npartition:\n  default: notes\n",
            notes.display()
        ),
    )
    .expect("yaml");
    Home::at(dir)
}

fn texts(home: &Home) -> Vec<(String, String)> {
    let mut all: Vec<(String, String)> = dump(&LexIndex::open(home).expect("open"))
        .expect("dump")
        .into_iter()
        .map(|p| (p.id, p.text))
        .collect();
    all.sort();
    all
}

fn entry(rel: &str) -> Entry {
    Entry {
        collection: "notes".into(),
        path: Some(rel.into()),
        doc: None,
    }
}

#[test]
fn a_file_queued_after_the_walk_saw_its_folder_is_indexed_as_it_is_now() {
    for rebuild in [true, false] {
        let dir = tempfile::tempdir().expect("tempdir");
        let home = home_with_notes(dir.path(), 3);
        if !rebuild {
            let mut ix = Indexer::open(&home, false).expect("open");
            ix.sync_all(&|w| panic!("{w}")).expect("walk");
            ix.finish().expect("finish");
        }
        let notes = dir.path().join("notes");
        let mut ix = Indexer::open(&home, rebuild).expect("open");
        ix.sync_all(&|w| panic!("{w}")).expect("walk");
        // While the walk's run is still open: a hook writes a new session and changes another
        // (a new turn), and queues both, as a stop hook does when the index is held.
        std::fs::write(notes.join("late.md"), "# late\n\nlatecomer\n").expect("late");
        std::fs::write(notes.join("n1.md"), "# note 1\n\nplain1 newturn\n").expect("turn");
        queue::append(
            &home,
            &[entry("late.md"), entry("n1.md"), entry("n2.md")],
            true,
        )
        .expect("queue");
        let s = ix.finish().expect("finish");
        assert_eq!(
            s.from_queue, 2,
            "rebuild {rebuild}: the unchanged n2 is not indexed twice"
        );
        let all = texts(&home);
        let ids: Vec<&str> = all.iter().map(|(id, _)| id.as_str()).collect();
        assert_eq!(
            ids,
            ["notes/late.md", "notes/n0.md", "notes/n1.md", "notes/n2.md"],
            "rebuild {rebuild}: each file once"
        );
        assert!(all[2].1.contains("newturn"), "rebuild {rebuild}: {all:?}");
        assert!(!queue::path(&home).exists(), "the queue is emptied");
        // And the registry agrees: the next walk finds nothing to do.
        let mut ix = Indexer::open(&home, false).expect("open");
        ix.sync_all(&|w| panic!("{w}")).expect("walk");
        let s = ix.finish().expect("finish");
        assert_eq!(
            (s.added, s.updated, s.removed, s.unchanged),
            (0, 0, 0, 4),
            "rebuild {rebuild}"
        );
    }
}

#[test]
fn a_file_the_walk_found_gone_but_queued_again_stays() {
    let dir = tempfile::tempdir().expect("tempdir");
    let home = home_with_notes(dir.path(), 2);
    let notes = dir.path().join("notes");
    let mut ix = Indexer::open(&home, false).expect("open");
    ix.sync_all(&|w| panic!("{w}")).expect("walk");
    ix.finish().expect("finish");
    // Replaced by its writer (removed, written again) while the walk listed the folder.
    std::fs::remove_file(notes.join("n1.md")).expect("rm");
    let mut ix = Indexer::open(&home, false).expect("open");
    ix.sync_all(&|w| panic!("{w}")).expect("walk");
    std::fs::write(notes.join("n1.md"), "# note 1\n\nback again\n").expect("back");
    queue::append(&home, &[entry("n1.md")], true).expect("queue");
    let s = ix.finish().expect("finish");
    assert_eq!((s.removed, s.from_queue), (0, 1));
    assert!(s.removed_ids.is_empty(), "its vectors stay");
    let all = texts(&home);
    assert_eq!(all.len(), 2, "{all:?}");
    assert!(all[1].1.contains("back again"), "{all:?}");
}

#[test]
fn take_keeps_what_was_queued_after_the_read_and_never_undoes_a_purge() {
    let dir = tempfile::tempdir().expect("tempdir");
    let home = Home::at(dir.path());
    queue::append(&home, &[entry("a.md"), entry("b.md")], true).expect("queue");
    let read = queue::read_bytes(&home).expect("read");
    // A hook queues while the run commits.
    queue::append(&home, &[entry("c.md")], true).expect("queue");
    assert!(queue::take(&home, &read).expect("take") > 0);
    let (left, bad) = queue::read(&home).expect("read");
    assert_eq!((left, bad), (vec![entry("c.md")], 0));
    // All taken: the file goes.
    let read = queue::read_bytes(&home).expect("read");
    assert_eq!(queue::take(&home, &read).expect("take"), 0);
    assert!(!queue::path(&home).exists());
    // A purge rewrote the queue after the read: it is left as the purge made it.
    queue::append(
        &home,
        &[entry("a.md"), entry("secret.md"), entry("b.md")],
        true,
    )
    .expect("queue");
    let read = queue::read_bytes(&home).expect("read");
    queue::forget(&home, "notes/secret.md").expect("forget");
    queue::take(&home, &read).expect("take");
    let (left, _) = queue::read(&home).expect("read");
    assert_eq!(left, vec![entry("a.md"), entry("b.md")]);
    // Nothing read: nothing taken.
    assert_eq!(
        queue::take(&home, b"").expect("take"),
        queue::read_bytes(&home).expect("read").len()
    );
}
