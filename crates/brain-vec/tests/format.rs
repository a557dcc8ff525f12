//! The store's files on disk across schemas: documents found by id (the id index, a peeked
//! store), generations of schema 1 and 2 still read and rewritten, damaged tables refused.

use std::sync::atomic::Ordering;

use brain_vec::VecError;
use brain_vec::index::{Options, update};
use brain_vec::store::{Filter, Store};

mod common;
mod letters;

use letters::{Letters, input, query, three_docs};

/// Generations written before the binary documents table (manifest schema 1, `g<N>.docs.json`)
/// are still read, with the same answers, and a run over one carries it into the current schema;
/// a damaged table, rows named past the end, or a schema from a newer build are refused as a
/// corrupt index, never read out of bounds.
#[test]
fn a_schema_1_store_is_still_read_and_a_damaged_documents_table_is_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let e = Letters::new("letters");
    let docs = three_docs();
    update(dir.path(), &e, &docs, &Options::default(), &|_| {}).expect("update");
    let s = Store::open(dir.path()).expect("open");
    assert_eq!(s.manifest.schema, brain_vec::store::SCHEMA);
    let q = query(&e, "aaaa");
    let want = s.search(&q, 10, &Filter::default());
    let entries: Vec<brain_vec::store::DocEntry> = s.docs.iter().map(|d| d.to_entry()).collect();
    drop(s);
    // Schema 1 and 2 kept f32 rows beside the int8 copy.
    let g = common::write_f32_rows(dir.path());
    let table = dir.path().join(format!("g{g}.docs"));
    let set_schema = |n: u32| common::set_manifest(dir.path(), "schema", Some(n.into()));

    // Schema 1: the same documents as JSON, no binary table.
    std::fs::remove_file(&table).expect("rm");
    std::fs::write(
        dir.path().join(format!("g{g}.docs.json")),
        serde_json::to_vec(&entries).expect("json"),
    )
    .expect("write");
    set_schema(1);
    let old = Store::open(dir.path()).expect("schema 1 opens");
    assert_eq!(old.search(&q, 10, &Filter::default()), want);
    let back: Vec<brain_vec::store::DocEntry> = old.docs.iter().map(|d| d.to_entry()).collect();
    assert_eq!(back, entries);
    drop(old);
    // A run with something to do writes the next generation in the current schema.
    let mut more = docs.clone();
    more.push(input("b/4.md", "2026-03-01", "gggg"));
    update(dir.path(), &e, &more, &Options::default(), &|_| {}).expect("update");
    let s = Store::open(dir.path()).expect("open");
    assert_eq!(
        (s.manifest.schema, s.docs.len()),
        (brain_vec::store::SCHEMA, 4)
    );
    let g = s.manifest.generation;
    drop(s);
    assert!(!dir.path().join(format!("g{}.docs.json", g - 1)).exists());

    let table = dir.path().join(format!("g{g}.docs"));
    let good = std::fs::read(&table).expect("table");
    let corrupt = |bytes: &[u8], why: &str| {
        std::fs::write(&table, bytes).expect("write");
        match Store::open(dir.path()) {
            Err(VecError::IndexCorrupt { .. }) => {}
            Err(other) => panic!("{why}: {other}"),
            Ok(_) => panic!("{why}: opened"),
        }
    };
    corrupt(&good[..good.len() - 3], "cut short");
    corrupt(b"", "empty");
    corrupt(&[0u8; 4096], "zeros");
    let mut rows = good.clone();
    rows[24 + 56..24 + 64].copy_from_slice(&1000u64.to_le_bytes()); // first doc: 1000 rows
    corrupt(&rows, "rows past the end");
    std::fs::write(&table, &good).expect("write");
    Store::open(dir.path()).expect("restored");
    // A schema from a newer build: refused, saying which.
    let newer = brain_vec::store::SCHEMA + 1;
    set_schema(newer);
    match Store::open(dir.path()) {
        Err(VecError::IndexCorrupt { reason, .. }) => {
            assert!(reason.contains(&format!("schema {newer}")), "{reason}")
        }
        Err(other) => panic!("schema {newer}: {other}"),
        Ok(_) => panic!("schema {newer} opened"),
    }
}

