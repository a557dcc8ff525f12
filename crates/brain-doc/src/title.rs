//! What a document is called where it is shown (issue 53). A session's title is its first real
//! request (`jsonl2md`), and housekeeping is never one: a placeholder (`[image]`,
//! `[REDACTED_PROMPT]`, `[Request interrupted by user]`), a slash command (`/clear`, `/help hi`),
//! a `!` shell line, an IDE wrapper (`<ide_opened_file>…`), a "Caveat:" notice. A document titled
//! by such noise anyway (written before this rule, or by another tool) is shown by the first real
//! line of its conversation instead ([`shown`]).

use crate::blocks::turns;

/// Longest title shown, in characters.
pub const MAX_CHARS: usize = 100;

/// Whether `line` is a placeholder an agent left for something not text: `[image]`,
/// `[Image #2]`, `[REDACTED_PROMPT]`, `[Request interrupted by user]`.
pub fn is_placeholder(line: &str) -> bool {
    let l = line.trim();
    (l.starts_with('[') && l.ends_with(']'))
        || l.starts_with("[Request interrupted")
        || l.starts_with("[Image #")
}

/// Whether `line` is housekeeping rather than something a person asked or said.
pub fn is_housekeeping(line: &str) -> bool {
    let l = line.trim();
    // A slash command is one word after its slash (`/clear`, `/help hi`); a path is not one.
    let first = l.split_whitespace().next().unwrap_or("");
    let slash_command =
        first.len() > 1 && first.starts_with('/') && !first[1..].contains(['/', '\\']);
    l.is_empty()
        || slash_command
        || l.starts_with("! ")
        || l.starts_with("Caveat:")
        || l.starts_with('<')
        || is_placeholder(l)
}

/// Whether `title` names nothing a person would recognize: housekeeping, no letter or digit, or
/// the bare "Session <id>" a session with no request is titled by.
pub fn is_noise(title: &str) -> bool {
    let t = title.trim().trim_matches(['\'', '"']);
    let bare_id = t.strip_prefix("Session ").is_some_and(|id| {
        !id.is_empty()
            && !id.contains(' ')
            && id
                .chars()
                .any(|c| c.is_ascii_digit() || c == '-' || c == '_')
    });
    is_housekeeping(t) || bare_id || t.chars().all(|c| !c.is_alphanumeric())
}

/// The title to show for a document titled `title` with body `body`: the title, unless it is
/// noise; then the first real line of its conversation (what the user asked, else what was
/// answered), cut to [`MAX_CHARS`]; the title as it is when nothing better is there.
pub fn shown(title: &str, body: &str) -> String {
    if !is_noise(title) {
        return title.to_string();
    }
    let all = turns(body);
    let real = |speaker: &str| {
        all.iter()
            .filter(|t| t.speaker == speaker)
            .flat_map(|t| t.lines.iter())
            .filter(|(_, _, c)| *c == crate::blocks::Class::Text)
            .map(|(_, l, _)| l.trim())
            .find(|l| !is_housekeeping(l) && l.chars().any(char::is_alphanumeric))
    };
    match real("User").or_else(|| real("Assistant")) {
        Some(line) => {
            let cut: String = line.chars().take(MAX_CHARS).collect();
            if cut.len() < line.len() {
                format!("{}…", cut.trim_end())
            } else {
                cut
            }
        }
        None => title.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_are_bracketed_stand_ins_not_links_or_tasks() {
        for p in [
            "[image]",
            " [Image #2] ",
            "[REDACTED_PROMPT]",
            "[Request interrupted by user]",
        ] {
            assert!(is_placeholder(p), "{p}");
        }
        for t in [
            "[docs](https://x.example)",
            "- [x] done",
            "see [image] below",
            "image",
        ] {
            assert!(!is_placeholder(t), "{t}");
        }
    }

    #[test]
    fn noise_titles_are_named_by_their_first_real_line() {
        let body = "## Conversation\n\n**User**: [image]\n\n**User**: /clear\nwhy does the parser fail on empty input?\n\n**Assistant**: It returns early.\n";
        for noise in [
            "[image]",
            "'[image]'",
            "/help hi",
            "! uv run pytest",
            "",
            "[REDACTED_PROMPT]",
            "<ide_opened_file>x</ide_opened_file>",
            "…",
        ] {
            assert!(is_noise(noise), "{noise}");
            assert_eq!(
                shown(noise, body),
                "why does the parser fail on empty input?",
                "{noise}"
            );
        }
        assert_eq!(shown("Parser fix", body), "Parser fix");
        assert!(is_noise("Session 7acd37a8-2745-4b58-a8a9-46164b22ad9e"));
        assert!(!is_noise("Session planning for the release"));
        assert!(!is_noise("/usr/bin is on PATH"));
        assert_eq!(
            shown("[image]", "## Conversation\n\n**User**: [image]\n"),
            "[image]"
        );
        let long = format!("## Conversation\n\n**User**: {}\n", "word ".repeat(100));
        assert!(shown("[image]", &long).chars().count() <= MAX_CHARS + 1);
    }
}
