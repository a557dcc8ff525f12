// The layout of the prepared cl100k_base table: one owner for the build script that writes it
// (`build.rs` includes this file) and the counter that reads it (`tokens::Table`).
//
// All numbers are little-endian u32:
//   [tokens n] [SLOTS slots: token id + 1, 0 = empty] [n + 1 offsets into the bytes] [bytes]
// A token's id is its tiktoken rank; its bytes are `bytes[offsets[id]..offsets[id + 1]]`; the
// slot of a byte string is found by `hash` and linear probing.

/// Slots of the open-addressing table (a power of two; cl100k's 100,256 tokens fill 38 %).
pub const SLOTS: usize = 1 << 18;

/// FNV-1a (64-bit) of `bytes`, finished with splitmix64's mixer (FNV alone leaves the high bits of
/// one- and two-byte keys nearly constant): fixed, so the table written at build time is read the
/// same way.
pub fn hash(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h = (h ^ (h >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    h = (h ^ (h >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    h ^ (h >> 31)
}

/// The first slot to probe for a hash.
pub fn home_slot(h: u64) -> usize {
    (h >> (64 - SLOTS.trailing_zeros())) as usize
}
