//! `brain_text`: the words of [`super::words`], lower-cased, stop words removed and stemmed, with
//! each distinct word normalized once.

use std::collections::HashMap;

use tantivy::tokenizer::{
    Language, LowerCaser, RawTokenizer, RemoveLongFilter, Stemmer, StopWordFilter, TextAnalyzer,
    Token, TokenStream, Tokenizer,
};

use super::MAX_TOKEN_LEN;
use super::language::language_of;
use super::words::{Units, for_each_word, query_units};

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

/// The normalization of a word's stem in `language` (a text's other language, [`language_of`]):
/// drop long tokens, lower-case, stem. No stop words: a stem equal to the English form is not
/// added, and a word English drops is not stemmed again.
fn stemmer(language: Language) -> TextAnalyzer {
    TextAnalyzer::builder(RawTokenizer::default())
        .filter(RemoveLongFilter::limit(MAX_TOKEN_LEN))
        .filter(LowerCaser)
        .filter(Stemmer::new(language))
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
    cache: WordCache,
    /// The stemmers of other languages met so far, each with its words' stems (bounded as
    /// `cache`).
    stemmers: Vec<(Language, TextAnalyzer, WordCache)>,
}

/// Word → its normalized form (`None`: removed).
type WordCache = HashMap<Box<str>, Option<Box<str>>, foldhash::fast::RandomState>;

