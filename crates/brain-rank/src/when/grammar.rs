//! The date forms of [`super::find`], as a table of small matchers over normalized words (lower
//! case, outer punctuation trimmed). Each matcher looks at the words from one position and returns
//! how many it used and the days they name (inclusive); the first position with a match wins, the
//! longest form there. Every form has a golden case in `golden/when/cases.tsv`.

use jiff::ToSpan;
use jiff::civil::{Date, Weekday};

/// Days named by words `at .. at + len`; `vague` for spans people do not count ("a few weeks ago",
/// "over the holidays"), which get a wider soft margin.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Days {
    pub at: usize,
    pub len: usize,
    pub from: Date,
    pub to: Date,
    pub vague: bool,
}

/// The first date form in `w` (skipping words marked in `used`) relative to `today`.
pub(super) fn find(w: &[String], used: &[bool], today: Date) -> Option<Days> {
    (0..w.len()).find_map(|i| {
        if used[i] {
            return None;
        }
        let (len, from, to, vague) = at(&w[i..], today)?;
        if used[i..i + len].iter().any(|u| *u) {
            return None;
        }
        let (from, to) = (from.min(to), to.max(from));
        Some(Days {
            at: i,
            len,
            from,
            to: to.min(today.max(from)),
            vague,
        })
    })
}

type Found = (usize, Date, Date, bool);

/// The longest date form starting at `w[0]`.
fn at(w: &[String], today: Date) -> Option<Found> {
    let g = |k: usize| w.get(k).map_or("", String::as_str);
    let day = |d: Date| Some((1, d, d, false));
    // Exact forms first: ISO dates, day-month-year, month-day-year.
    if let Some(d) = iso(g(0)) {
        return day(d);
    }
    if let Some(found) = day_month(w, today) {
        return Some(found);
    }
    match (g(0), g(1), g(2)) {
        ("today" | "tonight", ..) => day(today),
        ("yesterday", ..) => day(today.yesterday().ok()?),
        ("day", "before", "yesterday") => {
            let d = today.checked_sub(2.days()).ok()?;
            Some((3, d, d, false))
        }
        ("earlier", "today", _) => Some((2, today, today, false)),
        ("earlier", "this", unit) => {
            calendar(today, false, unit).map(|(a, b)| (3, a, b, unit != "week"))
        }
        ("last", "night", _) => {
            let d = today.yesterday().ok()?;
            Some((2, d, d, false))
        }
        // "the first week of January", "the last weekend of November 2025".
        (nth, unit @ ("week" | "weekend"), "of")
            if ordinal(nth).is_some() && month(g(3)).is_some() =>
        {
            let (first, used) = month_of(today, month(g(3))?, g(4))?;
            let (a, b) = nth_of_month(first, ordinal(nth)?, unit == "weekend")?;
            Some((used + 3, a, b, false))
        }
        ("this" | "last", "weekend", _) => {
            weekend(today, g(0) == "last").map(|(a, b)| (2, a, b, false))
        }
        ("the", "weekend", _) => weekend(today, false).map(|(a, b)| (2, a, b, false)),
        ("this" | "last", unit @ ("week" | "month" | "year"), _) => {
            calendar(today, g(0) == "last", unit).map(|(a, b)| (2, a, b, false))
        }
        ("past", unit @ ("week" | "month" | "year"), _) => {
            let a = today.checked_sub(crate::query::span_of(1, unit)?).ok()?;
            Some((2, a, today, false))
        }
        ("recently" | "lately", ..) => {
            let a = today.checked_sub(14.days()).ok()?;
            Some((1, a, today, true))
        }
        ("holidays" | "christmas" | "xmas", ..) => {
            let (a, b) = holidays(today)?;
            Some((1, a, b, true))
        }
        ("early" | "mid" | "late", m, y) if month(m).is_some() => {
            let (first, used) = month_of(today, month(m)?, y)?;
            let last = first.last_of_month();
            let (a, b) = match g(0) {
                "early" => (first, first.checked_add(9.days()).ok()?),
                "mid" => (
                    first.checked_add(10.days()).ok()?,
                    first.checked_add(19.days()).ok()?,
                ),
                _ => (first.checked_add(20.days()).ok()?, last),
            };
            Some((used + 1, a, b, false))
        }
        // "in February", "during March 2025", "since May".
        ("in" | "during" | "since" | "of" | "by", m, y) if month(m).is_some() => {
            let (first, used) = month_of(today, month(m)?, y)?;
            Some((used + 1, first, first.last_of_month(), false))
        }
        ("in" | "during" | "since", y, _) if year(y).is_some() => {
            let y = year(y)?;
            Some((
                2,
                Date::new(y, 1, 1).ok()?,
                Date::new(y, 12, 31).ok()?,
                false,
            ))
        }
        // "last Tuesday", "on Monday", "since Friday", "Tuesday morning".
        ("last" | "on" | "this" | "past" | "since", d, _) if weekday(d).is_some() => {
            let strict = g(0) == "last";
            let d = last_weekday(today, weekday(d)?, strict)?;
            Some((2, d, d, false))
        }
        (d, "morning" | "afternoon" | "evening" | "night", _) if weekday(d).is_some() => {
            let d = last_weekday(today, weekday(d)?, false)?;
            Some((1, d, d, false))
        }
        // "on the 3rd": this month's, or last month's when that is still to come.
        ("the", d, next) if has_suffix(d) && month(next).is_none() && next != "of" => {
            let n = day_number(d)?;
            let mut first = today.first_of_month();
            if n > today.day() {
                first = first.checked_sub(1.month()).ok()?;
            }
            let d = Date::new(first.year(), first.month(), n).ok()?;
            Some((2, d, d, false))
        }
        // "March 2025".
        (m, y, _) if month(m).is_some() && year(y).is_some() => {
            let (first, _) = month_of(today, month(m)?, y)?;
            Some((2, first, first.last_of_month(), false))
        }
        _ => relative(w, today),
    }
}

