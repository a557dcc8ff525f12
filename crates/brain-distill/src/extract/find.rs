//! The extraction that needs no model: a distilled artifact's "Key Decisions" and "What Was
//! Rejected" bullets become decision and rejected records, and a session's tool notes (the
//! `**Note**: Tool error|refused|declined (…)` lines `jsonl2md` writes) become failed and
//! rejected records ([`tool_notes`]). Read through [`brain_doc::blocks`]: a bullet or a note
//! inside a code block is code.

use brain_doc::blocks::{Class, Lines};
use brain_doc::command::Outcome;

use super::record::{self, Extracted, MAX_STATEMENT, normalize_key};
use super::said;

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

/// The words that make an output line the error worth quoting.
const ERROR_WORDS: [&str; 7] = [
    "error",
    "failed",
    "fail",
    "not found",
    "no such",
    "panicked",
    "denied",
];

/// What a tool call was about, as a memory key and the words a record says it with: a shell
/// command by its subject ([`brain_doc::command::subject`]), an edit by its file, a plan by its
/// title, another tool by its name. `None` for a command of setup and reading only.
fn tool_subject(tool: &str, arg: &str) -> Option<(String, String)> {
    if brain_doc::command::SHELL_TOOLS.contains(&tool) {
        let subject = brain_doc::command::subject(arg)?;
        return Some((brain_doc::command::key(&subject)?, format!("`{arg}`")));
    }
    let file = |a: &str| a.rsplit(['/', '\\']).next().unwrap_or(a).to_string();
    match tool {
        "Edit" | "Write" | "MultiEdit" | "NotebookEdit" | "Read" | "write_file" | "replace"
        | "edit" | "read_file" => {
            let f = file(arg.trim());
            let key = normalize_key(&format!("file.{f}"))?;
            let what = if tool.starts_with("Read") || tool == "read_file" {
                "Reading"
            } else {
                "An edit of"
            };
            Some((key, format!("{what} `{f}`")))
        }
        "ExitPlanMode" | "exit_plan_mode" => {
            let title = arg
                .trim_start_matches('#')
                .trim()
                .trim_end_matches('…')
                .trim()
                .trim_start_matches("Plan:")
                .trim();
            let words: Vec<&str> = title.split_whitespace().take(5).collect();
            let key = normalize_key(&format!("plan.{}", words.join("-")))?;
            Some((key, format!("The plan \"{title}\"")))
        }
        _ => {
            let key = normalize_key(&format!("tool.{tool}"))?;
            Some((key, format!("`{tool}`")))
        }
    }
}

/// The records of a session's tool notes (`**Note**: Tool error|refused|declined (TOOL: ARG):`,
/// as `jsonl2md` writes them; [`brain_doc::command::Outcome`]): a shell command that failed is a
/// `failed` record with its error line (the last [`MAX_FAILED`] distinct commands); a call the
/// agent's permissions refused or the user declined is a `rejected` one, never a failure; the
/// user's words when they declined one are read for a decision too ([`said::of_reason`]).
pub fn tool_notes(text: &str, date: &str) -> Vec<Extracted> {
    let mut failed: Vec<Extracted> = Vec::new();
    let mut rejected: Vec<Extracted> = Vec::new();
    let mut counts = brain_redact::Counts::new();
    for turn in brain_doc::blocks::turns(text) {
        if turn.speaker != "Note" {
            continue;
        }
        let Some((_, first, _)) = turn.lines.first() else {
            continue;
        };
        let note = format!("**Note**: {first}");
        let Some((outcome, tool, arg)) = Outcome::read_note(&note) else {
            continue;
        };
        let Some((key, what)) = tool_subject(tool, arg) else {
            continue;
        };
        let body: Vec<&str> = turn
            .lines
            .iter()
            .skip(1)
            .filter(|(_, l, c)| matches!(c, Class::Code | Class::Text) && !l.trim().is_empty())
            .map(|(_, l, _)| l.trim())
            .take(40)
            .collect();
        let n = Note {
            key,
            what: record::clean(&what, 300, &mut counts),
            line: turn.line as u64,
            date,
        };
        match outcome {
            Outcome::Failed if brain_doc::command::SHELL_TOOLS.contains(&tool) => {
                if let Some(e) = error_line(&body) {
                    let e = record::clean(e, 300, &mut counts);
                    failed.push(n.record("failed", format!("{} failed: {e}", n.what), Some(e)));
                }
            }
            Outcome::Failed => {}
            Outcome::Refused => {
                let why = body
                    .first()
                    .map(|e| format!(": {}", record::clean(e, 200, &mut counts)))
                    .unwrap_or_default();
                rejected.push(n.record("rejected", format!("{} was refused{why}", n.what), None));
            }
            Outcome::Declined => {
                let reason = body
                    .iter()
                    .find_map(|l| l.strip_prefix("> "))
                    .map(|r| record::clean(r, 300, &mut counts));
                let said = reason
                    .as_deref()
                    .map(|r| format!(": \"{r}\""))
                    .unwrap_or_default();
                let statement = format!("{} was declined by the user{said}", n.what);
                rejected.push(n.record("rejected", statement, None));
                if let Some(d) = reason.and_then(|r| said::of_reason(&r, n.line + 1, date)) {
                    rejected.push(d);
                }
            }
        }
    }
    // The last attempt of each command says most: keep it, newest last.
    let mut seen = std::collections::HashSet::new();
    let mut last: Vec<Extracted> = failed
        .into_iter()
        .rev()
        .filter(|e| seen.insert(e.key.clone()))
        .take(MAX_FAILED)
        .collect();
    last.reverse();
    rejected.extend(last);
    rejected
}

/// A tool note being read: its subject's key, the call as a record says it, its line, the day.
struct Note<'a> {
    key: String,
    what: String,
    line: u64,
    date: &'a str,
}

impl Note<'_> {
    fn record(&self, kind: &str, statement: String, error: Option<String>) -> Extracted {
        Extracted {
            kind: kind.into(),
            key: self.key.clone(),
            statement,
            occurred_at: self.date.to_string(),
            refs: Vec::new(),
            error,
            confidence: 0.9,
            line: self.line,
        }
    }
}

/// The error worth quoting of a failed command's output: a line that starts like one
/// (`error[E0432]`, `FAILED`, `fatal:`), else one that names one (not a warning), else the first
/// that is not the agent's `Exit code N`.
fn error_line<'a>(body: &[&'a str]) -> Option<&'a str> {
    let lines: Vec<&'a str> = body
        .iter()
        .copied()
        .filter(|l| !(l.starts_with("Exit code ") || *l == "…"))
        .collect();
    let lower = |l: &str| l.to_ascii_lowercase();
    lines
        .iter()
        .copied()
        .find(|l| {
            let l = lower(l);
            ["error", "fatal", "failed", "panicked"]
                .iter()
                .any(|w| l.starts_with(w))
        })
        .or_else(|| {
            lines.iter().copied().find(|l| {
                let l = lower(l);
                !l.starts_with("warn") && ERROR_WORDS.iter().any(|w| l.contains(w))
            })
        })
        .or(lines.first().copied())
        .or(body.first().copied())
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
        let f = tool_notes(session, "2026-01-01");
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].key, "cmd.cargo-test-p-alpha");
        assert!(
            f[0].statement.contains("test parse::empty ... FAILED"),
            "{}",
            f[0].statement
        );
        assert_eq!(f[0].line, 3);
    }
}
