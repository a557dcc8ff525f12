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

/// The letters embedder and three documents, embedded into a store of the current schema in
/// `dir`.
fn three_docs_store(dir: &std::path::Path) -> (Letters, Vec<brain_vec::index::Input>) {
    let e = Letters::new("letters");
    let docs = three_docs();
    update(dir, &e, &docs, &Options::default(), &|_| {}).expect("update");
    let schema = Store::open(dir).expect("open").manifest.schema;
    assert_eq!(schema, brain_vec::store::SCHEMA);
    (e, docs)
}

/// Every row's text, in row order.
fn texts(s: &Store) -> Vec<String> {
    (0..s.len()).map(|r| s.text(r).into_owned()).collect()
}

/// Schema 4 keeps the chunk texts in LZ4 blocks: the same texts read back one by one and all at
/// once; a schema-3 generation (texts uncompressed) is still read, and the next run with something
/// to do writes them compressed, the texts the same.
#[test]
fn texts_are_compressed_and_a_schema_3_store_is_read_and_rewritten() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (e, docs) = three_docs_store(dir.path());
    let s = Store::open(dir.path()).expect("open");
    let want = texts(&s);
    assert!(want.iter().any(|t| !t.is_empty()), "{want:?}");
    assert_eq!(s.map_texts(|_, t| t.to_string()), want);
    let g = s.manifest.generation;
    drop(s);
    assert!(dir.path().join(format!("g{g}.tblk")).exists());

    common::write_raw_texts(dir.path());
    common::set_manifest(dir.path(), "schema", Some(3.into()));
    let old = Store::open(dir.path()).expect("schema 3 opens");
    assert_eq!(texts(&old), want);
    assert_eq!(old.map_texts(|_, t| t.to_string()), want);
    drop(old);
    let mut more = docs.clone();
    more.push(input("b/4.md", "2026-03-01", "gggg"));
    update(dir.path(), &e, &more, &Options::default(), &|_| {}).expect("update");
    let s = Store::open(dir.path()).expect("open");
    assert_eq!(s.manifest.schema, brain_vec::store::SCHEMA);
    let now = texts(&s);
    for t in &want {
        assert!(now.contains(t), "{t:?} carried over");
    }
}

/// A damaged block index or text file: the store is refused as corrupt, or a row whose block does
/// not decompress reads as no text — never a panic or a read out of bounds.
#[test]
fn damaged_text_blocks_are_refused_or_read_as_nothing() {
    let dir = tempfile::tempdir().expect("tempdir");
    three_docs_store(dir.path());
    let g = Store::open(dir.path()).expect("open").manifest.generation;
    let tblk = dir.path().join(format!("g{g}.tblk"));
    let text = dir.path().join(format!("g{g}.text"));
    let (blocks, stored) = (
        std::fs::read(&tblk).expect("tblk"),
        std::fs::read(&text).expect("text"),
    );
    // Refused as a damaged store, or (a file of the generation gone) as any missing file is.
    let refused = |why: &str| match Store::open(dir.path()) {
        Err(VecError::IndexCorrupt { .. }) => {}
        Err(VecError::Io { source, .. }) if source.kind() == std::io::ErrorKind::NotFound => {}
        Err(other) => panic!("{why}: {other}"),
        Ok(_) => panic!("{why}: opened"),
    };
    let want = texts(&Store::open(dir.path()).expect("open"));
    // The index: cut, emptied, gone, ends that miss the text file.
    for (why, bytes) in [
        ("cut", blocks[..blocks.len() - 3].to_vec()),
        ("empty", Vec::new()),
        ("past the end", {
            let mut b = blocks.clone();
            let n = b.len();
            b[n - 16..n - 8].copy_from_slice(&u64::MAX.to_le_bytes());
            b
        }),
    ] {
        std::fs::write(&tblk, &bytes).expect("write");
        refused(why);
    }
    // Pairs that do not rise (the index twice over, and every pair swapped with the next): an
    // open checks the ends only, so it opens, and each row reads as its text or as none.
    let swapped: Vec<u8> = blocks
        .chunks(32)
        .flat_map(|c| {
            if c.len() == 32 {
                [&c[16..], &c[..16]].concat()
            } else {
                c.to_vec()
            }
        })
        .collect();
    for (why, bytes) in [
        (
            "twice over",
            [blocks.clone(), blocks[16..].to_vec()].concat(),
        ),
        ("swapped", swapped),
    ] {
        std::fs::write(&tblk, &bytes).expect("write");
        if let Ok(s) = Store::open(dir.path()) {
            for (r, t) in texts(&s).iter().enumerate() {
                assert!(t.is_empty() || *t == want[r], "{why}: row {r} reads {t:?}");
            }
        }
    }
    std::fs::remove_file(&tblk).expect("rm");
    refused("gone");
    std::fs::write(&tblk, &blocks).expect("write");
    // The dictionary: gone, or longer than LZ4 can look back.
    let tdict = dir.path().join(format!("g{g}.tdict"));
    let dict = std::fs::read(&tdict).expect("tdict");
    std::fs::remove_file(&tdict).expect("rm");
    refused("no dictionary");
    std::fs::write(&tdict, vec![b'x'; brain_vec::store::TEXT_DICT + 1]).expect("write");
    refused("a dictionary too long");
    // Another dictionary than the blocks were made with: rows read as nothing or as other text.
    std::fs::write(&tdict, b"another dictionary").expect("write");
    let s = Store::open(dir.path()).expect("opens");
    let _ = (0..s.len()).map(|r| s.text(r).len()).sum::<usize>();
    drop(s);
    std::fs::write(&tdict, &dict).expect("write");
    // The text file cut short: its length no longer matches the index.
    std::fs::write(&text, &stored[..stored.len() / 2]).expect("write");
    refused("text cut");
    // Bytes flipped inside the compressed blocks: each row reads as its text or as nothing.
    let mut flipped = stored.clone();
    for b in flipped.iter_mut().step_by(3) {
        *b ^= 0x5a;
    }
    std::fs::write(&text, &flipped).expect("write");
    let s = Store::open(dir.path()).expect("opens: the sizes hold");
    for r in 0..s.len() {
        let _ = s.text(r);
    }
    let _ = s.map_texts(|_, t| t.len());
}

