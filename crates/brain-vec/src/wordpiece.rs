//! The BERT-uncased tokenizer in code: the pipeline the known `tokenizer.json` files describe
//! (see [`crate::bert::BERT_UNCASED`]), read from `vocab.txt` alone.
//!
//! Why not the `tokenizers` crate: building its tokenizer costs 8–12 ms of CPU at every fresh
//! process (a `HashMap<String, u32>` and its reverse, cloned through builders, an added-vocabulary
//! automaton), the longest step of a fresh hybrid query's model load (measured 2026-11-25 with
//! `BRAIN_TIMINGS=1`). Here the vocabulary is one string and a table of indices into it (~1 ms),
//! and encoding returns the ids alone (the model needs no offsets).
//!
//! What it reproduces, token for token (tested against the JSON-described tokenizer over every
//! corpus text, tests/tests/vec.rs):
//! 1. the five special tokens (`[PAD]` `[UNK]` `[CLS]` `[SEP]` `[MASK]`) are cut out of the raw
//!    text first, leftmost first, and kept as their ids (they are not normalized);
//! 2. BertNormalizer: control characters, NUL and U+FFFD removed, whitespace made a space, CJK
//!    ideographs spaced, NFD with the non-spacing marks dropped, lowercase — with the same Unicode
//!    tables as the `tokenizers` crate (`unicode_categories`, `unicode-normalization-alignments`);
//! 3. BertPreTokenizer: words split at whitespace (dropped) and punctuation (kept, one per word);
//! 4. WordPiece: greedy longest match, `##` for a word's later pieces, `[UNK]` for a word of more
//!    than 100 characters or one that does not fall apart into pieces;
//! 5. truncation to `max_len - 2` tokens, then `[CLS] … [SEP]`.

use hashbrown::HashTable;
use unicode_categories::UnicodeCategories;
use unicode_normalization_alignments::UnicodeNormalization;

/// Words longer than this many characters are `[UNK]` whole (the WordPiece setting of the files).
const MAX_WORD_CHARS: usize = 100;

/// The special tokens, cut out of the text before anything else.
const SPECIAL: [&str; 5] = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"];

/// A BERT-uncased WordPiece tokenizer over one vocabulary.
pub struct BertUncased {
    /// `vocab.txt` as read; every token is a span of it.
    text: String,
    /// Token id → its span in `text` (start, end).
    spans: Vec<(u32, u32)>,
    /// Ids of every token, found by its text.
    words: HashTable<u32>,
    /// Ids of the `##x` tokens, found by `x` (a word's later pieces).
    pieces: HashTable<u32>,
    hash: foldhash::fast::FixedState,
    special: [u32; 5],
    unk: u32,
    cls: u32,
    sep: u32,
    max_len: usize,
}

impl BertUncased {
    /// How many tokens the vocabulary has (ids run from 0 below it).
    pub fn vocab_size(&self) -> usize {
        self.spans.len()
    }

    /// The tokenizer of `vocab` (the text of `vocab.txt`: one token per line, the line number its
    /// id; a token repeated keeps its last line, as the `tokenizers` crate reads it), truncating
    /// at `max_len` tokens with `[CLS]` and `[SEP]`.
    pub fn new(vocab: String, max_len: usize) -> Result<BertUncased, String> {
        if max_len < 3 {
            return Err(format!(
                "a model limit of {max_len} tokens leaves no room for text"
            ));
        }
        // `lines()` as `BufRead::lines` cuts them (at `\n`, one `\r` before it dropped), then the
        // token is the line without trailing whitespace.
        let mut spans: Vec<(u32, u32)> = Vec::with_capacity(vocab.len() / 7);
        let mut at = 0usize;
        for line in vocab.split_inclusive('\n') {
            let token = line.trim_end();
            let start = u32::try_from(at).map_err(|_| "vocab.txt: over 4 GiB")?;
            let end = u32::try_from(at + token.len()).map_err(|_| "vocab.txt: over 4 GiB")?;
            spans.push((start, end));
            at += line.len();
        }
        let count = u32::try_from(spans.len()).map_err(|_| "vocab.txt: too many tokens")?;
        let hash = foldhash::fast::FixedState::default();
        let hash_of = |s: &str| std::hash::BuildHasher::hash_one(&hash, s);
        let token = |id: u32| span(&vocab, &spans, id);
        let mut words: HashTable<u32> = HashTable::with_capacity(spans.len());
        let mut pieces: HashTable<u32> = HashTable::new();
        for id in 0..count {
            let word = token(id);
            let h = hash_of(word);
            match words.find_mut(h, |&i| token(i) == word) {
                Some(slot) => *slot = id,
                None => {
                    words.insert_unique(h, id, |&i| hash_of(token(i)));
                }
            }
            if let Some(rest) = word.strip_prefix("##") {
                let h = hash_of(rest);
                match pieces.find_mut(h, |&i| &token(i)[2..] == rest) {
                    Some(slot) => *slot = id,
                    None => {
                        pieces.insert_unique(h, id, |&i| hash_of(&token(i)[2..]));
                    }
                }
            }
        }
        let mut t = BertUncased {
            text: vocab,
            spans,
            words,
            pieces,
            hash,
            special: [0; 5],
            unk: 0,
            cls: 0,
            sep: 0,
            max_len,
        };
        for (slot, name) in SPECIAL.iter().enumerate() {
            t.special[slot] = t
                .id(name)
                .ok_or_else(|| format!("vocab.txt has no {name}"))?;
        }
        (t.unk, t.cls, t.sep) = (t.special[1], t.special[2], t.special[3]);
        Ok(t)
    }

