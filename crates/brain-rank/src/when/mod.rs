//! Time in questions: "what was I fixing on the morning of 3 March?", "the latest session where we
//! touched the release workflow", "cache bug a few weeks ago".
//!
//! [`find`] reads the words about *when* out of a query — a date window ([`grammar`]: absolute dates
//! in the forms people write, months, years, weeks and weekends, relative and vague spans), a part
//! of the day (in local time), and an ordering by session time ("latest", "the first time") — and
//! gives back the query without them.
//!
//! A window is a **soft** signal, never a gate: the engine ranks with and without it and scores
//! every hit by its [`When::proximity`] — 1 for a session that overlaps the window, decaying with
//! the distance outside it over [`When::margin`] (a session that began at 23:50 the night before
//! "yesterday morning" is minutes away, not excluded). `--since/--until` stay hard filters.
//! "Local time" is the time zone of "now" (`$TZ`, else the system's).

mod grammar;
pub mod score;

use jiff::civil::Date;
use jiff::tz::TimeZone;
use jiff::{SignedDuration, Timestamp, ToSpan, Zoned};

/// A part of the day, as local hours `[start, end)` (night runs past midnight).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DayPart {
    Morning,
    Afternoon,
    Evening,
    Night,
}

impl DayPart {
    /// Local hours `[start, end)`; `end < start` runs past midnight.
    pub fn hours(self) -> (i8, i8) {
        match self {
            DayPart::Morning => (5, 12),
            DayPart::Afternoon => (12, 17),
            DayPart::Evening => (17, 22),
            DayPart::Night => (22, 5),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            DayPart::Morning => "morning",
            DayPart::Afternoon => "afternoon",
            DayPart::Evening => "evening",
            DayPart::Night => "night",
        }
    }

    /// Hours from local hour-of-day `h` (fractional) to this part (0 inside).
    fn distance(self, h: f64) -> f64 {
        let (a, b) = self.hours();
        let (a, b) = (f64::from(a), f64::from(b));
        let inside = if a < b {
            (a..b).contains(&h)
        } else {
            h >= a || h < b
        };
        if inside {
            return 0.0;
        }
        let circ = |x: f64, y: f64| {
            let d = (x - y).abs() % 24.0;
            d.min(24.0 - d)
        };
        circ(h, a).min(circ(h, b))
    }
}

/// Which end of the relevant hits comes first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    /// "latest", "most recent", "the last time": newest session first.
    Latest,
    /// "the first time", "earliest": oldest session first.
    First,
}

impl Order {
    pub fn name(self) -> &'static str {
        match self {
            Order::Latest => "latest",
            Order::First => "first",
        }
    }
}

/// What a query says about time, and the query without it.
#[derive(Debug, Clone, PartialEq)]
pub struct When {
    /// The words read as time, as written, in query order ("morning of 3 March").
    pub expr: String,
    /// The query without them.
    pub rest: String,
    /// Where its words stand in the text: byte ranges of the words it used (connectors too), as
    /// [`crate::query::word_spans`] gives them — what routing cuts out of the query's tokens.
    pub cut: Vec<std::ops::Range<usize>>,
    /// The window's first and last instant, when a date was named (a part of one day narrows it
    /// to those hours).
    pub window: Option<(Timestamp, Timestamp)>,
    /// A part of the day; applied as hours of every day when the window spans several days or no
    /// date was named.
    pub part: Option<DayPart>,
    /// How far outside the window a session still counts: proximity falls to 1/e at this distance.
    pub margin: SignedDuration,
    /// An ordering by session time among the relevant hits.
    pub order: Option<Order>,
    tz: TimeZone,
    /// The window is one day narrowed to `part`'s hours.
    narrowed: bool,
}

/// Words that attach a time expression to the sentence; dropped with it ("on", "the", "of" in "on
/// the morning of 3 March").
const CONNECTORS: [&str; 14] = [
    "on", "in", "the", "of", "at", "during", "over", "from", "around", "about", "since", "after",
    "sometime", "this",
];

