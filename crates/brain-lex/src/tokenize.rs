//! The two analyzers of the lexical index, registered on every opened index under [`TEXT_TOKENIZER`]
//! and [`IDENT_TOKENIZER`].
//!
//! * `brain_text` — prose and code as words. Splits on every non-alphanumeric character (so
//!   `snake_case`, `dotted.name`, `a/b/c`, `--flag` fall apart), then inside a word on camelCase
//!   boundaries (`parseHTTPResponse` → `parse http response`; letters and digits stay together:
//!   `sha256`, `utf8`). CJK characters (Han, kana, Hangul) become one token each, so CJK text is
//!   searchable without a segmenter. Then lower-case, English stop words removed, English (Snowball)
//!   stemming, tokens over [`MAX_TOKEN_LEN`] bytes dropped.
//! * `brain_ident` — whole identifiers, paths, flags and error names, lower-cased and *not* split:
//!   `parse_config`, `src/main.rs` (and its suffixes `main.rs`), `--no-verify`, `std::fs::read`,
//!   `ModuleNotFoundError`. Only compound tokens are kept (a plain word is already in `brain_text`).
//!   It lives in a field of its own: emitting whole tokens at the same position as their parts would
//!   turn multi-token queries into phrase queries that match nothing (DESIGN.md).

use std::collections::HashMap;

use tantivy::tokenizer::{
    Language, LowerCaser, RawTokenizer, RemoveLongFilter, Stemmer, StopWordFilter, TextAnalyzer,
    Token, TokenStream, Tokenizer,
};

/// Name of the prose-and-code-parts analyzer (title, headings, body, path words).
pub const TEXT_TOKENIZER: &str = "brain_text";
/// Name of the whole-identifier analyzer (the `ident` field).
pub const IDENT_TOKENIZER: &str = "brain_ident";

/// Tokens longer than this (bytes) are dropped from `brain_text`: base64 blobs and hashes are noise
/// as words (tantivy's own default for `RemoveLongFilter` in its examples is 40).
pub const MAX_TOKEN_LEN: usize = 40;
/// Longest whole identifier kept by `brain_ident` (long URLs and paths stay whole up to this).
pub const MAX_IDENT_LEN: usize = 160;

/// The `brain_text` analyzer.
pub fn text_analyzer() -> TextAnalyzer {
    TextAnalyzer::builder(CachedTextTokenizer::default()).build()
}

/// The per-word normalization of `brain_text`: drop long tokens, lower-case, drop English stop
/// words, stem. Run once per distinct word by [`CachedTextTokenizer`].
fn word_normalizer() -> TextAnalyzer {
    let stop = StopWordFilter::new(Language::English)
        .unwrap_or_else(|| StopWordFilter::remove(Vec::<String>::new()));
    TextAnalyzer::builder(RawTokenizer::default())
        .filter(RemoveLongFilter::limit(MAX_TOKEN_LEN))
        .filter(LowerCaser)
        .filter(stop)
        .filter(Stemmer::new(Language::English))
        .build()
}

/// Distinct words remembered by one [`CachedTextTokenizer`] before its cache is cleared (bounds memory
/// to a few MB per indexing thread).
const WORD_CACHE_LIMIT: usize = 200_000;

/// [`CodeWordTokenizer`] followed by the per-word normalization, with the normalized form of each
/// distinct word cached: words repeat heavily, and stemming was ~12 % of a full build's CPU
/// (perf, 2026-11-22). Output is identical to running the filters on every token; removed words
/// (stop words, too long) leave a position gap, as tantivy's `StopWordFilter` does.
#[derive(Clone)]
pub struct CachedTextTokenizer {
    normalizer: TextAnalyzer,
    /// Word → its normalized form (`None`: removed). Keys are short and local, so a fast
    /// non-cryptographic hash (foldhash, seeded per process) instead of SipHash.
    cache: HashMap<Box<str>, Option<Box<str>>, foldhash::fast::RandomState>,
}

impl Default for CachedTextTokenizer {
    fn default() -> Self {
        CachedTextTokenizer {
            normalizer: word_normalizer(),
            cache: HashMap::default(),
        }
    }
}

impl CachedTextTokenizer {
    /// The normalized form of the word `w` (`None`: removed), from the cache or computed once.
    fn normalize(&mut self, w: &str) -> Option<&str> {
        if !self.cache.contains_key(w) {
            if self.cache.len() > WORD_CACHE_LIMIT {
                self.cache.clear();
            }
            let mut s = self.normalizer.token_stream(w);
            let n = s.advance().then(|| s.token().text.clone().into_boxed_str());
            drop(s);
            self.cache.insert(w.into(), n);
        }
        self.cache.get(w).and_then(|n| n.as_deref())
    }

    /// Call `f(offset, token)` for every token of `text` in order, as the token stream yields them,
    /// without allocating for words already seen (the snippet path reads whole passages this way).
    pub fn for_each_token(&mut self, text: &str, mut f: impl FnMut(usize, &str)) {
        for_each_word(text, |from, to| {
            if let Some(n) = self.normalize(&text[from..to]) {
                f(from, n);
            }
        });
    }

