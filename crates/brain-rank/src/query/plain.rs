//! A plain query made once, and the cuts routing and the zero-hit relaxation make of it.

use jiff::Zoned;

use super::{Lexeme, MAX_QUERY_BYTES, Query, QueryError, Token, lex, word_spans};

/// A plain query (words, phrases, exclusions, filters): its text, its tokens and its parse, made
/// once by [`Plain::parse`]. What routing takes out of it (a time phrase, question scaffolding) and
/// the zero-hit relaxation are cuts of its tokens ([`Plain::without`], [`Plain::relaxed`]): the
/// text is never lexed again.
#[derive(Debug, Clone)]
pub struct Plain {
    pub text: String,
    pub lexemes: Vec<Lexeme>,
    pub query: Query,
}

impl Plain {
    /// Lex and parse `text` (trimmed), unchecked: filters alone parse (see
    /// [`Query::parse_unchecked`]).
    pub fn parse(text: &str, now: &Zoned) -> Result<Plain, QueryError> {
        let text = text.trim();
        if text.len() > MAX_QUERY_BYTES {
            return Err(QueryError::TooLong { bytes: text.len() });
        }
        let lexemes = lex(text)?;
        let query = Query::from_lexemes(&lexemes, now)?;
        Ok(Plain {
            text: text.to_string(),
            lexemes,
            query,
        })
    }

    /// The query left when the words at `cut` (byte ranges of words of [`Plain::text`], as
    /// [`word_spans`] gives them) are taken out: a token goes when every word of it
    /// is cut, so a time phrase or scaffolding inside a `"quoted phrase"` leaves the phrase whole.
    /// The text left is the kept tokens as written, one space apart.
    pub fn without(
        &self,
        cut: &[std::ops::Range<usize>],
        now: &Zoned,
    ) -> Result<Plain, QueryError> {
        let inside =
            |w: &std::ops::Range<usize>| cut.iter().any(|c| c.start <= w.start && w.end <= c.end);
        let kept = self.lexemes.iter().filter(|l| {
            let raw = &self.text[l.span.clone()];
            !word_spans(raw)
                .iter()
                .map(|w| w.start + l.span.start..w.end + l.span.start)
                .all(|w| inside(&w))
        });
        Plain::rebuild(
            kept.map(|l| (l.token.clone(), self.text[l.span.clone()].to_string())),
            now,
        )
    }

    /// Whether the query has something [`Plain::relaxed`] drops: a phrase or an exclusion.
    pub fn relaxable(&self) -> bool {
        !self.query.phrases.is_empty() || !self.query.exclude.is_empty()
    }

    /// The zero-hit relaxation rule, in auto mode: the phrases searched as words, the exclusions
    /// dropped; and what was relaxed, for the warning. `None` when the query has neither, or when
    /// nothing would be left to look for.
    pub fn relaxed(&self, now: &Zoned) -> Option<(Plain, String)> {
        if !self.relaxable() {
            return None;
        }
        let q = &self.query;
        let mut what = Vec::new();
        if !q.phrases.is_empty() {
            what.push(format!(
                "the exact phrase{} {}",
                if q.phrases.len() == 1 { "" } else { "s" },
                q.phrases
                    .iter()
                    .map(|p| format!("\"{p}\""))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        if !q.exclude.is_empty() {
            what.push(format!("with -{} excluded", q.exclude.join(" -")));
        }
        let mut tokens: Vec<(Token, String)> = Vec::new();
        for l in &self.lexemes {
            let raw = &self.text[l.span.clone()];
            match &l.token {
                Token::Not(_) => {}
                Token::Field(..) => tokens.push((l.token.clone(), raw.to_string())),
                Token::Word(w) if !raw.contains('"') => {
                    tokens.push((Token::Word(w.clone()), raw.to_string()))
                }
                Token::Word(w) | Token::Phrase(w) => {
                    for word in w.replace('"', "").split_whitespace() {
                        tokens.push((Token::Word(word.to_string()), word.to_string()));
                    }
                }
            }
        }
        let relaxed = Plain::rebuild(tokens.into_iter(), now).ok()?;
        if relaxed.query.terms.is_empty() {
            return None;
        }
        Some((relaxed, what.join(" ")))
    }

    /// A plain query of tokens and their text as written, one space apart.
    fn rebuild(
        tokens: impl Iterator<Item = (Token, String)>,
        now: &Zoned,
    ) -> Result<Plain, QueryError> {
        let mut text = String::new();
        let mut lexemes = Vec::new();
        for (token, raw) in tokens {
            if !text.is_empty() {
                text.push(' ');
            }
            let at = text.len();
            text.push_str(&raw);
            lexemes.push(Lexeme {
                token,
                span: at..text.len(),
            });
        }
        let query = Query::from_lexemes(&lexemes, now)?;
        Ok(Plain {
            text,
            lexemes,
            query,
        })
    }
}
