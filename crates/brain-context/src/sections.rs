//! Parts of a record's body a briefing or a block shows: named `##` sections of a distilled
//! artifact, the user turns of a session, text shortened to a number of tokens. Read through [`brain_doc::blocks`], so a heading or a turn marker
//! inside a code block is code.

use brain_doc::blocks::{self, Class, Lines};

use crate::tokens;

/// The text of each `##` section of `body` named in `names` (any case), in the body's order.
pub fn of(body: &str, names: &[&str]) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    let mut open = false;
    for (raw, _, class) in Lines::new(body) {
        match class {
            Class::Heading { level, text } if level <= 2 => {
                open = names.iter().any(|n| n.eq_ignore_ascii_case(text.trim()));
                if open {
                    out.push((text.trim().to_string(), String::new()));
                }
            }
            _ if open => {
                if let Some((_, t)) = out.last_mut() {
                    t.push_str(raw);
                }
            }
            _ => {}
        }
    }
    out.retain(|(_, t)| !t.trim().is_empty());
    out
}

/// The user turns of a session body (`**User**:` …, as `jsonl2md` renders them): the 1-based line
/// of the body each starts at, and its text without the marker ([`blocks::turns`]).
pub fn user_turns(body: &str) -> Vec<(usize, String)> {
    blocks::turns(body)
        .into_iter()
        .filter(|t| t.speaker == "User")
        .map(|t| (t.line, t.text()))
        .filter(|(_, t)| !t.is_empty())
        .collect()
}

/// `text` cut to at most `max` tokens: whole lines while they fit, then words of the next one,
/// with `…` where it was cut.
pub fn shorten(text: &str, max: usize) -> String {
    let text = text.trim();
    if tokens::count(text) <= max {
        return text.to_string();
    }
    let mut out = String::new();
    let mut used = 1; // the ellipsis
    'lines: for line in text.lines() {
        let n = tokens::count(line) + 1;
        if used + n <= max {
            used += n;
            out.push_str(line);
            out.push('\n');
            continue;
        }
        for w in line.split_inclusive(' ') {
            let n = tokens::count(w);
            if used + n > max {
                break 'lines;
            }
            used += n;
            out.push_str(w);
        }
        break;
    }
    let mut out = format!("{}…", out.trim_end());
    // A code block cut open would swallow the rest of the block: close it.
    let mut lines = brain_doc::blocks::Lines::new(&out);
    let mut marker = None;
    for (_, _, class) in lines.by_ref() {
        match class {
            brain_doc::blocks::Class::FenceOpen { marker: m, len, .. } => marker = Some((m, len)),
            brain_doc::blocks::Class::FenceClose => marker = None,
            _ => {}
        }
    }
    if let Some((m, len)) = marker.filter(|_| lines.in_fence()) {
        out.push('\n');
        out.extend(std::iter::repeat_n(m, len));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shortened_text_never_leaves_a_fence_open() {
        let text = format!("intro\n```rust\n{}\n```\nafter", "let x = 1;\n".repeat(200));
        let s = shorten(&text, 40);
        assert!(tokens::count(&s) <= 44, "{}", tokens::count(&s));
        assert!(s.ends_with("```"), "{s}");
        assert_eq!(shorten("short", 40), "short");
    }

    #[test]
    fn named_sections_and_user_turns_skip_code() {
        let body = "## Goal\nFix it.\n## What Happened\nFound it.\n```\n## Not a heading\n```\n## What Was Rejected\n- a retry loop\n## Tags\nx\n";
        let parts = of(body, &["what happened", "What Was Rejected"]);
        assert_eq!(parts.len(), 2);
        assert!(parts[0].1.contains("## Not a heading"));
        assert_eq!(parts[1].1.trim(), "- a retry loop");
        let session = "## Conversation\n\n**User**: first ask\n\n**Assistant**: ok\n\n**User**: second\nmore\n```\n**User**: code\n```\n## Tools Used\n- Bash: x\n";
        let turns = user_turns(session);
        assert_eq!(turns.len(), 2);
        assert_eq!(turns[0], (3, "first ask".to_string()));
        assert!(turns[1].1.starts_with("second\nmore"));
        assert!(turns[1].1.contains("**User**: code"));
        assert!(!turns[1].1.contains("Bash"));
    }
}