    /// [`CachedTextTokenizer::for_each_token`] for the tokens that start with one of `firsts`
    /// (lower-case characters): a word whose lower-cased first character is not among them is
    /// skipped without being normalized. The same tokens as filtering the full stream, because
    /// normalization never changes a kept word's first character: lower-casing maps each character
    /// on its own (tantivy's `LowerCaser`), and Snowball English stemming rewrites only suffixes — its
    /// steps work inside R1/R2 or after a preceding vowel, and its exception list (`dying` → `die`,
    /// `skies` → `sky`, …) keeps first letters. (The snippet of a hit reads passages this way: most
    /// of a fresh process's snippet time was stemming words no query word could match.)
    pub fn for_each_token_from(
        &mut self,
        text: &str,
        firsts: &[char],
        mut f: impl FnMut(usize, &str),
    ) {
        for_each_word(text, |from, to| {
            let w = &text[from..to];
            let first = w.chars().next().and_then(|c| c.to_lowercase().next());
            if first.is_some_and(|c| firsts.contains(&c))
                && let Some(n) = self.normalize(w)
            {
                f(from, n);
            }
        });
    }

    /// The token texts of `text` (what the query side builds its terms from).
    pub fn tokens(&mut self, text: &str) -> Vec<String> {
        let mut out = Vec::new();
        self.for_each_token(text, |_, t| out.push(t.to_string()));
        out
    }
}

impl Tokenizer for CachedTextTokenizer {
    type TokenStream<'a> = CachedTextStream<'a>;
    fn token_stream<'a>(&'a mut self, text: &'a str) -> CachedTextStream<'a> {
        CachedTextStream {
            tokenizer: self,
            text,
            words: Words::new(text),
            next_position: 0,
            token: Token::default(),
        }
    }
}

/// The token stream of [`CachedTextTokenizer`]: words are cut and normalized as the indexer pulls
/// them, into one reused token, so a body's tokens cost no allocation each (a `String` per token
/// in a vector before: a full build took 13.9 s CPU that way, 13.3 s this way, A/B 2026-11-24).
/// A removed word (stop word, too long) still takes its position, leaving a gap as tantivy's
/// `StopWordFilter` does.
pub struct CachedTextStream<'a> {
    tokenizer: &'a mut CachedTextTokenizer,
    text: &'a str,
    words: Words<'a>,
    next_position: usize,
    token: Token,
}

impl TokenStream for CachedTextStream<'_> {
    fn advance(&mut self) -> bool {
        for (from, to) in self.words.by_ref() {
            let position = self.next_position;
            self.next_position += 1;
            if let Some(n) = self.tokenizer.normalize(&self.text[from..to]) {
                self.token.text.clear();
                self.token.text.push_str(n);
                self.token.offset_from = from;
                self.token.offset_to = to;
                self.token.position = position;
                self.token.position_length = 1;
                return true;
            }
        }
        false
    }
    fn token(&self) -> &Token {
        &self.token
    }
    fn token_mut(&mut self) -> &mut Token {
        &mut self.token
    }
}

/// The `brain_ident` analyzer.
pub fn ident_analyzer() -> TextAnalyzer {
    TextAnalyzer::builder(IdentTokenizer::default()).build()
}

/// Register both analyzers on `index` (every open and create does this).
pub fn register(index: &tantivy::Index) {
    index.tokenizers().register(TEXT_TOKENIZER, text_analyzer());
    index
        .tokenizers()
        .register(IDENT_TOKENIZER, ident_analyzer());
}

/// Run `analyzer` over `text` and collect the token texts (the query side uses this to build term
/// queries with exactly the index-time analysis).
pub fn tokens(analyzer: &mut TextAnalyzer, text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut stream = analyzer.token_stream(text);
    while stream.advance() {
        out.push(stream.token().text.clone());
    }
    out
}

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

/// A token stream over tokens computed up front.
pub struct VecTokenStream {
    tokens: Vec<Token>,
    next: usize,
}

impl TokenStream for VecTokenStream {
    fn advance(&mut self) -> bool {
        self.next += 1;
        self.next <= self.tokens.len()
    }
    fn token(&self) -> &Token {
        &self.tokens[self
            .next
            .saturating_sub(1)
            .min(self.tokens.len().saturating_sub(1))]
    }
    fn token_mut(&mut self) -> &mut Token {
        let i = self
            .next
            .saturating_sub(1)
            .min(self.tokens.len().saturating_sub(1));
        &mut self.tokens[i]
    }
}

fn push(tokens: &mut Vec<Token>, text: &str, from: usize, to: usize) {
    tokens.push(Token {
        offset_from: from,
        offset_to: to,
        position: tokens.len(),
        text: text[from..to].to_string(),
        position_length: 1,
    });
}

/// Splits words at non-alphanumerics, camelCase boundaries and around CJK characters.
#[derive(Clone, Default)]
pub struct CodeWordTokenizer;

impl Tokenizer for CodeWordTokenizer {
    type TokenStream<'a> = VecTokenStream;
    fn token_stream<'a>(&'a mut self, text: &'a str) -> VecTokenStream {
        let mut tokens = Vec::new();
        for_each_word(text, |from, to| push(&mut tokens, text, from, to));
        VecTokenStream { tokens, next: 0 }
    }
}