/// `N units ago|back|earlier` (a point, with a margin of half a unit) and `past|last N units`
/// (from then to today); N in digits or words, `a couple of`, `a few`, `several` (vague).
fn relative(w: &[String], today: Date) -> Option<Found> {
    let g = |k: usize| w.get(k).map_or("", String::as_str);
    let (span_to_today, skip) = match g(0) {
        "past" | "last" => (true, 1),
        "the" if matches!(g(1), "past" | "last") => (true, 2),
        _ => (false, 0),
    };
    let (n, nlen, vague) = number(&w[skip.min(w.len())..])?;
    let unit = unit(g(skip + nlen))?;
    let point = today.checked_sub(crate::query::span_of(n, unit)?).ok()?;
    if span_to_today {
        return Some((skip + nlen + 1, point, today, vague));
    }
    if !matches!(g(skip + nlen + 1), "ago" | "back" | "earlier" | "before") {
        return None;
    }
    let half = match unit {
        "day" => 0.days(),
        "week" => 3.days(),
        "month" => 15.days(),
        _ => 182.days(),
    };
    let a = point.checked_sub(half).ok()?;
    let b = point.checked_add(half).ok()?;
    Some((nlen + 2, a, b, vague || unit != "day"))
}

/// A count in digits (1–999) or words, how many words it took, and whether it is vague.
fn number(w: &[String]) -> Option<(i64, usize, bool)> {
    let g = |k: usize| w.get(k).map_or("", String::as_str);
    let words = [
        "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
        "twelve",
    ];
    Some(match (g(0), g(1), g(2)) {
        ("a", "couple", "of") => (2, 3, true),
        ("a", "couple", _) | ("couple", "of", _) => (2, 2, true),
        ("a", "few", _) => (3, 2, true),
        ("few" | "several", ..) => (if g(0) == "few" { 3 } else { 4 }, 1, true),
        ("a" | "an", ..) => (1, 1, false),
        (n, ..) => match n.parse::<i64>() {
            Ok(n) if (1..1000).contains(&n) => (n, 1, false),
            _ => (words.iter().position(|x| *x == n)? as i64 + 1, 1, false),
        },
    })
}

/// `day|days|week|…` as the unit [`crate::query::span_of`] takes.
fn unit(w: &str) -> Option<&'static str> {
    Some(match w.trim_end_matches('s') {
        "day" => "day",
        "week" => "week",
        "month" => "month",
        "year" => "year",
        _ => return None,
    })
}

/// `2025-03-03` or `2025/03/03`.
fn iso(w: &str) -> Option<Date> {
    let parts: Vec<&str> = w.split(['-', '/']).collect();
    match parts.as_slice() {
        [y, m, d] if y.len() == 4 && m.len() <= 2 && d.len() <= 2 => {
            Date::new(y.parse().ok()?, m.parse().ok()?, d.parse().ok()?).ok()
        }
        _ => None,
    }
}

/// `3 March [2025]`, `3rd of March`, `March 3rd[,] [2025]`, `Mar 3`: a day without a year is the
/// latest such day not in the future.
fn day_month(w: &[String], today: Date) -> Option<Found> {
    let g = |k: usize| w.get(k).map_or("", String::as_str);
    let (d, m, used) = if let (Some(d), Some(m)) = (day_number(g(0)), month(g(1))) {
        (d, m, 2)
    } else if let (Some(d), "of", Some(m)) = (day_number(g(0)), g(1), month(g(2))) {
        (d, m, 3)
    } else if let (Some(m), Some(d)) = (month(g(0)), day_number(g(1))) {
        // "may 3" yes, "may 2025" no (a year is not a day).
        if g(1).len() > 2 && !has_suffix(g(1)) {
            return None;
        }
        (d, m, 2)
    } else {
        return None;
    };
    let date = match year(g(used)) {
        Some(y) => return Date::new(y, m, d).ok().map(|x| (used + 1, x, x, false)),
        None => {
            let this = Date::new(today.year(), m, d).ok()?;
            if this > today {
                Date::new(today.year() - 1, m, d).ok()?
            } else {
                this
            }
        }
    };
    Some((used, date, date, false))
}

