//! The dates a store keeps per row and filters by: days since the epoch, and the Unix seconds of a
//! document's date (no calendar crate on the scan's path).

/// Days since 1970-01-01 of an RFC 3339 / `YYYY-MM-DD` date; `i32::MIN` when unparsable.
pub fn day_number(date: &str) -> i32 {
    let p = |r: std::ops::Range<usize>| date.get(r).and_then(|s| s.parse::<i64>().ok());
    let (Some(y), Some(m), Some(d)) = (p(0..4), p(5..7), p(8..10)) else {
        return i32::MIN;
    };
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) {
        return i32::MIN;
    }
    // Howard Hinnant's days_from_civil.
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    (era * 146_097 + doe - 719_468) as i32
}

/// Unix seconds of an RFC 3339 date (any offset) or a bare `YYYY-MM-DD` (midnight UTC).
pub fn date_seconds(date: &str) -> Option<i64> {
    let day = day_number(date);
    if day == i32::MIN {
        return None;
    }
    let base = i64::from(day) * 86_400;
    let rest = date.get(10..).unwrap_or("");
    if rest.is_empty() {
        return Some(base);
    }
    // THH:MM[:SS][.frac](Z|±HH:MM)
    let b = rest.as_bytes();
    if b.len() < 6 || !matches!(b[0], b'T' | b't' | b' ') {
        return None;
    }
    let num = |r: std::ops::Range<usize>| rest.get(r).and_then(|s| s.parse::<i64>().ok());
    let (h, m) = (num(1..3)?, num(4..6)?);
    let mut i = 6;
    let mut sec = 0;
    if b.get(6) == Some(&b':') {
        sec = num(7..9)?;
        i = 9;
        if b.get(9) == Some(&b'.') {
            i = 10;
            while b.get(i).is_some_and(u8::is_ascii_digit) {
                i += 1;
            }
        }
    }
    let offset = match b.get(i) {
        None | Some(b'Z' | b'z') => 0,
        Some(sign @ (b'+' | b'-')) => {
            let (oh, om) = (num(i + 1..i + 3)?, num(i + 4..i + 6)?);
            let o = oh * 3600 + om * 60;
            if *sign == b'+' { o } else { -o }
        }
        _ => return None,
    };
    Some(base + h * 3600 + m * 60 + sec - offset)
}
