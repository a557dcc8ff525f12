//! What a statement is about: the head of its object phrase, as a family when it names one of the
//! common choices (`vite` / `webpack` → `bundler`: a later choice supersedes an earlier one), else
//! its first content words.

use std::collections::HashSet;
use std::sync::LazyLock;

use super::super::record::normalize_key;

/// Words that say nothing of what a statement is about (articles, pronouns, auxiliaries, the cues'
/// own verbs, generic nouns and adverbs).
const STOP_WORDS: &str = "a an the this that these those it its it's they them their we us our i me my you your he \
     she one ones thing things stuff way bit lot part to of for in on at by from with into as \
     and or but so if then than is are was were be been do does did done make made get use \
     using keep have has go need want let let's see try add create change update set put just \
     also only really actually very much now here there earlier previously before later first \
     again same new existing current other all every each some any more less not no gave \
     given entered proper whole entire time like when why what how where who which don't \
     didn't will would should must can could idea issue problem approach solution value \
     values option options bad good better fine ok okay needed sure";

static STOP: LazyLock<HashSet<&'static str>> =
    LazyLock::new(|| STOP_WORDS.split_whitespace().collect());

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
        .filter(|w| w.len() > 1 && !STOP.contains(w.as_str()))
        .filter(|w| w.chars().any(char::is_alphabetic))
        .take(n)
        .collect()
}

/// What an object phrase is about: its head (cut at "which", "because", ", ", … and, once it
/// names two things, at "for", "to", "with", "in"), as a family when it names one, else its first
/// three content words; `None` when it names nothing.
pub(super) fn subject_of(obj: &str) -> Option<String> {
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
pub(super) fn because(rest: &str) -> Option<String> {
    let r = rest.trim_start_matches([',', ';', ':', ' ', '-', '—']);
    let lower = r.to_lowercase();
    ["since ", "because ", "as "]
        .iter()
        .find_map(|w| lower.strip_prefix(w))
        .and_then(subject_of)
}
