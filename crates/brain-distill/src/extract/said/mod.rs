//! What people say when they decide, reject or state a preference (issue 53): the extraction of a
//! session's own words, needing no model. A user's "let's use X", "we'll go with", "use X instead
//! of Y", "don't use", "X is not acceptable", "always / never …", "by default …", "X should be Y",
//! an assistant's "let's switch to X", and the words a user turned a tool call down with — each a
//! record cited to its line, keyed by what it is about.
//!
//! Conservative by design: a phrase counts only at the start of a clause (after fillers like
//! "ok, fine,"), never in a question (bar a request, "can you use X instead"), a conditional or a
//! hedge ("if we use…", "maybe"), quoted text, code, a blockquote, or the pasted middle of a long
//! turn; an assistant counts only when it says "let's use / keep / go with / switch to". A clause
//! whose subject cannot be told (only "that", "it") takes its key from the sentence before it, or
//! is left out. English only: another language's statement is simply not matched.
//!
//! Measured on the real corpora's sessions (bench/extract/judged.tsv): see docs/brief.md.

mod cues;
mod subject;

use std::collections::HashSet;

use brain_doc::blocks::{Class, turns};

use super::record::{self, Extracted};
use cues::{BARE, CUE_SET, CUES, FILLER, HEDGE, REQUEST};
pub use subject::content_words;
use subject::{because, subject_of};

/// Longest sentence read (a statement is short; a longer one is prose or a paste).
pub const MAX_SENTENCE: usize = 300;
/// Longest line read at all.
const MAX_LINE: usize = 2_000;
/// A user turn of more non-empty lines than this is mostly pasted (a log, a file, a help text):
/// only its first [`EDGE_LINES`] lines are read as the user's own words.
const LONG_TURN: usize = 20;
const EDGE_LINES: usize = 5;
/// Most records one session gives.
pub const MAX_SAID: usize = 40;

/// How sure a record of each speaker is (a user's own words; an assistant's plan the user let
/// stand). Our choice (2026-11-27).
const USER_CONFIDENCE: f64 = 0.8;
const ASSISTANT_CONFIDENCE: f64 = 0.6;

/// The sentences of one line: each with whether it asks.
fn sentences(line: &str) -> Vec<(&str, bool)> {
    let mut out = Vec::new();
    let mut start = 0;
    let bytes = line.as_bytes();
    for (i, c) in line.char_indices() {
        if matches!(c, '.' | '!' | '?') && bytes.get(i + 1).is_none_or(|b| b.is_ascii_whitespace())
        {
            let s = line[start..=i].trim();
            if !s.is_empty() {
                out.push((s, c == '?'));
            }
            start = i + 1;
        }
    }
    let rest = line[start..].trim();
    if !rest.is_empty() {
        out.push((rest, rest.ends_with('?')));
    }
    out
}

/// The clauses of a sentence (quoted text blanked: another's words are not this speaker's).
fn clauses(sentence: &str) -> Vec<String> {
    let mut blank = String::with_capacity(sentence.len());
    let mut quoted = false;
    for c in sentence.chars() {
        match c {
            '"' | '“' | '”' => {
                quoted = !quoted;
                blank.push('"');
            }
            _ if quoted => {}
            _ => blank.push(c),
        }
    }
    let mut out = Vec::new();
    for part in blank.split([';', ':']) {
        for p in part.split(", ").flat_map(|p| p.split(" - ")) {
            // "…, so we should …", "… so let's …": a new clause.
            let mut rest = p;
            // ASCII lower case keeps every byte where it was: the offsets found are the text's.
            while let Some(i) = ["so we ", "so i ", "so let's "]
                .iter()
                .filter_map(|m| rest.to_ascii_lowercase().find(m).filter(|i| *i > 0))
                .min()
            {
                out.push(rest[..i].trim().to_string());
                rest = &rest[i..];
            }
            out.push(rest.trim().to_string());
        }
    }
    out.retain(|c| !c.is_empty());
    out
}

