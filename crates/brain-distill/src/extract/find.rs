//! The extraction that needs no model: a distilled artifact's "Key Decisions" and "What Was
//! Rejected" bullets become decision and rejected records, and a session's failed shell commands
//! (the `**Note**: Tool error (Bash: …)` lines `jsonl2md` writes) become failed records. Read
//! through [`brain_doc::blocks`]: a bullet inside a code block is code.

use brain_doc::blocks::{Class, Lines};

use super::record::{self, Extracted, MAX_STATEMENT, normalize_key};

/// The shell tools whose errors are failed commands (Claude's Bash, Codex's exec_command and
/// shell, Gemini's run_shell_command).
const SHELL_TOOLS: [&str; 5] = [
    "Bash",
    "exec_command",
    "shell",
    "local_shell",
    "run_shell_command",
];

/// Most failed-command records one session gives (its last few distinct commands).
pub const MAX_FAILED: usize = 5;

/// Words a key made from a bullet's first words skips.
const STOP: [&str; 24] = [
    "a", "an", "the", "to", "of", "for", "in", "on", "and", "or", "with", "we", "i", "use", "used",
    "using", "is", "was", "be", "it", "that", "this", "as", "by",
];

/// A bullet's key: its own subject when it starts with one (`**db.engine**: …`, `Retry policy:
/// …`, at most five words), else its first four words that say something.
pub fn bullet_key(text: &str) -> Option<String> {
    let plain = text.trim().trim_start_matches("**");
    if let Some((head, rest)) = plain.split_once(':') {
        let head = head.trim().trim_end_matches("**").trim();
        if !head.is_empty()
            && !rest.trim().is_empty()
            && head.split_whitespace().count() <= 5
            && head.len() <= 60
            && !head.contains("//")
        {
            return normalize_key(head);
        }
    }
    let words: Vec<String> = text
        .split(|c: char| !c.is_alphanumeric() && c != '.')
        .map(|w| w.trim_matches('.').to_lowercase())
        .filter(|w| !w.is_empty() && !STOP.contains(&w.as_str()))
        .take(4)
        .collect();
    normalize_key(&words.join("-"))
}

/// The records of a distilled artifact: its bullets under "Key Decisions" (decision) and "What
/// Was Rejected" (rejected), each at its line of `text` (the whole file, frontmatter counted).
pub fn from_artifact(text: &str, date: &str, confidence: f64) -> Vec<Extracted> {
    let mut out = Vec::new();
    let mut kind: Option<&str> = None;
    let mut counts = brain_redact::Counts::new();
    for (n, (_, line, class)) in Lines::new(text).enumerate() {
        match class {
            Class::Heading { text: h, .. } => {
                kind = match h.trim().to_ascii_lowercase().as_str() {
                    "key decisions" | "decisions" => Some("decision"),
                    "what was rejected" | "rejected" => Some("rejected"),
                    _ => None,
                };
            }
            Class::Text => {
                let Some(k) = kind else { continue };
                let t = line.trim_start();
                let Some(item) = t
                    .strip_prefix("- ")
                    .or_else(|| t.strip_prefix("* "))
                    .or_else(|| t.strip_prefix("+ "))
                else {
                    continue;
                };
                // `**db.engine**: …` reads as `db.engine: …` (the emphasis is the model's).
                let item = item
                    .trim()
                    .strip_prefix("**")
                    .map_or(item.to_string(), |rest| {
                        rest.replacen("**:", ":", 1).replacen(":**", ":", 1)
                    });
                let statement = record::clean(&item, MAX_STATEMENT, &mut counts);
                let Some(key) = bullet_key(&statement) else {
                    continue;
                };
                out.push(Extracted {
                    kind: k.to_string(),
                    key,
                    statement,
                    occurred_at: date.to_string(),
                    refs: Vec::new(),
                    error: None,
                    confidence,
                    line: n as u64 + 1,
                });
            }
            _ => {}
        }
    }
    out
}

