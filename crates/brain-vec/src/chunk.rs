//! Markdown-aware chunking: a document body becomes passages of about [`ChunkParams::max_tokens`] tokens.
//!
//! The body is first cut into blocks — a heading line, a whole code fence, a list item with its
//! continuation lines, a session turn (`**User**:` …), a paragraph — and blocks are then packed greedily
//! into chunks. Rules:
//! * a code fence is never split (a fence longer than a chunk becomes a chunk of its own; the model
//!   truncates it at its input limit);
//! * a heading closes the chunk before it, so a section starts a chunk;
//! * a session turn closes the chunk before it once that chunk holds a quarter of the budget, so
//!   short turns share a chunk but long ones do not run together;
//! * a paragraph or list item longer than a chunk is cut into windows of whole words, overlapping by
//!   [`ChunkParams::overlap_tokens`]; when a chunk is closed for size, its last block (if it fits in the
//!   overlap) is repeated at the start of the next one;
//! * the frontmatter is not part of the body, so it is never embedded; an empty body has no chunks;
//! * the document title is prefixed to every chunk's text ([`embed_text`]);
//! * a session's `## Tools Used` section (jsonl2md's list of tool calls: names and paths) is not
//!   embedded — it stays lexically searchable. Measured on the real-session recall set (int8
//!   kernel, 2026-11-25): vector nDCG@10 0.7430 → 0.7635, MRR@10 0.7364 → 0.7518, 10 % less
//!   embedding time; dropping `## Reasoning` too cost 0.004 (kept). Documents embedded before keep
//!   their vectors until they change (the fingerprint is unchanged: no forced re-embedding).
//!
//! Token counts are estimated without the model's tokenizer (so chunk boundaries do not depend on the
//! embedder): every run of letters/digits and every punctuation mark counts one, and a long word one more
//! per 8 characters, which tracks BERT WordPiece counts on English prose and code within ~15%.

use brain_doc::blocks::{fence_closes, fence_open, is_turn};
use serde::{Deserialize, Serialize};

/// Chunk size and overlap, in estimated tokens. Part of the embedding fingerprint.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChunkParams {
    /// Upper bound of a chunk's size (a code fence may exceed it).
    pub max_tokens: usize,
    /// How much consecutive windows of one long block share.
    pub overlap_tokens: usize,
}

impl Default for ChunkParams {
    /// 256 tokens: half of MiniLM's 512-position limit, so title + chunk always fit; ~the passage size
    /// QMD and sentence-transformers' all-MiniLM-L6-v2 card use (max_seq_length 256). 32 tokens of overlap
    /// (1/8) keeps a sentence cut at a window edge readable on both sides.
    fn default() -> Self {
        ChunkParams {
            max_tokens: 256,
            overlap_tokens: 32,
        }
    }
}

/// One passage of a document body.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Chunk {
    /// 0-based position of the chunk in its document.
    pub seq: u32,
    /// 1-based line of the body at which the chunk starts.
    pub line: u64,
    /// Estimated token count of `text`.
    pub tokens: usize,
    /// The chunk's markdown, without the title prefix.
    pub text: String,
}

/// The text handed to the embedder for a chunk: the title, a blank line, the chunk. The prompt format is
/// part of the embedding fingerprint ([`crate::embed::PROMPT_FORMAT`]).
pub fn embed_text(title: &str, chunk: &str) -> String {
    if title.trim().is_empty() {
        chunk.to_string()
    } else {
        format!("{}\n\n{chunk}", title.trim())
    }
}

/// Estimated token count of `text` (see the module docs).
pub fn estimate_tokens(text: &str) -> usize {
    let mut n = 0;
    let mut word = 0usize;
    for c in text.chars() {
        if c.is_alphanumeric() {
            word += 1;
            continue;
        }
        if word > 0 {
            n += 1 + (word - 1) / 8;
            word = 0;
        }
        if !c.is_whitespace() {
            n += 1;
        }
    }
    if word > 0 {
        n += 1 + (word - 1) / 8;
    }
    n
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Heading,
    Fence,
    Turn,
    Item,
    Paragraph,
}

