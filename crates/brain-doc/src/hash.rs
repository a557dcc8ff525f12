//! Content hashes: sha256 for provenance, and the short QMD-style `#docid`.

use sha2::{Digest, Sha256};

/// Lower-case hex sha256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    let mut out = String::with_capacity(64);
    for b in digest {
        out.push(char::from_digit(u32::from(b >> 4), 16).unwrap_or('0'));
        out.push(char::from_digit(u32::from(b & 0xf), 16).unwrap_or('0'));
    }
    out
}

/// The short document id shown to people and agents: `#` and the first six hex digits of the sha256 of
/// the document's id (`<collection>/<path>`), as QMD does. Stable across edits of the content, so a
/// `#docid` copied from yesterday's answer still resolves today.
pub fn docid(id: &str) -> String {
    let hex = sha256_hex(id.as_bytes());
    format!("#{}", &hex[..6])
}

/// The key that breaks ties between documents of equal score or date, everywhere (lexical lists,
/// the recency walk, vector top-k, fusion): the first eight bytes of the sha256 of the document id
/// (`<collection>/<path>`), big-endian. A function of the id alone, so two builds of the same files
/// answer in the same order whatever order they were indexed in; a number, so the index keeps it as
/// a fast field and orders a tie of thousands without reading one stored passage.
pub fn tie_key(id: &str) -> u64 {
    let digest = Sha256::digest(id.as_bytes());
    let mut b = [0u8; 8];
    b.copy_from_slice(&digest[..8]);
    u64::from_be_bytes(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sha256_of_empty_input_is_the_known_constant() {
        assert_eq!(
            sha256_hex(b""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
    }

    #[test]
    fn docid_is_hash_prefixed_and_stable() {
        let a = docid("brain/2026/abc.md");
        assert_eq!(a.len(), 7);
        assert!(a.starts_with('#'));
        assert_eq!(a, docid("brain/2026/abc.md"));
        assert_ne!(a, docid("brain/2026/abd.md"));
    }
}
