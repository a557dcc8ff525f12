//! Splitting a JSONL buffer into numbered lines (memchr) and parsing one line, reporting what is wrong.

use std::borrow::Cow;

use serde::de::DeserializeOwned;

/// A transcript's bytes as UTF-8 without a byte-order mark: a UTF-8 BOM is dropped (an editor or a
/// Windows tool adds one, and it made the whole file "not a transcript"), UTF-16 with a BOM (LE or
/// BE) is decoded (unpaired surrogates become U+FFFD). Anything else is returned as it is.
pub fn decode(bytes: &[u8]) -> Cow<'_, [u8]> {
    if let Some(rest) = bytes.strip_prefix(b"\xEF\xBB\xBF") {
        return Cow::Borrowed(rest);
    }
    let utf16 = |rest: &[u8], read: fn([u8; 2]) -> u16| {
        let units: Vec<u16> = rest.chunks_exact(2).map(|c| read([c[0], c[1]])).collect();
        Cow::Owned(String::from_utf16_lossy(&units).into_bytes())
    };
    if let Some(rest) = bytes.strip_prefix(b"\xFF\xFE") {
        return utf16(rest, u16::from_le_bytes);
    }
    if let Some(rest) = bytes.strip_prefix(b"\xFE\xFF") {
        return utf16(rest, u16::from_be_bytes);
    }
    Cow::Borrowed(bytes)
}

/// A line that could not be read as a JSON object.
#[derive(Debug, Clone, PartialEq)]
pub struct LineIssue {
    /// 1-based line number.
    pub line: u64,
    /// What is wrong with it.
    pub reason: String,
}

/// The non-empty lines of `bytes` with their 1-based numbers (`\r\n` tolerated): the one line
/// cutter for bytes ([`brain_doc::bytes::lines`]).
pub fn split(bytes: &[u8]) -> impl Iterator<Item = (u64, &[u8])> {
    brain_doc::bytes::lines(bytes)
}

/// The JSON-object lines of a transcript parsed as `T`, with their numbers: the one line loop of
/// every JSONL reader (Claude Code, Codex). A line that does not parse is kept in
/// [`Records::issues`] and skipped; [`Records::last`] is the number of the last line read.
pub struct Records<'a, T> {
    lines: Box<dyn Iterator<Item = (u64, &'a [u8])> + 'a>,
    pub issues: Vec<LineIssue>,
    pub last: u64,
    _t: std::marker::PhantomData<T>,
}

impl<'a, T: DeserializeOwned> Records<'a, T> {
    pub fn new(bytes: &'a [u8]) -> Records<'a, T> {
        Records {
            lines: Box::new(split(bytes)),
            issues: Vec::new(),
            last: 0,
            _t: std::marker::PhantomData,
        }
    }
}

impl<T: DeserializeOwned> Iterator for Records<'_, T> {
    type Item = (u64, T);

    fn next(&mut self) -> Option<(u64, T)> {
        for (no, raw) in self.lines.by_ref() {
            self.last = no;
            match parse(no, raw) {
                Ok(Some(t)) => return Some((no, t)),
                Ok(None) => {}
                Err(issue) => self.issues.push(issue),
            }
        }
        None
    }
}

/// Parse one line as a JSON object of type `T`. `Ok(None)` never happens for objects; a non-object
/// (array, string, number) or invalid JSON is an issue.
pub fn parse<T: DeserializeOwned>(no: u64, raw: &[u8]) -> Result<Option<T>, LineIssue> {
    if raw.first() != Some(&b'{') {
        let what = if serde_json::from_slice::<serde_json::Value>(raw).is_ok() {
            "not a JSON object"
        } else {
            "invalid JSON"
        };
        return Err(LineIssue {
            line: no,
            reason: what.into(),
        });
    }
    // Invalid UTF-8 is decided at the edge (brain_doc::bytes): replaced, the line kept.
    let (text, _) = brain_doc::bytes::text(raw);
    serde_json::from_str::<T>(&text).map(Some).map_err(|e| {
        let what = if e.is_data() {
            "unexpected record shape"
        } else {
            "invalid JSON"
        };
        LineIssue {
            line: no,
            reason: format!("{what}: {e}"),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A transcript line with a stray byte in a string keeps its turn (it was an issue, the line lost).
    #[test]
    fn a_stray_byte_is_replaced_and_the_line_kept() {
        let r: Option<serde_json::Value> = parse(1, b"{\"text\":\"ok \xff\"}").expect("parsed");
        assert_eq!(r.map(|v| v["text"].clone()), Some("ok \u{FFFD}".into()));
    }

    #[test]
    fn a_bom_is_dropped_and_utf16_decoded() {
        assert_eq!(&*decode(b"\xEF\xBB\xBF{\"a\":1}"), b"{\"a\":1}");
        let le: Vec<u8> = [0xFF, 0xFE]
            .into_iter()
            .chain("{\"é\":1}".encode_utf16().flat_map(u16::to_le_bytes))
            .collect();
        assert_eq!(&*decode(&le), "{\"é\":1}".as_bytes());
        let be: Vec<u8> = [0xFE, 0xFF]
            .into_iter()
            .chain("{}".encode_utf16().flat_map(u16::to_be_bytes))
            .collect();
        assert_eq!(&*decode(&be), b"{}");
        // A truncated UTF-16 file: the odd last byte is dropped, the rest decodes.
        assert_eq!(&*decode(&le[..le.len() - 1]), "{\"é\":1".as_bytes());
        assert_eq!(&*decode(b"{}"), b"{}");
    }

    #[test]
    fn numbers_skip_blank_lines_but_count_them() {
        let got: Vec<(u64, &[u8])> = split(b"a\n\n b \r\nc").collect();
        assert_eq!(got, vec![(1, &b"a"[..]), (3, &b"b"[..]), (4, &b"c"[..])]);
    }

    #[test]
    fn non_objects_and_garbage_are_issues() {
        let r: Result<Option<serde_json::Value>, _> = parse(7, b"[1,2]");
        assert_eq!(r.expect_err("array").reason, "not a JSON object");
        let r: Result<Option<serde_json::Value>, _> = parse(8, b"{\"a\":");
        assert!(r.expect_err("garbage").reason.starts_with("invalid JSON"));
    }
}
