//! Cutting a session body to the prompt budget.
//!
//! Seed 004 truncates the session text to 8,000 characters before sending it ("enough to capture the
//! essential decisions without hitting rate limits on long sessions"). Keeping only the head loses the
//! end of long sessions, where outcomes and decisions are; so the cut keeps lines by priority instead:
//!
//! 1. headings, user turns (each turn's first [`USER_TURN_KEEP`] characters) and lines that state a
//!    decision or rejection;
//! 2. `## Tools Used` lines;
//! 3. the opening of each assistant turn;
//! 4. everything else (the rest of assistant turns, reasoning, subagents), in order.
//!
//! Within a tier lines are taken from both ends inwards while they fit (so a tier that does not fit
//! loses its middle, not the session's outcome); the kept lines are emitted in
//! document order, each run of dropped lines replaced by one `[… N lines cut …]` marker, and the cut is
//! recorded in a [`Cut`].

use serde::{Deserialize, Serialize};

/// Seed 004: "The session text is truncated to 8,000 characters before being sent to the LLM".
pub const DEFAULT_BUDGET: usize = 8_000;

/// A user turn longer than this keeps only its head in tier 1 (pasted logs are not the intent); our
/// choice, a fifth of the default budget.
pub const USER_TURN_KEEP: usize = 1_600;

/// A single line longer than this is clipped (a pasted blob must not eat the budget); our choice.
const LINE_MAX: usize = 600;

/// Words that mark a decision or a rejection (tier 1).
const DECISION_WORDS: [&str; 14] = [
    "decid",
    "decision",
    "chose",
    "choose",
    "instead",
    "rejected",
    "reject",
    "won't",
    "will not",
    "settled on",
    "went with",
    "going with",
    "prefer",
    "trade-off",
];

/// What the cut removed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cut {
    /// Characters of the session body before the cut.
    pub chars_before: usize,
    /// Characters after it (markers included).
    pub chars_after: usize,
    /// Lines of the body before the cut.
    pub lines_before: usize,
    /// Lines dropped.
    pub lines_dropped: usize,
}

/// `body` within `budget` characters, and the [`Cut`] if anything was removed.
pub fn cut(body: &str, budget: usize) -> (String, Option<Cut>) {
    let chars_before = body.chars().count();
    if chars_before <= budget {
        return (body.to_string(), None);
    }
    let lines: Vec<&str> = body.lines().collect();
    let tiers = classify(&lines);
    let clipped: Vec<String> = lines.iter().map(|l| clip(l, LINE_MAX)).collect();
    let cost = |i: usize| clipped[i].chars().count() + 1;
    let mut keep = vec![false; lines.len()];
    let mut chosen = Vec::new();
    let mut used = 0usize;
    for tier in 1..=4u8 {
        let in_tier: Vec<usize> = (0..lines.len()).filter(|&i| tiers[i] == tier).collect();
        for i in outside_in(&in_tier) {
            if used + cost(i) <= budget {
                keep[i] = true;
                chosen.push(i);
                used += cost(i);
            }
        }
    }
    // The markers cost too: give back the last-chosen lines until the rendering fits.
    let (mut out, mut lines_dropped) = render(&lines, &clipped, &keep);
    while out.chars().count() > budget {
        let Some(i) = chosen.pop() else { break };
        keep[i] = false;
        (out, lines_dropped) = render(&lines, &clipped, &keep);
    }
    if out.chars().count() > budget {
        out = out.chars().take(budget).collect();
    }
    let cut = Cut {
        chars_before,
        chars_after: out.chars().count(),
        lines_before: lines.len(),
        lines_dropped,
    };
    (out, Some(cut))
}

/// `v` reordered first, last, second, second-to-last, …: a tier that does not fit keeps both the start
/// and the end of the session (the outcome) and loses its middle.
fn outside_in(v: &[usize]) -> Vec<usize> {
    let (mut lo, mut hi) = (0usize, v.len());
    let mut out = Vec::with_capacity(v.len());
    while lo < hi {
        out.push(v[lo]);
        lo += 1;
        if lo < hi {
            hi -= 1;
            out.push(v[hi]);
        }
    }
    out
}

