//! Age labels and freshness warnings (seed 000 §5: `brain ask` attaches "today", "yesterday" or
//! "N days ago", and warns when a memory is old enough to be risky).

use brain_doc::Hit;
use brain_doc::memory::Freshness;

/// "today", "yesterday", "N days ago" for a whole-day age (negative ages are today).
pub fn age_label(age_days: i64) -> String {
    match age_days {
        ..=0 => "today".into(),
        1 => "yesterday".into(),
        n => format!("{n} days ago"),
    }
}

/// What a reader must know about `hit` on its own line, where its age or state changes the answer
/// (seed 000's freshness contract, made useful): a superseded, expired or archived record, and a
/// status, fact, decision or preference older than its [`Freshness`] days. `None` otherwise — a
/// transcript's or a browser day's age is what [`history_warning`] sums up once per list.
pub fn stale_warning(hit: &Hit, f: &Freshness) -> Option<String> {
    let (id, uri) = (&hit.docid, &hit.uri);
    let m = hit.memory.as_ref()?;
    match m.state.as_str() {
        "superseded" => {
            let by = m
                .superseded_by
                .as_deref()
                .map(|b| format!(" by {b}"))
                .unwrap_or_default();
            return Some(format!("{id} {uri} is superseded{by}: no longer current"));
        }
        "expired" => return Some(format!("{id} {uri} has expired: no longer true")),
        "archived" => return Some(format!("{id} {uri} is archived")),
        _ => {}
    }
    let kind = m.kind.as_deref()?;
    let days = f.days_for(kind)?;
    (hit.age_days > days).then(|| {
        format!(
            "{id} {uri} is a {kind} of {} days ago: check it against the current state before relying on it",
            hit.age_days
        )
    })
}

/// The one line for the list's records that say what happened (no per-line warning): how many are
/// older than `f.history` days; none when `f.history` is 0 (the default).
pub fn history_warning(hits: &[Hit], f: &Freshness) -> Option<String> {
    if f.history <= 0 {
        return None;
    }
    let mut seen = std::collections::HashSet::new();
    let docs: Vec<&Hit> = hits.iter().filter(|h| seen.insert(&h.uri)).collect();
    let old = docs
        .iter()
        .filter(|h| stale_warning(h, f).is_none() && !has_own_threshold(h, f))
        .filter(|h| h.age_days > f.history)
        .count();
    (old > 0).then(|| {
        let results = if docs.len() == 1 { "result" } else { "results" };
        let verb = if old == 1 { "is" } else { "are" };
        let days = if f.history == 1 {
            "a day".to_string()
        } else {
            format!("{} days", f.history)
        };
        format!(
            "{old} of {} {results} {verb} older than {days}: a session or a page says what happened then; check the current state before relying on it",
            docs.len()
        )
    })
}

/// A hit of a kind flagged on its own line (whether or not it is old enough yet).
fn has_own_threshold(h: &Hit, f: &Freshness) -> bool {
    h.memory
        .as_ref()
        .and_then(|m| m.kind.as_deref())
        .and_then(|k| f.days_for(k))
        .is_some()
}

/// A per-hit warning without its `#docid uri` prefix (the hit's own lines already name it).
pub(crate) fn own_line(w: &str) -> &str {
    let rest = w.splitn(3, ' ').nth(2).unwrap_or(w);
    rest.strip_prefix("is ")
        .or_else(|| rest.strip_prefix("has "))
        .unwrap_or(rest)
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
