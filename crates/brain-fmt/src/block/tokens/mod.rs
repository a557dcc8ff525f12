//! Token counts: OpenAI's `cl100k_base` byte-pair encoding, the same counts as tiktoken.
//! Claude's tokenizer is not public; cl100k is the common table agents budget with, and a budget
//! counted with it is a budget, not a guess from characters.
//!
//! The table is prepared at build time (`build.rs`, layout in `table.rs`) and read in place from
//! the binary: nothing is deserialized at start, so a hook that counts a 1,500-token briefing
//! pays for the pages it touches, not for loading 100,256 tokens. Text is split by cl100k's
//! pretokenization pattern, and each piece is merged as tiktoken does (the lowest-ranked
//! adjacent pair first, the leftmost on a tie) — in O(n log n), so a 5 MB word costs no more
//! than its length. The tests compare every count with bpe-openai's over the real corpora.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::LazyLock;

use regex_automata::meta::Regex;
use regex_automata::{Anchored, Input};

mod table;

/// The table's name, as the block and `--json` report it.
pub const TOKENIZER: &str = "cl100k_base";

static TABLE: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/cl100k_base.table"));

/// cl100k's pretokenization pattern. The second one's last character is a look-ahead (`\s+(?!\S)`
/// written as `\s+\s`, the character dropped from the piece), as bpe-openai splits it.
static SPLIT: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new_many(&[
        "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+$",
        "\\s+\\s",
        "\\s+",
    ])
    .ok()
});
const LOOKAHEAD: usize = 1;

/// Tokens of `text`.
pub fn count(text: &str) -> usize {
    if text.is_empty() {
        return 0;
    }
    let Some(split) = SPLIT.as_ref() else {
        // The pattern is a constant the tests build; should it ever fail, a count that errs
        // high keeps a budget a budget (every token is at least one byte).
        return text.len();
    };
    let mut n = 0;
    let mut at = 0;
    while at < text.len() {
        let Some(m) = split.find(Input::new(&text[at..]).anchored(Anchored::Yes)) else {
            // The pattern matches every non-empty text; count the rest by bytes if not.
            return n + text.len() - at;
        };
        let mut end = at + m.end();
        if m.pattern().as_usize() == LOOKAHEAD {
            end -= text[at..end].chars().next_back().map_or(0, char::len_utf8);
        }
        if end <= at {
            return n + text.len() - at;
        }
        n += piece_count(&text.as_bytes()[at..end]);
        at = end;
    }
    n
}

/// The rank (id) of a token's bytes, if they are one.
fn rank(bytes: &[u8]) -> Option<u32> {
    let word = |i: usize| {
        TABLE
            .get(4 * i..4 * i + 4)
            .map_or(0, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    };
    let tokens = word(0) as usize;
    let mut slot = table::home_slot(table::hash(bytes));
    loop {
        let id = word(1 + slot);
        if id == 0 {
            return None;
        }
        let id = (id - 1) as usize;
        if id < tokens {
            let (from, to) = (word(1 + table::SLOTS + id), word(2 + table::SLOTS + id));
            let base = 4 * (2 + table::SLOTS + tokens);
            if TABLE.get(base + from as usize..base + to as usize) == Some(bytes) {
                return Some(id as u32);
            }
        }
        slot = (slot + 1) & (table::SLOTS - 1);
    }
}

/// Tokens of one pretokenized piece: tiktoken's byte-pair merge.
fn piece_count(piece: &[u8]) -> usize {
    if piece.len() <= 1 || rank(piece).is_some() {
        return piece.len().min(1);
    }
    // Parts by their start; `next`/`prev` link the live ones; a part's pair rank is the rank of
    // its bytes joined with the next part's.
    let len = piece.len();
    let mut next: Vec<usize> = (1..=len).collect();
    let mut prev: Vec<usize> = (0..len).map(|i| i.wrapping_sub(1)).collect();
    let mut pair: Vec<Option<u32>> = vec![None; len];
    let mut heap = BinaryHeap::with_capacity(len);
    let end_of = |next: &[usize], i: usize| {
        let j = next[i];
        if j < len { next[j] } else { len }
    };
    for i in 0..len - 1 {
        pair[i] = rank(&piece[i..i + 2]);
        if let Some(r) = pair[i] {
            heap.push(Reverse((r, i)));
        }
    }
    let mut parts = len;
    while let Some(Reverse((r, i))) = heap.pop() {
        if pair[i] != Some(r) {
            continue; // merged away or re-ranked since it was pushed
        }
        // Merge part i with the next one.
        let j = next[i];
        next[i] = next[j];
        if next[j] < len {
            prev[next[j]] = i;
        }
        pair[j] = None;
        parts -= 1;
        pair[i] = if next[i] < len {
            rank(&piece[i..end_of(&next, i)])
        } else {
            None
        };
        if let Some(r) = pair[i] {
            heap.push(Reverse((r, i)));
        }
        let p = prev[i];
        if p < len {
            pair[p] = rank(&piece[p..end_of(&next, p)]);
            if let Some(r) = pair[p] {
                heap.push(Reverse((r, p)));
            }
        }
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::count;

    #[test]
    fn counts_are_the_tables_not_characters() {
        assert_eq!(count(""), 0);
        assert_eq!(count("hello world"), 2);
        // Code and identifiers cost more than prose of the same length.
        let code = "fn main() { let x: Vec<u8> = vec![0x1f; 16]; }";
        assert!(count(code) > code.len() / 4, "{}", count(code));
    }

    /// The same count as bpe-openai's (tested there against tiktoken) on text of every kind:
    /// prose, code, whitespace runs, digits, contractions, scripts, emoji, control bytes.
    #[test]
    fn counts_are_bpe_openais() {
        let cl100k = bpe_openai::cl100k_base();
        let cases = [
            "hello world",
            "  leading and trailing  \n\n\t",
            "I'm sure they'd've said it's 1234567 or 3.14159",
            "fn main() {\n    let x: Vec<u8> = vec![0x1f; 16];\n}\n",
            "Les élèves ont réussi l'examen — très bien !",
            "日本語のテキストと中文文本",
            "emoji 🦀🦀 and ZWJ 👨‍👩‍👧",
            "\u{0}\u{1}\u{7f} control",
            "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
            "https://example.com/a/b?c=d&e=f#g",
            "    \n    \n",
            "x",
            " ",
        ];
        for text in cases {
            assert_eq!(count(text), cl100k.count(text), "{text:?}");
        }
    }

    /// Pieces of a million bytes (one pretoken each: letters, punctuation, replacement
    /// characters of a binary file read lossily) are merged in O(n log n), exactly.
    #[test]
    fn long_pieces_count_exactly() {
        for piece in [
            "abcdefghij".repeat(100_000),
            "!?=>".repeat(250_000),
            "\u{FFFD}".repeat(300_000),
        ] {
            let want = bpe_openai::cl100k_base().count(piece.as_str());
            assert_eq!(count(&piece), want, "{:?}", &piece[..12]);
        }
    }
}
