//! Cutting text into words: runs of alphanumeric characters split at camelCase boundaries, and each
//! CJK character on its own — plus, for CJK text, the pairs of adjacent characters ([`Units`],
//! [`query_units`]): written without spaces, its words are found as the pairs they hold.

use tantivy::tokenizer::{Token, Tokenizer};

use super::VecTokenStream;

/// True for characters of scripts written without spaces: each becomes its own token.
pub fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF       // Hiragana, Katakana
        | 0x3400..=0x4DBF     // CJK Extension A
        | 0x4E00..=0x9FFF     // CJK Unified Ideographs
        | 0xAC00..=0xD7AF     // Hangul syllables
        | 0xF900..=0xFAFF     // CJK Compatibility Ideographs
        | 0x20000..=0x2FA1F) // CJK Extensions B.. and Compatibility Supplement
}

fn push(tokens: &mut Vec<Token>, text: &str, position: usize, from: usize, to: usize) {
    tokens.push(Token {
        offset_from: from,
        offset_to: to,
        position,
        text: text[from..to].to_string(),
        position_length: 1,
    });
}

/// Splits words at non-alphanumerics, camelCase boundaries and around CJK characters, with the
/// pairs of adjacent CJK characters ([`Units`]): the plain (uncached) form of `brain_text`'s cutting.
#[derive(Clone, Default)]
pub struct CodeWordTokenizer;

impl Tokenizer for CodeWordTokenizer {
    type TokenStream<'a> = VecTokenStream;
    fn token_stream<'a>(&'a mut self, text: &'a str) -> VecTokenStream {
        let mut tokens = Vec::new();
        for (position, from, to) in Units::new(text) {
            push(&mut tokens, text, position, from, to);
        }
        VecTokenStream { tokens, next: 0 }
    }
}

/// Call `f(from, to)` for every word of `text` as [`CodeWordTokenizer`] splits it, in order.
pub(super) fn for_each_word(text: &str, mut f: impl FnMut(usize, usize)) {
    for (from, to) in Words::new(text) {
        f(from, to);
    }
}

/// The words of a text as byte ranges, in order: runs of alphanumeric characters cut at camelCase
/// boundaries, and each CJK character on its own. The one word splitter of `brain_text` (indexing,
/// queries and snippets).
pub(super) struct Words<'a> {
    text: &'a str,
    /// Where the scan for the next word starts.
    pos: usize,
    /// Inside a word that camelCase splits: the start of its next part, and the word's end.
    camel: Option<(usize, usize)>,
}

impl<'a> Words<'a> {
    pub(super) fn new(text: &'a str) -> Words<'a> {
        Words {
            text,
            pos: 0,
            camel: None,
        }
    }
}

impl Iterator for Words<'_> {
    type Item = (usize, usize);

    fn next(&mut self) -> Option<(usize, usize)> {
        if let Some((start, end)) = self.camel {
            let (to, rest) = camel_part(self.text, start, end);
            self.camel = rest.map(|r| (r, end));
            return Some((start, to));
        }
        let mut word_start: Option<usize> = None;
        for (i, c) in self.text[self.pos..].char_indices() {
            let i = self.pos + i;
            if c.is_alphanumeric() && !is_cjk(c) {
                word_start.get_or_insert(i);
                continue;
            }
            if let Some(s) = word_start {
                self.pos = i;
                return Some(self.word(s, i));
            }
            if is_cjk(c) {
                self.pos = i + c.len_utf8();
                return Some((i, self.pos));
            }
        }
        self.pos = self.text.len();
        word_start.map(|s| self.word(s, self.text.len()))
    }
}

/// Whether `text[from..to]` is one CJK character (a word [`Words`] cuts on its own).
fn is_cjk_char(text: &str, from: usize, to: usize) -> bool {
    let mut chars = text[from..to].chars();
    chars.next().is_some_and(is_cjk) && chars.next().is_none()
}

