//! Query routing (seed 000 §4, "the narrowest-useful query rule"): literal queries go lexical,
//! conceptual ones hybrid, chronological ones become a date filter or a recency walk.
//!
//! * **Literal** — anything a person copies rather than phrases: quoted strings, flags (`-f`,
//!   `--force`), paths and file names (`src/main.rs`), identifiers (`parse_config`, `parseConfig`,
//!   `std::fs`), error codes and error text (`E0432`, `ENOENT`, `error[`, `Traceback`), words mixing
//!   letters and digits (`sha256`), negations. BM25 finds these exactly; embeddings blur them.
//! * **Conceptual** — plain words: questions and paraphrases. Hybrid (lex + vec) when vectors exist.
//! * **Temporal** — "yesterday", "last week", "in March", "3 days ago" …: [`temporal`] turns the
//!   phrase into a date window and removes it; if nothing but filler words remains ("what was I doing
//!   yesterday"), the query is a recency walk: the newest documents of the window.

use jiff::civil::{Date, Weekday};
use jiff::{Timestamp, ToSpan, Zoned};

use crate::query::span_of;

/// How a query is answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Route by the query's shape: literal → lex, conceptual → hybrid (when vectors exist), temporal
    /// → a date window or a recency walk.
    #[default]
    Auto,
    /// BM25 only; needs no model.
    Lex,
    /// Vector similarity only (vec and hyde sub-queries).
    Vec,
    /// Lexical and vector lists fused with reciprocal rank fusion.
    Hybrid,
    /// Newest documents first, no text matching (what `auto` picks for "what did I do yesterday").
    Recent,
}

impl Mode {
    /// Lower-case name, as in signals and `--json`.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Auto => "auto",
            Mode::Lex => "lex",
            Mode::Vec => "vec",
            Mode::Hybrid => "hybrid",
            Mode::Recent => "recent",
        }
    }
}

/// Error signatures that make a query literal even when its words are plain.
const ERROR_MARKERS: [&str; 9] = [
    "error[",
    "error:",
    "exception",
    "traceback",
    "panicked at",
    "errno",
    "fatal:",
    "segmentation fault",
    "stack trace",
];

/// Does `text` hold a literal token (see the module docs)?
pub fn is_literal(text: &str) -> bool {
    let lower = text.to_lowercase();
    if text.contains('"') || ERROR_MARKERS.iter().any(|m| lower.contains(m)) {
        return true;
    }
    text.split_whitespace().any(literal_token)
}

fn literal_token(t: &str) -> bool {
    // Field filters are syntax, not content.
    if let Some((f, _)) = t.split_once(':')
        && crate::query::FILTER_FIELDS.contains(&f.to_ascii_lowercase().as_str())
    {
        return false;
    }
    let core = t
        .trim_end_matches(['?', '!', ',', ';', ')', '.'])
        .trim_start_matches('(');
    if core.is_empty() {
        return false;
    }
    if core.starts_with('-') {
        return true; // a flag or a negation
    }
    if core.contains([
        '/', '\\', '_', '=', '<', '>', '[', ']', '{', '}', '`', '$', '@', '#', '|',
    ]) || core.contains("::")
        || core.contains("->")
    {
        return true;
    }
    let chars: Vec<char> = core.chars().collect();
    // a.b with letters or digits on both sides: file names, dotted names, versions.
    if chars
        .windows(3)
        .any(|w| w[0].is_alphanumeric() && matches!(w[1], '.' | ':') && w[2].is_alphanumeric())
    {
        return true;
    }
    let letters = chars.iter().any(|c| c.is_alphabetic());
    let digits = chars.iter().any(|c| c.is_ascii_digit());
    if letters && digits {
        return true; // sha256, E0432, v2
    }
    // camelCase / PascalCase inside a word: a lower-case letter followed by an upper-case one.
    if chars
        .windows(2)
        .any(|w| w[0].is_lowercase() && w[1].is_uppercase())
    {
        return true;
    }
    // SHOUTED identifiers: ENOENT, EACCES (three or more capitals, no lower case).
    chars.len() >= 3 && chars.iter().all(|c| c.is_uppercase() || *c == '_')
}

/// A date window found in the query text, and the text without it.
#[derive(Debug, Clone, PartialEq)]
pub struct Temporal {
    /// The query with the temporal phrase removed.
    pub rest: String,
    /// The phrase as written.
    pub phrase: String,
    pub since: Timestamp,
    pub until: Timestamp,
}

