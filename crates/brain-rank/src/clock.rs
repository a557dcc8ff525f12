//! "Now" for queries: the clock that `since:7d`, temporal phrases and age labels are relative to.

use jiff::Zoned;

/// The time queries are relative to: now, or `$BRAIN_NOW` (RFC 3339) when set — for reproducible
/// golden files and evaluations, where `since:7d` and age labels must not drift with the calendar.
pub fn now() -> Zoned {
    brain_store::clock::now().to_zoned(local_tz())
}

/// "Now" as `--now WHEN` gives it (RFC 3339, or a bare `YYYY-MM-DD`, read as noon local time), or
/// [`now`] without it. A value that is neither is a bad query (exit 64).
pub fn at(when: Option<&str>) -> Result<Zoned, crate::RunError> {
    let Some(s) = when else {
        return Ok(now());
    };
    let s = s.trim();
    if let Ok(t) = s.parse::<jiff::Timestamp>() {
        return Ok(t.to_zoned(local_tz()));
    }
    s.parse::<jiff::civil::Date>()
        .ok()
        .and_then(|d| d.at(12, 0, 0, 0).to_zoned(local_tz()).ok())
        .ok_or_else(|| {
            crate::RunError::BadInput(format!(
                "--now {s:?} is not a time: give RFC 3339 (2026-03-03T09:00:00Z) or a date (2026-03-03)"
            ))
        })
}

/// The system time zone. Without `$TZ` it is read straight from `/etc/localtime` (named after the
/// link's target): jiff's `TimeZone::system()` first lists the whole zoneinfo directory (~1,800
/// entries), ~6 % of a fresh `brain ask`. Anything unusual falls back to `TimeZone::system()`.
pub fn local_tz() -> jiff::tz::TimeZone {
    static TZ: std::sync::OnceLock<jiff::tz::TimeZone> = std::sync::OnceLock::new();
    TZ.get_or_init(|| {
        let local = std::path::Path::new("/etc/localtime");
        if brain_doc::env::os(brain_doc::env::TZ).is_none()
            && let Ok(bytes) = std::fs::read(local)
        {
            let name = std::fs::read_link(local)
                .ok()
                .and_then(|p| {
                    let p = p.to_string_lossy().into_owned();
                    p.find("zoneinfo/")
                        .map(|i| p[i + "zoneinfo/".len()..].to_string())
                })
                .unwrap_or_else(|| "Local".into());
            if let Ok(tz) = jiff::tz::TimeZone::tzif(&name, &bytes) {
                return tz;
            }
        }
        jiff::tz::TimeZone::system()
    })
    .clone()
}
