//! WebKit timestamps and local days.
//!
//! Chromium stores times as microseconds since 1601-01-01 00:00 UTC (the Windows FILETIME epoch, in
//! µs; `base::Time::ToDeltaSinceWindowsEpoch`). A day is cut at local midnight in the user's time zone
//! (or `--tz`), so a late-night session lands on the day the user lived it.

use jiff::civil::Date;
use jiff::tz::TimeZone;
use jiff::{Timestamp, Zoned};

/// Microseconds from 1601-01-01 to 1970-01-01 (369 years, 89 of them leap: 11,644,473,600 s).
pub const WEBKIT_UNIX_OFFSET_US: i64 = 11_644_473_600_000_000;

/// The instant of a WebKit time, if it is a real one (positive and within jiff's range).
pub fn timestamp(webkit_us: i64) -> Option<Timestamp> {
    if webkit_us <= 0 {
        return None;
    }
    Timestamp::from_microsecond(webkit_us.checked_sub(WEBKIT_UNIX_OFFSET_US)?).ok()
}

/// Whether a visit time can be real: not before 1990-01-01 (no web browser kept a history
/// earlier) and not more than a year past the clock (a machine whose clock ran ahead, and the
/// test corpora's dates, stay in; the year 4770 does not).
pub fn plausible(t: Timestamp) -> bool {
    const EARLIEST: i64 = 631_152_000; // 1990-01-01T00:00:00Z
    const AHEAD: i64 = 366 * 86_400;
    let latest = Timestamp::now().as_second().saturating_add(AHEAD);
    (EARLIEST..=latest).contains(&t.as_second())
}

/// The WebKit time of an instant.
pub fn webkit(ts: Timestamp) -> i64 {
    ts.as_microsecond().saturating_add(WEBKIT_UNIX_OFFSET_US)
}

/// Maps times onto local days, remembering the last day's bounds (visits arrive in time order, so
/// nearly every lookup is a comparison).
#[derive(Debug, Clone)]
pub struct Clock {
    tz: TimeZone,
    cached: Option<(Date, i64, i64)>,
}

impl Clock {
    /// A clock in `tz`.
    pub fn new(tz: TimeZone) -> Self {
        Clock { tz, cached: None }
    }

    /// The local day of a WebKit time; `None` for an impossible or implausible time (outside
    /// [`plausible`]: a visit dated in the year 4770 is a corrupt row, not a day).
    pub fn day(&mut self, webkit_us: i64) -> Option<Date> {
        if let Some((d, lo, hi)) = self.cached
            && (lo..hi).contains(&webkit_us)
        {
            return Some(d);
        }
        let ts = timestamp(webkit_us).filter(|t| plausible(*t))?;
        let date = ts.to_zoned(self.tz.clone()).date();
        let (lo, hi) = self.bounds(date)?;
        self.cached = Some((date, lo, hi));
        Some(date)
    }

    /// The WebKit times of the local midnight starting `date` and of the next one.
    pub fn bounds(&self, date: Date) -> Option<(i64, i64)> {
        let start = self.midnight(date)?;
        let next = self.midnight(date.tomorrow().ok()?)?;
        Some((webkit(start.timestamp()), webkit(next.timestamp())))
    }

    /// The first instant of `date` in this zone (midnight, or the first instant after a DST gap).
    pub fn midnight(&self, date: Date) -> Option<Zoned> {
        date.to_zoned(self.tz.clone()).ok()?.start_of_day().ok()
    }

    /// `date`'s local midnight as RFC 3339 with offset (`2026-11-20T00:00:00-05:00`).
    pub fn midnight_rfc3339(&self, date: Date) -> String {
        match self.midnight(date) {
            Some(z) => z.strftime("%Y-%m-%dT%H:%M:%S%:z").to_string(),
            None => format!("{date}T00:00:00+00:00"),
        }
    }

    /// Local wall-clock `HH:MM` of a WebKit time.
    pub fn hhmm(&self, webkit_us: i64) -> String {
        match timestamp(webkit_us) {
            Some(ts) => ts.to_zoned(self.tz.clone()).strftime("%H:%M").to_string(),
            None => "--:--".into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_visit_in_the_year_4770_or_before_1990_is_no_day() {
        let mut c = Clock::new(TimeZone::UTC);
        let at = |s: &str| webkit(s.parse::<Timestamp>().expect("ts"));
        assert!(c.day(at("2024-05-01T10:00:00Z")).is_some());
        assert!(c.day(at("1989-12-31T23:00:00Z")).is_none());
        // ~year 4770, the date the fuzzing found taken as a real day.
        assert!(c.day(at("4770-01-01T00:00:00Z")).is_none());
        let soon = Timestamp::now().as_second() + 30 * 86_400;
        assert!(
            c.day(webkit(Timestamp::from_second(soon).expect("ts")))
                .is_some()
        );
    }

    #[test]
    fn webkit_times_convert_to_the_right_instant() {
        // plaso's History, visit 1: 12946651391000000 = 2011-04-07 12:03:11 UTC (checked with sqlite3's
        // datetime(visit_time/1000000-11644473600, 'unixepoch')).
        let ts = timestamp(12_946_651_391_000_000).expect("ts");
        assert_eq!(ts.to_string(), "2011-04-07T12:03:11Z");
        assert_eq!(webkit(ts), 12_946_651_391_000_000);
        assert_eq!(timestamp(0), None);
        assert_eq!(timestamp(-5), None);
    }

    #[test]
    fn days_are_cut_at_local_midnight() {
        let ny = TimeZone::get("America/New_York").expect("tz");
        let mut c = Clock::new(ny);
        // 2011-04-07 03:30 UTC is still 2011-04-06 in New York (UTC-4).
        let t = webkit("2011-04-07T03:30:00Z".parse().expect("ts"));
        assert_eq!(c.day(t), Some(jiff::civil::date(2011, 4, 6)));
        assert_eq!(c.hhmm(t), "23:30");
        assert_eq!(
            c.midnight_rfc3339(jiff::civil::date(2011, 4, 6)),
            "2011-04-06T00:00:00-04:00"
        );
        // A DST-change day is 23 hours long.
        let (lo, hi) = c.bounds(jiff::civil::date(2026, 3, 8)).expect("bounds");
        assert_eq!(hi - lo, 23 * 3_600_000_000);
        let mut utc = Clock::new(TimeZone::UTC);
        assert_eq!(utc.day(t), Some(jiff::civil::date(2011, 4, 7)));
        assert_eq!(
            utc.midnight_rfc3339(jiff::civil::date(2011, 4, 7)),
            "2011-04-07T00:00:00+00:00"
        );
    }
}
