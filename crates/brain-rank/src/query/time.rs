//! Time specs of `since:` / `until:` and the flags: `7d`, `yesterday`, `2026-04-01`, RFC 3339.

use jiff::{Span, Timestamp, Zoned, civil::Date, tz::TimeZone};

use super::QueryError;

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
