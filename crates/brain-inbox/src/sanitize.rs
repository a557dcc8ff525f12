//! Making user text safe to store inside a day file: nothing in an entry's text, tags or project can
//! add a frontmatter block, a `---` line, an entry header, or swallow the entries after it.
//!
//! * [`clean_text`] — newlines normalized (`\r\n`, `\r`, U+2028/2029 → `\n`); NUL and other control
//!   characters (C0 but tab and newline, DEL, C1), zero-width and bidi-override characters removed;
//!   trailing spaces of each line and blank lines at both ends dropped.
//! * [`escape`] — a line that markdown (or a naive `grep '^## '`) would read as structure gets a
//!   backslash before its first character: ATX headings of level 1–2 (`#`, `##`: the day heading and
//!   entry headers), lines made only of `-`/`=` (frontmatter fences, setext underlines), lines
//!   starting with `<` (HTML blocks, which can run past the entry), and lines that already start with
//!   such an escape (so [`unescape`] inverts it exactly). Up to three leading spaces count, as in
//!   CommonMark. A code fence left open is closed at the end of the text, so it cannot swallow the
//!   next entry's header.
//! * [`clean_tag`], [`clean_project`] — one-line values for the entry header.

use brain_doc::blocks::{fence_closes, fence_open};

/// Most tags kept per entry.
pub const MAX_TAGS: usize = 20;
/// Longest tag, in characters.
pub const MAX_TAG_CHARS: usize = 40;
/// Longest project, in characters.
pub const MAX_PROJECT_CHARS: usize = 120;

/// Characters removed from text: controls (except tab and newline), zero-width characters, bidi
/// overrides and isolates (Trojan Source, CVE-2021-42574), and the byte-order mark.
fn is_dropped(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t')
        || matches!(c, '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{FEFF}')
}

/// Normalize newlines, drop control and invisible characters, trim line ends and blank edge lines.
pub fn clean_text(raw: &str) -> String {
    let unified = raw
        .replace("\r\n", "\n")
        .replace(['\r', '\u{2028}', '\u{2029}'], "\n");
    let filtered: String = unified.chars().filter(|c| !is_dropped(*c)).collect();
    let lines: Vec<&str> = filtered.lines().map(str::trim_end).collect();
    let start = lines
        .iter()
        .position(|l| !l.is_empty())
        .unwrap_or(lines.len());
    let end = lines
        .iter()
        .rposition(|l| !l.is_empty())
        .map_or(start, |i| i + 1);
    lines[start..end].join("\n")
}

/// The line without up to three leading spaces, or `None` when it is indented further (code).
fn unindented(line: &str) -> Option<(usize, &str)> {
    let rest = line.trim_start_matches(' ');
    let indent = line.len() - rest.len();
    (indent <= 3).then_some((indent, rest))
}

/// Whether `rest` (a line without its indentation) is structure a stored entry must not carry.
fn is_structural(rest: &str) -> bool {
    let hashes = rest.bytes().take_while(|&b| b == b'#').count();
    let after = &rest[hashes..];
    let heading = (1..=2).contains(&hashes) && (after.is_empty() || after.starts_with([' ', '\t']));
    let rule = !rest.is_empty() && rest.trim_end().chars().all(|c| c == '-' || c == '=');
    heading || rule || rest.starts_with('<') || rest.strip_prefix('\\').is_some_and(is_structural)
}

/// Escape structural lines and close a code fence left open (see the module docs).
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    let mut open: Option<(char, usize)> = None;
    for line in text.split('\n') {
        match unindented(line) {
            Some((indent, rest)) if is_structural(rest) => {
                out.push_str(&line[..indent]);
                out.push('\\');
                out.push_str(rest);
            }
            Some(_) => {
                // Fences by the one block reader's rules (brain_doc::blocks, CommonMark).
                open = match open {
                    None => fence_open(line).map(|(c, n, _)| (c, n)),
                    Some((c, n)) if fence_closes(line, c, n) => None,
                    still => still,
                };
                out.push_str(line);
            }
            None => out.push_str(line),
        }
        out.push('\n');
    }
    out.pop();
    if let Some((c, n)) = open {
        out.push('\n');
        out.extend(std::iter::repeat_n(c, n));
    }
    out
}

