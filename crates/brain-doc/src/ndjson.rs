//! Reading and writing NDJSON record streams.
//!
//! A malformed line never stops a stream: [`Reader`] yields it as a [`LineError`] carrying the source
//! name and 1-based line number, and the caller reports it on stderr, counts it and goes on.

use std::io::{self, BufRead, Write};

use serde::Serialize;
use serde::de::DeserializeOwned;

/// A line that could not be parsed into the expected record type.
#[derive(Debug, thiserror::Error)]
#[error("{source_name}:{line}: {reason}")]
pub struct LineError {
    /// The file name, or `<stdin>`.
    pub source_name: String,
    /// 1-based line number.
    pub line: u64,
    /// What was wrong.
    pub reason: String,
}

/// An iterator over the records of an NDJSON stream. Blank lines are skipped.
pub struct Reader<R, T> {
    input: R,
    source_name: String,
    line: u64,
    buf: Vec<u8>,
    _t: std::marker::PhantomData<T>,
}

impl<R: BufRead, T: DeserializeOwned> Reader<R, T> {
    /// Read records of type `T` from `input`; `source_name` names it in error messages.
    pub fn new(input: R, source_name: impl Into<String>) -> Self {
        Reader {
            input,
            source_name: source_name.into(),
            line: 0,
            buf: Vec::new(),
            _t: std::marker::PhantomData,
        }
    }
}

/// One item of a [`Reader`]: a record, a malformed line (go on), or an I/O failure (stop).
pub type Item<T> = Result<Result<T, LineError>, io::Error>;

impl<R: BufRead, T: DeserializeOwned> Iterator for Reader<R, T> {
    type Item = Item<T>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            self.buf.clear();
            match self.input.read_until(b'\n', &mut self.buf) {
                Ok(0) => return None,
                Ok(_) => {}
                Err(e) => return Some(Err(e)),
            }
            self.line += 1;
            let trimmed = self.buf.trim_ascii();
            if trimmed.is_empty() {
                continue;
            }
            // Invalid UTF-8 is decided at the edge (crate::bytes): replaced, the record kept.
            let (text, _) = crate::bytes::text(trimmed);
            let parsed = serde_json::from_str::<T>(&text).map_err(|e| LineError {
                source_name: self.source_name.clone(),
                line: self.line,
                reason: e.to_string(),
            });
            return Some(Ok(parsed));
        }
    }
}

/// Write `record` as one JSON line.
pub fn write_line<W: Write, T: Serialize>(out: &mut W, record: &T) -> io::Result<()> {
    // `io::Error::from` keeps an I/O failure's kind (a closed pipe stays `BrokenPipe`, which every
    // binary treats as success); a serialization failure becomes `InvalidData`.
    serde_json::to_writer(&mut *out, record).map_err(io::Error::from)?;
    out.write_all(b"\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorRecord;

    /// A stray byte in a string is replaced and the record kept (crate::bytes), not a lost line.
    #[test]
    fn invalid_utf8_in_a_record_is_replaced_not_dropped() {
        let input = b"{\"kind\":\"error\",\"error\":\"timeout\",\"message\":\"caf\xc3 \xff\",\"fix\":\"\"}\n";
        let got: Vec<_> = Reader::<_, ErrorRecord>::new(&input[..], "t").collect();
        match &got[..] {
            [Ok(Ok(r))] => assert_eq!(r.message, "caf\u{FFFD} \u{FFFD}"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn malformed_lines_are_reported_with_their_number_and_the_stream_goes_on() {
        let input = br#"{"kind":"error","error":"timeout","message":"a","fix":""}

not json
{"kind":"error","error":"locked","message":"b","fix":""}
"#;
        let items: Vec<_> = Reader::<_, ErrorRecord>::new(&input[..], "x.ndjson")
            .map(|r| r.expect("io"))
            .collect();
        assert_eq!(items.len(), 3);
        assert!(items[0].is_ok());
        let err = items[1].as_ref().expect_err("bad line");
        assert_eq!(err.line, 3);
        assert!(err.to_string().starts_with("x.ndjson:3: "), "{err}");
        assert_eq!(items[2].as_ref().expect("ok").message, "b");
    }
}
