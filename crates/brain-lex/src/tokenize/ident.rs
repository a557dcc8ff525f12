//! `brain_ident`: whole identifiers, paths, flags and error names, lower-cased and not split.

use tantivy::tokenizer::{Token, Tokenizer};

use super::{MAX_IDENT_LEN, VecTokenStream};

/// Emits whole identifiers, paths and flags, lower-cased.
#[derive(Clone, Default)]
pub struct IdentTokenizer;

/// Characters that end an identifier on either side.
fn is_ident_break(c: char) -> bool {
    c.is_whitespace()
        || matches!(
            c,
            '"' | '\''
                | '`'
                | '('
                | ')'
                | '['
                | ']'
                | '{'
                | '}'
                | '<'
                | '>'
                | ','
                | ';'
                | '='
                | '|'
                | '*'
                | '!'
                | '?'
                | '&'
        )
}

/// Trailing punctuation that belongs to the sentence, not the identifier.
fn is_trailing_punct(c: char) -> bool {
    matches!(c, '.' | ':' | '#' | '$' | '%' | '^' | '+' | '\\')
}

impl Tokenizer for IdentTokenizer {
    type TokenStream<'a> = VecTokenStream;
    fn token_stream<'a>(&'a mut self, text: &'a str) -> VecTokenStream {
        let mut tokens = Vec::new();
        let mut start: Option<usize> = None;
        for (i, c) in text
            .char_indices()
            .chain(std::iter::once((text.len(), ' ')))
        {
            if !is_ident_break(c) {
                start.get_or_insert(i);
                continue;
            }
            if let Some(s) = start.take() {
                ident(&mut tokens, text, s, i);
            }
        }
        VecTokenStream { tokens, next: 0 }
    }
}

fn ident(tokens: &mut Vec<Token>, text: &str, from: usize, to: usize) {
    let raw = &text[from..to];
    // Most chunks are plain words: ASCII letters and digits (a sentence's `.` or `:` after them)
    // without a camelCase boundary are never compound. Decided here in one pass over the bytes
    // instead of the trimming, location and compound checks below (the same answer, cheaper).
    let core = raw.trim_end_matches(['.', ':']).as_bytes();
    if core.iter().all(u8::is_ascii_alphanumeric)
        && !core
            .windows(2)
            .any(|w| w[0].is_ascii_lowercase() && w[1].is_ascii_uppercase())
    {
        return;
    }
    let trimmed = raw
        .trim_end_matches(is_trailing_punct)
        .trim_start_matches(|c: char| is_trailing_punct(c) && c != '.');
    let from = from
        + (raw.len()
            - raw
                .trim_start_matches(|c: char| is_trailing_punct(c) && c != '.')
                .len());
    // A location is not part of the identifier: `main.rs:42:7` and `app.js#L10-L20` are `main.rs`
    // and `app.js`. Kept, each line number made the token all but unique (most of the dictionary).
    let trimmed = strip_location(trimmed).trim_end_matches(is_trailing_punct);
    let to = from + trimmed.len();
    // Numbers, dates and versions (`351.421`, `2024-01-01`, `1.2.3`) are left to the text
    // analyzer's parts: as whole terms they are near-unique and nobody searches them as names.
    if trimmed.len() < 3
        || trimmed.len() > MAX_IDENT_LEN
        || !trimmed.chars().any(char::is_alphabetic)
    {
        return;
    }
    if !is_compound(trimmed) {
        return;
    }
    let lower = trimmed.to_lowercase();
    let pos = tokens.len();
    tokens.push(Token {
        offset_from: from,
        offset_to: to,
        position: pos,
        text: lower.clone(),
        position_length: 1,
    });
    // Path suffixes: `crates/src/brain/main.rs` is also findable as `brain/main.rs` and `main.rs`.
    // The last two only: a query is analyzed the same way, so a longer suffix in a query still
    // matches through its two shortest, and each longer suffix indexed was one more rare term.
    if lower.contains('/') && !lower.contains("://") {
        let slashes: Vec<usize> = lower.match_indices('/').map(|(i, _)| i).collect();
        for &i in &slashes[slashes.len().saturating_sub(PATH_SUFFIXES)..] {
            let rest = &lower[i + 1..];
            if rest.len() >= 3 && is_compound(rest) {
                let p = tokens.len();
                tokens.push(Token {
                    offset_from: from + i + 1,
                    offset_to: to,
                    position: p,
                    text: rest.to_string(),
                    position_length: 1,
                });
            }
        }
    }
}

/// How many path suffixes `ident` holds besides the whole path (`brain/main.rs`, `main.rs`).
const PATH_SUFFIXES: usize = 2;

/// `s` without a trailing location: `:line`, `:line:col`, `#Lline` or `#Lfrom-Lto`.
fn strip_location(s: &str) -> &str {
    let is_number = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
    let mut s = s;
    for _ in 0..2 {
        match s.rsplit_once(':') {
            Some((head, n)) if is_number(n) => s = head,
            _ => break,
        }
    }
    // The last `#` followed by `L` (an earlier `#L` would leave a `#` in the anchor: not lines).
    if let Some((head, anchor)) = s
        .rsplit_once('#')
        .and_then(|(h, a)| a.strip_prefix('L').map(|a| (h, a)))
    {
        let lines = match anchor.split_once('-') {
            None => is_number(anchor),
            Some((a, b)) => is_number(a) && is_number(b.strip_prefix('L').unwrap_or(b)),
        };
        if lines {
            s = head;
        }
    }
    s
}

/// A token the text analyzer would split: it has an inner separator, a leading dash (a flag) or a
/// camelCase boundary.
fn is_compound(s: &str) -> bool {
    let inner = s.trim_matches(|c: char| !c.is_alphanumeric());
    s.starts_with('-')
        && s.trim_start_matches('-')
            .chars()
            .next()
            .is_some_and(char::is_alphanumeric)
        || inner.contains(['_', '.', '/', '-', ':', '@', '\\', '~'])
        || inner
            .chars()
            .zip(inner.chars().skip(1))
            .any(|(a, b)| a.is_lowercase() && b.is_uppercase())
}

#[cfg(test)]
mod tests {
    use super::super::{ident_analyzer, tokens};

    fn idents(s: &str) -> Vec<String> {
        tokens(&mut ident_analyzer(), s)
    }

    #[test]
    fn identifiers_stay_whole_and_paths_give_their_suffixes() {
        assert_eq!(idents("run `cargo test --workspace` now"), ["--workspace"]);
        assert_eq!(
            idents("see src/main.rs: parse_config failed."),
            ["src/main.rs", "main.rs", "parse_config"]
        );
        assert_eq!(
            idents("ModuleNotFoundError: no module"),
            ["modulenotfounderror"]
        );
        assert_eq!(idents("std::fs::read(path)"), ["std::fs::read"]);
        // Only the last two path suffixes; locations are not part of a name; numbers are no names.
        assert_eq!(
            idents("at crates/brain-lex/src/main.rs:42:7 and web/app.js#L10-L20."),
            [
                "crates/brain-lex/src/main.rs",
                "src/main.rs",
                "main.rs",
                "web/app.js",
                "app.js"
            ]
        );
        assert_eq!(
            idents("see main.rs:42, std::io:3 and lib.rs#L7"),
            ["main.rs", "std::io", "lib.rs"]
        );
        assert_eq!(
            idents("took 351.421 ms on 2024-01-01 (v1.2.3: 893-906)"),
            ["v1.2.3"]
        );
        assert!(idents("plain words only. Really").is_empty());
    }
}