/// Texts across many blocks (a few of them longer than a block, some empty, some not ASCII):
/// each reads back as written, one by one in any order and all at once.
#[test]
fn texts_across_many_blocks_read_back_as_written() {
    use brain_vec::chunk::ChunkParams;
    use brain_vec::embed::{Fingerprint, PROMPT_FORMAT};
    use brain_vec::store::TEXT_BLOCK;
    use brain_vec::write::Writer;
    let dir = tempfile::tempdir().expect("tempdir");
    let fp = Fingerprint {
        model: "test".into(),
        dims: 4,
        chunking: ChunkParams::default(),
        prompt: PROMPT_FORMAT.into(),
    };
    let mut w = Writer::create(dir.path(), None, fp).expect("writer");
    let text = |d: usize, r: usize| -> String {
        match (d + r) % 9 {
            0 => String::new(),
            4 => format!("{d}.{r} é ü 中文 ").repeat(TEXT_BLOCK / 8),
            n => format!("doc {d} row {r} ").repeat(20 * n),
        }
    };
    let mut want = Vec::new();
    for d in 0..60 {
        let texts: Vec<String> = (0..(d % 5)).map(|r| text(d, r)).collect();
        let v = [0.5f32, 0.5, 0.5, 0.5];
        let rows: Vec<(u64, &str, &[f32])> =
            texts.iter().map(|t| (1, t.as_str(), &v[..])).collect();
        want.extend(texts.iter().cloned());
        w.push(common::entry(d, "c", "2026-01-01"), &rows)
            .expect("push");
    }
    w.commit().expect("commit");
    let s = Store::open(dir.path()).expect("open");
    let g = s.manifest.generation;
    let blocks = std::fs::metadata(dir.path().join(format!("g{g}.tblk")))
        .expect("tblk")
        .len()
        / 16;
    assert!(blocks > 10, "{blocks} blocks");
    let total: usize = want.iter().map(String::len).sum();
    let stored = std::fs::metadata(dir.path().join(format!("g{g}.text")))
        .expect("text")
        .len();
    assert!((stored as usize) < total / 2, "{stored} of {total} bytes");
    assert_eq!(s.map_texts(|_, t| t.to_string()), want);
    // Backwards, then every seventh row: a block is read again whenever it is left.
    for r in (0..s.len()).rev().chain((0..s.len()).step_by(7)) {
        assert_eq!(s.text(r), want[r], "row {r}");
    }
    assert_eq!(s.text(s.len()), "", "past the end");
}

/// A run killed mid-write leaves its generation's files (texts, block index, dictionary) half
/// written beside the store in force: that store still answers with its own texts, and the next
/// run removes the leftovers and writes a whole generation.
#[test]
fn a_generation_killed_mid_write_leaves_the_store_in_force_whole() {
    use brain_vec::write::Writer;
    let dir = tempfile::tempdir().expect("tempdir");
    let (e, docs) = three_docs_store(dir.path());
    let s = Store::open(dir.path()).expect("open");
    let (want, g, fp) = (
        texts(&s),
        s.manifest.generation,
        s.manifest.fingerprint.clone(),
    );
    drop(s);
    // The next generation started, rows pushed, never committed (the process killed), and a
    // block index cut short as a kill during its write would leave it.
    let mut w = Writer::create(dir.path(), Some(g), fp).expect("writer");
    let v = [0.5f32; 4];
    let long = "words that would fill a block ".repeat(2_000);
    w.push(
        common::entry(9, "a", "2026-01-01"),
        &[(1, long.as_str(), &v[..])],
    )
    .ok();
    drop(w);
    std::fs::write(dir.path().join(format!("g{}.tblk", g + 1)), [1u8; 21]).expect("torn");
    let s = Store::open(dir.path()).expect("the store in force opens");
    assert_eq!(s.manifest.generation, g);
    assert_eq!(texts(&s), want);
    drop(s);
    let mut more = docs.clone();
    more.push(input("b/5.md", "2026-03-05", "kkkk"));
    update(dir.path(), &e, &more, &Options::default(), &|_| {}).expect("update");
    let s = Store::open(dir.path()).expect("open");
    let now = s.manifest.generation;
    assert!(now > g);
    for t in &want {
        assert!(texts(&s).contains(t), "{t:?} carried over");
    }
    let stray = std::fs::read_dir(dir.path())
        .expect("dir")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('g') && !n.starts_with(&format!("g{now}.")))
        .collect::<Vec<_>>();
    assert!(stray.is_empty(), "left over: {stray:?}");
}