/// What the index holds of a text, in order, as `(position, from, to)`: every word of [`Words`] at
/// its own position, and after each CJK character that follows another with nothing between them,
/// the pair of both (a CJK bigram) at the first one's position. "東京都" is 東 京 都 and 東京 京都:
/// a two-character word is found as its pair, a one-character one as itself, and phrases still
/// read the characters' own positions. Positions never go back (tantivy's order).
pub(super) struct Units<'a> {
    text: &'a str,
    words: Words<'a>,
    next_position: usize,
    /// The last word when it was a CJK character: its position and start, and its end.
    last_cjk: Option<(usize, usize, usize)>,
    /// The character to give after the pair just given.
    pending: Option<(usize, usize, usize)>,
}

impl<'a> Units<'a> {
    pub(super) fn new(text: &'a str) -> Units<'a> {
        Units {
            text,
            words: Words::new(text),
            next_position: 0,
            last_cjk: None,
            pending: None,
        }
    }
}

impl Iterator for Units<'_> {
    type Item = (usize, usize, usize);

    fn next(&mut self) -> Option<(usize, usize, usize)> {
        if let Some(unit) = self.pending.take() {
            return Some(unit);
        }
        let (from, to) = self.words.next()?;
        let position = self.next_position;
        self.next_position += 1;
        if !is_cjk_char(self.text, from, to) {
            self.last_cjk = None;
            return Some((position, from, to));
        }
        let last = self.last_cjk.replace((position, from, to));
        match last {
            Some((at, start, end)) if end == from => {
                self.pending = Some((position, from, to));
                Some((at, start, to))
            }
            _ => Some((position, from, to)),
        }
    }
}

/// What a query looks for in a text, as `(from, to)`: its words, but a run of two or more adjacent
/// CJK characters as its pairs alone ("東京都" → 東京 京都) and a lone CJK character as itself.
pub fn query_units(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    // The current run of adjacent CJK characters: its start, the end of its last character, and
    // how many it holds.
    let mut run: Option<(usize, usize, usize)> = None;
    let mut last_start = 0;
    let flush = |run: Option<(usize, usize, usize)>, out: &mut Vec<(usize, usize)>| {
        if let Some((start, end, 1)) = run {
            out.push((start, end));
        }
    };
    for (from, to) in Words::new(text) {
        if !is_cjk_char(text, from, to) {
            flush(run.take(), &mut out);
            out.push((from, to));
            continue;
        }
        run = match run {
            Some((start, end, n)) if end == from => {
                out.push((last_start, to));
                Some((start, to, n + 1))
            }
            other => {
                flush(other, &mut out);
                Some((from, to, 1))
            }
        };
        last_start = from;
    }
    flush(run, &mut out);
    out
}

impl Words<'_> {
    /// The first part of the alphanumeric word `text[from..to]`; the parts after it come from
    /// [`Words::camel`].
    fn word(&mut self, from: usize, to: usize) -> (usize, usize) {
        let word = &self.text[from..to];
        // Most words: ASCII with no upper-case letter after the first, so nothing to cut.
        if word.is_ascii() && !word.bytes().skip(1).any(|b| b.is_ascii_uppercase()) {
            return (from, to);
        }
        let (end, rest) = camel_part(self.text, from, to);
        self.camel = rest.map(|r| (r, to));
        (from, end)
    }
}

