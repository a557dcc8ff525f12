//! Cutting a markdown body into passages: the lexical unit — one tantivy document each (brain-lex),
//! one lexical record each in a team engine (brain-team) — so a hit has a line number, a long
//! transcript can answer with more than one passage, and a passage's share of the query's words
//! is the same wherever it is searched.
//!
//! A passage starts at every ATX heading (`#`…`######`, outside code fences) and, inside a long
//! section, at the first blank line (outside a fence) after [`TARGET_PASSAGE_BYTES`]; a section
//! that reaches [`MAX_PASSAGE_BYTES`] without such a break is cut at a line boundary, and a single
//! line longer than that is cut at character boundaries (all pieces carry that line's number).
//! Fences and headings are read by [`crate::blocks`], the reader the embedding chunker shares.

use crate::blocks::{Class, Lines};

/// Preferred passage size. ~1.5 KB ≈ 250 words: short enough that BM25 length normalization favours
/// the focused passage over a whole transcript, long enough to keep a question and its answer together
/// (our choice, 2026-11-22; the passage-retrieval literature uses 100–300 words).
pub const TARGET_PASSAGE_BYTES: usize = 1500;
/// Hard cap on a passage.
pub const MAX_PASSAGE_BYTES: usize = 4000;

/// One passage of a document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Passage {
    /// 0-based ordinal inside the document.
    pub ordinal: u64,
    /// 1-based line of the markdown file where it starts (frontmatter counted).
    pub line: u64,
    /// The heading path it sits under, `Top › Sub` (empty before the first heading).
    pub headings: String,
    /// Its text, verbatim.
    pub text: String,
}

struct Cutter {
    out: Vec<Passage>,
    text: String,
    line: u64,
    headings: String,
}

impl Cutter {
    fn flush(&mut self, next_line: u64) {
        if !self.text.trim().is_empty() {
            let ordinal = self.out.len() as u64;
            self.out.push(Passage {
                ordinal,
                line: self.line,
                headings: self.headings.clone(),
                text: std::mem::take(&mut self.text),
            });
        }
        self.text.clear();
        self.line = next_line;
    }
}

/// Cut `body` (which starts at 1-based line `first_line` of the file) into passages. Always at least
/// one passage, possibly with empty text, so a document with an empty body is still findable by title.
pub fn split(body: &str, first_line: u64) -> Vec<Passage> {
    cut(body, first_line, false)
}

/// [`split`] for a daily note (a collection of role `daily`, seed 001): every block is a passage of
/// its own — a paragraph (up to a blank line), each top-level list item (`- `, `* `, `+ `, `1. `
/// at the start of a line), each heading's section start — so "what did I note about the deploy
/// on 3 March" answers with the one entry of that day, at its line.
pub fn split_blocks(body: &str, first_line: u64) -> Vec<Passage> {
    cut(body, first_line, true)
}

/// A top-level list item's first line: `- `, `* `, `+ `, or digits then `. ` / `) `, unindented.
fn starts_item(line: &str) -> bool {
    let b = line.as_bytes();
    if matches!(b, [b'-' | b'*' | b'+', b' ' | b'\t', ..]) {
        return true;
    }
    let digits = b.iter().take_while(|c| c.is_ascii_digit()).count();
    (1..=9).contains(&digits)
        && matches!(b.get(digits), Some(b'.' | b')'))
        && matches!(b.get(digits + 1), Some(b' ' | b'\t'))
}

fn cut(body: &str, first_line: u64, blocks: bool) -> Vec<Passage> {
    let mut c = Cutter {
        out: Vec::new(),
        text: String::new(),
        line: first_line,
        headings: String::new(),
    };
    let mut stack: Vec<(usize, String)> = Vec::new();
    for (i, (raw, _, class)) in Lines::new(body).enumerate() {
        let n = first_line + i as u64;
        if let Class::Heading { level, text: title } = class {
            c.flush(n);
            stack.retain(|(l, _)| *l < level);
            stack.push((level, title.to_string()));
            c.headings = stack
                .iter()
                .map(|(_, t)| t.as_str())
                .collect::<Vec<_>>()
                .join(" › ");
            // A block's heading path is its `headings`; the heading line is no block of its own.
            if blocks {
                continue;
            }
        } else if (class == Class::Blank && (blocks || c.text.len() >= TARGET_PASSAGE_BYTES))
            || (blocks && class == Class::Text && starts_item(raw) && !c.text.trim().is_empty())
            || (c.text.len() + raw.len() > MAX_PASSAGE_BYTES && !c.text.is_empty())
        {
            c.flush(n);
        }
        if raw.len() > MAX_PASSAGE_BYTES {
            for piece in chunks(raw, MAX_PASSAGE_BYTES) {
                c.text.push_str(piece);
                c.flush(n);
            }
            c.line = n + 1;
            continue;
        }
        if c.text.is_empty() {
            if blocks && class == Class::Blank {
                continue;
            }
            c.line = n;
        }
        c.text.push_str(raw);
    }
    let end = c.line;
    c.flush(end);
    if c.out.is_empty() {
        c.out.push(Passage {
            ordinal: 0,
            line: first_line,
            headings: String::new(),
            text: String::new(),
        });
    }
    c.out
}