/// Remove the backslash [`escape`] put before structural lines (the closing fence it may have added
/// stays).
pub fn unescape(stored: &str) -> String {
    stored
        .split('\n')
        .map(|line| match unindented(line) {
            Some((indent, rest)) if rest.strip_prefix('\\').is_some_and(is_structural) => {
                format!("{}{}", &line[..indent], &rest[1..])
            }
            _ => line.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// A tag as stored: lower-case, no leading `#`, letters, digits and `-_./` only (anything else
/// becomes `-`), at most [`MAX_TAG_CHARS`]; `None` when nothing is left.
pub fn clean_tag(raw: &str) -> Option<String> {
    let mut out = String::new();
    for c in raw
        .trim()
        .trim_start_matches('#')
        .chars()
        .flat_map(char::to_lowercase)
    {
        let c = if c.is_alphanumeric() || matches!(c, '_' | '.' | '/') {
            c
        } else {
            '-'
        };
        if !(c == '-' && (out.is_empty() || out.ends_with('-'))) {
            out.push(c);
        }
    }
    let out: String = out
        .trim_matches(['-', '.', '/'])
        .chars()
        .take(MAX_TAG_CHARS)
        .collect();
    let out = out.trim_end_matches(['-', '.', '/']).to_string();
    (!out.is_empty()).then_some(out)
}

/// Tags from raw values, each possibly a comma-separated list: cleaned, deduplicated in order, at most
/// [`MAX_TAGS`].
pub fn clean_tags<S: AsRef<str>>(raw: &[S]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for t in raw.iter().flat_map(|r| {
        r.as_ref()
            .split(',')
            .map(str::to_string)
            .collect::<Vec<_>>()
    }) {
        if let Some(t) = clean_tag(&t)
            && !out.contains(&t)
            && out.len() < MAX_TAGS
        {
            out.push(t);
        }
    }
    out
}

/// A project as stored: one line (newlines and controls become spaces, runs of spaces one), the
/// header separator `·` replaced by `-`, at most [`MAX_PROJECT_CHARS`]; `None` when empty.
pub fn clean_project(raw: &str) -> Option<String> {
    let spaced: String = raw
        .chars()
        .map(|c| {
            if c.is_control() || c.is_whitespace() || is_dropped(c) {
                ' '
            } else if c == '·' {
                '-'
            } else {
                c
            }
        })
        .collect();
    let one: String = spaced.split_whitespace().collect::<Vec<_>>().join(" ");
    let out: String = one.chars().take(MAX_PROJECT_CHARS).collect();
    let out = out.trim().to_string();
    (!out.is_empty()).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn controls_and_invisible_characters_go_newlines_are_unified() {
        assert_eq!(
            clean_text("\n\n a\u{0}b\r\nc\u{202E}d\u{7}\re  \u{2028}f\u{FEFF}\n\n"),
            " ab\ncd\ne\nf"
        );
        assert_eq!(clean_text(" \n\t\n"), "");
    }

    #[test]
    fn structural_lines_are_escaped_and_plain_ones_kept() {
        let text = "# h1\n## h2\n### h3 stays\n---\n===\n   ## indented\n    ## code\n<!-- x\n\\## was\n#hashtag\nx --- y";
        assert_eq!(
            escape(text),
            "\\# h1\n\\## h2\n### h3 stays\n\\---\n\\===\n   \\## indented\n    ## code\n\\<!-- x\n\\\\## was\n#hashtag\nx --- y"
        );
    }

    #[test]
    fn an_open_fence_is_closed_and_a_closed_one_left_alone() {
        assert_eq!(escape("```rust\nfn x() {}"), "```rust\nfn x() {}\n```");
        assert_eq!(escape("~~~~\na\n~~~\nb"), "~~~~\na\n~~~\nb\n~~~~");
        assert_eq!(escape("```\na\n```"), "```\na\n```");
    }

    #[test]
    fn tags_and_projects_are_one_line_values() {
        assert_eq!(
            clean_tags(&["Rust, #Locks", "a\nb: c", "rust", " , "]),
            ["rust", "locks", "a-b-c"]
        );
        assert_eq!(clean_tag("---"), None);
        assert_eq!(
            clean_project(" ~/Projects/x\n---\ntitle: evil · tags: y "),
            Some("~/Projects/x --- title: evil - tags: y".into())
        );
        assert_eq!(clean_project("\n\t"), None);
        assert_eq!(
            clean_tags(&(0..50).map(|i| format!("t{i}")).collect::<Vec<_>>()).len(),
            MAX_TAGS
        );
    }

    proptest! {
        #[test]
        fn escape_is_inverted_by_unescape_and_leaves_no_structure(lines in proptest::collection::vec(
            prop_oneof!["[#=<\\\\ -]{0,6}[a-z ]{0,6}", "[a-z ]{0,12}", Just("---".to_string()), Just("## x".to_string())], 0..12)) {
            let text = clean_text(&lines.join("\n"));
            let stored = escape(&text);
            for line in stored.lines() {
                if let Some((_, rest)) = unindented(line) {
                    prop_assert!(!is_structural(rest) || rest.starts_with('\\'), "{line:?}");
                    prop_assert!(!rest.starts_with("## ") && !rest.starts_with("# ") && rest != "---");
                }
            }
            let back = unescape(&stored);
            prop_assert!(back == text || back.starts_with(&format!("{text}\n")), "{back:?} vs {text:?}");
        }
    }
}
