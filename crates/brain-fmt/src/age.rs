//! Age labels and freshness warnings (seed 000 §5: `brain ask` attaches "today", "yesterday" or
//! "N days ago", and warns when a memory is old enough to be risky).

use brain_doc::Hit;

/// "today", "yesterday", "N days ago" for a whole-day age (negative ages are today).
pub fn age_label(age_days: i64) -> String {
    match age_days {
        ..=0 => "today".into(),
        1 => "yesterday".into(),
        n => format!("{n} days ago"),
    }
}

/// The freshness warning for `hit` when it is older than `stale_after_days`, else `None`.
pub fn stale_warning(hit: &Hit, stale_after_days: i64) -> Option<String> {
    (hit.age_days > stale_after_days).then(|| {
        format!(
            "{} {} is {} days old: check it against the current state before relying on it",
            hit.docid, hit.uri, hit.age_days
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels() {
        assert_eq!(age_label(-3), "today");
        assert_eq!(age_label(0), "today");
        assert_eq!(age_label(1), "yesterday");
        assert_eq!(age_label(12), "12 days ago");
    }
}
