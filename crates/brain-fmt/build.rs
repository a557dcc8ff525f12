//! Prepares the cl100k_base table for the token counter (`block::tokens`): the tokens by rank
//! and an open-addressing hash table over them, written once at build time in the layout
//! `src/block/tokens/table.rs` owns, so a process counts tokens without deserializing anything
//! (bpe-openai's own form takes ~20–30 ms to load at every start: most of a SessionStart hook).

#[allow(dead_code)]
mod table {
    include!("src/block/tokens/table.rs");
}

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-changed=src/block/tokens/table.rs");
    let bpe = &bpe_openai::cl100k_base().bpe;
    let n = bpe.num_tokens();
    let mut slots = vec![0u32; table::SLOTS];
    let mut offsets = Vec::with_capacity(n + 1);
    let mut bytes = Vec::new();
    for id in 0..n {
        let token = bpe.token_bytes(id as u32);
        offsets.push(bytes.len() as u32);
        bytes.extend_from_slice(token);
        let mut slot = table::home_slot(table::hash(token));
        while slots[slot] != 0 {
            slot = (slot + 1) & (table::SLOTS - 1);
        }
        slots[slot] = id as u32 + 1;
    }
    offsets.push(bytes.len() as u32);
    let mut out = Vec::with_capacity(4 * (1 + table::SLOTS + n + 1) + bytes.len());
    out.extend_from_slice(&(n as u32).to_le_bytes());
    for v in slots.iter().chain(&offsets) {
        out.extend_from_slice(&v.to_le_bytes());
    }
    out.extend_from_slice(&bytes);
    let dir = std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR for build scripts");
    std::fs::write(std::path::Path::new(&dir).join("cl100k_base.table"), out)
        .expect("write the prepared cl100k_base table");
}
