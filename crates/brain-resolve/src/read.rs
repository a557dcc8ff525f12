//! Reading documents: a line range under a byte cap (`get`), or a whole document unless it is larger
//! than a cap (`multi-get`).

use std::path::Path;

use crate::{Doc, DocsError};

/// Lines read from a document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lines {
    /// The lines, each ending in `\n`, numbered (`{n:>6}  {line}`) when asked.
    pub text: String,
    /// 1-based number of the first line returned.
    pub from: usize,
    /// Number of lines returned.
    pub count: usize,
    /// Lines in the whole document.
    pub total: usize,
    /// The line at which the byte cap stopped the read (not included), if it did.
    pub stopped_at: Option<usize>,
}

impl Lines {
    /// Whether lines of the range (or of the document) were left out: the cap, or a line count.
    pub fn more_after(&self) -> Option<usize> {
        let next = self.from + self.count;
        (next <= self.total).then_some(next)
    }
}

/// What `multi-get` gives for one document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Body {
    /// The document's lines.
    Text(Lines),
    /// Not read, and why.
    Skipped(Skip),
}

/// Why a document was not read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Skip {
    /// Larger than the cap.
    TooBig { size: u64, max_bytes: u64 },
    /// The file could not be read (the reason).
    Unreadable(String),
}

fn render(line: &str, n: usize, numbered: bool) -> String {
    if numbered {
        format!("{n:>6}  {line}\n")
    } else {
        format!("{line}\n")
    }
}

fn read_text(file: &Path) -> Result<String, DocsError> {
    std::fs::read_to_string(file).map_err(|source| DocsError::Io {
        path: file.to_path_buf(),
        source,
    })
}

/// Lines `from` (1-based; 0 means 1) onward, at most `count` of them, numbered when `numbered`; stops
/// before the line that would take the text past `max_bytes`.
pub fn read_lines(
    file: &Path,
    from: usize,
    count: Option<usize>,
    numbered: bool,
    max_bytes: usize,
) -> Result<Lines, DocsError> {
    let text = read_text(file)?;
    let from = from.max(1);
    let mut out = Lines {
        text: String::new(),
        from,
        count: 0,
        total: text.lines().count(),
        stopped_at: None,
    };
    for (i, line) in text
        .lines()
        .enumerate()
        .skip(from - 1)
        .take(count.unwrap_or(usize::MAX))
    {
        let rendered = render(line, i + 1, numbered);
        if out.text.len() + rendered.len() > max_bytes {
            out.stopped_at = Some(i + 1);
            break;
        }
        out.text.push_str(&rendered);
        out.count += 1;
    }
    Ok(out)
}

/// The whole of `doc` (at most `max_lines` lines), unless its file is larger than `max_bytes`.
pub fn read_doc(doc: &Doc, max_bytes: u64, max_lines: Option<usize>, numbered: bool) -> Body {
    let size = std::fs::metadata(&doc.file).map(|m| m.len()).unwrap_or(0);
    if size > max_bytes {
        return Body::Skipped(Skip::TooBig { size, max_bytes });
    }
    match read_lines(&doc.file, 1, max_lines, numbered, usize::MAX) {
        Ok(lines) => Body::Text(lines),
        Err(DocsError::Io { source, .. }) => Body::Skipped(Skip::Unreadable(source.to_string())),
        Err(e) => Body::Skipped(Skip::Unreadable(e.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(text: &str) -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = dir.path().join("d.md");
        std::fs::write(&p, text).expect("write");
        (dir, p)
    }

    #[test]
    fn ranges_numbers_and_the_byte_cap() {
        let (_d, p) = file("a\nb\nc\nd\n");
        let l = read_lines(&p, 2, Some(2), true, usize::MAX).expect("read");
        assert_eq!(l.text, "     2  b\n     3  c\n");
        assert_eq!(
            (l.from, l.count, l.total, l.more_after()),
            (2, 2, 4, Some(4))
        );
        let l = read_lines(&p, 0, None, false, 5).expect("read");
        assert_eq!((l.text.as_str(), l.stopped_at), ("a\nb\n", Some(3)));
        let l = read_lines(&p, 9, None, false, usize::MAX).expect("past the end");
        assert_eq!((l.count, l.more_after()), (0, None));
    }

    #[test]
    fn whole_documents_are_skipped_past_the_cap() {
        let (_d, p) = file("0123456789\n");
        let doc = Doc { id: None, file: p };
        assert_eq!(
            read_doc(&doc, 5, None, false),
            Body::Skipped(Skip::TooBig {
                size: 11,
                max_bytes: 5
            })
        );
        assert!(
            matches!(read_doc(&doc, 100, None, false), Body::Text(l) if l.text == "0123456789\n")
        );
        let gone = Doc {
            id: None,
            file: "/nonexistent/x.md".into(),
        };
        assert!(matches!(
            read_doc(&gone, 100, None, false),
            Body::Skipped(Skip::Unreadable(_))
        ));
    }
}
