//! The query language of `rank` and `brain ask`.
//!
//! ```text
//! tantivy mmap "lock contention" -draft project:brain agent:claude collection:brain since:7d
//! ```
//!
//! * plain words are OR-ed; documents matching *all* of them get a strong boost;
//! * `"a phrase"` must appear as written;
//! * `-word` / `-"a phrase"` must not appear. A single-letter flag such as `-f` and anything starting
//!   with `--` stay literal words (people search for command lines), as does `\-word`;
//! * `collection:NAME` (or `c:`), `project:NAME`, `agent:NAME` filter inside the search (repeat a field
//!   to allow several values); `since:SPEC` / `until:SPEC` bound the document date, where SPEC is
//!   `24h`, `7d`, `2w`, `3mo`, `1y`, `today`, `yesterday`, `YYYY-MM-DD` or an RFC 3339 timestamp;
//! * any other `word:word` (`std::fs`, `http://…`) is a plain word.

use jiff::{Span, Timestamp, Zoned, civil::Date, tz::TimeZone};

/// Why a query could not be understood (exit 64).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum QueryError {
    #[error("the query is empty")]
    Empty,
    #[error("the query only excludes (`-word`); add at least one word or phrase to look for")]
    OnlyNegations,
    #[error("unterminated quote in the query: {0}")]
    UnterminatedQuote(String),
    #[error("`{field}:` needs a value")]
    EmptyFilter { field: String },
    #[error(
        "cannot read `{0}` as a time: use 10m, 24h, 7d, 2w, 3mo, 1y, today, yesterday, YYYY-MM-DD or RFC 3339"
    )]
    BadTime(String),
    #[error("`tier:{0}`: a tier is hot, warm or cold")]
    BadTier(String),
    #[error("the query is {bytes} bytes; the most a query may hold is {MAX_QUERY_BYTES}")]
    TooLong { bytes: usize },
}

/// Longest query text accepted, in bytes; a longer one is refused (exit 64). Our choice
/// (2026-11-24): a question or a pasted error is a few hundred bytes; 64 KiB holds a long stack trace.
pub const MAX_QUERY_BYTES: usize = 64 * 1024;

/// Most distinct words and phrases one query searches with, and most exclusions; the rest are left
/// out and counted in [`Query::dropped`]. Our choice (2026-11-24): a 60,000-word paste took 47 s and
/// 860 MB in `brain ask` before any cap; 64 terms cover any question a person types.
pub const MAX_TERMS: usize = 64;

/// A parsed query.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Query {
    /// Words to look for (OR semantics, conjunction boosted).
    pub terms: Vec<String>,
    /// Phrases that must appear.
    pub phrases: Vec<String>,
    /// Words or phrases that must not appear.
    pub exclude: Vec<String>,
    /// Filters applied inside the search.
    pub filters: Filters,
    /// Distinct words, phrases and exclusions left out past [`MAX_TERMS`] (repeats are merged
    /// first, and never counted).
    pub dropped: usize,
}

/// Restrictions applied inside the search (never as a post-filter).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Filters {
    /// Allowed collections (any of); empty = all.
    pub collections: Vec<String>,
    /// Allowed projects (any of); empty = all.
    pub projects: Vec<String>,
    /// Allowed agents (any of); empty = all.
    pub agents: Vec<String>,
    /// Documents dated at or after this instant.
    pub since: Option<Timestamp>,
    /// Documents dated at or before this instant.
    pub until: Option<Timestamp>,
    /// Allowed memory `type`s, lower-cased (any of); empty = all.
    pub types: Vec<String>,
    /// Tags, lower-cased (any of); empty = all.
    pub tags: Vec<String>,
    /// Show superseded, expired and archived records too (`--include-superseded`).
    pub include_superseded: bool,
    /// What was current at this instant (`--as-of`): records superseded or expired since come
    /// back, records that happened later go.
    pub as_of: Option<Timestamp>,
    /// Only documents that refer to one of these (`ref:src/auth.rs`: a file the session touched or
    /// a note names, a URL; any of); empty = all.
    pub refs: Vec<String>,
    /// Allowed decay tiers (any of); empty = all. Cold records stay searchable.
    pub tiers: Vec<brain_store::access::Tier>,
    /// The tiers resolved by the engine (one registry read of the records with counts, per
    /// request), never parsed from a query.
    pub tier_filter: Option<std::sync::Arc<brain_store::access::TierFilter>>,
    /// Only guaranteed records: pinned, importance 5, or of these collections (role `memory`);
    /// set by `brain context`, never parsed from a query.
    pub guaranteed: Option<Vec<String>>,
}

