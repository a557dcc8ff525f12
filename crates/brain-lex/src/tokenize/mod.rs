//! The two analyzers of the lexical index, registered on every opened index under [`TEXT_TOKENIZER`]
//! and [`IDENT_TOKENIZER`].
//!
//! * `brain_text` — prose and code as words. Splits on every non-alphanumeric character (so
//!   `snake_case`, `dotted.name`, `a/b/c`, `--flag` fall apart), then inside a word on camelCase
//!   boundaries (`parseHTTPResponse` → `parse http response`; letters and digits stay together:
//!   `sha256`, `utf8`). CJK characters (Han, kana, Hangul) become one token each, and each pair of
//!   adjacent ones a token too (at the first one's position), so CJK text written without spaces
//!   is searchable without a segmenter: a query looks for a run's pairs (`東京都` → `東京 京都`),
//!   a lone character as itself. Then lower-case, English stop words removed, English (Snowball)
//!   stemming, tokens over [`MAX_TOKEN_LEN`] bytes dropped. A text in another language with a
//!   Snowball stemmer (German, French, Spanish, Russian, … told by `language`) also gets each
//!   word's stem in that language, at the same position, where it differs.
//! * `brain_ident` — whole identifiers, paths, flags and error names, lower-cased and *not* split:
//!   `parse_config`, `src/main.rs` (and its suffixes `main.rs`), `--no-verify`, `std::fs::read`,
//!   `ModuleNotFoundError`. Only compound tokens are kept (a plain word is already in `brain_text`).
//!   It lives in a field of its own: emitting whole tokens at the same position as their parts would
//!   turn multi-token queries into phrase queries that match nothing (docs/lexindex.md).
//!
//! Modules: `words` cuts text into words (the one splitter of indexing, queries and snippets),
//! `text` normalizes them with a per-word cache (`brain_text`), `language` tells which stemmer a
//! text also gets, `ident` keeps whole identifiers (`brain_ident`).

mod ident;
mod language;
mod text;
mod words;

pub use ident::IdentTokenizer;
pub use language::{language_of, query_language};
pub use tantivy::tokenizer::Language;
pub use text::{CachedTextStream, CachedTextTokenizer, has_terms};
pub use words::{CodeWordTokenizer, is_cjk, query_units};

use tantivy::tokenizer::{TextAnalyzer, Token, TokenStream};

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

/// The `brain_ident` analyzer.
pub fn ident_analyzer() -> TextAnalyzer {
    TextAnalyzer::builder(IdentTokenizer).build()
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
