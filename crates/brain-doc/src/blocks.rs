//! The one markdown block reader: which lines of a body open or close a code fence, sit inside one,
//! are ATX headings, session turn markers or blank. The lexical passage splitter, the embedding
//! chunker, the inbox guards and distillation's validator all read a body through [`Lines`], so they
//! agree on where a code block starts and ends and never cut one differently.
//!
//! The rules are CommonMark's (0.31, §4.2 ATX headings, §4.5 fenced code blocks):
//!
//! * a fence opens with at least three backticks or tildes after at most three spaces of
//!   indentation; a backtick fence's info string may not contain a backtick;
//! * it closes only with the *same* character, at least as many of it, after at most three spaces,
//!   and nothing but spaces or tabs after — so a `~~~` line inside a ```` ``` ```` block, or a
//!   shorter run, is code;
//! * a fence left open runs to the end of the body;
//! * an ATX heading is one to six `#` after at most three spaces, then a space, a tab or the end of
//!   the line; its text drops a closing run of `#`.
//!
//! Turn markers are ours: `**User**:`, `**Assistant**:`, `**Tool**:` as `jsonl2md` renders turns.
//!
//! A line classifier rather than a full CommonMark parser (pulldown-cmark) because every consumer
//! needs exactly these line-level facts, on the indexing hot path, with the line numbers kept; the
//! tests check it against CommonMark's own examples for fences and headings.

/// What a line of a markdown body is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class<'a> {
    /// Opens a code fence (its marker character, the run's length, and the info string).
    FenceOpen {
        marker: char,
        len: usize,
        info: &'a str,
    },
    /// Closes the open fence.
    FenceClose,
    /// A line inside a fence (code).
    Code,
    /// An ATX heading outside a fence: its level and text.
    Heading { level: usize, text: &'a str },
    /// Empty or only white space (outside a fence).
    Blank,
    /// Anything else outside a fence.
    Text,
}

impl Class<'_> {
    /// Part of a code block: its fences or what is between them.
    pub fn is_code(&self) -> bool {
        matches!(
            self,
            Class::FenceOpen { .. } | Class::FenceClose | Class::Code
        )
    }
}

/// A fence opener on `line` (without its line ending): (marker, run length, info string).
pub fn fence_open(line: &str) -> Option<(char, usize, &str)> {
    let rest = unindented(line)?;
    let marker = rest.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let len = rest.bytes().take_while(|b| *b == marker as u8).count();
    if len < 3 {
        return None;
    }
    let info = &rest[len..];
    if marker == '`' && info.contains('`') {
        return None;
    }
    Some((marker, len, info.trim()))
}

/// A backtick fence that no line of `text` can close: one backtick longer than its longest run of
/// backticks, at least three.
pub fn fence_for(text: &str) -> String {
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    "`".repeat((longest + 1).max(3))
}

/// Whether `line` closes a fence opened by `len` of `marker`.
pub fn fence_closes(line: &str, marker: char, len: usize) -> bool {
    let Some(rest) = unindented(line) else {
        return false;
    };
    let run = rest.bytes().take_while(|b| *b == marker as u8).count();
    run >= len && rest[run..].trim_matches([' ', '\t']).is_empty()
}

/// The level and text of an ATX heading on `line` (without its line ending).
pub fn heading(line: &str) -> Option<(usize, &str)> {
    let rest = unindented(line)?;
    let level = rest.bytes().take_while(|&b| b == b'#').count();
    if !(1..=6).contains(&level) {
        return None;
    }
    let after = &rest[level..];
    if !(after.is_empty() || after.starts_with([' ', '\t'])) {
        return None;
    }
    let text = after.trim_matches([' ', '\t']);
    // A closing sequence is a run of `#` preceded by a space (or the whole text).
    let stripped = text.trim_end_matches('#');
    let text = if stripped.is_empty() {
        stripped
    } else if stripped.ends_with([' ', '\t']) {
        stripped.trim_end_matches([' ', '\t'])
    } else {
        text
    };
    Some((level, text))
}

/// A session turn marker as `jsonl2md` renders it: `**Name**:` at the start of the line, the name one
/// word of at most 24 bytes.
pub fn is_turn(line: &str) -> bool {
    let Some(rest) = line.strip_prefix("**") else {
        return false;
    };
    let Some(end) = rest.find("**") else {
        return false;
    };
    let name = &rest[..end];
    !name.is_empty() && name.len() <= 24 && !name.contains(' ') && rest[end + 2..].starts_with(':')
}

/// The line after at most three spaces of indentation (CommonMark's block indent), or `None` when it
/// is indented four or more (an indented code line, never a fence or heading).
fn unindented(line: &str) -> Option<&str> {
    let spaces = line.bytes().take_while(|b| *b == b' ').count();
    (spaces <= 3).then(|| &line[spaces..])
}

