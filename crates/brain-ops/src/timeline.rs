//! `brain timeline ANCHOR` and MCP `timeline` (issue 40): what happened just before and after a
//! moment, across every agent's sessions, notes, records and the browser's days — claude-mem's
//! search → timeline → get, across agents and reading.
//!
//! The anchor is a time (`2026-03-04`, RFC 3339, `yesterday`, `3d`) or a document: a hit's
//! `brain://collection/path[:line]`, a `#docid`, a record's name, an agent's session id (the
//! moment is the document's date). Bounded by count (`--before`, `--after`) and by window (the
//! hours on each side); documents are placed by their date, a session by its start, and a session
//! still running across the moment counts as before it.

use brain_doc::{ErrorCode, Hit};
use brain_rank::query::{Edge, parse_time};
use brain_rank::{Engine, Filters};
use brain_resolve::{OpenIds, Resolver};
use jiff::{Timestamp, Zoned};
use serde::Serialize;

/// Default count on each side.
pub const DEFAULT_COUNT: usize = 5;
/// Default window on each side, in hours.
pub const DEFAULT_WINDOW_HOURS: i64 = 48;
/// Most documents on each side and the longest window (a year) a timeline reads.
pub const MAX_COUNT: usize = 100;
pub const MAX_WINDOW_HOURS: i64 = 24 * 366;
/// Documents read on the far side of the window to find the nearest ones after the moment.
const READ: usize = 2_000;

/// What to show around.
#[derive(Debug, Clone)]
pub struct Options {
    pub anchor: String,
    pub before: usize,
    pub after: usize,
    pub window_hours: i64,
}

/// The anchor as resolved.
#[derive(Debug, Clone, Serialize)]
pub struct Anchor {
    /// As given.
    pub text: String,
    /// The moment, RFC 3339.
    pub at: String,
    /// The document it named, when it named one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub doc: Option<Hit>,
}

/// The timeline: the documents before the moment (oldest first) and after it (oldest first).
#[derive(Debug, Clone, Serialize)]
pub struct Timeline {
    /// Always `"timeline"`.
    pub kind: &'static str,
    pub anchor: Anchor,
    pub window_hours: i64,
    pub before: Vec<Hit>,
    pub after: Vec<Hit>,
}

