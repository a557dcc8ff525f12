//! Stores of the schemas before the current one, made from a current store for the tests that
//! read them.

use std::path::Path;

use brain_vec::store::{DocEntry, Store};

/// Document `c/<d>.md` of collection `collection`, dated `date`, as a writer is handed it (its
/// rows are set by the push).
pub fn entry(d: usize, collection: &str, date: &str) -> DocEntry {
    DocEntry {
        id: format!("c/{d}.md"),
        collection: collection.into(),
        path: format!("{d}.md"),
        title: String::new(),
        date: date.into(),
        project: None,
        agent: None,
        hash: String::new(),
        body_line: 1,
        first: 0,
        count: 0,
    }
}

/// Write the chunk texts as generations before schema 4 kept them: `g<N>.text` uncompressed, no
/// `g<N>.tblk` or `g<N>.tdict`. Returns the generation.
pub fn write_raw_texts(dir: &Path) -> u64 {
    let s = Store::open(dir).expect("open");
    let g = s.manifest.generation;
    let text: Vec<u8> = s.map_texts(|_, t| t.as_bytes().to_vec()).concat();
    drop(s);
    std::fs::write(dir.join(format!("g{g}.text")), text).expect("text");
    for side in ["tblk", "tdict"] {
        std::fs::remove_file(dir.join(format!("g{g}.{side}"))).expect(side);
    }
    g
}

/// Write the f32 rows a schema-1 or -2 generation kept (`g<N>.vec`) beside the store in `dir`: the
/// vectors its int8 rows stand for, and its texts uncompressed ([`write_raw_texts`]). Returns the
/// generation.
pub fn write_f32_rows(dir: &Path) -> u64 {
    let s = Store::open(dir).expect("open");
    let g = s.manifest.generation;
    let rows: Vec<u8> = (0..s.len())
        .flat_map(|i| s.vector(i))
        .flat_map(f32::to_le_bytes)
        .collect();
    drop(s);
    write_raw_texts(dir);
    std::fs::write(dir.join(format!("g{g}.vec")), rows).expect("vec");
    g
}

/// Set (or, with `None`, remove) `key` of the store's manifest.
pub fn set_manifest(dir: &Path, key: &str, value: Option<serde_json::Value>) {
    let p = dir.join("manifest.json");
    let mut m: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&p).expect("read")).expect("json");
    let o = m.as_object_mut().expect("object");
    match value {
        Some(v) => o.insert(key.to_string(), v),
        None => o.remove(key),
    };
    std::fs::write(&p, serde_json::to_vec(&m).expect("json")).expect("write");
}