/// Words that carry no topic in a chronological question ("what was I working on yesterday").
const FILLER: [&str; 39] = [
    "what",
    "was",
    "were",
    "i",
    "we",
    "did",
    "do",
    "doing",
    "done",
    "work",
    "worked",
    "working",
    "on",
    "show",
    "me",
    "my",
    "our",
    "the",
    "a",
    "an",
    "have",
    "has",
    "had",
    "happened",
    "happen",
    "recent",
    "recently",
    "activity",
    "sessions",
    "session",
    "anything",
    "everything",
    "stuff",
    "things",
    "list",
    "all",
    "from",
    "during",
    "?",
];

/// Is `rest` empty of topic words, so that the query is a recency walk?
pub fn only_filler(rest: &str) -> bool {
    rest.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .all(|w| FILLER.contains(&w.to_lowercase().as_str()))
}

const MONTHS: [&str; 12] = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
];

/// Find a temporal phrase in `text` relative to `now` (see the module docs). Recognized:
/// `today`, `yesterday`, `this|last week|month|year`, `N days|weeks|months ago`,
/// `past|last N days|weeks|months`, `in <month> [year]`, `on|since <weekday>`. Whole words only;
/// the first phrase found wins.
pub fn temporal(text: &str, now: &Zoned) -> Option<Temporal> {
    let words: Vec<&str> = text.split_whitespace().collect();
    let norm: Vec<String> = words
        .iter()
        .map(|w| {
            w.trim_matches(|c: char| !c.is_alphanumeric())
                .to_lowercase()
        })
        .collect();
    let today = now.date();
    for i in 0..norm.len() {
        let w = |k: usize| norm.get(i + k).map_or("", String::as_str);
        let found: Option<(usize, Date, Date)> = match (w(0), w(1), w(2)) {
            ("today", _, _) => Some((1, today, today)),
            ("yesterday", _, _) => today.yesterday().ok().map(|d| (1, d, d)),
            ("this" | "last" | "past", unit @ ("week" | "month" | "year"), _) => {
                window(today, w(0) != "this", unit).map(|(a, b)| (2, a, b))
            }
            (n, unit, "ago") if n.parse::<i64>().is_ok() => back(today, n, unit).map(|d| (3, d, d)),
            ("past" | "last", n, unit) if n.parse::<i64>().is_ok() => {
                back(today, n, unit).map(|d| (3, d, today))
            }
            ("in", m, y) if MONTHS.contains(&m) => {
                let month = MONTHS.iter().position(|x| *x == m).unwrap_or(0) as i8 + 1;
                let (year, used) = match y.parse::<i16>() {
                    Ok(y) if (1970..=9999).contains(&y) => (y, 3),
                    // A month without a year is the latest such month not in the future.
                    _ if month > today.month() => (today.year() - 1, 2),
                    _ => (today.year(), 2),
                };
                Date::new(year, month, 1)
                    .ok()
                    .map(|a| (used, a, a.last_of_month()))
            }
            ("on" | "since", day, _) => weekday(day).and_then(|wd| {
                let mut d = today;
                while d.weekday() != wd {
                    d = d.yesterday().ok()?;
                }
                Some((2, d, if w(0) == "on" { d } else { today }))
            }),
            _ => None,
        };
        if let Some((len, from, to)) = found {
            let tz = now.time_zone().clone();
            let since = from.to_zoned(tz.clone()).ok()?.timestamp();
            let until = to
                .tomorrow()
                .ok()?
                .to_zoned(tz)
                .ok()?
                .timestamp()
                .checked_sub(1.nanosecond())
                .ok()?;
            let rest: Vec<&str> = words[..i]
                .iter()
                .chain(&words[i + len..])
                .copied()
                .collect();
            return Some(Temporal {
                rest: rest.join(" "),
                phrase: words[i..i + len].join(" "),
                since,
                until,
            });
        }
    }
    None
}

/// The day `n` days, weeks or months before `today` (`n` and `unit` as written: `3`, `weeks`);
/// `None` when they are not that, or reach past the calendar (`9999999 days ago`).
fn back(today: Date, n: &str, unit: &str) -> Option<Date> {
    let unit = unit.trim_end_matches('s');
    if !matches!(unit, "day" | "week" | "month") {
        return None;
    }
    today.checked_sub(span_of(n.parse().ok()?, unit)?).ok()
}

/// `this|last week|month|year` as a date window (weeks start on Monday).
fn window(today: Date, last: bool, unit: &str) -> Option<(Date, Date)> {
    match unit {
        "week" => {
            let monday = today
                .checked_sub((today.weekday().to_monday_zero_offset() as i64).days())
                .ok()?;
            if last {
                let start = monday.checked_sub(7.days()).ok()?;
                Some((start, monday.yesterday().ok()?))
            } else {
                Some((monday, today))
            }
        }
        "month" => {
            let first = today.first_of_month();
            if last {
                let prev = first.yesterday().ok()?;
                Some((prev.first_of_month(), prev))
            } else {
                Some((first, today))
            }
        }
        "year" => {
            let y = if last { today.year() - 1 } else { today.year() };
            let start = Date::new(y, 1, 1).ok()?;
            let end = if last {
                Date::new(y, 12, 31).ok()?
            } else {
                today
            };
            Some((start, end))
        }
        _ => None,
    }
}

