//! The refusal guard (seed 000 §8.3, §9.3): what an inbox entry may not hold, and what it should not
//! hold unless the user insists.
//!
//! Refused always (exit 71, nothing written): a secret (the detectors of `brain_redact`, the
//! same that redact sessions), a `<private>…</private>` span, the `brain:do-not-index` marker.
//!
//! Gated as derivable noise (exit 71 unless `--force`): content the corpus already gets from its
//! source, or that buries the note it came with. The heuristics look at non-blank lines:
//!
//! | reason | when |
//! |---|---|
//! | `code_dump` | ≥ 15 lines, ≥ 70 % code (inside a fence, or ending in `;` `{` `}` `)`, or opening with a declaration keyword) — the code is in its repository |
//! | `activity_log` | ≥ 8 lines, ≥ 70 % log lines (a leading timestamp or log level, `$ ` prompts, `commit <sha>` / `<sha> subject`, agent tool-trace bullets) — logs are derivable from their source |
//! | `transcript` | ≥ 4 lines opening with a speaker label (`User:`, `Assistant:`, `Human:`, …) from ≥ 2 speakers — sessions are ingested by `jsonl2md` |
//! | `blob` | a base64 run of ≥ 400 characters (an image or archive) |
//! | `large_paste` | more than 16 KiB — an entry is a note; a document belongs in a collection |
//!
//! The thresholds are our own choice (2026-11-22): short snippets inside a note pass; dumps do not.

use brain_doc::blocks::Class;
use std::sync::LazyLock;

use regex::Regex;

/// Non-blank lines before a text can be a code dump.
const CODE_MIN_LINES: usize = 15;
/// Non-blank lines before a text can be an activity log.
const LOG_MIN_LINES: usize = 8;
/// Share of matching lines that makes a dump.
const DUMP_SHARE: f64 = 0.7;
/// Speaker-labelled lines that make a transcript.
const TRANSCRIPT_MIN_TURNS: usize = 4;
/// Bytes above which an entry is a large paste.
pub const LARGE_PASTE_BYTES: usize = 16 * 1024;

/// Why an entry is refused outright.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// Secrets found, by kind (`openai_key`, `password`, …).
    Secret(Vec<String>),
    /// A `<private>` span.
    Private,
    /// The `brain:do-not-index` marker.
    DoNotIndex,
}

/// Why an entry looks like derivable noise.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Noise {
    CodeDump { code: usize, lines: usize },
    ActivityLog { log: usize, lines: usize },
    Transcript { turns: usize },
    Blob,
    LargePaste { bytes: usize },
}

impl Refusal {
    /// The machine reason (`secret`, `private`, `do_not_index`).
    pub fn reason(&self) -> &'static str {
        match self {
            Refusal::Secret(_) => "secret",
            Refusal::Private => "private",
            Refusal::DoNotIndex => "do_not_index",
        }
    }
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refusal::Secret(kinds) => {
                write!(f, "the entry contains a secret ({})", kinds.join(", "))
            }
            Refusal::Private => f.write_str("the entry contains a <private> span"),
            Refusal::DoNotIndex => f.write_str("the entry carries the brain:do-not-index marker"),
        }
    }
}

impl Noise {
    /// The machine reason (`code_dump`, `activity_log`, `transcript`, `blob`, `large_paste`).
    pub fn reason(&self) -> &'static str {
        match self {
            Noise::CodeDump { .. } => "code_dump",
            Noise::ActivityLog { .. } => "activity_log",
            Noise::Transcript { .. } => "transcript",
            Noise::Blob => "blob",
            Noise::LargePaste { .. } => "large_paste",
        }
    }
}

impl std::fmt::Display for Noise {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Noise::CodeDump { code, lines } => {
                write!(
                    f,
                    "looks like a code dump ({code} of {lines} lines are code; the code is in its repository)"
                )
            }
            Noise::ActivityLog { log, lines } => {
                write!(
                    f,
                    "looks like an activity log ({log} of {lines} lines are log lines; logs are derivable from their source)"
                )
            }
            Noise::Transcript { turns } => {
                write!(
                    f,
                    "looks like a session transcript ({turns} speaker lines; sessions are ingested by jsonl2md)"
                )
            }
            Noise::Blob => f.write_str("holds a base64 blob (an image or archive), not a note"),
            Noise::LargePaste { bytes } => {
                write!(
                    f,
                    "is a large paste ({bytes} bytes > {LARGE_PASTE_BYTES}); a document belongs in a collection"
                )
            }
        }
    }
}

/// Refuse secrets, private spans and the do-not-index marker anywhere in `text`.
pub fn refusal(text: &str) -> Option<Refusal> {
    let secrets = brain_redact::find_secrets(text);
    if !secrets.is_empty() {
        return Some(Refusal::Secret(
            secrets.keys().map(|k| (*k).to_string()).collect(),
        ));
    }
    if text.contains("<private>") {
        return Some(Refusal::Private);
    }
    if text
        .contains(std::str::from_utf8(brain_redact::DO_NOT_INDEX).unwrap_or("brain:do-not-index"))
    {
        return Some(Refusal::DoNotIndex);
    }
    None
}