impl Query {
    /// Parse `text`; relative times (`7d`) count back from `now`. A repeated word, phrase or
    /// exclusion counts once; past [`MAX_TERMS`] the rest are dropped (see [`Query::dropped`]); a
    /// text over [`MAX_QUERY_BYTES`] is refused.
    pub fn parse(text: &str, now: &Zoned) -> Result<Query, QueryError> {
        let q = Query::parse_unchecked(text, now)?;
        q.check()?;
        Ok(q)
    }

    /// [`Query::parse`] without its [`Query::check`]: a query of filters alone (`project:billing`)
    /// parses — the recency walk answers it.
    pub fn parse_unchecked(text: &str, now: &Zoned) -> Result<Query, QueryError> {
        if text.len() > MAX_QUERY_BYTES {
            return Err(QueryError::TooLong { bytes: text.len() });
        }
        Query::from_lexemes(&lex(text)?, now)
    }

    /// The query of tokens already lexed (a part of a lexed text: routing cuts a time phrase or
    /// question scaffolding out of the tokens, it never lexes the text again). Unchecked, as
    /// [`Query::parse_unchecked`].
    pub fn from_lexemes(lexemes: &[Lexeme], now: &Zoned) -> Result<Query, QueryError> {
        let mut q = Query::default();
        let mut seen = std::collections::HashSet::new();
        for l in lexemes {
            let (kind, list, item) = match &l.token {
                Token::Word(w) => (0u8, &mut q.terms, w),
                Token::Phrase(p) => (1, &mut q.phrases, p),
                Token::Not(w) => (2, &mut q.exclude, w),
                Token::Field(field, value) => {
                    q.filters.add(field, value, now)?;
                    continue;
                }
            };
            if seen.insert((kind, item.to_lowercase())) {
                list.push(item.clone());
            }
        }
        q.cap();
        Ok(q)
    }

    /// Filters and nothing to look for (no word, phrase or exclusion).
    pub fn only_filters(&self) -> bool {
        self.terms.is_empty()
            && self.phrases.is_empty()
            && self.exclude.is_empty()
            && self.filters != Filters::default()
    }

    /// Keep at most [`MAX_TERMS`] words and phrases (phrases first: they are the most specific) and
    /// [`MAX_TERMS`] exclusions; count what was left out.
    fn cap(&mut self) {
        let phrases = self.phrases.len().min(MAX_TERMS);
        let terms = self.terms.len().min(MAX_TERMS - phrases);
        let exclude = self.exclude.len().min(MAX_TERMS);
        self.dropped = (self.phrases.len() - phrases)
            + (self.terms.len() - terms)
            + (self.exclude.len() - exclude);
        self.phrases.truncate(phrases);
        self.terms.truncate(terms);
        self.exclude.truncate(exclude);
    }

    /// Reject a query with nothing positive to look for.
    pub fn check(&self) -> Result<(), QueryError> {
        if self.terms.is_empty() && self.phrases.is_empty() {
            return Err(if self.exclude.is_empty() {
                QueryError::Empty
            } else {
                QueryError::OnlyNegations
            });
        }
        Ok(())
    }
}

impl Filters {
    /// Add the filter `field:value` (field one of [`FILTER_FIELDS`]).
    pub fn add(&mut self, field: &str, value: &str, now: &Zoned) -> Result<(), QueryError> {
        if value.is_empty() {
            return Err(QueryError::EmptyFilter {
                field: field.into(),
            });
        }
        match field {
            "collection" | "c" => self.collections.push(value.into()),
            "project" => self.projects.push(value.into()),
            "agent" => self.agents.push(value.into()),
            "type" => self.types.push(value.to_lowercase()),
            "tag" => self.tags.push(value.trim_start_matches('#').to_lowercase()),
            "ref" => {
                let r = brain_lex::ref_query(value);
                if !r.is_empty() && !self.refs.contains(&r) {
                    self.refs.push(r);
                }
            }
            "tier" => {
                let t = brain_store::access::Tier::parse(value)
                    .ok_or_else(|| QueryError::BadTier(value.into()))?;
                if !self.tiers.contains(&t) {
                    self.tiers.push(t);
                }
            }
            "since" => self.since = Some(parse_time(value, now, Edge::Start)?),
            "until" => self.until = Some(parse_time(value, now, Edge::End)?),
            _ => {}
        }
        Ok(())
    }
}