#[derive(Debug)]
struct Block {
    kind: Kind,
    line: u64,
    text: String,
    tokens: usize,
}

/// Level-2 sections of a session document that are not embedded (see the module docs).
pub const UNEMBEDDED_SECTIONS: &[&str] = &["Tools Used"];

/// Whether a heading line opens a section that is not embedded (`Some(true)`), opens another
/// section (`Some(false)`), or is a sub-heading that leaves the current one open (`None`).
fn section_skipped(heading: &str) -> Option<bool> {
    let h = heading.trim();
    let title = h.strip_prefix("## ").or_else(|| h.strip_prefix("# "))?;
    Some(UNEMBEDDED_SECTIONS.contains(&title.trim()))
}

/// Cut `body` into chunks.
pub fn chunk(body: &str, params: ChunkParams) -> Vec<Chunk> {
    let max = params.max_tokens.max(8);
    let mut out: Vec<Chunk> = Vec::new();
    let mut cur: Vec<Block> = Vec::new();
    let mut cur_tokens = 0usize;
    let mut skipping = false;
    for block in blocks(body) {
        if block.kind == Kind::Heading
            && let Some(skip) = section_skipped(&block.text)
        {
            skipping = skip;
        }
        if skipping {
            continue;
        }
        let strong = match block.kind {
            Kind::Heading => cur.iter().any(|b| b.kind != Kind::Heading),
            Kind::Turn => cur_tokens >= max / 4,
            _ => false,
        };
        if strong {
            flush(&mut out, &mut cur, &mut cur_tokens);
        }
        if block.tokens > max && block.kind != Kind::Fence {
            flush(&mut out, &mut cur, &mut cur_tokens);
            for (line, text) in windows(&block, max, params.overlap_tokens) {
                push(&mut out, line, text);
            }
            continue;
        }
        if cur_tokens + block.tokens > max && !cur.is_empty() {
            let carry = cur
                .last()
                .filter(|b| {
                    b.tokens <= params.overlap_tokens
                        && b.kind != Kind::Heading
                        && block.kind != Kind::Heading
                })
                .map(|b| Block {
                    kind: b.kind,
                    line: b.line,
                    text: b.text.clone(),
                    tokens: b.tokens,
                });
            flush(&mut out, &mut cur, &mut cur_tokens);
            if let Some(c) = carry.filter(|c| c.tokens + block.tokens <= max) {
                cur_tokens += c.tokens;
                cur.push(c);
            }
        }
        cur_tokens += block.tokens;
        cur.push(block);
    }
    flush(&mut out, &mut cur, &mut cur_tokens);
    out
}

fn flush(out: &mut Vec<Chunk>, cur: &mut Vec<Block>, cur_tokens: &mut usize) {
    if cur.is_empty() {
        return;
    }
    let line = cur[0].line;
    // Consecutive list items stay a tight list; other blocks are separated by a blank line.
    let mut text = String::new();
    for (i, b) in cur.iter().enumerate() {
        if i > 0 {
            text.push_str(if b.kind == Kind::Item && cur[i - 1].kind == Kind::Item {
                "\n"
            } else {
                "\n\n"
            });
        }
        text.push_str(&b.text);
    }
    cur.clear();
    *cur_tokens = 0;
    push(out, line, text);
}

fn push(out: &mut Vec<Chunk>, line: u64, text: String) {
    let tokens = estimate_tokens(&text);
    if tokens == 0 {
        return;
    }
    out.push(Chunk {
        seq: out.len() as u32,
        line,
        tokens,
        text,
    });
}