    /// The id of `token`, if it is in the vocabulary.
    pub fn id(&self, token: &str) -> Option<u32> {
        self.words
            .find(self.hash_of(token), |&i| self.token(i) == token)
            .copied()
    }

    /// The token ids of `text` as the model sees them: `[CLS]`, at most `max_len - 2` tokens,
    /// `[SEP]`.
    pub fn encode(&self, text: &str) -> Vec<u32> {
        let mut ids = vec![self.cls];
        let mut norm = String::new();
        let mut rest = text;
        // Tokens past the limit are cut anyway: a huge text stops being read there.
        let full = self.max_len - 1;
        while !rest.is_empty() && ids.len() < full {
            let (before, special, after) = self.next_special(rest);
            if !before.is_empty() {
                normalize(before, &mut norm);
                self.words_of(&norm, &mut ids, full);
            }
            ids.extend(special);
            rest = after;
        }
        ids.truncate(full);
        ids.push(self.sep);
        ids
    }

    /// `text` cut at its first special token: the text before it, its id, the text after it.
    fn next_special<'t>(&self, text: &'t str) -> (&'t str, Option<u32>, &'t str) {
        let mut from = 0;
        while let Some(i) = text[from..].find('[') {
            let at = from + i;
            for (slot, name) in SPECIAL.iter().enumerate() {
                if text[at..].starts_with(name) {
                    return (
                        &text[..at],
                        Some(self.special[slot]),
                        &text[at + name.len()..],
                    );
                }
            }
            from = at + 1;
        }
        (text, None, "")
    }

    /// The pieces of every word of the normalized `norm` (BertPreTokenizer: split at whitespace,
    /// dropped, and at punctuation, each mark a word), until `ids` holds `full`.
    fn words_of(&self, norm: &str, ids: &mut Vec<u32>, full: usize) {
        let mut start = None;
        for (i, c) in norm.char_indices() {
            if ids.len() >= full {
                return;
            }
            let space = c.is_whitespace();
            if space || is_punctuation(c) {
                if let Some(s) = start.take() {
                    self.pieces_of(&norm[s..i], ids);
                }
                if !space {
                    self.pieces_of(&norm[i..i + c.len_utf8()], ids);
                }
            } else if start.is_none() {
                start = Some(i);
            }
        }
        if let Some(s) = start {
            self.pieces_of(&norm[s..], ids);
        }
    }

    /// WordPiece: the longest known prefix, then the longest known `##` piece of the rest, and so
    /// on; a word that does not fall apart this way, or is too long, is `[UNK]`.
    fn pieces_of(&self, word: &str, ids: &mut Vec<u32>) {
        if word.len() > MAX_WORD_CHARS && word.chars().count() > MAX_WORD_CHARS {
            ids.push(self.unk);
            return;
        }
        let mark = ids.len();
        let mut start = 0;
        while start < word.len() {
            let mut end = word.len();
            let found = loop {
                if start >= end {
                    break None;
                }
                let sub = &word[start..end];
                let h = self.hash_of(sub);
                let hit = if start == 0 {
                    self.words.find(h, |&i| self.token(i) == sub)
                } else {
                    self.pieces.find(h, |&i| &self.token(i)[2..] == sub)
                };
                if let Some(&id) = hit {
                    break Some(id);
                }
                end -= sub.chars().next_back().map_or(1, char::len_utf8);
            };
            match found {
                Some(id) => {
                    ids.push(id);
                    start = end;
                }
                None => {
                    ids.truncate(mark);
                    ids.push(self.unk);
                    return;
                }
            }
        }
    }

    fn token(&self, id: u32) -> &str {
        span(&self.text, &self.spans, id)
    }

    fn hash_of(&self, s: &str) -> u64 {
        std::hash::BuildHasher::hash_one(&self.hash, s)
    }
}

fn span<'a>(text: &'a str, spans: &[(u32, u32)], id: u32) -> &'a str {
    let (s, e) = spans[id as usize];
    &text[s as usize..e as usize]
}