/// The failed shell commands of a session file `text`: each `**Note**: Tool error (Bash: CMD):`
/// line with the first line of the error after it; the last [`MAX_FAILED`] distinct commands.
pub fn failed_commands(text: &str, date: &str) -> Vec<Extracted> {
    let mut out: Vec<Extracted> = Vec::new();
    let mut pending: Option<Extracted> = None;
    let mut counts = brain_redact::Counts::new();
    let mut block: Vec<String> = Vec::new();
    for (n, (_, line, class)) in Lines::new(text).enumerate() {
        if pending.is_some() {
            // The error is the block after the note: its first line that says error, else its
            // first line.
            let end = matches!(class, Class::FenceClose | Class::Heading { .. })
                || (class == Class::Blank && !block.is_empty())
                || (class == Class::Text && brain_doc::blocks::is_turn(line))
                || block.len() >= 40;
            if !end {
                if matches!(class, Class::Code | Class::Text) && !line.trim().is_empty() {
                    block.push(line.trim().to_string());
                }
                continue;
            }
            if let Some(mut p) = pending.take() {
                let said = block
                    .iter()
                    .find(|l| {
                        let l = l.to_ascii_lowercase();
                        [
                            "error",
                            "failed",
                            "fail",
                            "not found",
                            "no such",
                            "panicked",
                            "denied",
                        ]
                        .iter()
                        .any(|w| l.contains(w))
                    })
                    .or(block.first());
                if let Some(e) = said {
                    let e = record::clean(e, 300, &mut counts);
                    p.statement = format!("{} failed: {e}", p.statement);
                    p.error = Some(e);
                    out.push(p);
                }
            }
            block.clear();
            if !(class == Class::Text && brain_doc::blocks::is_turn(line)) {
                continue;
            }
        }
        if class != Class::Text {
            continue;
        }
        let Some(rest) = line.strip_prefix("**Note**: Tool error (") else {
            continue;
        };
        let Some((tool, cmd)) = rest.trim_end_matches("):").split_once(": ") else {
            continue;
        };
        if !SHELL_TOOLS.contains(&tool) {
            continue;
        }
        let Some(subject) = brain_doc::command::subject(cmd) else {
            continue;
        };
        let Some(key) = normalize_key(&format!("cmd.{subject}")) else {
            continue;
        };
        let cmd = record::clean(cmd, 300, &mut counts);
        pending = Some(Extracted {
            kind: "failed".into(),
            key,
            statement: format!("`{cmd}`"),
            occurred_at: date.to_string(),
            refs: Vec::new(),
            error: None,
            confidence: 0.9,
            line: n as u64 + 1,
        });
    }
    if let Some(mut p) = pending.take()
        && let Some(e) = block.first()
    {
        let e = record::clean(e, 300, &mut counts);
        p.statement = format!("{} failed: {e}", p.statement);
        p.error = Some(e);
        out.push(p);
    }
    // The last attempt of each command says most: keep it, newest last.
    let mut seen = std::collections::HashSet::new();
    let mut last: Vec<Extracted> = out
        .into_iter()
        .rev()
        .filter(|e| seen.insert(e.key.clone()))
        .take(MAX_FAILED)
        .collect();
    last.reverse();
    last
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bullets_and_failed_commands() {
        let art = "---\nsession_id: s\n---\n## Goal\nG\n## Key Decisions\n- **db.engine**: SQLite, not Postgres\n- Use tantivy for the lexical index\n```\n- not a bullet\n```\n## What Was Rejected\n- A retry loop around the flaky test\n## Tags\n- x\n";
        let r = from_artifact(art, "2026-01-02", 0.9);
        assert_eq!(r.len(), 3, "{r:?}");
        assert_eq!(
            (r[0].kind.as_str(), r[0].key.as_str()),
            ("decision", "db.engine")
        );
        assert_eq!(r[0].line, 7);
        assert_eq!(r[1].key, "tantivy-lexical-index");
        assert_eq!(
            (r[2].kind.as_str(), r[2].key.as_str()),
            ("rejected", "retry-loop-around-flaky")
        );
        let session = "## Conversation\n\n**Note**: Tool error (Bash: cargo test -p alpha):\n```text\ntest parse::empty ... FAILED\n```\n\n**Note**: Tool error (Read: /x):\nnope\n";
        let f = failed_commands(session, "2026-01-01");
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].key, "cmd.cargo-test");
        assert!(
            f[0].statement.contains("test parse::empty ... FAILED"),
            "{}",
            f[0].statement
        );
        assert_eq!(f[0].line, 3);
    }
}