fn weekday(w: &str) -> Option<Weekday> {
    Some(match w {
        "monday" => Weekday::Monday,
        "tuesday" => Weekday::Tuesday,
        "wednesday" => Weekday::Wednesday,
        "thursday" => Weekday::Thursday,
        "friday" => Weekday::Friday,
        "saturday" => Weekday::Saturday,
        "sunday" => Weekday::Sunday,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn now() -> Zoned {
        // A Wednesday.
        "2026-04-15T12:00:00+00:00[UTC]".parse().expect("zoned")
    }

    #[test]
    fn a_distance_past_the_calendar_is_no_window_and_no_panic() {
        for q in [
            "what broke 9999999 days ago",
            "the last 99999999999 weeks",
            "past 9999999 months",
        ] {
            assert!(temporal(q, &now()).is_none(), "{q}");
        }
        assert!(temporal("what broke 3 days ago", &now()).is_some());
    }

    #[test]
    fn literal_tokens_route_lexical() {
        for q in [
            "src/main.rs panics",
            "qmd embed -f",
            "--no-verify hook",
            "parse_config fails",
            "parseConfig",
            "std::fs::read",
            "error[E0432] unresolved import",
            "ENOENT on open",
            "sha256 of the model",
            "\"lock contention\"",
            "Traceback in the worker",
            "bump to v0.27",
            "config.yaml",
        ] {
            assert!(is_literal(q), "{q}");
        }
    }

    #[test]
    fn plain_questions_are_conceptual() {
        for q in [
            "why did the login keep failing after the token refresh",
            "authorization failures",
            "How do I make the index faster?",
            "what did we decide about the cache",
            "collection:brain lock contention",
            "The end.",
        ] {
            assert!(!is_literal(q), "{q}");
        }
    }

    #[test]
    fn temporal_phrases_become_windows() {
        let t = temporal("what was I doing yesterday", &now()).expect("yesterday");
        assert_eq!(t.phrase, "yesterday");
        assert_eq!(t.rest, "what was I doing");
        assert_eq!(t.since, "2026-04-14T00:00:00Z".parse().expect("ts"));
        assert!(only_filler(&t.rest));

        let t = temporal("cache bug last week", &now()).expect("last week");
        assert_eq!(t.rest, "cache bug");
        assert!(!only_filler(&t.rest));
        assert_eq!(t.since, "2026-04-06T00:00:00Z".parse().expect("ts"));
        assert_eq!(
            t.until,
            "2026-04-12T23:59:59.999999999Z".parse().expect("ts")
        );

        let t = temporal("tantivy in March", &now()).expect("march");
        assert_eq!(t.since, "2026-03-01T00:00:00Z".parse().expect("ts"));
        assert_eq!(
            t.until,
            "2026-03-31T23:59:59.999999999Z".parse().expect("ts")
        );
        let t = temporal("notes in december", &now()).expect("december: last year");
        assert_eq!(t.since, "2025-12-01T00:00:00Z".parse().expect("ts"));
        let t = temporal("in may 2024 the deploy", &now()).expect("may 2024");
        assert_eq!(t.rest, "the deploy");
        assert_eq!(t.since, "2024-05-01T00:00:00Z".parse().expect("ts"));

        let t = temporal("3 days ago", &now()).expect("ago");
        assert_eq!(t.since, "2026-04-12T00:00:00Z".parse().expect("ts"));
        let t = temporal("errors past 2 weeks", &now()).expect("past 2 weeks");
        assert_eq!(t.since, "2026-04-01T00:00:00Z".parse().expect("ts"));
        let t = temporal("since monday", &now()).expect("since monday");
        assert_eq!(t.since, "2026-04-13T00:00:00Z".parse().expect("ts"));
        assert_eq!(
            t.until,
            "2026-04-15T23:59:59.999999999Z".parse().expect("ts")
        );
        let t = temporal("this month", &now()).expect("this month");
        assert_eq!(t.since, "2026-04-01T00:00:00Z".parse().expect("ts"));
    }

    #[test]
    fn ordinary_words_are_not_temporal() {
        assert_eq!(temporal("may the cache lock", &now()), None);
        assert_eq!(temporal("the last step of the build", &now()), None);
        assert_eq!(temporal("week numbers in jiff", &now()), None);
    }
}