/// Read the time words of `text` relative to `now` (see the module docs); `None` when it has none.
pub fn find(text: &str, now: &Zoned) -> Option<When> {
    let (words, norm) = crate::route::words(text);
    let g = |i: usize| norm.get(i).map_or("", String::as_str);
    let mut used = vec![false; norm.len()];
    let today = now.date();

    let order = find_order(&norm, &mut used);
    let (part, implied) = find_part(&norm, &mut used, today);
    let days = grammar::find(&norm, &used, today);
    let (mut from, to, vague) = match (days, implied) {
        (Some(d), _) => {
            used[d.at..d.at + d.len].iter_mut().for_each(|u| *u = true);
            let since =
                g(d.at) == "since" || (d.at > 0 && matches!(g(d.at - 1), "since" | "after"));
            let to = if since { today } else { d.to };
            (Some(d.from), Some(to), d.vague)
        }
        (None, Some(d)) => (Some(d), Some(d), false),
        (None, None) => (None, None, false),
    };
    if from.is_none() && part.is_none() && order.is_none() {
        return None;
    }
    let joined = drop_connectors(&norm, &mut used);
    let tz = now.time_zone().clone();
    let start = |d: Date| d.to_zoned(tz.clone()).ok().map(|z| z.timestamp());
    let mut window = None;
    let mut narrowed = false;
    let mut margin = SignedDuration::from_hours(12);
    if let (Some(a), Some(b)) = (from.take(), to) {
        let days = (b - a).get_days().max(0) + 1;
        margin = SignedDuration::from_hours(24 * i64::from(days) / 4).max(margin);
        let next = start(b.tomorrow().ok()?)?;
        window = Some((start(a)?, next.checked_sub(1.nanosecond()).ok()?));
        if let Some(p) = part
            && days == 1
        {
            let (h0, h1) = p.hours();
            let at = |d: Date, h: i8| {
                start(d)?
                    .checked_add(SignedDuration::from_hours(h.into()))
                    .ok()
            };
            let end_day = if h1 < h0 { b.tomorrow().ok()? } else { b };
            window = Some((
                at(a, h0)?,
                at(end_day, h1)?.checked_sub(1.nanosecond()).ok()?,
            ));
            margin = SignedDuration::from_hours(3);
            narrowed = true;
        }
        if vague {
            margin = margin.checked_mul(2)?;
        }
    }
    // The phrase as the user wrote it: from its first word that is not a connector to its last
    // ("working on last week" quotes `last week`).
    let phrase = {
        let first = (0..words.len()).find(|&i| used[i] && !joined[i]);
        let last = (0..words.len()).rev().find(|&i| used[i]);
        match (first, last) {
            (Some(a), Some(b)) if a <= b => words[a..=b].join(" "),
            _ => String::new(),
        }
    };
    let pick = |keep: bool| {
        words
            .iter()
            .zip(&used)
            .filter(|(_, u)| **u == keep)
            .map(|(w, _)| *w)
            .collect::<Vec<_>>()
            .join(" ")
    };
    Some(When {
        expr: if phrase.is_empty() {
            pick(true)
        } else {
            phrase
        },
        rest: pick(false),
        cut: crate::query::word_spans(text)
            .into_iter()
            .zip(&used)
            .filter(|(_, u)| **u)
            .map(|(s, _)| s)
            .collect(),
        window,
        part,
        margin,
        order,
        tz,
        narrowed,
    })
}

/// The first part of the day named ("morning", "tonight", "late at night"), its words marked used,
/// and the day it implies ("this evening": today, "last night": yesterday).
fn find_part(norm: &[String], used: &mut [bool], today: Date) -> (Option<DayPart>, Option<Date>) {
    let g = |i: usize| norm.get(i).map_or("", String::as_str);
    for i in 0..norm.len() {
        let p = match g(i).trim_end_matches('s') {
            "morning" => DayPart::Morning,
            "afternoon" => DayPart::Afternoon,
            "evening" => DayPart::Evening,
            "night" | "tonight" | "overnight" | "midnight" => DayPart::Night,
            _ => continue,
        };
        used[i] = true;
        let mut implied = None;
        match (i.checked_sub(1).map_or("", g), g(i)) {
            (_, "tonight") => implied = Some(today),
            ("this", _) => {
                implied = Some(today);
                used[i - 1] = true;
            }
            ("last", _) if p == DayPart::Night => {
                implied = today.yesterday().ok();
                used[i - 1] = true;
            }
            ("late" | "early", _) => used[i - 1] = true,
            ("at", _) if i >= 2 && g(i - 2) == "late" => {
                used[i - 1] = true;
                used[i - 2] = true;
            }
            _ => {}
        }
        return (Some(p), implied);
    }
    (None, None)
}

/// Mark "latest", "most recent(ly)", "newest", "the last time" (→ [`Order::Latest`]), "the first
/// time", "earliest", "oldest" (→ [`Order::First`]). "For the first time" and "for the last time"
/// say how new or final something was ("what did James cook for the first time"), not which
/// session to put first: they stay words.
fn find_order(norm: &[String], used: &mut [bool]) -> Option<Order> {
    let g = |i: usize| norm.get(i).map_or("", String::as_str);
    for i in 0..norm.len() {
        let idiom = i >= 2 && g(i - 1) == "the" && g(i - 2) == "for";
        let (order, len) = match (g(i), g(i + 1)) {
            ("first" | "last", "time") if idiom => continue,
            ("latest" | "newest", _) => (Order::Latest, 1),
            ("most", "recent" | "recently") => (Order::Latest, 2),
            ("last", "time") => (Order::Latest, 2),
            ("first", "time") => (Order::First, 2),
            ("earliest" | "oldest", _) => (Order::First, 1),
            _ => continue,
        };
        used[i..i + len].iter_mut().for_each(|u| *u = true);
        return Some(order);
    }
    None
}