#[test]
fn find_gives_the_positions_of_the_ids_asked_and_none_for_the_rest() {
    let dir = tempfile::tempdir().expect("tempdir");
    let e = Letters::new("letters");
    update(dir.path(), &e, &three_docs(), &Options::default(), &|_| {}).expect("update");
    let s = Store::open(dir.path()).expect("open");
    let ids: Vec<String> = s.docs.iter().map(|d| d.id.to_owned()).collect();
    let asked = [
        ids[2].as_str(),
        "no/such.md",
        ids[0].as_str(),
        ids[2].as_str(),
        "",
    ];
    assert_eq!(
        s.find(&asked),
        vec![Some(2), None, Some(0), Some(2), None],
        "{ids:?}"
    );
    assert!(s.find(&[]).is_empty());
}

/// Documents are found by id through `g<N>.ids` (by bisection) exactly as by walking the table; a
/// generation without the index (written before it) is walked; a damaged index finds nothing
/// wrong; a peeked store — the documents not walked at open — reads the same vectors, and a
/// damaged table it peeks at gives missing documents, never a panic or a read out of bounds.
#[test]
fn the_id_index_and_a_peeked_store_find_what_the_walk_finds() {
    let dir = tempfile::tempdir().expect("tempdir");
    let e = Letters::new("letters");
    let mut docs = three_docs();
    for i in 0..40 {
        // Ids whose byte order differs from the table's (newest first) order.
        let id = format!("{}/{:02}-é.md", ["z", "a", "m"][i % 3], 40 - i);
        docs.push(input(&id, &format!("2026-01-{:02}", 1 + i % 28), "abc dd"));
    }
    update(dir.path(), &e, &docs, &Options::default(), &|_| {}).expect("update");
    let s = Store::open(dir.path()).expect("open");
    let g = s.manifest.generation;
    let ids: Vec<String> = s.docs.iter().map(|d| d.id.to_owned()).collect();
    let mut asked: Vec<&str> = ids.iter().map(String::as_str).collect();
    asked.extend(["", "a", "z/99-é.md", "\u{10ffff}", "a/1.md\0"]);
    let walked: Vec<Option<usize>> = asked
        .iter()
        .map(|id| ids.iter().position(|x| x == id))
        .collect();
    assert_eq!(s.find(&asked), walked);
    let wanted: Vec<Vec<f32>> = (0..ids.len())
        .map(|d| s.text_vector(d, None).expect("vector"))
        .collect();
    drop(s);

    let peeked = Store::peek(dir.path()).expect("peek");
    assert_eq!(peeked.find(&asked), walked);
    for (d, v) in wanted.iter().enumerate() {
        assert_eq!(peeked.text_vector(d, None).as_ref(), Some(v));
    }
    drop(peeked);

    let index = dir.path().join(format!("g{g}.ids"));
    let good = std::fs::read(&index).expect("ids");
    // Without the index: walked, the same answers.
    std::fs::remove_file(&index).expect("rm");
    assert_eq!(Store::open(dir.path()).expect("open").find(&asked), walked);
    // Out of order or pointing past the end: nothing found wrongly.
    let mut shuffled = good.clone();
    shuffled.reverse();
    for bytes in [shuffled, vec![0xff; good.len()]] {
        std::fs::write(&index, &bytes).expect("write");
        let s = Store::peek(dir.path()).expect("peek");
        for (got, want) in s.find(&asked).into_iter().zip(&walked) {
            assert!(got.is_none() || got == *want, "{got:?} for {want:?}");
        }
    }
    // The wrong size is a damaged store.
    std::fs::write(&index, &good[..good.len() - 1]).expect("write");
    assert!(matches!(
        Store::open(dir.path()),
        Err(VecError::IndexCorrupt { .. })
    ));
    std::fs::write(&index, &good).expect("write");

    // A damaged documents table, peeked: no panic, no document read out of bounds.
    let table = dir.path().join(format!("g{g}.docs"));
    let table_bytes = std::fs::read(&table).expect("table");
    let mut damaged = table_bytes.clone();
    for (k, b) in damaged.iter_mut().enumerate().skip(24) {
        if k % 7 == 0 {
            *b = 0xff;
        }
    }
    std::fs::write(&table, &damaged).expect("write");
    assert!(matches!(
        Store::open(dir.path()),
        Err(VecError::IndexCorrupt { .. })
    ));
    let s = Store::peek(dir.path()).expect("peek opens what it does not walk");
    let found = s.find(&asked);
    for d in 0..ids.len() + 2 {
        let _ = s.text_vector(d, Some(3));
        let _ = s.text_vector(d, None);
    }
    assert_eq!(found.len(), asked.len());
    // A table too short for its count is refused even peeked.
    std::fs::write(&table, &table_bytes[..100]).expect("write");
    assert!(matches!(
        Store::peek(dir.path()),
        Err(VecError::IndexCorrupt { .. })
    ));
}