impl Default for CachedTextTokenizer {
    fn default() -> Self {
        CachedTextTokenizer {
            normalizer: word_normalizer(),
            cache: HashMap::default(),
            stemmers: Vec::new(),
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

    /// The stem of the word `w` in `language` (`None`: too long), from the cache or computed once.
    fn stem_in(&mut self, language: Language, w: &str) -> Option<&str> {
        let i = match self.stemmers.iter().position(|(l, _, _)| *l == language) {
            Some(i) => i,
            None => {
                self.stemmers
                    .push((language, stemmer(language), HashMap::default()));
                self.stemmers.len() - 1
            }
        };
        let (_, analyzer, stems) = &mut self.stemmers[i];
        if !stems.contains_key(w) {
            if stems.len() > WORD_CACHE_LIMIT {
                stems.clear();
            }
            let mut s = analyzer.token_stream(w);
            let n = s.advance().then(|| s.token().text.clone().into_boxed_str());
            drop(s);
            stems.insert(w.into(), n);
        }
        stems.get(w).and_then(|n| n.as_deref())
    }

    /// The tokens a query looks for of `text` in `language` besides [`Self::tokens`]: each word's
    /// stem in that language (CJK pairs as they are).
    pub fn tokens_in(&mut self, text: &str, language: Language) -> Vec<String> {
        query_units(text)
            .into_iter()
            .filter_map(|(from, to)| self.stem_in(language, &text[from..to]).map(str::to_string))
            .collect()
    }

    /// Call `f(offset, token)` for every token of `text` in order, as the token stream yields them
    /// (CJK pairs included, [`Units`]), without allocating for words already seen (the snippet path
    /// reads whole passages this way).
    pub fn for_each_token(&mut self, text: &str, mut f: impl FnMut(usize, &str)) {
        for (_, from, to) in Units::new(text) {
            if let Some(n) = self.normalize(&text[from..to]) {
                f(from, n);
            }
        }
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
        for (_, from, to) in Units::new(text) {
            let w = &text[from..to];
            let first = w.chars().next().and_then(|c| c.to_lowercase().next());
            if first.is_some_and(|c| firsts.contains(&c))
                && let Some(n) = self.normalize(w)
            {
                f(from, n);
            }
        }
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

    /// The token texts of `text` as a query looks for them (what the query side builds its terms
    /// from): its words, a run of CJK characters as its pairs ([`query_units`]).
    pub fn tokens(&mut self, text: &str) -> Vec<String> {
        query_units(text)
            .into_iter()
            .filter_map(|(from, to)| self.normalize(&text[from..to]).map(str::to_string))
            .collect()
    }
}

impl Tokenizer for CachedTextTokenizer {
    type TokenStream<'a> = CachedTextStream<'a>;
    fn token_stream<'a>(&'a mut self, text: &'a str) -> CachedTextStream<'a> {
        CachedTextStream {
            language: language_of(text),
            tokenizer: self,
            text,
            units: Units::new(text),
            other: None,
            other_text: String::new(),
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
/// `StopWordFilter` does. CJK text also gives the pairs of adjacent characters ([`Units`]).
pub struct CachedTextStream<'a> {
    tokenizer: &'a mut CachedTextTokenizer,
    text: &'a str,
    units: Units<'a>,
    /// The text's other language ([`language_of`]): its words also give their stem in it.
    language: Option<Language>,
    /// The token to give next: the other stem (`other_text`) of the word just given, at its
    /// position and offsets.
    other: Option<(usize, usize, usize)>,
    other_text: String,
    token: Token,
}

impl TokenStream for CachedTextStream<'_> {
    fn advance(&mut self) -> bool {
        if let Some((position, from, to)) = self.other.take() {
            std::mem::swap(&mut self.token.text, &mut self.other_text);
            self.token.offset_from = from;
            self.token.offset_to = to;
            self.token.position = position;
            return true;
        }
        for (position, from, to) in self.units.by_ref() {
            let w = &self.text[from..to];
            if let Some(n) = self.tokenizer.normalize(w) {
                self.token.text.clear();
                self.token.text.push_str(n);
                self.token.offset_from = from;
                self.token.offset_to = to;
                self.token.position = position;
                if let Some(language) = self.language
                    && let Some(stem) = self.tokenizer.stem_in(language, w)
                    && stem != self.token.text
                {
                    self.other_text.clear();
                    self.other_text.push_str(stem);
                    self.other = Some((position, from, to));
                }
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
    fn cjk_text_is_indexed_as_characters_and_pairs_and_queried_as_pairs() {
        // The index: each character at its own position, each pair at its first one's.
        let mut a = text_analyzer();
        let mut s = a.token_stream("数据库error 東京、大阪");
        let mut got = Vec::new();
        while s.advance() {
            got.push((s.token().text.clone(), s.token().position));
        }
        let want = [
            ("数", 0),
            ("数据", 0),
            ("据", 1),
            ("据库", 1),
            ("库", 2),
            ("error", 3),
            ("東", 4),
            ("東京", 4),
            ("京", 5),
            ("大", 6),
            ("大阪", 6),
            ("阪", 7),
        ];
        assert_eq!(got, want.map(|(t, p)| (t.to_string(), p)));
        // A query: the pairs of a run, a lone character as itself, words as words; no pair across
        // punctuation or into Latin text.
        let mut t = CachedTextTokenizer::default();
        assert_eq!(t.tokens("数据库error"), ["数据", "据库", "error"]);
        assert_eq!(t.tokens("東京、大阪"), ["東京", "大阪"]);
        assert_eq!(t.tokens("京 テスト"), ["京", "テス", "スト"]);
        assert_eq!(t.tokens("한국어 문서"), ["한국", "국어", "문서"]);
        // Phrases read the characters' own positions, as before.
        assert_eq!(
            t.positioned_tokens("東京都"),
            [
                (0, "東".to_string()),
                (1, "京".to_string()),
                (2, "都".to_string())
            ]
        );
    }

    #[test]
    fn a_text_in_another_language_adds_its_stems_where_they_differ() {
        let mut a = text_analyzer();
        let collect = |a: &mut TextAnalyzer, text: &str| {
            let mut s = a.token_stream(text);
            let mut out = Vec::new();
            while s.advance() {
                out.push((s.token().text.clone(), s.token().position));
            }
            out
        };
        let de = collect(
            &mut a,
            "Schätzt den Speicherplatzverbrauch der Verzeichnisse und zeigt die Größen an",
        );
        // English's form of each word as before, and German's at the same position where it
        // differs.
        assert!(de.contains(&("verzeichniss".to_string(), 4)), "{de:?}");
        assert!(de.contains(&("verzeichnis".to_string(), 4)), "{de:?}");
        assert!(de.windows(2).all(|w| w[0].1 <= w[1].1), "{de:?}");
        // English text: the tokens of before, nothing added.
        let en = "The runners were running through the gardens";
        let mut plain = TextAnalyzer::builder(super::super::CodeWordTokenizer)
            .filter(RemoveLongFilter::limit(MAX_TOKEN_LEN))
            .filter(LowerCaser)
            .filter(StopWordFilter::new(Language::English).expect("english stop words"))
            .filter(Stemmer::new(Language::English))
            .build();
        assert_eq!(collect(&mut a, en), collect(&mut plain, en));
        // The query side: the German forms of a German question's words.
        let mut t = CachedTextTokenizer::default();
        assert_eq!(t.tokens("Verzeichnis"), ["verzeichni"]);
        assert_eq!(
            t.tokens_in("Verzeichnis", Language::German),
            ["verzeichnis"]
        );
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