/// A clause without its fillers and closing punctuation.
fn bare(clause: &str) -> &str {
    let c = match FILLER.find(clause) {
        Some(m) => &clause[m.end()..],
        None => clause,
    };
    c.trim().trim_end_matches(['.', '!', '?']).trim()
}

/// A line of a turn that may hold the speaker's own words (not code, a quote, a table, a tag, a
/// command, a notice).
fn own_words<'a>(line: &'a str, class: Class<'_>) -> Option<&'a str> {
    if class != Class::Text || line.len() > MAX_LINE {
        return None;
    }
    let t = line.trim();
    if t.is_empty()
        || t.starts_with(['>', '<', '|', '[', '/', '!', '#'])
        || t.starts_with("Caveat:")
    {
        return None;
    }
    let t = t
        .strip_prefix("- ")
        .or_else(|| t.strip_prefix("* "))
        .or_else(|| t.strip_prefix("+ "))
        .unwrap_or(t);
    Some(t.trim_end_matches('\\').trim())
}

/// The records of one clause said by a user (`assistant: false`) or an assistant, with the
/// sentence it stands in and the subject of the sentence before (for "don't do that").
fn of_clause(
    clause: &str,
    rest: &str,
    asks: bool,
    assistant: bool,
    before: Option<&str>,
) -> Option<(&'static str, String)> {
    let found = of_clause_raw(clause, rest, asks, assistant, before)?;
    // Keys come from redacted text: a secret is never a subject.
    let mut counts = brain_redact::Counts::new();
    let red = brain_redact::redact(clause, &mut counts);
    if red == clause {
        return Some(found);
    }
    let rest = brain_redact::redact(rest, &mut counts);
    let before = before.map(|b| brain_redact::redact(b, &mut counts));
    of_clause_raw(&red, &rest, asks, assistant, before.as_deref())
}

fn of_clause_raw(
    clause: &str,
    rest: &str,
    asks: bool,
    assistant: bool,
    before: Option<&str>,
) -> Option<(&'static str, String)> {
    let c = bare(clause);
    if c.is_empty() || HEDGE.is_match(c) {
        return None;
    }
    if asks && !REQUEST.is_match(c) {
        return None;
    }
    let c = REQUEST
        .find(c)
        .map_or(c, |m| c[m.end()..].trim_start())
        .trim_start_matches("please ")
        .trim();
    // One pass of every pattern at once; the matching ones are then read for their groups.
    let any = CUE_SET.matches(c);
    if !any.matched_any() {
        return None;
    }
    for (i, cue) in CUES.iter().enumerate() {
        if !any.matched(i) {
            continue;
        }
        if assistant && !cue.assistant {
            continue;
        }
        let Some(m) = cue.re.captures(c) else {
            continue;
        };
        // What it is about: its object, else what the clause names besides (the place, the
        // alternative), else the reason given after it ("it's a bad idea, since …"), else the
        // sentence before ("… the font changes. don't do that"); else it is left out.
        let group = |g: &str| m.name(g).and_then(|o| subject_of(o.as_str()));
        if cue.named && group("obj").is_none() {
            continue;
        }
        let key = group("obj")
            .or_else(|| group("alt"))
            .or_else(|| because(rest))
            .or_else(|| before.and_then(subject_of))?;
        return Some((cue.kind, key));
    }
    None
}

