//! What a shell command is about, for memory: its program and first word (`cargo test -p api` →
//! `cargo test`). The one rule the extraction's failed-command records and the pre-tool hook's
//! lookup share, so a record made from a failed `cargo test` is found before the next one.

/// Programs too common to say anything about an attempt (`cd`, `ls`, …).
const TRIVIAL: [&str; 16] = [
    "cd", "ls", "cat", "echo", "pwd", "head", "tail", "grep", "rg", "find", "wc", "true", "sleep",
    "which", "env", "printf",
];

/// The program (its file name) and its first word that is not a flag, of the first simple command
/// of `command` (before a pipe, `;`, `&&` or a newline; leading `VAR=value` assignments skipped);
/// `None` for an empty or trivial command.
pub fn subject(command: &str) -> Option<String> {
    let first = command.split(['|', ';', '&', '\n']).next().unwrap_or("");
    let words: Vec<&str> = first
        .split_whitespace()
        .skip_while(|w| w.contains('=') && !w.starts_with('-'))
        .collect();
    let program = words.first()?.rsplit('/').next()?.trim_matches(['"', '\'']);
    if program.is_empty() || TRIVIAL.contains(&program) {
        return None;
    }
    let sub = words
        .iter()
        .skip(1)
        .find(|w| !w.starts_with('-'))
        .filter(|w| w.chars().all(|c| c.is_alphanumeric() || "-_.".contains(c)));
    Some(match sub {
        Some(s) => format!("{program} {s}"),
        None => program.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::subject;

    #[test]
    fn program_and_first_word() {
        assert_eq!(
            subject("RUST_LOG=debug cargo test -p api").as_deref(),
            Some("cargo test")
        );
        assert_eq!(
            subject("/usr/bin/npm install x && ls").as_deref(),
            Some("npm install")
        );
        assert_eq!(subject("cd src; make"), None);
        assert_eq!(subject("   "), None);
        assert_eq!(subject("make").as_deref(), Some("make"));
        assert_eq!(
            subject("git commit -m \"x\"").as_deref(),
            Some("git commit")
        );
    }
}
