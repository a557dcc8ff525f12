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

use std::collections::HashSet;
use std::sync::LazyLock;

use brain_doc::blocks::{Class, turns};
use regex::{Regex, RegexBuilder};

use super::record::{self, Extracted, normalize_key};

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

/// One way of saying it: the record type and the pattern (a `obj` group: what it is about).
struct Cue {
    kind: &'static str,
    re: Regex,
    /// An assistant may say it (else only a user).
    assistant: bool,
    /// It counts only when its object names something (`the home page should be …`, not `it
    /// should be …` or `the issue must be …`).
    named: bool,
}

fn re(p: &str) -> Regex {
    // The patterns are constants of this file, tested below: a bad one fails every test.
    RegexBuilder::new(p)
        .case_insensitive(true)
        .size_limit(1 << 20)
        .build()
        .unwrap_or_else(|e| panic!("pattern {p}: {e}"))
}

const OBJ: &str = r"(?P<obj>[^.;!?\n]+)";

static CUES: LazyLock<Vec<Cue>> = LazyLock::new(|| {
    let choose =
        r"(?:use|go with|switch(?: over)? to|stick with|stay with|keep|adopt|move to|migrate to)";
    let decide = r"(?:use|go with|switch(?: over)? to|stick with|stay with|keep|adopt|move to|migrate to|do|pick|choose|opt for|settle on|set|make|go for|combine|reuse|extend)";
    let decide_we = r"(?:use|go with|switch(?: over)? to|stick with|stay with|keep|adopt|move to|migrate to|pick|choose|opt for|settle on|support|change|run|track|store|put|combine|reuse|extend)";
    let refuse = r"(?:use|add|install|create|produce|commit|push|introduce|touch|change|modify|do|refer to|track|put|write|generate|include|hardcode|mock|check|loop|re-?sync|regenerate|call|rely on|depend on|store|send|overcomplicate|over-engineer)";
    // Each cue is named for the tests and the judged sample.
    let cue = |kind, name: &str, p: String, assistant| Cue {
        kind,
        re: re(&p),
        assistant,
        named: matches!(name, "should-be" | "same-as"),
    };
    vec![
        cue("decision", "lets-choose", format!(r"^let'?s\s+(?:just\s+|also\s+)?{choose}\b\s*{OBJ}"), true),
        cue(
            "decision",
            "lets-set-to",
            r"^let'?s\s+(?:just\s+|also\s+)?(?:update|change|rename|set)\s+(?P<obj>[^.;!?\n]+?)\s+to\s+\S[^.;!?\n]*".into(),
            false,
        ),
        cue("decision", "lets", format!(r"^let'?s\s+(?:just\s+|also\s+)?{decide}\b\s*{OBJ}"), false),
        cue(
            "decision",
            "we-will",
            format!(r"^(?:we|i)\s*(?:'ll|will|should|are going to|'re going to|'m going to|am going to|need to|have to)\s+(?:just\s+)?{decide_we}\b\s*{OBJ}"),
            false,
        ),
        cue("decision", "decided", format!(r"^(?:we|i)\s+(?:have\s+|'ve\s+)?decided\s+(?:to|on)\s+{OBJ}"), false),
        cue(
            "decision",
            "instead-of",
            r"^(?:(?:can|could|would) you\s+)?(?:please\s+)?(?:use|go with|switch to|stick with|keep|prefer|launch|pick|take)\s+(?P<obj>[^.;!?\n]+?)\s+(?:instead of|rather than|over)\s+(?P<alt>[^.;!?\n]+)".into(),
            false,
        ),
        cue(
            "decision",
            "replace",
            r"^(?:(?:can|could|would) you\s+)?(?:please\s+)?replace\s+(?P<alt>[^.;!?\n]+?)\s+with\s+(?P<obj>[^.;!?\n]+)".into(),
            false,
        ),
        cue(
            "decision",
            "keep-the-one",
            r"^(?:please\s+)?(?:keep|use|reuse)\s+(?P<obj>(?:the\s+)?(?:one|same|previous|existing|original|old|current)\b[^.;!?\n]*)".into(),
            false,
        ),
        cue(
            "decision",
            "same-place",
            r"^(?:track|store|put|keep|save|write)\s+(?P<obj>[^.;!?\n]+?)\s+in\s+(?P<alt>the\s+same\s+[^.;!?\n]+)".into(),
            false,
        ),
        cue(
            "decision",
            "should-be",
            r"^(?P<obj>(?:the\s+)?[a-z][A-Za-z0-9_.-]*(?:\s+[A-Za-z0-9_.-]+){0,3}?)\s+(?:should|must)\s+(?:not\s+)?(?:be|use|stay|remain|refer to|have|support|run|point to|track|live|contain|show|start|open|launch|go)\b(?P<alt>[^.;!?\n]*)".into(),
            false,
        ),
        cue("decision", "instead", r"^(?P<obj>[a-z][^.;!?\n]{2,}?)\s+instead$".into(), false),
        cue("fact", "keep-in-mind", format!(r"^keep in mind(?: that)?\s+{OBJ}"), false),
        cue("fact", "same-as", r"^(?P<obj>[A-Za-z0-9_.-]{2,})\s+is\s+the\s+same\s+as\s+[A-Za-z0-9_.-]{2,}$".into(), false),
        cue(
            "preference",
            "by-default",
            format!(r"^(?:by default|from now on|going forward|in the future|as a rule)[,]?\s+{OBJ}"),
            false,
        ),
        cue("preference", "always", format!(r"^(?:please\s+)?always\s+{OBJ}"), false),
        cue(
            "preference",
            "important-not",
            format!(r"^(?:it'?s\s+)?important\s+not\s+to\s+{OBJ}"),
            false,
        ),
        cue(
            "preference",
            "dont-want",
            format!(r"^i\s+(?:really\s+)?(?:don'?t|do not)\s+want\s+(?:to\s+)?{OBJ}"),
            false,
        ),
        cue("preference", "prefer", format!(r"^i\s*(?:would|'d)?\s*(?:prefer|rather)\s+{OBJ}"), false),
        cue("preference", "like-to-keep", format!(r"^(?:i'd like to|i would like to|i want to)\s+keep\s+{OBJ}"), false),
        cue(
            "rejected",
            "dont",
            format!(r"^(?:please\s+)?(?:don'?t|do not|never)\s+(?:ever\s+)?{refuse}\b(?:\s+{OBJ})?$"),
            false,
        ),
        cue(
            "rejected",
            "not-acceptable",
            r"^(?P<obj>[^.;!?\n]+?)\s+(?:is|are|'s)\s+(?:not acceptable|unacceptable|(?:a\s+)?bad idea|not an option|not allowed|not valid|not what i want|not needed)".into(),
            false,
        ),
        cue(
            "rejected",
            "its-bad",
            r"^(?:it'?s|that'?s|this is)\s+(?:not valid|not acceptable|(?:a\s+)?bad idea|not what i want)\s*(?:to\s+)?(?P<obj>[^.;!?\n]*)".into(),
            false,
        ),
        cue(
            "rejected",
            "dont-like",
            format!(r"^i\s+(?:really\s+|actually\s+)?(?:don'?t|do not)\s+(?:much\s+)?like\s+(?:much\s+)?{OBJ}"),
            false,
        ),
        cue("rejected", "no-need", format!(r"^(?:there is|there's|there are)\s+no\s+need\s+(?:to|for)\s+{OBJ}"), false),
        cue("rejected", "dont-need", format!(r"^(?:we|you)\s+(?:don'?t|do not)\s+need\s+(?:to\s+)?{OBJ}"), false),
        cue(
            "rejected",
            "not-doing",
            format!(r"^(?:we're|we are)\s+not\s+(?:doing|using|going to use|going with)\s+{OBJ}"),
            false,
        ),
    ]
});

