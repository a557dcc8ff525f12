//! The query language's one lexer.

use super::{FILTER_FIELDS, QueryError};

/// What one chunk of query text is.
#[derive(Debug, Clone, PartialEq)]
pub enum Token {
    Word(String),
    Phrase(String),
    Not(String),
    Field(String, String),
}

/// One token of a query and the byte range of its chunk in the text, as written (a `"quoted
/// phrase"` is one chunk, spaces and all).
#[derive(Debug, Clone, PartialEq)]
pub struct Lexeme {
    pub token: Token,
    pub span: std::ops::Range<usize>,
}

/// The byte ranges of the whitespace-separated words of `text` (the words routing reads, where
/// they stand): what routing cuts out of a query ([`Plain::without`]) is given as these.
pub fn word_spans(text: &str) -> Vec<std::ops::Range<usize>> {
    text.split_whitespace()
        .map(|w| {
            let at = w.as_ptr() as usize - text.as_ptr() as usize;
            at..at + w.len()
        })
        .collect()
}

/// The query language's one lexer: `text` as tokens, honouring quotes (see the module docs).
/// Every reading of a query — the request's parse, routing's cuts, the zero-hit relaxation — works
/// on these tokens; nothing else splits a query's text by hand.
pub fn lex(text: &str) -> Result<Vec<Lexeme>, QueryError> {
    let _t = brain_doc::timings::span("query.lex");
    let mut out = Vec::new();
    let mut rest = text.trim_start();
    while !rest.is_empty() {
        let at = text.len() - rest.len();
        let (raw, after) = next_raw(rest)?;
        rest = after.trim_start();
        if let Some(token) = classify(&raw) {
            out.push(Lexeme {
                token,
                span: at..at + raw.len(),
            });
        }
    }
    Ok(out)
}

/// One whitespace-separated chunk, where a quoted part may hold spaces; returns (chunk, remainder).
fn next_raw(s: &str) -> Result<(String, &str), QueryError> {
    let mut chunk = String::new();
    let mut chars = s.char_indices();
    while let Some((i, c)) = chars.next() {
        if c.is_whitespace() {
            return Ok((chunk, &s[i..]));
        }
        if c == '"' {
            chunk.push('"');
            let mut closed = false;
            for (_, c2) in chars.by_ref() {
                chunk.push(c2);
                if c2 == '"' {
                    closed = true;
                    break;
                }
            }
            if !closed {
                return Err(QueryError::UnterminatedQuote(s.trim().into()));
            }
        } else {
            chunk.push(c);
        }
    }
    Ok((chunk, ""))
}

fn unquote(s: &str) -> Option<String> {
    let inner = s.strip_prefix('"')?.strip_suffix('"')?;
    Some(inner.trim().to_string())
}

fn classify(raw: &str) -> Option<Token> {
    if let Some(lit) = raw.strip_prefix('\\') {
        return (!lit.is_empty()).then(|| Token::Word(lit.into()));
    }
    if let Some(p) = unquote(raw) {
        return (!p.is_empty()).then_some(Token::Phrase(p));
    }
    if let Some(neg) = raw.strip_prefix('-')
        && !neg.starts_with('-')
        && neg.chars().count() >= 2
    {
        let neg = unquote(neg).unwrap_or_else(|| neg.to_string());
        return (!neg.is_empty()).then_some(Token::Not(neg));
    }
    if let Some((field, value)) = raw.split_once(':')
        && FILTER_FIELDS.contains(&field.to_ascii_lowercase().as_str())
    {
        let value = unquote(value).unwrap_or_else(|| value.to_string());
        return Some(Token::Field(field.to_ascii_lowercase(), value));
    }
    // A quote inside a word (`don"t`) is just text.
    Some(Token::Word(raw.to_string()))
}