/// Cut one oversized block into overlapping windows of whole words; each window keeps the line it
/// starts on.
fn windows(block: &Block, max: usize, overlap: usize) -> Vec<(u64, String)> {
    // (line, word, tokens) for every whitespace-separated word.
    let mut words: Vec<(u64, &str, usize)> = Vec::new();
    for (i, l) in block.text.lines().enumerate() {
        for w in l.split_whitespace() {
            words.push((block.line + i as u64, w, estimate_tokens(w).max(1)));
        }
    }
    let overlap = overlap.min(max / 2);
    let mut out = Vec::new();
    let mut start = 0;
    while start < words.len() {
        let mut end = start;
        let mut t = 0;
        while end < words.len() && (t + words[end].2 <= max || end == start) {
            t += words[end].2;
            end += 1;
        }
        let text = words[start..end]
            .iter()
            .map(|w| w.1)
            .collect::<Vec<_>>()
            .join(" ");
        out.push((words[start].0, text));
        if end >= words.len() {
            break;
        }
        // Step back over `overlap` tokens, but always advance.
        let mut back = end;
        let mut o = 0;
        while back > start + 1 && o + words[back - 1].2 <= overlap {
            back -= 1;
            o += words[back].2;
        }
        start = back;
    }
    out
}

fn is_heading(line: &str) -> bool {
    brain_doc::blocks::heading(line).is_some()
}

fn is_item(line: &str) -> bool {
    let t = line.trim_start();
    if line.len() - t.len() >= 2 {
        return false; // a nested item stays with its parent
    }
    if t.starts_with("- ") || t.starts_with("* ") || t.starts_with("+ ") {
        return true;
    }
    let digits = t.chars().take_while(|c| c.is_ascii_digit()).count();
    digits > 0 && digits <= 9 && (t[digits..].starts_with(". ") || t[digits..].starts_with(") "))
}

/// Cut a body into blocks.
fn blocks(body: &str) -> Vec<Block> {
    let lines: Vec<&str> = body.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let make = |kind, line: usize, text: String, out: &mut Vec<Block>| {
        let tokens = estimate_tokens(&text);
        if tokens > 0 {
            out.push(Block {
                kind,
                line: line as u64 + 1,
                text,
                tokens,
            });
        }
    };
    while i < lines.len() {
        let l = lines[i];
        if l.trim().is_empty() {
            i += 1;
            continue;
        }
        if let Some((c, n, _)) = fence_open(l) {
            let start = i;
            i += 1;
            while i < lines.len() {
                let closes = fence_closes(lines[i], c, n);
                i += 1;
                if closes {
                    break;
                }
            }
            make(Kind::Fence, start, lines[start..i].join("\n"), &mut out);
            continue;
        }
        if is_heading(l) {
            make(Kind::Heading, i, l.trim_end().to_string(), &mut out);
            i += 1;
            continue;
        }
        let kind = if is_turn(l) {
            Kind::Turn
        } else if is_item(l) {
            Kind::Item
        } else {
            Kind::Paragraph
        };
        let start = i;
        i += 1;
        while i < lines.len() {
            let n = lines[i];
            if n.trim().is_empty() {
                // A blank line ends a paragraph or item; a turn runs on until the next turn or heading.
                if kind != Kind::Turn {
                    break;
                }
                let next = lines[i + 1..].iter().find(|x| !x.trim().is_empty());
                if next.is_none_or(|x| is_turn(x) || is_heading(x)) {
                    break;
                }
                if next.is_some_and(|x| fence_open(x).is_some()) {
                    break;
                }
                i += 1;
                continue;
            }
            if is_heading(n)
                || fence_open(n).is_some()
                || is_turn(n)
                || (kind != Kind::Turn && is_item(n))
            {
                break;
            }
            i += 1;
        }
        let text = lines[start..i]
            .iter()
            .map(|x| x.trim_end())
            .collect::<Vec<_>>()
            .join("\n");
        make(kind, start, text, &mut out);
    }
    out
}