/// The decisions, rejections, preferences and facts said in the conversation of session `text`
/// (the whole file: lines are the file's), dated `date`.
pub fn statements(text: &str, date: &str) -> Vec<Extracted> {
    let mut out: Vec<Extracted> = Vec::new();
    let mut counts = brain_redact::Counts::new();
    let mut seen = HashSet::new();
    for turn in turns(text) {
        let assistant = match turn.speaker {
            "User" => false,
            "Assistant" => true,
            _ => continue,
        };
        let lines: Vec<(usize, &str)> = turn
            .lines
            .iter()
            .filter_map(|(n, l, c)| own_words(l, *c).map(|t| (*n, t)))
            .collect();
        let lines: Vec<(usize, &str)> = if !assistant && lines.len() > LONG_TURN {
            lines[..EDGE_LINES].to_vec()
        } else {
            lines
        };
        let mut before: Option<&str> = None;
        for (n, line) in lines {
            // An assistant counts only with "let's …": a line without it is passed over whole.
            if assistant && !line.to_ascii_lowercase().contains("let") {
                continue;
            }
            for (sentence, asks) in sentences(line) {
                if sentence.len() > MAX_SENTENCE {
                    before = None;
                    continue;
                }
                let parts = clauses(sentence);
                let mut rejected_before = false;
                for (i, clause) in parts.iter().enumerate() {
                    let rest = parts.get(i + 1).map_or("", String::as_str);
                    // "don't use A, use B": the bare instruction after a rejection is the choice.
                    let found = of_clause(clause, rest, asks, assistant, before).or_else(|| {
                        let m = BARE.captures(bare(clause)).filter(|_| rejected_before)?;
                        let obj = brain_redact::redact(m.name("obj")?.as_str(), &mut counts);
                        Some(("decision", subject_of(&obj)?))
                    });
                    rejected_before = found.as_ref().is_some_and(|(k, _)| *k == "rejected");
                    let Some((kind, key)) = found else {
                        continue;
                    };
                    if !seen.insert((turn.line, kind, key.clone())) {
                        continue;
                    }
                    out.push(Extracted {
                        kind: kind.to_string(),
                        key,
                        statement: record::clean(sentence, MAX_SENTENCE, &mut counts),
                        occurred_at: date.to_string(),
                        refs: Vec::new(),
                        error: None,
                        confidence: if assistant {
                            ASSISTANT_CONFIDENCE
                        } else {
                            USER_CONFIDENCE
                        },
                        line: n as u64,
                    });
                    if out.len() >= MAX_SAID {
                        return out;
                    }
                }
                before = Some(sentence);
            }
        }
    }
    out
}