fn re(pattern: &str) -> Regex {
    Regex::new(pattern).unwrap_or_else(|e| unreachable!("guard pattern compiles: {e}"))
}

static CODE_LINE: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?x)^\s*(?:
        (?:pub\s+)?(?:fn|struct|enum|impl|trait|mod|use|let|const|static|type)\s
      | (?:def|class|import|from|return|async|await|function|var|export|package|func)\s
      | \#include | \#define | @\w+ | //[^/] | \}
    ) | [;{})\]]\s*$ | ^\s*[})\]];?\s*$")
});

static LOG_LINE: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?xi)^\s*(?:
        \[?\d{4}-\d{2}-\d{2}[T\s]\d{2}:\d{2}
      | \[?\d{1,2}:\d{2}(?::\d{2})?(?:[.,]\d+)?\]?\s
      | \[?(?:trace|debug|info|warn|warning|error|fatal|notice)\]?[\s:]
      | \$\s\S
      | commit\s[0-9a-f]{7,40}\b
      | [0-9a-f]{7,40}\s\S
      | [●⏺⎿]\s
    )")
});

static SPEAKER: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^\s*(?:\*\*)?(user|assistant|human|ai|claude|gemini|codex|system)(?:\*\*)?\s*:(?:\*\*)?",
    )
});

/// Whether `text` looks like derivable noise, and why (see the module docs).
pub fn noise(text: &str) -> Option<Noise> {
    if text.len() > LARGE_PASTE_BYTES {
        return Some(Noise::LargePaste { bytes: text.len() });
    }
    let scrubbed = brain_redact::scrub(text);
    if scrubbed.matches("[base64 omitted]").count() > text.matches("[base64 omitted]").count() {
        return Some(Noise::Blob);
    }
    let (mut lines, mut code, mut log) = (0, 0, 0);
    let mut speakers: Vec<String> = Vec::new();
    let mut turns = 0;
    for (_, line, class) in brain_doc::blocks::Lines::new(text) {
        if matches!(class, Class::FenceOpen { .. } | Class::FenceClose) || line.trim().is_empty() {
            continue;
        }
        lines += 1;
        if class == Class::Code || CODE_LINE.is_match(line) {
            code += 1;
        }
        if LOG_LINE.is_match(line) {
            log += 1;
        }
        if let Some(c) = SPEAKER.captures(line) {
            turns += 1;
            let who = c.get(1).map_or("", |m| m.as_str()).to_lowercase();
            if !speakers.contains(&who) {
                speakers.push(who);
            }
        }
    }
    let share = |n: usize| lines > 0 && n as f64 >= DUMP_SHARE * lines as f64;
    if lines >= LOG_MIN_LINES && share(log) {
        return Some(Noise::ActivityLog { log, lines });
    }
    if lines >= CODE_MIN_LINES && share(code) {
        return Some(Noise::CodeDump { code, lines });
    }
    if turns >= TRANSCRIPT_MIN_TURNS && speakers.len() >= 2 {
        return Some(Noise::Transcript { turns });
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_private_spans_and_the_marker_are_refused() {
        let r =
            refusal("deploy with OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwxyz0123 tomorrow");
        assert_eq!(r, Some(Refusal::Secret(vec!["openai_key".into()])));
        assert_eq!(refusal("a <private>b</private>"), Some(Refusal::Private));
        assert_eq!(refusal("x brain:do-not-index"), Some(Refusal::DoNotIndex));
        assert_eq!(
            refusal("password: string; api_key = os.environ[\"K\"]"),
            None
        );
    }

    #[test]
    fn dumps_are_gated_and_notes_with_snippets_pass() {
        let code: String = (0..20)
            .map(|i| format!("    let x{i} = compute({i});\n"))
            .collect();
        assert_eq!(noise(&code).map(|n| n.reason()), Some("code_dump"));
        let log: String = (0..10)
            .map(|i| format!("2026-04-10 12:00:{i:02} INFO request served\n"))
            .collect();
        assert_eq!(noise(&log).map(|n| n.reason()), Some("activity_log"));
        let git: String = (0..9)
            .map(|i| format!("a1b2c3{i} fix the thing {i}\n"))
            .collect();
        assert_eq!(noise(&git).map(|n| n.reason()), Some("activity_log"));
        let chat = "User: hi\nAssistant: hello\nUser: fix it\nAssistant: done";
        assert_eq!(noise(chat).map(|n| n.reason()), Some("transcript"));
        assert_eq!(
            noise(&format!("see {}", "QUJD".repeat(120))),
            Some(Noise::Blob)
        );
        assert_eq!(
            noise(&"word ".repeat(4000)).map(|n| n.reason()),
            Some("large_paste")
        );
        let note = "Decided to keep BM25 as the default.\n\n```rust\nlet x = 1;\nlet y = 2;\n```\n\nBecause vectors lag.";
        assert_eq!(noise(note), None);
        let prose: String = (0..30)
            .map(|i| format!("Point {i}: we agreed on the plan\n"))
            .collect();
        assert_eq!(noise(&prose), None);
    }
}
