//! The snippet of a hit: the passage line that best shows why it matched.

use tantivy::tokenizer::TextAnalyzer;

use super::{LexQuery, Passage, Searcher};
use crate::tokenize::tokens;

/// Longest snippet, in characters (about two terminal lines).
pub const SNIPPET_CHARS: usize = 220;

/// The best lines of a passage for a query.
#[derive(Debug, Clone, PartialEq)]
pub struct Snippet {
    /// 1-based line in the file of the best-matching line.
    pub line: u64,
    /// The text shown.
    pub text: String,
}

impl Searcher {
    /// The best line(s) of `p` for `q`: a matching text line before any heading line (a heading
    /// repeats what the title and headings already show), then the most distinct query words, then
    /// more occurrences, then the earlier line; cut to [`SNIPPET_CHARS`] around the first match.
    pub fn snippet(&self, p: &Passage, q: &LexQuery) -> Snippet {
        self.snippet_of(&p.body, p.line, q)
    }

    /// [`Searcher::snippet`] of a passage given by its text and first line.
    pub fn snippet_of(&self, body: &str, first_line: u64, q: &LexQuery) -> Snippet {
        let mut text = self.analyzer();
        let mut wanted: Vec<String> = Vec::new();
        for w in q.terms.iter().chain(&q.phrases) {
            wanted.extend(tokens(&mut text, w));
        }
        wanted.sort();
        wanted.dedup();
        let lines: Vec<&str> = body.lines().collect();
        let mut best: Option<(usize, (bool, usize, usize))> = None; // (line index, (text match, distinct, count))
        for (i, line) in lines.iter().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let toks = tokens(&mut text, line);
            let count = toks
                .iter()
                .filter(|t| wanted.binary_search(t).is_ok())
                .count();
            let mut hit: Vec<&String> = toks
                .iter()
                .filter(|t| wanted.binary_search(t).is_ok())
                .collect();
            hit.sort();
            hit.dedup();
            let text_match = !hit.is_empty() && !line.trim_start().starts_with('#');
            let cand = (i, (text_match, hit.len(), count));
            best = match best {
                None => Some(cand),
                Some(b) if cand.1 > b.1 => Some(cand),
                keep => keep,
            };
        }
        let Some((i, _)) = best else {
            return Snippet {
                line: first_line,
                text: String::new(),
            };
        };
        let mut shown = lines[i].trim().to_string();
        if shown.chars().count() < 60
            && let Some(next) = lines.get(i + 1).map(|l| l.trim()).filter(|l| !l.is_empty())
        {
            shown.push(' ');
            shown.push_str(next);
        }
        Snippet {
            line: first_line + i as u64,
            text: clip(&shown, &wanted, &mut text),
        }
    }
}

/// `line` cut to [`SNIPPET_CHARS`] characters, starting a little before the first wanted word.
fn clip(line: &str, wanted: &[String], text: &mut TextAnalyzer) -> String {
    let chars: Vec<char> = line.chars().collect();
    if chars.len() <= SNIPPET_CHARS {
        return line.to_string();
    }
    let mut first = 0usize;
    let mut stream = text.token_stream(line);
    while stream.advance() {
        if wanted.binary_search(&stream.token().text).is_ok() {
            first = line[..stream.token().offset_from].chars().count();
            break;
        }
    }
    let start = first
        .saturating_sub(40)
        .min(chars.len().saturating_sub(SNIPPET_CHARS));
    let end = (start + SNIPPET_CHARS).min(chars.len());
    let mut out = String::new();
    if start > 0 {
        out.push('…');
    }
    out.extend(&chars[start..end]);
    if end < chars.len() {
        out.push('…');
    }
    out
}
