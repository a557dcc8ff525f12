//! The snippet of a hit: the passage line that best shows why it matched.

use super::{LexQuery, Passage, Searcher};
use crate::tokenize::CachedTextTokenizer;

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
    ///
    /// The passage is tokenized once, as a whole (no token spans a line break), and only the
    /// tokens that are query words are kept, with their line.
    pub fn snippet_of(&self, body: &str, first_line: u64, q: &LexQuery) -> Snippet {
        let mut text = self.analyzer();
        let mut wanted: Vec<String> = Vec::new();
        for w in q.terms.iter().chain(&q.phrases) {
            wanted.extend(text.tokens(w));
        }
        wanted.sort();
        wanted.dedup();
        let mut firsts: Vec<char> = wanted.iter().filter_map(|w| w.chars().next()).collect();
        firsts.dedup();
        // (line index, wanted index) of every query-word token, in text order.
        let mut found: Vec<(usize, usize)> = Vec::new();
        let (mut line, mut scanned) = (0usize, 0usize);
        text.for_each_token_from(body, &firsts, |at, tok| {
            if let Ok(w) = wanted.binary_search_by(|x| x.as_str().cmp(tok)) {
                line += memchr::memchr_iter(b'\n', &body.as_bytes()[scanned..at]).count();
                scanned = at;
                found.push((line, w));
            }
        });
        let mut best: Option<(usize, (bool, usize, usize))> = None; // (line index, (text match, distinct, count))
        let mut next = 0usize;
        let lines: Vec<&str> = body.lines().collect();
        for (i, l) in lines.iter().enumerate() {
            let start = next;
            while next < found.len() && found[next].0 == i {
                next += 1;
            }
            if l.trim().is_empty() {
                continue;
            }
            let mut hit: Vec<usize> = found[start..next].iter().map(|x| x.1).collect();
            let count = hit.len();
            hit.sort_unstable();
            hit.dedup();
            let text_match = !hit.is_empty() && !l.trim_start().starts_with('#');
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
fn clip(line: &str, wanted: &[String], text: &mut CachedTextTokenizer) -> String {
    let chars: Vec<char> = line.chars().collect();
    if chars.len() <= SNIPPET_CHARS {
        return line.to_string();
    }
    let firsts: Vec<char> = wanted.iter().filter_map(|w| w.chars().next()).collect();
    let mut first: Option<usize> = None;
    text.for_each_token_from(line, &firsts, |at, tok| {
        if first.is_none() && wanted.binary_search_by(|x| x.as_str().cmp(tok)).is_ok() {
            first = Some(at);
        }
    });
    let first = first.map_or(0, |at| line[..at].chars().count());
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
