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
//!
//! The language has one lexer ([`lex`]: tokens with their place in the text) and one parse of a
//! plain query ([`Plain`]); what routing cuts out of a query and the zero-hit relaxation are cuts of
//! those tokens (`plain.rs`); time specs are `time.rs`'s.

use jiff::{Timestamp, Zoned};

mod lex;
mod plain;
mod time;

pub use lex::{Lexeme, Token, lex, word_spans};
pub use plain::Plain;
pub use time::{Edge, parse_time, span_of};

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
    /// How many words and phrases it was asked with, when routing took question words out
    /// (`brain_lex::search::LexQuery::asked`); 0: as many as it holds.
    pub asked: usize,
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

impl Query {
    /// The words the lexical index looks for: [`Query::terms`], but a word of CJK text (written
    /// without spaces) as the pairs of characters it holds, each a word of its own
    /// ([`brain_lex::tokenize::query_units`]: `如何复制文件` → `如何 何复 复制 制文 文件`), so a
    /// question matches the pages holding some of its words rather than needing all its characters
    /// in one field. Repeats count once; at most [`MAX_TERMS`].
    pub fn lexical_terms(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::with_capacity(self.terms.len());
        for w in &self.terms {
            if !w.chars().any(brain_lex::tokenize::is_cjk) {
                out.push(w.clone());
                continue;
            }
            for (from, to) in brain_lex::tokenize::query_units(w) {
                let part = &w[from..to];
                if !out.iter().any(|t| t.eq_ignore_ascii_case(part)) {
                    out.push(part.to_string());
                }
            }
        }
        out.truncate(MAX_TERMS);
        out
    }

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
mod tests;