/// The `field:` prefixes the parser treats as filters.
pub const FILTER_FIELDS: [&str; 10] = [
    "collection",
    "c",
    "project",
    "agent",
    "since",
    "until",
    "type",
    "tag",
    "tier",
    "ref",
];

/// Which end of a calendar day a bare date means: `since:2026-01-02` starts at its midnight,
/// `until:2026-01-02` includes the whole day.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Edge {
    Start,
    End,
}

/// Parse a time spec (see the module docs) relative to `now`, in `now`'s time zone.
pub fn parse_time(spec: &str, now: &Zoned, edge: Edge) -> Result<Timestamp, QueryError> {
    let bad = || QueryError::BadTime(spec.into());
    let s = spec.trim().to_ascii_lowercase();
    // A date is a date, up to the end of jiff's range: 9999-12-31 is past its last instant
    // (9999-12-30T22:00Z), so a day at either end of the range is clamped to it, not refused.
    let day = |d: Date| -> Result<Timestamp, QueryError> {
        let tz: TimeZone = now.time_zone().clone();
        let start = match d.to_zoned(tz) {
            Ok(z) => z,
            Err(_) if d.year() >= 9999 => return Ok(Timestamp::MAX),
            Err(_) if d.year() <= -9999 => return Ok(Timestamp::MIN),
            Err(_) => return Err(bad()),
        };
        match edge {
            Edge::Start => Ok(start.timestamp()),
            Edge::End => Ok(start.end_of_day().map_or(Timestamp::MAX, |z| z.timestamp())),
        }
    };
    match s.as_str() {
        "today" => return day(now.date()),
        "yesterday" => return day(now.date().yesterday().map_err(|_| bad())?),
        _ => {}
    }
    if let Some(span) = relative(&s) {
        return now
            .checked_sub(span)
            .map(|z| z.timestamp())
            .map_err(|_| bad());
    }
    if let Ok(d) = s.parse::<Date>() {
        return day(d);
    }
    spec.trim().parse::<Timestamp>().map_err(|_| bad())
}

/// `24h`, `7d`, `2w`, `3mo`, `1y` as a span; `None` if `s` is not of that shape or out of range.
fn relative(s: &str) -> Option<Span> {
    let split = s.find(|c: char| !c.is_ascii_digit())?;
    let (num, unit) = s.split_at(split);
    span_of(num.parse().ok()?, unit)
}

/// `n` of `unit` (`h`/`hour`, `d`/`day`, `w`/`week`, `mo`/`month`, `y`/`year`) as a span; `None` for
/// another unit, or an `n` past what a span can hold (`9999999d`: jiff's `n.days()` panics there,
/// `try_days` says so).
pub fn span_of(n: i64, unit: &str) -> Option<Span> {
    let s = Span::new();
    match unit {
        // `m` is minutes (`10m`); months are `mo` (`3mo`).
        "m" | "min" | "minute" => s.try_minutes(n),
        "h" | "hour" => s.try_hours(n),
        "d" | "day" => s.try_days(n),
        "w" | "week" => s.try_weeks(n),
        "mo" | "month" => s.try_months(n),
        "y" | "year" => s.try_years(n),
        _ => return None,
    }
    .ok()
}

/// What one chunk of query text is.
#[derive(Debug, Clone, PartialEq)]
pub enum Token {
    Word(String),
    Phrase(String),
    Not(String),
    Field(String, String),
}

/// One token of a query and the byte range of its chunk in the text, as written (a `"quoted
/// phrase"` is one chunk, spaces and all).
#[derive(Debug, Clone, PartialEq)]
pub struct Lexeme {
    pub token: Token,
    pub span: std::ops::Range<usize>,
}

/// The byte ranges of the whitespace-separated words of `text` (the words routing reads, where
/// they stand): what routing cuts out of a query ([`Plain::without`]) is given as these.
pub fn word_spans(text: &str) -> Vec<std::ops::Range<usize>> {
    text.split_whitespace()
        .map(|w| {
            let at = w.as_ptr() as usize - text.as_ptr() as usize;
            at..at + w.len()
        })
        .collect()
}