/// The decision in the words a user turned a tool call down with (`use pnpm`), at `line`.
pub fn of_reason(reason: &str, line: u64, date: &str) -> Option<Extracted> {
    let mut counts = brain_redact::Counts::new();
    let reason = brain_redact::redact(reason, &mut counts);
    for (sentence, asks) in sentences(&reason) {
        for clause in clauses(sentence) {
            let c = bare(&clause);
            let found = of_clause(&clause, "", asks, false, None).or_else(|| {
                let m = BARE.captures(c)?;
                Some(("decision", subject_of(m.name("obj")?.as_str())?))
            });
            if let Some((kind, key)) = found {
                return Some(Extracted {
                    kind: kind.to_string(),
                    key,
                    statement: record::clean(sentence, MAX_SENTENCE, &mut counts),
                    occurred_at: date.to_string(),
                    refs: Vec::new(),
                    error: None,
                    confidence: USER_CONFIDENCE,
                    line,
                });
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session(turns: &[(&str, &str)]) -> String {
        let mut s = String::from("---\ntitle: t\n---\n## Conversation\n\n");
        for (who, text) in turns {
            s.push_str(&format!("**{who}**: {text}\n\n"));
        }
        s.push_str("## Tools Used\n\n- Bash: x\n");
        s
    }

    fn said(turns: &[(&str, &str)]) -> Vec<(String, String)> {
        statements(&session(turns), "2026-01-02")
            .into_iter()
            .map(|e| (e.kind, e.key))
            .collect()
    }

    #[track_caller]
    fn one(text: &str, kind: &str, key: &str) {
        assert_eq!(
            said(&[("User", text)]),
            [(kind.to_string(), key.to_string())],
            "{text}"
        );
    }

    #[track_caller]
    fn none(text: &str) {
        assert_eq!(said(&[("User", text)]), [], "{text}");
    }

    #[test]
    fn what_people_say_when_they_decide() {
        one("ok, fine, let's do vite", "decision", "bundler");
        one(
            "Use the Spinner instead of the inlined custom spinner",
            "decision",
            "spinner",
        );
        one(
            "Let's migrate to AudioWorklet for proper modern audio processing.",
            "decision",
            "audioworklet",
        );
        one(
            "we'll go with Postgres for the registry",
            "decision",
            "database",
        );
        one(
            "We decided to keep the retry loop.",
            "decision",
            "retry-loop",
        );
        one(
            "let's update the default context compart to 90 in env var",
            "decision",
            "default-context-compart",
        );
        one(
            "can you please replace them with a single link to the combined transcript instead?",
            "decision",
            "single-link",
        );
        one(
            "why did you change the header color? keep the one previously entered",
            "decision",
            "header-color",
        );
        one(
            "the home page should be a prompt >>",
            "decision",
            "home-page",
        );
        one(
            "conversationId is the same as sessionId.",
            "fact",
            "conversationid",
        );
    }

    #[test]
    fn rejections_and_preferences() {
        one(
            "don't create separate documents. put into existing",
            "rejected",
            "separate-documents",
        );
        one("TODO is not acceptable", "rejected", "todo");
        one(
            "errors handling is already present in metrics. don't overcomplicate",
            "rejected",
            "errors-handling-already",
        );
        one(
            "when hitting enter in the command window, the size of the font change. don't do that",
            "rejected",
            "hitting-enter",
        );
        one(
            "I actually don't like the modal dialog",
            "rejected",
            "modal-dialog",
        );
        one(
            "it's bad idea, since entire conversation will be resent every time.",
            "rejected",
            "conversation-resent",
        );
        one(
            "by default the dark mode settings is off.",
            "preference",
            "dark-mode-settings",
        );
        one(
            "Always run the linter before committing",
            "preference",
            "run-linter-committing",
        );
        one("I'd rather use tabs", "preference", "tabs");
        one(
            "important not to commit changes until final step",
            "preference",
            "commit-changes-until",
        );
        assert_eq!(
            said(&[(
                "User",
                "To be clear: don't use ClMail for communication, use the builtin subagent teams."
            )]),
            [
                ("rejected".to_string(), "clmail".to_string()),
                ("decision".to_string(), "builtin-subagent-teams".to_string())
            ]
        );
    }

    #[test]
    fn what_is_not_a_decision() {
        none("Can you use the Explore task to give me an overview?");
        none("if we use vite, the build is faster");
        none("maybe let's use vite");
        none("He said \"let's use vite\" yesterday");
        none("add 5 lines of random text");
        none("look:\n```\nlet's use vite\n```");
        none("> let's use vite");
        none("Nous allons utiliser vite.");
        none("/clear");
        none("what should we use?");
        // What it is about cannot be told: left out, never keyed by its cue ("idea", "issue").
        none("I actually don't like much this idea");
        none("more context: the issue must be addressed");
        // An assistant's step is no decision; its choice is.
        assert_eq!(said(&[("Assistant", "Now let's run the tests again.")]), []);
        assert_eq!(
            said(&[(
                "Assistant",
                "You're right - let's keep the specific header color (#014073)."
            )]),
            [("decision".to_string(), "specific-header-color".to_string())]
        );
    }

    #[test]
    fn the_pasted_middle_of_a_long_turn_is_not_read() {
        let mut text = String::from("look at this help text:\n");
        for i in 0..30 {
            text.push_str(&format!("option {i}\n"));
        }
        text.push_str("By default, we will display items in the terminal.\n");
        for i in 0..10 {
            text.push_str(&format!("more {i}\n"));
        }
        assert_eq!(said(&[("User", &text)]), []);
    }

    #[test]
    fn decline_reasons_and_bounds() {
        let r = of_reason("use pnpm", 7, "2026-01-02").expect("a decision");
        assert_eq!(
            (r.kind.as_str(), r.key.as_str(), r.line),
            ("decision", "package-manager", 7)
        );
        assert!(of_reason("Wait a sec, we need to copy the svg too", 1, "d").is_none());
        let huge = format!("let's use {}", "x".repeat(5_000_000));
        assert!(said(&[("User", &huge)]).is_empty());
        let many = "let's use vite. ".repeat(100_000);
        assert!(said(&[("User", &many)]).len() <= 1);
        let secret = "let's use the key AKIAIOSFODNN7EXAMPLE for uploads";
        let r = statements(&session(&[("User", secret)]), "d");
        assert!(r.iter().all(|e| !e.statement.contains("AKIA")), "{r:?}");
    }
}