/// Every cue's pattern, matched at once (a clause that matches none costs one pass).
static CUE_SET: LazyLock<regex::RegexSet> = LazyLock::new(|| {
    regex::RegexSetBuilder::new(CUES.iter().map(|c| c.re.as_str()))
        .case_insensitive(true)
        .build()
        .unwrap_or_else(|e| panic!("the cues as a set: {e}"))
});

/// What a user's words turning down a tool call may say besides the cues: a bare instruction
/// (`use pnpm`, `switch to yarn`) is a decision there.
static BARE: LazyLock<Regex> = LazyLock::new(|| {
    re(&format!(
        r"^(?:please\s+)?(?:use|go with|switch to|stick with)\s+{OBJ}"
    ))
});

/// Fillers before a statement ("ok, fine, let's …", "I think we should …").
static FILLER: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"^(?:(?:ok(?:ay)?|fine|yes|yeah|yep|great|good|perfect|alright|all right|right|so|then|actually|also|and|but|please|hmm|well|wait|no|nope|hey|oh|ah|now|instead|ultimately|in the end|after all|i think|i guess|i believe|honestly|however|though|plus|to be clear|more context)\b[,!.:]?\s*)+",
    )
});

/// Clauses that say nothing settled: conditions, hypotheses, hedges.
static HEDGE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"^(?:if|when|whether|unless|in case|what if|pretend|imagine|suppose)\b|\b(?:maybe|perhaps|might|not sure)\b",
    )
});