/// A store of schema 2 (f32 rows beside the int8 copy: 5× the bytes) is rewritten as schema 3 by
/// the next run — its rows carried over, nothing embedded again — and answers as before.
#[test]
fn the_next_run_rewrites_a_schema_2_store_without_embedding_again() {
    let dir = tempfile::tempdir().expect("tempdir");
    let e = Letters::new("letters");
    let docs = three_docs();
    update(dir.path(), &e, &docs, &Options::default(), &|_| {}).expect("update");
    let s = Store::open(dir.path()).expect("open");
    let q = query(&e, "aaab");
    // Positions change with a rewrite; documents and scores do not.
    let answer = |s: &Store| -> Vec<(String, f32)> {
        s.search(&q, 10, &Filter::default())
            .into_iter()
            .map(|d| (s.docs.get(d.doc).expect("doc").id.to_owned(), d.score))
            .collect()
    };
    let want = answer(&s);
    drop(s);
    common::write_f32_rows(dir.path());
    common::set_manifest(dir.path(), "schema", Some(2.into()));
    assert_eq!(
        Store::open(dir.path()).expect("schema 2").manifest.schema,
        2
    );

    let calls = e.calls.load(Ordering::Relaxed);
    let r = update(dir.path(), &e, &docs, &Options::default(), &|_| {}).expect("update");
    assert_eq!(
        e.calls.load(Ordering::Relaxed),
        calls,
        "nothing embedded again"
    );
    assert_eq!(r.embedded, 0);
    let s = Store::open(dir.path()).expect("open");
    assert_eq!(s.manifest.schema, brain_vec::store::SCHEMA);
    let g = s.manifest.generation;
    assert!(!dir.path().join(format!("g{g}.vec")).exists());
    assert_eq!(answer(&s), want);
    // Carried through further runs, a schema-3 row stays the row it was, bit for bit.
    let rows_of = |s: &Store| -> Vec<(String, Vec<Vec<f32>>)> {
        s.docs
            .iter()
            .map(|d| {
                let rows = (d.first..d.first + d.count).map(|r| s.vector(r as usize));
                (d.id.to_owned(), rows.collect())
            })
            .collect()
    };
    let before = rows_of(&s);
    drop(s);
    let mut more = docs.clone();
    more.push(input("b/9.md", "2026-03-09", "gggg"));
    update(dir.path(), &e, &more, &Options::default(), &|_| {}).expect("update");
    let after = rows_of(&Store::open(dir.path()).expect("open"));
    for (id, rows) in &before {
        let again = after.iter().find(|(a, _)| a == id).expect("carried");
        assert_eq!(&again.1, rows, "{id}");
    }
}
