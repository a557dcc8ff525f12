//! Parts of a record's body a briefing shows: named `##` sections of a distilled artifact, the
//! user turns of a session. Read through [`brain_doc::blocks`], so a heading or a turn marker
//! inside a code block is code.

use brain_doc::blocks::{self, Class, Lines};

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

#[cfg(test)]
mod tests {
    use super::*;

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