/// The kept lines in order, each run of dropped non-blank lines as one marker; and how many were dropped.
fn render(lines: &[&str], clipped: &[String], keep: &[bool]) -> (String, usize) {
    let mut out = String::new();
    let mut dropped_run = 0usize;
    let mut lines_dropped = 0usize;
    for (i, line) in clipped.iter().enumerate() {
        if keep[i] {
            flush_marker(&mut out, &mut dropped_run);
            out.push_str(line);
            out.push('\n');
        } else if !lines[i].trim().is_empty() {
            dropped_run += 1;
            lines_dropped += 1;
        }
    }
    flush_marker(&mut out, &mut dropped_run);
    (out, lines_dropped)
}

fn flush_marker(out: &mut String, run: &mut usize) {
    if *run > 0 {
        let s = if *run == 1 { "" } else { "s" };
        out.push_str(&format!("[… {run} line{s} cut …]\n"));
        *run = 0;
    }
}

fn clip(line: &str, max: usize) -> String {
    if line.chars().count() <= max {
        return line.to_string();
    }
    let mut s: String = line.chars().take(max).collect();
    s.push('…');
    s
}

#[derive(Clone, Copy, PartialEq)]
enum Speaker {
    None,
    User,
    Assistant,
}

/// The tier of every line (1 = kept first).
fn classify(lines: &[&str]) -> Vec<u8> {
    let mut tiers = Vec::with_capacity(lines.len());
    let mut section = "";
    let mut speaker = Speaker::None;
    let mut turn_chars = 0usize;
    for line in lines {
        let t = line.trim_start();
        if t.is_empty() {
            // Blank lines only separate; they are kept last.
            tiers.push(4);
            continue;
        }
        if let Some(h) = t.strip_prefix("## ") {
            section = h.trim();
            speaker = Speaker::None;
            tiers.push(1);
            continue;
        }
        if t.starts_with('#') {
            tiers.push(1);
            continue;
        }
        if t.starts_with("**User**") {
            speaker = Speaker::User;
            turn_chars = 0;
        } else if t.starts_with("**Assistant**") {
            speaker = Speaker::Assistant;
            turn_chars = 0;
        }
        turn_chars += line.chars().count();
        let lower = t.to_lowercase();
        let user_head =
            section == "Conversation" && speaker == Speaker::User && turn_chars <= USER_TURN_KEEP;
        let tier = if user_head || DECISION_WORDS.iter().any(|w| lower.contains(w)) {
            1
        } else if section == "Tools Used" {
            2
        } else if section == "Conversation"
            && speaker == Speaker::Assistant
            && turn_chars <= LINE_MAX
        {
            3
        } else {
            4
        };
        tiers.push(tier);
    }
    tiers
}

#[cfg(test)]
mod tests {
    use super::*;

    fn long_session() -> String {
        let mut s = String::from("## Conversation\n\n");
        for i in 0..60 {
            s.push_str(&format!("**User**: question {i} about the parser\n\n"));
            s.push_str(&format!("**Assistant**: {}\n\n", "filler text ".repeat(40)));
            if i == 50 {
                s.push_str(
                    "We decided to keep the lexer hand-written instead of using a generator.\n\n",
                );
            }
        }
        s.push_str("## Tools Used\n\n- Bash: cargo test -p parser\n- Read: src/lexer.rs\n\n## Reasoning\n\n");
        s.push_str(&"> thinking out loud\n".repeat(300));
        s
    }

    #[test]
    fn a_short_body_is_untouched() {
        let (out, cut) = cut("## Conversation\n\n**User**: hi\n", 100);
        assert_eq!(out, "## Conversation\n\n**User**: hi\n");
        assert_eq!(cut, None);
    }

    #[test]
    fn the_cut_keeps_user_turns_decisions_and_tools_from_the_whole_session() {
        let body = long_session();
        let (out, cut) = cut(&body, DEFAULT_BUDGET);
        let cut = cut.expect("cut recorded");
        assert!(out.chars().count() <= DEFAULT_BUDGET);
        assert_eq!(cut.chars_after, out.chars().count());
        assert!(cut.lines_dropped > 0 && cut.chars_before == body.chars().count());
        for i in [0, 30, 59] {
            assert!(
                out.contains(&format!("**User**: question {i} about")),
                "user turn {i} kept"
            );
        }
        assert!(out.contains("decided to keep the lexer hand-written"));
        assert!(out.contains("- Bash: cargo test -p parser"));
        assert!(out.contains("## Reasoning"));
        assert!(out.contains(" cut …]"));
    }

    #[test]
    fn a_tiny_budget_is_never_exceeded() {
        let (out, _) = cut(&long_session(), 50);
        assert!(out.chars().count() <= 50);
    }
}