/// BertNormalizer (clean text, CJK spacing, accents stripped, lowercase) of `text` into `out`.
fn normalize(text: &str, out: &mut String) {
    out.clear();
    let mut clean = String::with_capacity(text.len());
    for c in text.chars() {
        if c == '\0' || c == '\u{fffd}' || is_control(c) {
            continue;
        }
        if is_whitespace(c) {
            clean.push(' ');
        } else if is_chinese(c) {
            clean.push(' ');
            clean.push(c);
            clean.push(' ');
        } else {
            clean.push(c);
        }
    }
    if clean.is_ascii() {
        clean.make_ascii_lowercase();
        *out = clean;
        return;
    }
    // NFD over the whole text (canonical reordering looks across characters), non-spacing marks
    // dropped, then lowercase (whose own output is kept as it is: `İ` → `i` + U+0307).
    for (c, _) in clean.as_str().nfd() {
        if !c.is_mark_nonspacing() {
            out.extend(c.to_lowercase());
        }
    }
}

/// Whitespace to BertNormalizer: tab, newline and carriage return (control characters otherwise)
/// and Unicode whitespace.
fn is_whitespace(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r') || c.is_whitespace()
}

/// Control to BertNormalizer: the categories Cc, Cf and Co, but not tab, newline, carriage return.
fn is_control(c: char) -> bool {
    if c.is_ascii() {
        return (c < ' ' || c == '\x7f') && !matches!(c, '\t' | '\n' | '\r');
    }
    c.is_other()
}

/// Punctuation to BertPreTokenizer: ASCII punctuation (symbols such as `$` and `+` included) and
/// the Unicode punctuation categories.
fn is_punctuation(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_punctuation();
    }
    c.is_punctuation()
}

/// A CJK ideograph (the blocks BertNormalizer spaces out).
fn is_chinese(c: char) -> bool {
    matches!(
        c as u32,
        0x4E00..=0x9FFF
            | 0x3400..=0x4DBF
            | 0x20000..=0x2A6DF
            | 0x2A700..=0x2B73F
            | 0x2B740..=0x2B81F
            | 0x2B920..=0x2CEAF
            | 0xF900..=0xFAFF
            | 0x2F800..=0x2FA1F
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tok(vocab: &[&str]) -> BertUncased {
        let mut all: Vec<&str> = SPECIAL.to_vec();
        all.extend_from_slice(vocab);
        BertUncased::new(all.join("\n") + "\n", 16).expect("vocab")
    }

    /// The ASCII shortcuts decide as the Unicode tables do, for every ASCII character.
    #[test]
    fn ascii_shortcuts_agree_with_the_tables() {
        for b in 0u8..128 {
            let c = b as char;
            let control = !matches!(c, '\t' | '\n' | '\r') && c.is_other();
            assert_eq!(is_control(c), control, "{b:#x}");
            assert_eq!(
                is_punctuation(c),
                c.is_ascii_punctuation() || c.is_punctuation(),
                "{b:#x}"
            );
            assert!(!c.is_mark_nonspacing());
        }
    }

    #[test]
    fn greedy_longest_pieces_and_unknown_words() {
        let t = tok(&["un", "##aff", "##able", "aff", "!", "a"]);
        let id = |s: &str| t.id(s).expect(s);
        assert_eq!(
            t.encode("Unaffable!"),
            vec![
                id("[CLS]"),
                id("un"),
                id("##aff"),
                id("##able"),
                id("!"),
                id("[SEP]")
            ]
        );
        // A word that does not fall apart into pieces is [UNK] whole, not its known prefix.
        assert_eq!(
            t.encode("unaffx a"),
            vec![id("[CLS]"), id("[UNK]"), id("a"), id("[SEP]")]
        );
        // Too long a word.
        assert_eq!(
            t.encode(&"a".repeat(101)),
            vec![id("[CLS]"), id("[UNK]"), id("[SEP]")]
        );
    }

    #[test]
    fn specials_are_cut_from_the_raw_text_and_truncation_keeps_cls_and_sep() {
        let t = tok(&["a"]);
        let id = |s: &str| t.id(s).expect(s);
        assert_eq!(
            t.encode("a[MASK]a [cls]"),
            vec![
                id("[CLS]"),
                id("a"),
                id("[MASK]"),
                id("a"),
                id("[UNK]"), // `[cls]` is not a special token: `[`, `cls`, `]`
                id("[UNK]"),
                id("[UNK]"),
                id("[SEP]")
            ]
        );
        let long = t.encode(&"a ".repeat(100));
        assert_eq!(long.len(), 16);
        // A huge text (a hostile query) is cut the same, its tail never read.
        assert_eq!(t.encode(&"a ".repeat(1 << 20)), long);
        assert_eq!(t.encode(&format!("{}[SEP]", "a ".repeat(1 << 20))), long);
        assert_eq!((long[0], long[15]), (id("[CLS]"), id("[SEP]")));
        assert_eq!(t.encode(""), vec![id("[CLS]"), id("[SEP]")]);
    }

    #[test]
    fn a_repeated_token_keeps_its_last_line_and_a_vocabulary_without_specials_is_refused() {
        let t = tok(&["dup", "x", "dup"]);
        assert_eq!(t.id("dup"), Some(7));
        assert!(BertUncased::new("a\nb\n".into(), 512).is_err());
        assert!(BertUncased::new(SPECIAL.join("\n"), 2).is_err());
    }
}