/// The first day of month `m` in year `y` (as written, or the latest such month not in the
/// future) and the words used (1, or 2 with the year).
fn month_of(today: Date, m: i8, y: &str) -> Option<(Date, usize)> {
    match year(y) {
        Some(y) => Some((Date::new(y, m, 1).ok()?, 2)),
        None => {
            let y = if m > today.month() {
                today.year() - 1
            } else {
                today.year()
            };
            Some((Date::new(y, m, 1).ok()?, 1))
        }
    }
}

/// `this|last week|month|year` (weeks start on Monday); `this` ends today.
fn calendar(today: Date, last: bool, unit: &str) -> Option<(Date, Date)> {
    match unit {
        "week" => {
            let monday = today
                .checked_sub((today.weekday().to_monday_zero_offset() as i64).days())
                .ok()?;
            if last {
                Some((monday.checked_sub(7.days()).ok()?, monday.yesterday().ok()?))
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
            let end = if last {
                Date::new(y, 12, 31).ok()?
            } else {
                today
            };
            Some((Date::new(y, 1, 1).ok()?, end))
        }
        _ => None,
    }
}

/// The latest weekend (Saturday and Sunday) that has begun, or (`last`) the one before a weekend
/// under way.
fn weekend(today: Date, last: bool) -> Option<(Date, Date)> {
    let mut sat = last_weekday(today, Weekday::Saturday, false)?;
    let in_it = today.weekday() == Weekday::Saturday || today.weekday() == Weekday::Sunday;
    if last && in_it {
        sat = sat.checked_sub(7.days()).ok()?;
    }
    Some((sat, sat.tomorrow().ok()?))
}

/// The `nth` (1–4, or -1 for the last) week (days 1–7, 8–14, …; the last: the month's last 7
/// days) or weekend (Saturday and Sunday) of the month starting `first`.
fn nth_of_month(first: Date, nth: i8, weekend: bool) -> Option<(Date, Date)> {
    let last = first.last_of_month();
    if !weekend {
        return Some(if nth < 0 {
            (last.checked_sub(6.days()).ok()?, last)
        } else {
            let a = first.checked_add(((nth as i64 - 1) * 7).days()).ok()?;
            (a, a.checked_add(6.days()).ok()?)
        });
    }
    let sat = if nth < 0 {
        last_weekday(last, Weekday::Saturday, false)?
    } else {
        let mut d = first;
        while d.weekday() != Weekday::Saturday {
            d = d.tomorrow().ok()?;
        }
        d.checked_add(((nth as i64 - 1) * 7).days()).ok()?
    };
    Some((sat, sat.tomorrow().ok()?))
}

/// The latest `wd` on or (`strict`) before `today`.
fn last_weekday(today: Date, wd: Weekday, strict: bool) -> Option<Date> {
    let mut d = if strict {
        today.yesterday().ok()?
    } else {
        today
    };
    while d.weekday() != wd {
        d = d.yesterday().ok()?;
    }
    Some(d)
}

/// The latest holiday season begun: 20 December to 6 January.
fn holidays(today: Date) -> Option<(Date, Date)> {
    let start_year = if today >= Date::new(today.year(), 12, 20).ok()? {
        today.year()
    } else {
        today.year() - 1
    };
    Some((
        Date::new(start_year, 12, 20).ok()?,
        Date::new(start_year + 1, 1, 6).ok()?,
    ))
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

/// A month by name or three-letter abbreviation (`sept` too).
fn month(w: &str) -> Option<i8> {
    if w.len() < 3 {
        return None;
    }
    let w = if w == "sept" { "sep" } else { w };
    MONTHS
        .iter()
        .position(|m| *m == w || (w.len() == 3 && m.starts_with(w)))
        .map(|i| i as i8 + 1)
}

/// A year people would mean (1970–2100).
fn year(w: &str) -> Option<i16> {
    w.parse::<i16>()
        .ok()
        .filter(|y| (1970..=2100).contains(y) && w.len() == 4)
}

/// A day of the month: `3`, `03`, `3rd`, `21st`.
fn day_number(w: &str) -> Option<i8> {
    let digits = w.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    let suffix = &w[digits.len()..];
    if digits.is_empty() || digits.len() > 2 || !matches!(suffix, "" | "st" | "nd" | "rd" | "th") {
        return None;
    }
    digits.parse::<i8>().ok().filter(|d| (1..=31).contains(d))
}

/// `3rd`, `21st`: a day written as an ordinal.
fn has_suffix(w: &str) -> bool {
    day_number(w).is_some() && w.ends_with(|c: char| c.is_ascii_alphabetic())
}

fn ordinal(w: &str) -> Option<i8> {
    Some(match w {
        "first" | "1st" => 1,
        "second" | "2nd" => 2,
        "third" | "3rd" => 3,
        "fourth" | "4th" => 4,
        "last" | "final" => -1,
        _ => return None,
    })
}

pub(super) fn weekday(w: &str) -> Option<Weekday> {
    Some(match w.trim_end_matches('s') {
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