#[cfg(test)]
mod tests {

    #[test]
    fn a_sessions_tool_list_is_not_embedded_and_the_rest_is() {
        let body = "## Conversation\n\n**User**: fix the flaky lock test\n\n## Tools Used\n\n- Bash: `cargo test`\n- Read: `src/lock.rs`\n\n### More tools\n\n- Grep: `mutex`\n\n## Reasoning\n\n> the writer holds the lock\n\n```md\n## Tools Used\n- inside a fence\n```\n";
        let text: String = chunk(body, ChunkParams::default())
            .into_iter()
            .map(|c| c.text)
            .collect::<Vec<_>>()
            .join("\n");
        assert!(text.contains("fix the flaky lock test"), "{text}");
        assert!(text.contains("the writer holds the lock"), "{text}");
        assert!(
            !text.contains("src/lock.rs") && !text.contains("mutex"),
            "{text}"
        );
        assert!(
            text.contains("inside a fence"),
            "a fenced heading is text: {text}"
        );
        // Every chunk's line still points into the body where its text is.
        for c in chunk(body, ChunkParams::default()) {
            let first = c.text.lines().next().unwrap_or_default();
            assert_eq!(body.lines().nth(c.line as usize - 1), Some(first));
        }
    }
    use super::*;

    fn p(max: usize) -> ChunkParams {
        ChunkParams {
            max_tokens: max,
            overlap_tokens: max / 8,
        }
    }

    #[test]
    fn a_code_fence_is_never_split_even_when_longer_than_a_chunk() {
        let fence: String = (0..100).map(|i| format!("let x{i} = {i};\n")).collect();
        let body = format!("Intro text.\n\n```rust\n{fence}```\n\nAfter.\n");
        let chunks = chunk(&body, p(64));
        let with_fence: Vec<_> = chunks
            .iter()
            .filter(|c| c.text.contains("let x0 ="))
            .collect();
        assert_eq!(with_fence.len(), 1);
        assert!(with_fence[0].text.contains("let x99 = 99;"));
        assert!(with_fence[0].text.trim_end().ends_with("```"));
    }

    #[test]
    fn a_heading_starts_a_chunk_and_lines_point_at_it() {
        let body = "# A\n\nalpha text\n\n## B\n\nbeta text\n";
        let chunks = chunk(body, p(256));
        assert_eq!(chunks.len(), 2);
        assert_eq!((chunks[0].line, chunks[1].line), (1, 5));
        assert!(chunks[1].text.starts_with("## B"));
    }

    #[test]
    fn long_paragraphs_become_overlapping_windows_within_budget() {
        let body: String = (0..1000).map(|i| format!("w{i} ")).collect();
        let chunks = chunk(&body, p(100));
        assert!(chunks.len() >= 10);
        for c in &chunks {
            assert!(c.tokens <= 100, "{}", c.tokens);
        }
        let first_of_second = chunks[1].text.split(' ').next().unwrap_or("");
        assert!(chunks[0].text.contains(first_of_second), "windows overlap");
    }

    #[test]
    fn an_empty_body_has_no_chunks() {
        assert!(chunk("\n\n  \n", ChunkParams::default()).is_empty());
    }

    #[test]
    fn turns_are_boundaries_once_a_chunk_is_substantial() {
        let long = "word ".repeat(80);
        let body = format!("**User**: {long}\n\n**Assistant**: short\n\n**User**: again\n");
        let chunks = chunk(&body, p(256));
        assert_eq!(chunks.len(), 2);
        assert!(chunks[1].text.starts_with("**Assistant**: short"));
        assert!(chunks[1].text.contains("**User**: again"));
    }

    #[test]
    fn token_estimate_counts_words_and_punctuation() {
        assert_eq!(estimate_tokens("Hello, world!"), 4);
        assert_eq!(estimate_tokens("supercalifragilistic"), 3);
    }
}
