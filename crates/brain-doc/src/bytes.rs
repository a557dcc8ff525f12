//! Bytes that may not be UTF-8 — a transcript line, a History title or URL, a line of any stage's
//! stdin — decided once, here, at the edge where they are read:
//!
//! * **data** ([`text`]): every invalid sequence becomes U+FFFD (one per maximal invalid subpart,
//!   Unicode's recommended practice) and the record is kept ([`text`] also says how many were
//!   replaced). A record is never dropped for a stray byte (an NDJSON or transcript line with one
//!   used to be skipped whole as invalid JSON while a History title was made lossy: two rules);
//! * **a question** ([`query`]): a query or an argument that is not UTF-8 is refused (exit 64 by
//!   its caller) — a search for a replacement character finds nothing the user meant.
//!
//! Decoding needs no crate: std's `utf8_chunks` walks the valid and invalid parts (bstr's is the
//! same algorithm). `bstr` serves where bytes are cut into lines before they are decoded
//! ([`lines`]: a transcript, a JSONL store).

use std::borrow::Cow;

use bstr::ByteSlice;

/// The non-empty lines of `bytes` with their 1-based numbers, ASCII blanks trimmed (`\r\n` and
/// `\n` both end a line): bytes, not text — each is decoded by its reader ([`text`]).
pub fn lines(bytes: &[u8]) -> impl Iterator<Item = (u64, &[u8])> {
    bytes
        .lines()
        .enumerate()
        .map(|(i, l)| (i as u64 + 1, l.trim_ascii()))
        .filter(|(_, l)| !l.is_empty())
}

/// `bytes` as text, invalid UTF-8 replaced (see the module docs), and how many sequences were.
pub fn text(bytes: &[u8]) -> (Cow<'_, str>, usize) {
    if let Ok(s) = std::str::from_utf8(bytes) {
        return (Cow::Borrowed(s), 0);
    }
    let mut out = String::with_capacity(bytes.len() + 8);
    let mut replaced = 0;
    for chunk in bytes.utf8_chunks() {
        out.push_str(chunk.valid());
        if !chunk.invalid().is_empty() {
            out.push('\u{FFFD}');
            replaced += 1;
        }
    }
    (Cow::Owned(out), replaced)
}

/// [`text`] as an owned string, the count dropped (a field of a record: a title, a URL).
pub fn lossy(bytes: &[u8]) -> String {
    text(bytes).0.into_owned()
}

/// A question's bytes as text, or where the first invalid byte is.
pub fn query(bytes: &[u8]) -> Result<&str, String> {
    std::str::from_utf8(bytes).map_err(|e| format!("invalid byte at offset {}", e.valid_up_to()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invalid_sequences_become_one_replacement_each_and_are_counted() {
        assert_eq!(text(b"plain"), (Cow::Borrowed("plain"), 0));
        let (t, n) = text(b"caf\xc3 \xff\xfe ok \xe2\x82");
        assert_eq!(t, "caf\u{FFFD} \u{FFFD}\u{FFFD} ok \u{FFFD}");
        assert_eq!(n, 4);
        assert_eq!(lossy(b"\xc0\xaf"), "\u{FFFD}\u{FFFD}");
        assert_eq!(query(b"ok"), Ok("ok"));
        assert_eq!(query(b"ab\xff"), Err("invalid byte at offset 2".into()));
    }

    #[test]
    fn lines_are_numbered_as_written_and_blank_ones_skipped() {
        let got: Vec<(u64, &[u8])> = lines(b"a\r\n\n  \nb\xff\nc").collect();
        assert_eq!(got, [(1, &b"a"[..]), (4, &b"b\xff"[..]), (5, &b"c"[..])]);
    }
}