/// Drop connector words that lead into a time expression, or sit between two of its parts: every
/// run of connectors that ends right before a used word. One pass from the right, linear in the
/// words (a query of thousands of "the" costs no more than reading it).
/// Returns which words it marked.
fn drop_connectors(norm: &[String], used: &mut [bool]) -> Vec<bool> {
    let mut joined = vec![false; norm.len()];
    let mut leads = false;
    for i in (0..norm.len()).rev() {
        if used[i] {
            leads = true;
        } else if leads && CONNECTORS.contains(&norm[i].as_str()) {
            used[i] = true;
            joined[i] = true;
        } else {
            leads = false;
        }
    }
    joined
}

impl When {
    /// How close a session that ran from `start` to `end` is to this time, in (0, 1]: 1 when it
    /// overlaps the window (and the part of the day), `exp(-distance / margin)` outside.
    pub fn proximity(&self, start: Timestamp, end: Timestamp) -> f64 {
        let end = end.max(start);
        let mut p = 1.0;
        if let Some((a, b)) = self.window {
            let outside = if end < a {
                a.duration_since(end)
            } else if start > b {
                start.duration_since(b)
            } else {
                SignedDuration::ZERO
            };
            p *= (-outside.as_secs_f64() / self.margin.as_secs_f64().max(1.0)).exp();
        }
        if let Some(part) = self.part
            && !self.narrowed
            && end.duration_since(start) < SignedDuration::from_hours(24)
        {
            let hour = |t: Timestamp| {
                let z = t.to_zoned(self.tz.clone());
                f64::from(z.hour()) + f64::from(z.minute()) / 60.0
            };
            let d = part.distance(hour(start)).min(part.distance(hour(end)));
            p *= (-d / 3.0).exp();
        }
        p
    }

    /// The window widened by two margins: what the window's own candidate list searches.
    pub fn widened(&self) -> Option<(Timestamp, Timestamp)> {
        let (a, b) = self.window?;
        let m = self.margin.checked_mul(2)?;
        Some((
            a.checked_sub(m).unwrap_or(Timestamp::MIN),
            b.checked_add(m).unwrap_or(Timestamp::MAX),
        ))
    }

    /// The interpretation as the `--json` envelope and `explain` show it.
    pub fn wire(&self) -> brain_doc::TimeWindow {
        let show = |t: Timestamp| {
            t.to_zoned(self.tz.clone())
                .strftime("%Y-%m-%dT%H:%M:%S%:z")
                .to_string()
        };
        brain_doc::TimeWindow {
            expr: self.expr.clone(),
            from: self.window.map(|(a, _)| show(a)),
            to: self.window.map(|(_, b)| show(b)),
            soft: true,
            part: self.part.map(|p| {
                let (a, b) = p.hours();
                format!("{} {a:02}:00-{b:02}:00", p.name())
            }),
            order: self.order.map(|o| o.name().to_string()),
            margin_hours: self.window.map(|_| self.margin.as_secs() / 3600),
        }
    }

    /// True when a session from `start` to `end` overlaps the window (or there is no window).
    pub fn holds(&self, start: Timestamp, end: Timestamp) -> bool {
        self.window
            .is_none_or(|(a, b)| end.max(start) >= a && start <= b)
    }

    /// What an answer none of whose hits falls in the window says: that the window held nothing,
    /// and what is shown instead (the walk shows what is nearest in time; a search with words, its
    /// best matches from other times).
    pub fn empty_notice(&self, walk: bool) -> Option<String> {
        let w = self.wire();
        let (a, b) = (w.from?, w.to?);
        let day = |s: &str| s.get(..10).unwrap_or(s).to_string();
        let instead = if walk {
            "shown instead: the documents nearest to it in time"
        } else {
            "shown instead: the best matches from other times"
        };
        Some(format!(
            "nothing is dated `{}` ({} to {}); {instead}",
            self.expr,
            day(&a),
            day(&b)
        ))
    }

    /// One line for warnings and `explain`: how the words were read.
    pub fn describe(&self) -> String {
        let w = self.wire();
        let mut parts = Vec::new();
        if let (Some(a), Some(b)) = (&w.from, &w.to) {
            parts.push(format!("{a} to {b}"));
        }
        if let Some(p) = &w.part {
            parts.push(p.clone());
        }
        if let Some(o) = &w.order {
            parts.push(format!("{o} first"));
        }
        format!(
            "read `{}` as time: {} (soft: a signal, not a filter)",
            self.expr,
            parts.join(", ")
        )
    }
}

#[cfg(test)]
mod tests;