/// `s` in pieces of at most `max` bytes, cut at character boundaries.
fn chunks(s: &str, max: usize) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = s;
    while rest.len() > max {
        let mut cut = max;
        while !rest.is_char_boundary(cut) {
            cut -= 1;
        }
        out.push(&rest[..cut]);
        rest = &rest[cut..];
    }
    if !rest.is_empty() {
        out.push(rest);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_daily_note_is_a_passage_per_block() {
        let body = "# Morning\n- 09:10 fixed the auth bug\n  with a retry\n- 10:30 met Ana\n\nLunch paragraph\nstill lunch\n\n```\n- not an item\n\n```\n1. first\n";
        let got: Vec<(u64, String)> = split_blocks(body, 3)
            .iter()
            .map(|p| (p.line, p.text.trim_end().to_string()))
            .collect();
        assert_eq!(
            got,
            vec![
                (4, "- 09:10 fixed the auth bug\n  with a retry".to_string()),
                (6, "- 10:30 met Ana".to_string()),
                (8, "Lunch paragraph\nstill lunch".to_string()),
                (11, "```\n- not an item\n\n```".to_string()),
                (15, "1. first".to_string()),
            ]
        );
        assert!(
            split_blocks(body, 3)
                .iter()
                .all(|p| p.headings == "Morning")
        );
        assert_eq!(split(body, 3).len(), 1);
    }

    #[test]
    fn headings_start_passages_and_carry_their_path() {
        let body = "intro\n# A\ntext a\n## B\ntext b\n```\n# not a heading\n```\n# C\n";
        let p = split(body, 5);
        let got: Vec<(u64, &str, &str)> = p
            .iter()
            .map(|p| (p.line, p.headings.as_str(), p.text.as_str()))
            .collect();
        assert_eq!(
            got,
            vec![
                (5, "", "intro\n"),
                (6, "A", "# A\ntext a\n"),
                (8, "A › B", "## B\ntext b\n```\n# not a heading\n```\n"),
                (13, "C", "# C\n"),
            ]
        );
        assert_eq!(
            p.iter().map(|p| p.ordinal).collect::<Vec<_>>(),
            [0, 1, 2, 3]
        );
    }

    #[test]
    fn long_sections_are_cut_at_blank_lines_with_correct_lines() {
        let para = format!("{}\n", "word ".repeat(100));
        let body = format!("{para}{para}{para}\n{para}{para}");
        let p = split(&body, 1);
        assert_eq!(p.len(), 2, "{p:?}");
        assert_eq!(p[1].line, 4);
        assert!(p.iter().all(|p| p.text.len() <= MAX_PASSAGE_BYTES));
        let rejoined: String = p.iter().map(|p| p.text.as_str()).collect();
        assert_eq!(rejoined.replace('\n', ""), body.replace('\n', ""));
    }

    #[test]
    fn a_giant_line_is_cut_and_an_empty_body_is_one_passage() {
        let body = format!("a\n{}\nb\n", "é".repeat(MAX_PASSAGE_BYTES));
        let p = split(&body, 1);
        assert!(p.iter().all(|p| p.text.len() <= MAX_PASSAGE_BYTES));
        assert_eq!(
            p.last().map(|p| (p.line, p.text.as_str())),
            Some((3, "b\n"))
        );
        assert_eq!(
            split("", 7),
            vec![Passage {
                ordinal: 0,
                line: 7,
                headings: String::new(),
                text: String::new()
            }]
        );
    }
}