/// A question that is a request ("can you use X instead?").
static REQUEST: LazyLock<Regex> = LazyLock::new(|| re(r"^(?:can|could|would) you\b"));

/// Words that say nothing of what a statement is about.
const STOP: &[&str] = &[
    "a",
    "an",
    "the",
    "this",
    "that",
    "these",
    "those",
    "it",
    "its",
    "it's",
    "they",
    "them",
    "their",
    "we",
    "us",
    "our",
    "i",
    "me",
    "my",
    "you",
    "your",
    "he",
    "she",
    "one",
    "ones",
    "thing",
    "things",
    "stuff",
    "way",
    "bit",
    "lot",
    "part",
    "to",
    "of",
    "for",
    "in",
    "on",
    "at",
    "by",
    "from",
    "with",
    "into",
    "as",
    "and",
    "or",
    "but",
    "so",
    "if",
    "then",
    "than",
    "is",
    "are",
    "was",
    "were",
    "be",
    "been",
    "do",
    "does",
    "did",
    "done",
    "make",
    "made",
    "get",
    "use",
    "using",
    "keep",
    "have",
    "has",
    "go",
    "need",
    "want",
    "let",
    "let's",
    "see",
    "try",
    "add",
    "create",
    "change",
    "update",
    "set",
    "put",
    "just",
    "also",
    "only",
    "really",
    "actually",
    "very",
    "much",
    "now",
    "here",
    "there",
    "earlier",
    "previously",
    "before",
    "later",
    "first",
    "again",
    "same",
    "new",
    "existing",
    "current",
    "other",
    "all",
    "every",
    "each",
    "some",
    "any",
    "more",
    "less",
    "not",
    "no",
    "gave",
    "given",
    "entered",
    "proper",
    "whole",
    "entire",
    "time",
    "every",
    "like",
    "when",
    "why",
    "what",
    "how",
    "where",
    "who",
    "which",
    "don't",
    "didn't",
    "will",
    "would",
    "should",
    "must",
    "can",
    "could",
    "idea",
    "issue",
    "problem",
    "approach",
    "solution",
    "value",
    "values",
    "option",
    "options",
    "bad",
    "good",
    "better",
    "fine",
    "ok",
    "okay",
    "need",
    "needed",
    "sure",
];