/// The query language's one lexer: `text` as tokens, honouring quotes (see the module docs).
/// Every reading of a query — the request's parse, routing's cuts, the zero-hit relaxation — works
/// on these tokens; nothing else splits a query's text by hand.
pub fn lex(text: &str) -> Result<Vec<Lexeme>, QueryError> {
    let _t = brain_doc::timings::span("query.lex");
    let mut out = Vec::new();
    let mut rest = text.trim_start();
    while !rest.is_empty() {
        let at = text.len() - rest.len();
        let (raw, after) = next_raw(rest)?;
        rest = after.trim_start();
        if let Some(token) = classify(&raw) {
            out.push(Lexeme {
                token,
                span: at..at + raw.len(),
            });
        }
    }
    Ok(out)
}

/// One whitespace-separated chunk, where a quoted part may hold spaces; returns (chunk, remainder).
fn next_raw(s: &str) -> Result<(String, &str), QueryError> {
    let mut chunk = String::new();
    let mut chars = s.char_indices();
    while let Some((i, c)) = chars.next() {
        if c.is_whitespace() {
            return Ok((chunk, &s[i..]));
        }
        if c == '"' {
            chunk.push('"');
            let mut closed = false;
            for (_, c2) in chars.by_ref() {
                chunk.push(c2);
                if c2 == '"' {
                    closed = true;
                    break;
                }
            }
            if !closed {
                return Err(QueryError::UnterminatedQuote(s.trim().into()));
            }
        } else {
            chunk.push(c);
        }
    }
    Ok((chunk, ""))
}

fn unquote(s: &str) -> Option<String> {
    let inner = s.strip_prefix('"')?.strip_suffix('"')?;
    Some(inner.trim().to_string())
}

fn classify(raw: &str) -> Option<Token> {
    if let Some(lit) = raw.strip_prefix('\\') {
        return (!lit.is_empty()).then(|| Token::Word(lit.into()));
    }
    if let Some(p) = unquote(raw) {
        return (!p.is_empty()).then_some(Token::Phrase(p));
    }
    if let Some(neg) = raw.strip_prefix('-')
        && !neg.starts_with('-')
        && neg.chars().count() >= 2
    {
        let neg = unquote(neg).unwrap_or_else(|| neg.to_string());
        return (!neg.is_empty()).then_some(Token::Not(neg));
    }
    if let Some((field, value)) = raw.split_once(':')
        && FILTER_FIELDS.contains(&field.to_ascii_lowercase().as_str())
    {
        let value = unquote(value).unwrap_or_else(|| value.to_string());
        return Some(Token::Field(field.to_ascii_lowercase(), value));
    }
    // A quote inside a word (`don"t`) is just text.
    Some(Token::Word(raw.to_string()))
}

/// A plain query (words, phrases, exclusions, filters): its text, its tokens and its parse, made
/// once by [`Plain::parse`]. What routing takes out of it (a time phrase, question scaffolding) and
/// the zero-hit relaxation are cuts of its tokens ([`Plain::without`], [`Plain::relaxed`]): the
/// text is never lexed again.
#[derive(Debug, Clone)]
pub struct Plain {
    pub text: String,
    pub lexemes: Vec<Lexeme>,
    pub query: Query,
}

impl Plain {
    /// Lex and parse `text` (trimmed), unchecked: filters alone parse (see
    /// [`Query::parse_unchecked`]).
    pub fn parse(text: &str, now: &Zoned) -> Result<Plain, QueryError> {
        let text = text.trim();
        if text.len() > MAX_QUERY_BYTES {
            return Err(QueryError::TooLong { bytes: text.len() });
        }
        let lexemes = lex(text)?;
        let query = Query::from_lexemes(&lexemes, now)?;
        Ok(Plain {
            text: text.to_string(),
            lexemes,
            query,
        })
    }

    /// The query left when the words at `cut` (byte ranges of words of [`Plain::text`], as
    /// [`word_spans`] gives them) are taken out: a token goes when every word of it
    /// is cut, so a time phrase or scaffolding inside a `"quoted phrase"` leaves the phrase whole.
    /// The text left is the kept tokens as written, one space apart.
    pub fn without(
        &self,
        cut: &[std::ops::Range<usize>],
        now: &Zoned,
    ) -> Result<Plain, QueryError> {
        let inside =
            |w: &std::ops::Range<usize>| cut.iter().any(|c| c.start <= w.start && w.end <= c.end);
        let kept = self.lexemes.iter().filter(|l| {
            let raw = &self.text[l.span.clone()];
            !word_spans(raw)
                .iter()
                .map(|w| w.start + l.span.start..w.end + l.span.start)
                .all(|w| inside(&w))
        });
        Plain::rebuild(
            kept.map(|l| (l.token.clone(), self.text[l.span.clone()].to_string())),
            now,
        )
    }