/// The camelCase part of `text[from..to]` that starts at `from`: its end, and where the next part
/// starts (`None` at the word's end). A cut comes before an upper-case letter that follows a
/// lower-case one (`fooBar`), or that starts a capitalized word after an acronym or a digit
/// (`HTTPServer`, `x1Lives`).
fn camel_part(text: &str, from: usize, to: usize) -> (usize, Option<usize>) {
    let mut chars = text[from..to].char_indices().peekable();
    let Some((_, mut prev)) = chars.next() else {
        return (to, None);
    };
    while let Some((i, cur)) = chars.next() {
        let next_lower = chars.peek().is_some_and(|(_, n)| n.is_lowercase());
        let cut = (prev.is_lowercase() && cur.is_uppercase())
            || (prev.is_uppercase() && cur.is_uppercase() && next_lower)
            || (prev.is_numeric() && cur.is_uppercase() && next_lower);
        if cut {
            return (from + i, Some(from + i));
        }
        prev = cur;
    }
    (to, None)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The word splitter as it was written before [`Words`] (callbacks over the whole text): an
    /// independent oracle for the iterator.
    fn reference_words(text: &str) -> Vec<(usize, usize)> {
        fn camel(text: &str, from: usize, to: usize, out: &mut Vec<(usize, usize)>) {
            let word: Vec<(usize, char)> = text[from..to].char_indices().collect();
            let mut start = from;
            for k in 1..word.len() {
                let (prev, (i, cur)) = (word[k - 1].1, word[k]);
                let next_lower = word.get(k + 1).is_some_and(|(_, n)| n.is_lowercase());
                if (prev.is_lowercase() && cur.is_uppercase())
                    || (prev.is_uppercase() && cur.is_uppercase() && next_lower)
                    || (prev.is_numeric() && cur.is_uppercase() && next_lower)
                {
                    out.push((start, from + i));
                    start = from + i;
                }
            }
            out.push((start, to));
        }
        let mut out = Vec::new();
        let mut word_start = None;
        for (i, c) in text.char_indices() {
            if c.is_alphanumeric() && !is_cjk(c) {
                word_start.get_or_insert(i);
                continue;
            }
            if let Some(s) = word_start.take() {
                camel(text, s, i, &mut out);
            }
            if is_cjk(c) {
                out.push((i, i + c.len_utf8()));
            }
        }
        if let Some(s) = word_start {
            camel(text, s, text.len(), &mut out);
        }
        out
    }

    #[test]
    fn words_cut_as_the_reference_splitter_does() {
        let texts = [
            "",
            "a",
            "parseHTTPResponse HTTPServer x1Lives 9Lives getX aB ABc ABC abC",
            "src/brain_lex/index.rs --no-verify sha256 utf8 e.g. ...",
            "数据库笔记 SQLite的WAL模式 abc数据def 한국어 カタカナ",
            "Über ÉCOLE İstanbul ΣΟΦΙΑ straße ǅemal ÀbcDéf",
            "  trailing space\tand\ttabs\n\nnewlines  ",
            "x__y--z::w 1.2.3 2026-04-01T10:00:00Z",
            "endsWithUpperX",
        ];
        for t in texts {
            assert_eq!(
                Words::new(t).collect::<Vec<_>>(),
                reference_words(t),
                "{t:?}"
            );
        }
    }

    /// Every transcript of `../shared/corpora` (20 MB of real prose, code, logs and JSON) cuts the
    /// same way through both splitters. Absent corpora skip it, as in `brain-tests`, unless
    /// `BRAIN_REQUIRE_CORPORA=1` (CI).
    #[test]
    fn words_cut_as_the_reference_splitter_does_on_real_transcripts() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpora");
        if !root.is_dir() {
            if brain_doc::env::get(brain_doc::env::BRAIN_REQUIRE_CORPORA) == Some("1") {
                panic!("{} is missing and BRAIN_REQUIRE_CORPORA=1", root.display());
            }
            eprintln!("SKIPPED: {} not found", root.display());
            return;
        }
        let mut dirs = vec![root];
        let mut files = 0;
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).expect("read_dir").flatten() {
                let path = entry.path();
                if path.is_dir() {
                    dirs.push(path);
                } else if path
                    .extension()
                    .is_some_and(|e| e == "jsonl" || e == "json")
                {
                    let text =
                        String::from_utf8_lossy(&std::fs::read(&path).expect("read")).into_owned();
                    assert!(
                        Words::new(&text).eq(reference_words(&text)),
                        "{}",
                        path.display()
                    );
                    files += 1;
                }
            }
        }
        assert!(files > 0);
    }
}