/// The lines of a body with their [`Class`]: `(line without its ending, class)`. Iterate
/// `body.split_inclusive('\n')` in step with it where the raw line is needed.
pub struct Lines<'a> {
    rest: std::str::SplitInclusive<'a, char>,
    open: Option<(char, usize)>,
}

impl<'a> Lines<'a> {
    /// Read `body` line by line.
    pub fn new(body: &'a str) -> Self {
        Lines {
            rest: body.split_inclusive('\n'),
            open: None,
        }
    }

    /// Whether a fence is open after the lines read so far.
    pub fn in_fence(&self) -> bool {
        self.open.is_some()
    }

    /// The class of the next line `line` (without its ending) given the fence state, advancing it.
    pub fn classify(&mut self, line: &'a str) -> Class<'a> {
        if let Some((marker, len)) = self.open {
            if fence_closes(line, marker, len) {
                self.open = None;
                return Class::FenceClose;
            }
            return Class::Code;
        }
        if let Some((marker, len, info)) = fence_open(line) {
            self.open = Some((marker, len));
            return Class::FenceOpen { marker, len, info };
        }
        if let Some((level, text)) = heading(line) {
            return Class::Heading { level, text };
        }
        if line.trim().is_empty() {
            return Class::Blank;
        }
        Class::Text
    }
}

impl<'a> Iterator for Lines<'a> {
    /// (the raw line with its ending, the line without it, its class)
    type Item = (&'a str, &'a str, Class<'a>);

    fn next(&mut self) -> Option<Self::Item> {
        let raw = self.rest.next()?;
        let line = raw.trim_end_matches(['\n', '\r']);
        Some((raw, line, self.classify(line)))
    }
}

/// The sections of a session body as `jsonl2md` writes them, in order. Inside the conversation a
/// level-2 heading of another name is a turn's own (an answer's `## Summary`), not a section.
pub const SESSION_SECTIONS: [&str; 4] = ["Conversation", "Tools Used", "Reasoning", "Subagents"];

/// Who speaks a conversation's turns (`**User**: …`); another bold word and colon inside a turn
/// (`**Bottom line**: …`, `**Important**:`) is part of it.
pub const SPEAKERS: [&str; 3] = ["User", "Assistant", "Note"];

/// One turn of a session's conversation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Turn<'a> {
    /// One of [`SPEAKERS`].
    pub speaker: &'a str,
    /// The 1-based line of the text read where the turn's marker stands.
    pub line: usize,
    /// The turn's lines: their 1-based line number, the line (the marker taken off the first) and
    /// its class (code stays code: a marker inside a fence opens no turn).
    pub lines: Vec<(usize, &'a str, Class<'a>)>,
}

impl Turn<'_> {
    /// The turn's text: its lines joined, trimmed.
    pub fn text(&self) -> String {
        let lines: Vec<&str> = self.lines.iter().map(|(_, l, _)| *l).collect();
        lines.join("\n").trim().to_string()
    }
}