    /// The zero-hit relaxation rule, in auto mode: the phrases searched as words, the exclusions
    /// dropped; and what was relaxed, for the warning. `None` when the query has neither, or when
    /// nothing would be left to look for.
    pub fn relaxed(&self, now: &Zoned) -> Option<(Plain, String)> {
        let q = &self.query;
        if q.phrases.is_empty() && q.exclude.is_empty() {
            return None;
        }
        let mut what = Vec::new();
        if !q.phrases.is_empty() {
            what.push(format!(
                "the exact phrase{} {}",
                if q.phrases.len() == 1 { "" } else { "s" },
                q.phrases
                    .iter()
                    .map(|p| format!("\"{p}\""))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        if !q.exclude.is_empty() {
            what.push(format!("with -{} excluded", q.exclude.join(" -")));
        }
        let mut tokens: Vec<(Token, String)> = Vec::new();
        for l in &self.lexemes {
            let raw = &self.text[l.span.clone()];
            match &l.token {
                Token::Not(_) => {}
                Token::Field(..) => tokens.push((l.token.clone(), raw.to_string())),
                Token::Word(w) if !raw.contains('"') => {
                    tokens.push((Token::Word(w.clone()), raw.to_string()))
                }
                Token::Word(w) | Token::Phrase(w) => {
                    for word in w.replace('"', "").split_whitespace() {
                        tokens.push((Token::Word(word.to_string()), word.to_string()));
                    }
                }
            }
        }
        let relaxed = Plain::rebuild(tokens.into_iter(), now).ok()?;
        if relaxed.query.terms.is_empty() {
            return None;
        }
        Some((relaxed, what.join(" ")))
    }

    /// A plain query of tokens and their text as written, one space apart.
    fn rebuild(
        tokens: impl Iterator<Item = (Token, String)>,
        now: &Zoned,
    ) -> Result<Plain, QueryError> {
        let mut text = String::new();
        let mut lexemes = Vec::new();
        for (token, raw) in tokens {
            if !text.is_empty() {
                text.push(' ');
            }
            let at = text.len();
            text.push_str(&raw);
            lexemes.push(Lexeme {
                token,
                span: at..text.len(),
            });
        }
        let query = Query::from_lexemes(&lexemes, now)?;
        Ok(Plain {
            text,
            lexemes,
            query,
        })
    }
}

impl Query {
    /// The query's positive words and phrases as plain text (what the vector side embeds).
    pub fn positive_text(&self) -> String {
        self.terms
            .iter()
            .chain(&self.phrases)
            .cloned()
            .collect::<Vec<_>>()
            .join(" ")
    }
}

impl Filters {
    /// Add `other`'s restrictions to these (lists are unioned; a bound is kept when already set).
    pub fn merge(&mut self, other: &Filters) {
        let add = |a: &mut Vec<String>, b: &[String]| {
            for x in b {
                if !a.contains(x) {
                    a.push(x.clone());
                }
            }
        };
        add(&mut self.collections, &other.collections);
        add(&mut self.projects, &other.projects);
        add(&mut self.agents, &other.agents);
        add(&mut self.types, &other.types);
        add(&mut self.tags, &other.tags);
        add(&mut self.refs, &other.refs);
        self.since = self.since.or(other.since);
        self.until = self.until.or(other.until);
        self.include_superseded |= other.include_superseded;
        self.as_of = self.as_of.or(other.as_of);
        for t in &other.tiers {
            if !self.tiers.contains(t) {
                self.tiers.push(*t);
            }
        }
        if self.tier_filter.is_none() {
            self.tier_filter = other.tier_filter.clone();
        }
        if self.guaranteed.is_none() {
            self.guaranteed = other.guaranteed.clone();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn now() -> Zoned {
        "2026-04-10T12:00:00+00:00[UTC]".parse().expect("zoned")
    }

    fn parse(s: &str) -> Query {
        Query::parse(s, &now()).expect("parse")
    }

    #[test]
    fn repeats_count_once_and_a_flood_of_words_is_cut_not_searched() {
        let q = parse("Lock lock LOCK \"a b\" \"A B\" -draft -DRAFT writer");
        assert_eq!(q.terms, ["Lock", "writer"]);
        assert_eq!((q.phrases.len(), q.exclude.len(), q.dropped), (1, 1, 0));
        let flood: Vec<String> = (0..10_000).map(|i| format!("w{i}")).collect();
        let q = parse(&flood.join(" "));
        assert_eq!((q.terms.len(), q.dropped), (MAX_TERMS, 10_000 - MAX_TERMS));
        assert_eq!(q.terms[0], "w0");
        let too_long = "x ".repeat(MAX_QUERY_BYTES);
        assert_eq!(
            Query::parse(&too_long, &now()),
            Err(QueryError::TooLong {
                bytes: 2 * MAX_QUERY_BYTES
            })
        );
    }

    /// `n.days()` panics past jiff's range: these were exit 101 in ask, rank, recent, stats and MCP.
    #[test]
    fn out_of_range_relative_times_are_bad_times_not_panics() {
        for spec in [
            "9999999d",
            "99999y",
            "999999999w",
            "99999999999999999999h",
            "9999999mo",
        ] {
            assert_eq!(
                parse_time(spec, &now(), Edge::Start),
                Err(QueryError::BadTime(spec.into())),
                "{spec}"
            );
            assert!(Query::parse(&format!("x since:{spec}"), &now()).is_err());
        }
        assert!(parse_time("30d", &now(), Edge::Start).is_ok());
    }

    #[test]
    fn words_phrases_negations_and_filters_are_told_apart() {
        let q = parse(
            r#"tantivy "lock contention" -draft -"old plan" project:brain c:inbox agent:claude"#,
        );
        assert_eq!(q.terms, vec!["tantivy"]);
        assert_eq!(q.phrases, vec!["lock contention"]);
        assert_eq!(q.exclude, vec!["draft", "old plan"]);
        assert_eq!(q.filters.projects, vec!["brain"]);
        assert_eq!(q.filters.collections, vec!["inbox"]);
        assert_eq!(q.filters.agents, vec!["claude"]);
    }

    #[test]
    fn command_line_flags_and_colons_stay_literal() {
        let q = parse(r#"qmd embed -f --force std::fs http://x.y \-draft"#);
        assert_eq!(
            q.terms,
            vec![
                "qmd",
                "embed",
                "-f",
                "--force",
                "std::fs",
                "http://x.y",
                "-draft"
            ]
        );
        assert!(q.exclude.is_empty());
    }

    #[test]
    fn relative_and_absolute_times() {
        let q = parse("x since:7d until:2026-04-09");
        assert_eq!(
            q.filters.since,
            Some("2026-04-03T12:00:00Z".parse().expect("ts"))
        );
        assert_eq!(
            q.filters.until,
            Some("2026-04-09T23:59:59.999999999Z".parse().expect("ts"))
        );
        let t = parse_time("24h", &now(), Edge::Start).expect("24h");
        assert_eq!(t, "2026-04-09T12:00:00Z".parse::<Timestamp>().expect("ts"));
        let t = parse_time("yesterday", &now(), Edge::Start).expect("yesterday");
        assert_eq!(t, "2026-04-09T00:00:00Z".parse::<Timestamp>().expect("ts"));
        let t = parse_time("2026-01-02T03:04:05Z", &now(), Edge::End).expect("rfc3339");
        assert_eq!(t, "2026-01-02T03:04:05Z".parse::<Timestamp>().expect("ts"));
        let t = parse_time("2026-01-02", &now(), Edge::End).expect("a day's end");
        assert_eq!(
            t,
            "2026-01-02T23:59:59.999999999Z"
                .parse::<Timestamp>()
                .expect("ts")
        );
        // The ends of the calendar are dates too (issue 37: 9999-12-31 was "unreadable").
        for edge in [Edge::Start, Edge::End] {
            assert_eq!(parse_time("9999-12-31", &now(), edge), Ok(Timestamp::MAX));
        }
        assert!(parse_time("0001-01-01", &now(), Edge::Start).is_ok());
        // Minutes are a unit people use (issue 38); months stay `mo`.
        let t = parse_time("10m", &now(), Edge::Start).expect("10m");
        assert_eq!(t, "2026-04-10T11:50:00Z".parse::<Timestamp>().expect("ts"));
        let t = parse_time("90min", &now(), Edge::Start).expect("90min");
        assert_eq!(t, "2026-04-10T10:30:00Z".parse::<Timestamp>().expect("ts"));
        assert!(
            parse_time("3mo", &now(), Edge::Start)
                .is_ok_and(|t| t < "2026-02-01T00:00:00Z".parse().expect("ts"))
        );
    }

    #[test]
    fn bad_queries_are_rejected_with_a_reason() {
        let n = now();
        assert_eq!(Query::parse("   ", &n), Err(QueryError::Empty));
        assert_eq!(Query::parse("-draft", &n), Err(QueryError::OnlyNegations));
        assert!(matches!(
            Query::parse(r#"say "hello"#, &n),
            Err(QueryError::UnterminatedQuote(_))
        ));
        assert!(matches!(
            Query::parse("x since:lately", &n),
            Err(QueryError::BadTime(_))
        ));
        assert!(matches!(
            Query::parse("x project:", &n),
            Err(QueryError::EmptyFilter { .. })
        ));
    }

    /// The zero-hit relaxation is a cut of the tokens: a table of (query, relaxed text, terms).
    #[test]
    fn relaxing_searches_phrases_as_words_and_drops_exclusions_without_lexing_again() {
        let n = now();
        for (text, relaxed, terms) in [
            (
                r#""lock contention" writer"#,
                "lock contention writer",
                vec!["lock", "contention", "writer"],
            ),
            (r#"tantivy -draft -"old plan""#, "tantivy", vec!["tantivy"]),
            // A command-line flag is a word, not an exclusion: it stays (the hand lexer dropped it).
            (
                r#""exact words" --force -f"#,
                "exact words --force -f",
                vec!["exact", "words", "--force", "-f"],
            ),
            (
                r#""a phrase" project:brain"#,
                "a phrase project:brain",
                vec!["a", "phrase"],
            ),
        ] {
            let p = Plain::parse(text, &n).expect("parse");
            let (r, _) = p.relaxed(&n).expect("relaxed");
            assert_eq!(
                (r.text.as_str(), r.query.terms.clone()),
                (relaxed, terms.iter().map(|t| t.to_string()).collect()),
                "{text}"
            );
            assert!(r.query.phrases.is_empty() && r.query.exclude.is_empty());
            for l in &r.lexemes {
                assert!(
                    !r.text[l.span.clone()].is_empty(),
                    "{text}: spans index the new text"
                );
            }
        }
        assert!(
            Plain::parse("plain words", &n)
                .expect("p")
                .relaxed(&n)
                .is_none()
        );
        assert!(
            Plain::parse(r#""x" -y"#, &n)
                .expect("p")
                .relaxed(&n)
                .is_some()
        );
        assert!(
            Plain::parse("-only -excluded project:x", &n)
                .expect("p")
                .relaxed(&n)
                .is_none()
        );
    }

    /// Cutting words out keeps a token unless every word of it is cut: a time phrase inside a
    /// quoted phrase leaves the phrase whole (re-lexing the rest made it an unterminated quote).
    #[test]
    fn a_cut_takes_whole_tokens_only() {
        let n = now();
        let cut = |text: &str, words: &[&str]| {
            let p = Plain::parse(text, &n).expect("parse");
            let spans: Vec<_> = word_spans(text)
                .into_iter()
                .filter(|s| words.contains(&&text[s.clone()]))
                .collect();
            p.without(&spans, &n).expect("cut")
        };
        let r = cut("tantivy lock last week", &["last", "week"]);
        assert_eq!((r.text.as_str(), r.query.terms.len()), ("tantivy lock", 2));
        let r = cut(r#""deploy last week" notes last"#, &["last", "week\""]);
        assert_eq!(r.text, r#""deploy last week" notes"#);
        assert_eq!(r.query.phrases, ["deploy last week"]);
        let r = cut("a -bad c since:7d", &["c"]);
        assert_eq!(
            (r.text.as_str(), r.query.exclude.len()),
            ("a -bad since:7d", 1)
        );
        assert!(r.query.filters.since.is_some());
    }

    #[test]
    fn filter_values_may_be_quoted() {
        let q = parse(r#"x project:"my app""#);
        assert_eq!(q.filters.projects, vec!["my app"]);
    }
}