/// Call `f(from, to)` for every word of `text` as [`CodeWordTokenizer`] splits it, in order.
fn for_each_word(text: &str, mut f: impl FnMut(usize, usize)) {
    for (from, to) in Words::new(text) {
        f(from, to);
    }
}

/// The words of a text as byte ranges, in order: runs of alphanumeric characters cut at camelCase
/// boundaries, and each CJK character on its own. The one word splitter of `brain_text` (indexing,
/// queries and snippets).
struct Words<'a> {
    text: &'a str,
    /// Where the scan for the next word starts.
    pos: usize,
    /// Inside a word that camelCase splits: the start of its next part, and the word's end.
    camel: Option<(usize, usize)>,
}

impl<'a> Words<'a> {
    fn new(text: &'a str) -> Words<'a> {
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
        || inner.contains(|c: char| matches!(c, '_' | '.' | '/' | '-' | ':' | '@' | '\\' | '~'))
        || inner
            .chars()
            .zip(inner.chars().skip(1))
            .any(|(a, b)| a.is_lowercase() && b.is_uppercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(s: &str) -> Vec<String> {
        tokens(&mut text_analyzer(), s)
    }
    fn idents(s: &str) -> Vec<String> {
        tokens(&mut ident_analyzer(), s)
    }

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
            if std::env::var("BRAIN_REQUIRE_CORPORA").is_ok_and(|v| v == "1") {
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

    #[test]
    fn code_words_split_on_case_and_separators_and_are_stemmed() {
        assert_eq!(text("parseHTTPResponse"), ["pars", "http", "respons"]);
        assert_eq!(text("load_config_file"), ["load", "config", "file"]);
        // `no` is an English stop word.
        assert_eq!(
            text("src/brain_lex/index.rs --no-verify"),
            ["src", "brain", "lex", "index", "rs", "verifi"]
        );
        assert_eq!(text("sha256 of the utf8 files"), ["sha256", "utf8", "file"]);
    }

    #[test]
    fn the_word_cache_changes_nothing() {
        let plain = || {
            let stop = StopWordFilter::new(Language::English).expect("english stop words");
            TextAnalyzer::builder(CodeWordTokenizer)
                .filter(RemoveLongFilter::limit(MAX_TOKEN_LEN))
                .filter(LowerCaser)
                .filter(stop)
                .filter(Stemmer::new(Language::English))
                .build()
        };
        let text = format!(
            "The runner runs; the RUNNING runners ran parseConfig {} 数据 and the end",
            "x".repeat(50)
        );
        let collect = |a: &mut TextAnalyzer| {
            let mut out = Vec::new();
            let mut s = a.token_stream(&text);
            while s.advance() {
                let t = s.token();
                out.push((t.text.clone(), t.position, t.offset_from, t.offset_to));
            }
            out
        };
        let mut cached = text_analyzer();
        let first = collect(&mut cached);
        assert_eq!(first, collect(&mut plain()));
        assert_eq!(
            collect(&mut cached),
            first,
            "second pass served from the cache"
        );
    }

    #[test]
    fn normalization_keeps_the_first_character() {
        let words = "dying lying tying skies skis idly gently ugly early only singly news Yelling \
            yesterday youth Über ÉCOLE İstanbul ΣΟΦΙΑ Σ generously relational possibilities \
            conditional hopefully agreed feed sing bring being crying cries ties gas us a I \
            quickly Running RUNNING parseHTTPResponse 数据 x1 9lives";
        let mut t = CachedTextTokenizer::default();
        let mut all = Vec::new();
        t.for_each_token(words, |at, tok| all.push((at, tok.to_string())));
        for (at, tok) in &all {
            let word_first = words[*at..]
                .chars()
                .next()
                .and_then(|c| c.to_lowercase().next());
            assert_eq!(tok.chars().next(), word_first, "{tok} at {at}");
        }
        // Asking for some first characters gives exactly the full stream's tokens that start so.
        let firsts = ['d', 'y', 'σ', 'i', 'r', '数'];
        let mut some = Vec::new();
        t.for_each_token_from(words, &firsts, |at, tok| some.push((at, tok.to_string())));
        let want: Vec<_> = all
            .into_iter()
            .filter(|(_, tok)| tok.chars().next().is_some_and(|c| firsts.contains(&c)))
            .collect();
        assert_eq!(some, want);
        assert!(want.len() > 8, "{want:?}");
    }

    #[test]
    fn cjk_characters_are_single_tokens() {
        assert_eq!(text("数据库error"), ["数", "据", "库", "error"]);
        assert_eq!(text("テスト"), ["テ", "ス", "ト"]);
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

    #[test]
    fn positions_are_consecutive() {
        let mut a = text_analyzer();
        let mut s = a.token_stream("fooBar baz_qux");
        let mut pos = Vec::new();
        while s.advance() {
            pos.push(s.token().position);
        }
        assert_eq!(pos, [0, 1, 2, 3]);
    }
}
