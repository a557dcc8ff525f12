//! `brain_text`: the words of [`super::words`], lower-cased, stop words removed and stemmed, with
//! each distinct word normalized once.

use std::collections::HashMap;

use tantivy::tokenizer::{
    Language, LowerCaser, RawTokenizer, RemoveLongFilter, Stemmer, StopWordFilter, TextAnalyzer,
    Token, TokenStream, Tokenizer,
};

use super::MAX_TOKEN_LEN;
use super::words::{Words, for_each_word};

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

/// Whether the lexical index reads anything in `text`: a word left once stop words and over-long
/// tokens are dropped. A question cut down to "the" or "it" has none.
pub fn has_terms(text: &str) -> bool {
    let mut t = CachedTextTokenizer::default();
    let mut any = false;
    t.for_each_token(text, |_, _| any = true);
    any
}

/// Distinct words remembered by one [`CachedTextTokenizer`] before its cache is cleared (bounds memory
/// to a few MB per indexing thread).
const WORD_CACHE_LIMIT: usize = 200_000;

/// [`super::CodeWordTokenizer`] followed by the per-word normalization, with the normalized form of each
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

    /// The tokens of `text` with their positions as the index holds them: a removed word (a stop
    /// word, one too long) still takes its position, so a phrase with "of the" inside matches the
    /// text it was copied from.
    pub fn positioned_tokens(&mut self, text: &str) -> Vec<(usize, String)> {
        let mut out = Vec::new();
        let mut position = 0;
        for_each_word(text, |from, to| {
            if let Some(n) = self.normalize(&text[from..to]) {
                out.push((position, n.to_string()));
            }
            position += 1;
        });
        out
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
            token: Token {
                position_length: 1,
                ..Token::default()
            },
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

#[cfg(test)]
mod tests {
    use super::super::CodeWordTokenizer;
    use super::super::{text_analyzer, tokens};
    use super::*;

    fn text(s: &str) -> Vec<String> {
        tokens(&mut text_analyzer(), s)
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