/// Why a timeline could not be made.
#[derive(Debug, thiserror::Error)]
pub enum TimelineError {
    #[error("{0}")]
    Bad(String),
    #[error(
        "nothing is named `{0}`: not a time, a brain:// address, a #docid, a record's name or a session id"
    )]
    NotFound(String),
    #[error(transparent)]
    Run(#[from] brain_rank::RunError),
    #[error(transparent)]
    Rank(#[from] brain_rank::RankError),
}

impl brain_doc::Classified for TimelineError {
    fn code(&self) -> ErrorCode {
        match self {
            TimelineError::Bad(_) => ErrorCode::BadQuery,
            TimelineError::NotFound(_) => ErrorCode::NoResults,
            TimelineError::Run(e) => e.code(),
            TimelineError::Rank(e) => e.code(),
        }
    }

    fn fix(&self) -> String {
        match self {
            TimelineError::Bad(_) | TimelineError::NotFound(_) => {
                "give a time (2026-03-04, yesterday, RFC 3339) or a hit's brain://…:line".into()
            }
            TimelineError::Run(e) => e.fix(),
            TimelineError::Rank(e) => e.fix(),
        }
    }
}

/// The timeline around `opts.anchor`.
pub fn timeline(engine: &Engine, opts: &Options, now: &Zoned) -> Result<Timeline, TimelineError> {
    if opts.before > MAX_COUNT || opts.after > MAX_COUNT {
        return Err(TimelineError::Bad(format!(
            "at most {MAX_COUNT} documents on each side"
        )));
    }
    if !(1..=MAX_WINDOW_HOURS).contains(&opts.window_hours) {
        return Err(TimelineError::Bad(format!(
            "--window: 1 to {MAX_WINDOW_HOURS} hours"
        )));
    }
    let text = opts.anchor.trim();
    if text.is_empty() || text.len() > 4096 {
        return Err(TimelineError::Bad(
            "give an anchor (a time or a document)".into(),
        ));
    }
    let ranker = engine.ranker()?;
    let (at, doc) = match parse_time(text, now, Edge::Start) {
        Ok(t) => (t, None),
        Err(_) => {
            let id = resolve(engine, text)?;
            let hit = ranker
                .document(&id, now.timestamp())?
                .ok_or_else(|| TimelineError::NotFound(text.to_string()))?;
            let t = brain_doc::file::parse_date(&hit.date)
                .and_then(|s| Timestamp::from_second(s).ok())
                .ok_or_else(|| TimelineError::Bad(format!("{id} has no date")))?;
            (t, Some(hit))
        }
    };
    let window = jiff::SignedDuration::from_hours(opts.window_hours);
    let anchor_id = doc.as_ref().map(|h| format!("{}/{}", h.collection, h.path));
    let not_anchor = |h: &Hit| Some(format!("{}/{}", h.collection, h.path)) != anchor_id;
    let secs = |h: &Hit| brain_doc::file::parse_date(&h.date).unwrap_or(i64::MIN);
    let before_filters = Filters {
        since: at.checked_sub(window).ok(),
        until: Some(at),
        ..Filters::default()
    };
    let mut before: Vec<Hit> = ranker
        .latest(&before_filters, opts.before + 1, now.timestamp())?
        .into_iter()
        .filter(not_anchor)
        .take(opts.before)
        .collect();
    before.reverse();
    let after_filters = Filters {
        since: Some(at),
        until: at.checked_add(window).ok(),
        ..Filters::default()
    };
    let later: Vec<Hit> = ranker
        .latest(&after_filters, READ, now.timestamp())?
        .into_iter()
        .filter(|h| secs(h) > at.as_second())
        .filter(not_anchor)
        .collect();
    let mut after: Vec<Hit> = later.into_iter().rev().take(opts.after).collect();
    after.sort_by_key(secs);
    // A browser day is placed by its visits, each at its time, not at the day's midnight.
    let config = engine
        .config()
        .cloned()
        .unwrap_or_else(|| brain_store::Config::defaults(engine.home()));
    if before.iter().chain(&after).any(|h| is_browser(&config, h)) {
        let all: Vec<Hit> = before.drain(..).chain(after.drain(..)).collect();
        let (lo, hi) = (
            at.as_second() - window.as_secs(),
            at.as_second() + window.as_secs(),
        );
        (before, after) = by_visits(&config, all, (lo, at.as_second(), hi), opts, &not_anchor);
    }
    for (i, h) in before.iter_mut().chain(after.iter_mut()).enumerate() {
        h.rank = i as u32 + 1;
    }
    Ok(Timeline {
        kind: "timeline",
        anchor: Anchor {
            text: text.to_string(),
            at: at.to_string(),
            doc,
        },
        window_hours: opts.window_hours,
        before,
        after,
    })
}

/// The document id an anchor names (a `:line` suffix is dropped).
fn resolve(engine: &Engine, text: &str) -> Result<String, TimelineError> {
    let (base, _, _) = brain_resolve::split_range(text);
    let defaults;
    let config = match engine.config() {
        Some(c) => c,
        None => {
            defaults = brain_store::Config::defaults(engine.home());
            &defaults
        }
    };
    let searcher = engine.ranker()?.searcher();
    let ids = OpenIds {
        searcher,
        home: engine.home(),
    };
    let resolver = Resolver::collections_only(config, &ids);
    match resolver.resolve(base) {
        Ok(d) => {
            d.id.ok_or_else(|| TimelineError::NotFound(text.to_string()))
        }
        Err(brain_resolve::DocsError::Ambiguous { ids, .. }) => Err(TimelineError::Bad(format!(
            "`{base}` names several documents: {ids}"
        ))),
        Err(_) => Err(TimelineError::NotFound(text.to_string())),
    }
}

/// `hits` with each browser day replaced by its visits within `(from, at, to)`, split at `at`: the
/// `opts.before` nearest before (oldest first), the `opts.after` nearest after.
fn by_visits(
    config: &brain_store::Config,
    hits: Vec<Hit>,
    (from, at, to): (i64, i64, i64),
    opts: &Options,
    keep: &dyn Fn(&Hit) -> bool,
) -> (Vec<Hit>, Vec<Hit>) {
    let secs = |h: &Hit| brain_doc::file::parse_date(&h.date).unwrap_or(i64::MIN);
    let mut all: Vec<Hit> = Vec::new();
    for h in hits {
        if is_browser(config, &h) {
            all.extend(
                visits(config, &h)
                    .into_iter()
                    .filter(|v| (from..=to).contains(&secs(v)) && keep(v)),
            );
        } else {
            all.push(h);
        }
    }
    all.sort_by_key(secs);
    let split = all.partition_point(|h| secs(h) <= at);
    let later = all.split_off(split);
    let mut before: Vec<Hit> = all.into_iter().rev().take(opts.before).collect();
    before.reverse();
    (before, later.into_iter().take(opts.after).collect())
}

/// Whether `h` is a day of browser history.
fn is_browser(config: &brain_store::Config, h: &Hit) -> bool {
    config
        .collections
        .iter()
        .any(|c| c.name == h.collection && c.role == brain_store::para::ROLE_BROWSER)
}

/// The visits and searches of browser day `h` (`- HH:MM …` lines, `chrome2md`'s), each a hit at
/// its own time (the day's date and offset, the line's hour and minute), its line, and the
/// page's title; none when the day cannot be read.
fn visits(config: &brain_store::Config, h: &Hit) -> Vec<Hit> {
    let Ok(file) = brain_store::walk::servable(config, &h.collection, &h.path) else {
        return Vec::new();
    };
    let Ok(raw) = std::fs::read(&file) else {
        return Vec::new();
    };
    let text = brain_doc::bytes::text(&raw).0;
    // `2026-11-19T00:00:00+01:00` as the file says it (the index keeps UTC): the day the visits'
    // hours are of, and its offset.
    let facts = brain_doc::file::FileFacts::read(&h.path, &text, 0);
    let (Some(day), Some(offset)) = (facts.date.get(..10), facts.date.get(19..)) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let Some(rest) = line.strip_prefix("- ") else {
            continue;
        };
        let (Some(hm), Some(what)) = (rest.get(..5), rest.get(6..)) else {
            continue;
        };
        let b = hm.as_bytes();
        if !(b[2] == b':' && [0, 1, 3, 4].iter().all(|i| b[*i].is_ascii_digit())) {
            continue;
        }
        let at = format!("{day}T{hm}:00{offset}");
        if brain_doc::file::parse_date(&at).is_none() {
            continue;
        }
        let title = what
            .split_once("[")
            .and_then(|(_, t)| t.rsplit_once("](").map(|(t, _)| t))
            .unwrap_or(what);
        let mut v = h.clone();
        v.date = at;
        v.line = n as u64 + 1;
        v.title = format!("{hm} {}", title.trim());
        v.snippet = what.to_string();
        out.push(v);
    }
    out
}