/// The turns of the `## Conversation` section of `text` (a session's body or its whole file:
/// line numbers count from the text's first line).
pub fn turns(text: &str) -> Vec<Turn<'_>> {
    let mut out: Vec<Turn<'_>> = Vec::new();
    let mut open = false;
    for (n, (_, line, class)) in Lines::new(text).enumerate() {
        let n = n + 1;
        if let Class::Heading { level: 2, text: h } = class {
            let h = h.trim();
            if h == SESSION_SECTIONS[0] {
                open = true;
                continue;
            }
            if SESSION_SECTIONS.contains(&h) {
                open = false;
                continue;
            }
        }
        if !open {
            continue;
        }
        if class == Class::Text
            && let Some((speaker, rest)) = SPEAKERS.iter().find_map(|s| {
                line.strip_prefix("**")?
                    .strip_prefix(s)?
                    .strip_prefix("**:")
                    .map(|r| (*s, r))
            })
        {
            out.push(Turn {
                speaker,
                line: n,
                lines: vec![(n, rest.trim_start(), Class::Text)],
            });
            continue;
        }
        if let Some(t) = out.last_mut() {
            t.lines.push((n, line, class));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn turns_of_a_conversation() {
        let text = "---\ntitle: x\n---\n## Conversation\n\n**User**: use vite\nplease\n\n**Assistant**: ok\n## Summary\n**Bottom line**: done\n```\n**User**: in code\n```\n\n**User**: next\n\n## Tools Used\n\n**User**: not a turn\n";
        let t = turns(text);
        let who: Vec<(&str, usize)> = t.iter().map(|t| (t.speaker, t.line)).collect();
        assert_eq!(who, [("User", 6), ("Assistant", 9), ("User", 16)]);
        assert_eq!(t[0].text(), "use vite\nplease");
        assert!(t[1].text().contains("**Bottom line**: done"));
        assert!(t[1].text().contains("**User**: in code"));
        assert_eq!(t[2].text(), "next");
        assert!(turns("no conversation\n**User**: x\n").is_empty());
    }

    use super::*;

    fn classes(body: &str) -> Vec<Class<'_>> {
        Lines::new(body).map(|(_, _, c)| c).collect()
    }

    /// The disagreement this module ended: a ```` ```sh ```` block holding a `~~~` line and a
    /// `# comment` is one code block, not a heading in the middle of a fence.
    #[test]
    fn a_tilde_line_and_a_comment_inside_a_backtick_fence_are_code() {
        let body = "```sh\n~~~\n# comment\necho hi\n```\n# Real heading\n";
        assert_eq!(
            classes(body),
            [
                Class::FenceOpen {
                    marker: '`',
                    len: 3,
                    info: "sh"
                },
                Class::Code,
                Class::Code,
                Class::Code,
                Class::FenceClose,
                Class::Heading {
                    level: 1,
                    text: "Real heading"
                },
            ]
        );
    }

    // CommonMark 0.31 examples 119–147 (fenced code blocks), the ones that decide a boundary.
    #[test]
    fn commonmark_fence_rules() {
        // Ex. 122: a closing fence must use the same character.
        assert!(classes("```\naaa\n~~~\n```\n")[2] == Class::Code);
        // Ex. 124: and be at least as long as the opening one.
        assert!(classes("````\naaa\n```\n``````\n")[2] == Class::Code);
        assert_eq!(classes("````\naaa\n```\n``````\n")[3], Class::FenceClose);
        // Ex. 126: an unclosed fence runs to the end.
        assert!(
            classes("```\n\n# not a heading\n")
                .iter()
                .skip(1)
                .all(Class::is_code)
        );
        // Ex. 133: four spaces of indentation is not a fence.
        assert_eq!(classes("    ```\n")[0], Class::Text);
        // Ex. 136: a closing fence may be indented up to three spaces.
        assert_eq!(classes("```\naaa\n   ```\n")[2], Class::FenceClose);
        // Ex. 140: a closing fence takes no info string.
        assert_eq!(classes("```\naaa\n``` aaa\n")[2], Class::Code);
        // Ex. 145: a backtick info string may not contain backticks.
        assert_eq!(classes("``` aa ```\nfoo\n")[0], Class::Text);
        // Ex. 146: a tilde info string may.
        assert!(matches!(
            classes("~~~ aa ``` ~~~\nfoo\n~~~\n")[0],
            Class::FenceOpen { marker: '~', .. }
        ));
        // Two backticks are not a fence.
        assert_eq!(classes("``\nfoo\n``\n")[0], Class::Text);
    }

    // CommonMark 0.31 examples 62–79 (ATX headings).
    #[test]
    fn commonmark_heading_rules() {
        assert_eq!(heading("# foo"), Some((1, "foo")));
        assert_eq!(heading("###### foo"), Some((6, "foo")));
        assert_eq!(heading("####### foo"), None); // ex. 63
        assert_eq!(heading("#5 bolt"), None); // ex. 64
        assert_eq!(heading("#hashtag"), None);
        assert_eq!(heading("   ### foo"), Some((3, "foo"))); // ex. 68
        assert_eq!(heading("    # foo"), None); // ex. 69
        assert_eq!(heading("## foo ##"), Some((2, "foo"))); // ex. 71
        assert_eq!(heading("### foo ###     "), Some((3, "foo"))); // ex. 73
        assert_eq!(heading("### foo #5"), Some((3, "foo #5"))); // ex. 75
        assert_eq!(heading("# foo#"), Some((1, "foo#"))); // ex. 76
        assert_eq!(heading("#"), Some((1, ""))); // ex. 79
        assert_eq!(heading("### ###"), Some((3, "")));
    }

    #[test]
    fn turn_markers() {
        assert!(is_turn("**User**: hi"));
        assert!(is_turn("**Assistant**:"));
        assert!(!is_turn("**Not a turn** here"));
        assert!(!is_turn("**Two words**: x"));
    }

    #[test]
    fn raw_lines_keep_their_endings() {
        let got: Vec<_> = Lines::new("a\r\n\nb")
            .map(|(raw, line, _)| (raw, line))
            .collect();
        assert_eq!(got, [("a\r\n", "a"), ("\n", ""), ("b", "b")]);
    }
}
