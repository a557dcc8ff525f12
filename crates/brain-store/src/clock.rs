//! "Now" for everything relative to it (queries, ages, tiers): the clock, or `$BRAIN_NOW`
//! (RFC 3339) when set — for reproducible golden files and evaluations.

/// Now, or `$BRAIN_NOW` when it is set and reads as RFC 3339.
pub fn now() -> jiff::Timestamp {
    brain_doc::env::get(brain_doc::env::BRAIN_NOW)
        .and_then(|s| s.parse::<jiff::Timestamp>().ok())
        .unwrap_or_else(jiff::Timestamp::now)
}