/// Names of one family are one subject: a later "let's use webpack" supersedes "use vite".
const FAMILIES: [(&str, &[&str]); 8] = [
    ("package-manager", &["npm", "pnpm", "yarn", "bun"]),
    (
        "bundler",
        &[
            "vite",
            "webpack",
            "esbuild",
            "rollup",
            "parcel",
            "turbopack",
            "rspack",
        ],
    ),
    (
        "database",
        &[
            "postgres",
            "postgresql",
            "mysql",
            "sqlite",
            "mariadb",
            "mongodb",
        ],
    ),
    (
        "test-runner",
        &["pytest", "jest", "vitest", "mocha", "unittest", "nextest"],
    ),
    (
        "python-env",
        &["uv", "poetry", "pipenv", "conda", "virtualenv", "venv"],
    ),
    (
        "formatter",
        &["prettier", "black", "rustfmt", "gofmt", "biome"],
    ),
    ("linter", &["eslint", "ruff", "pylint", "flake8", "clippy"]),
    (
        "css-framework",
        &["tailwind", "tailwindcss", "bootstrap", "bulma"],
    ),
];

/// The content words of `text` (at most `n`), in order: no stop word, no cue word.
pub fn content_words(text: &str, n: usize) -> Vec<String> {
    text.split(|c: char| c.is_whitespace() || ",()[]{}\"`*:;!?<>=".contains(c))
        .map(|w| {
            w.trim_matches(|c: char| !c.is_alphanumeric())
                .to_lowercase()
        })
        .filter(|w| w.len() > 1 && !STOP.contains(&w.as_str()))
        .filter(|w| w.chars().any(char::is_alphabetic))
        .take(n)
        .collect()
}

/// What an object phrase is about: its head (cut at "which", "because", ", ", … and, once it
/// names two things, at "for", "to", "with", "in"), as a family when it names one, else its first
/// three content words; `None` when it names nothing.
fn subject_of(obj: &str) -> Option<String> {
    const HARD: [&str; 10] = [
        " which ",
        " that ",
        " because ",
        " since ",
        " so that ",
        " so ",
        ", ",
        " and ",
        " but ",
        " (",
    ];
    const SOFT: [&str; 4] = [" for ", " to ", " with ", " in "];
    let lower = format!(" {} ", obj.to_lowercase());
    let first = |cuts: &[&str]| {
        cuts.iter()
            .filter_map(|c| lower[1..].find(c).map(|i| i + 1))
            .filter(|i| *i > 1)
            .min()
            .unwrap_or(lower.len())
    };
    let hard = first(&HARD);
    let mut soft: Vec<usize> = SOFT
        .iter()
        .flat_map(|c| lower.match_indices(c).map(|(i, _)| i))
        .filter(|i| *i > 1 && *i < hard)
        .collect();
    soft.sort_unstable();
    soft.push(hard);
    // One plain word before "for", "to", … says too little ("check for the existence of the
    // file"): the phrase goes on. A name (`AudioWorklet`, `tar.gz`, `v2`) says enough.
    let named = |w: &str| {
        obj.split_whitespace()
            .map(|o| o.trim_matches(|c: char| !c.is_alphanumeric()))
            .find(|o| o.eq_ignore_ascii_case(w))
            .is_some_and(|o| {
                o.chars()
                    .any(|c| c.is_uppercase() || c.is_ascii_digit() || ".-_".contains(c))
            })
    };
    let mut words = Vec::new();
    for end in soft {
        words = content_words(&lower[..end.min(lower.len())], 3);
        if words.len() >= 2 || words.first().is_some_and(|w| named(w)) {
            break;
        }
    }
    for w in &words {
        if let Some((family, _)) = FAMILIES
            .iter()
            .find(|(_, names)| names.contains(&w.as_str()))
        {
            return Some(family.to_string());
        }
    }
    if words.is_empty() {
        return None;
    }
    normalize_key(&words.join("-"))
}

/// The subject of the reason after a clause (`, since the whole conversation is sent again`).
fn because(rest: &str) -> Option<String> {
    let r = rest.trim_start_matches([',', ';', ':', ' ', '-', '—']);
    let lower = r.to_lowercase();
    ["since ", "because ", "as "]
        .iter()
        .find_map(|w| lower.strip_prefix(w))
        .and_then(subject_of)
}

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
