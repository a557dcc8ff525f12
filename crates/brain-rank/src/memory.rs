//! Memory signals (seed 003's composite, made safe): a record's importance, confidence, pinning
//! and — for memory records, those with a `type` — its recency, applied as one *bounded multiplier*
//! on the relevance score. Seed 003 adds them (`0.65 · similarity + 0.20 · recency + 0.15 ·
//! importance + rehearsal ≤ 0.1`), which lets a fresh, important, weak match outrank the exact one —
//! the complaint users of memory tools make most. Here each signal moves the score by at most its
//! weight, and all together by at most `cap` either way, so they reorder near-ties and never lift a
//! match scoring less than `(1 − cap) / (1 + cap)` of another over it (0.74 at the default cap).
//! Queries routed as literal (quoted text, paths, identifiers, error codes) rank by relevance alone.
//! Documents without memory fields are untouched: SciFact and plain transcripts rank as before.

use brain_doc::Hit;
use serde_json::{Map, Value};

use crate::strategy::MemoryWeights;

/// Reads after which rehearsal gives its whole weight (seed 003: `least(recalled_count / 50, 0.1)`
/// saturates at five).
pub const REHEARSAL_READS: f64 = 5.0;

/// The multiplier of one record read `reads` times, and each signal's part of it (for
/// `signals.memory`); `None` for a record with neither memory fields nor reads.
pub fn multiplier(
    h: &Hit,
    w: &MemoryWeights,
    reads: u64,
    role: Option<&str>,
) -> Option<(f64, Map<String, Value>)> {
    let kind_weight = w
        .collections
        .get(&h.collection)
        .or_else(|| role.and_then(|r| w.roles.get(r)))
        .copied()
        .filter(|x| x.is_finite() && *x != 0.0);
    let archived = role == Some(brain_store::para::ROLE_PARA)
        && brain_store::para::is_archived(&h.path)
        && w.archived.is_finite()
        && w.archived != 0.0;
    if h.memory.is_none() && reads == 0 && kind_weight.is_none() && !archived {
        return None;
    }
    let mut parts = Map::new();
    let mut sum = 0.0;
    let mut add = |name: &str, x: f64| {
        if x != 0.0 {
            parts.insert(name.into(), Value::from(round(x)));
            sum += x;
        }
    };
    if let Some(x) = kind_weight {
        add("collection", x);
    }
    if archived {
        add("archived", w.archived);
    }
    // What is read stays close; merely being listed counts for nothing (it would feed on itself).
    add(
        "rehearsal",
        w.rehearsal * (reads as f64 / REHEARSAL_READS).min(1.0),
    );
    let Some(m) = h.memory.as_ref() else {
        let cap = w.cap.max(0.0);
        let total = 1.0 + sum.clamp(-cap, cap);
        parts.insert("total".into(), Value::from(round(total)));
        return Some((total, parts));
    };
    // 1 → −weight, 3 → 0, 5 → +weight.
    add(
        "importance",
        w.importance * (f64::from(m.importance.clamp(1, 5)) - 3.0) / 2.0,
    );
    let confidence = if m.confidence.is_finite() {
        m.confidence.clamp(0.0, 1.0)
    } else {
        1.0
    };
    add("confidence", w.confidence * (confidence - 1.0));
    if m.pinned {
        add("pinned", w.pinned);
    }
    // Recency only for memory records: a fact of last week over one of last year; a transcript's
    // age is already what time words and `--since` are for.
    if m.kind.is_some() {
        let half = w.recency_half_life_days.max(1.0);
        add(
            "recency",
            w.recency * 0.5_f64.powf(h.age_days.max(0) as f64 / half),
        );
    }
    let cap = w.cap.max(0.0);
    let total = 1.0 + sum.clamp(-cap, cap);
    parts.insert("total".into(), Value::from(round(total)));
    Some((total, parts))
}

/// Apply the memory multipliers to `hits` (reads from `rehearsal`), keep each document's hits
/// together, best first, and normalize so the best is 1. The caller skips literal queries.
pub fn apply(
    hits: &mut Vec<Hit>,
    w: &MemoryWeights,
    rehearsal: &brain_store::access::Rehearsal,
    role_of: &dyn Fn(&str) -> Option<String>,
) {
    let kinds = !w.roles.is_empty() || !w.collections.is_empty() || w.archived != 0.0;
    if hits.iter().all(|h| h.memory.is_none()) && rehearsal.is_empty() && !kinds {
        return;
    }
    let mut changed = false;
    for h in hits.iter_mut() {
        let reads = if rehearsal.is_empty() {
            0
        } else {
            rehearsal
                .counts(&format!("{}/{}", h.collection, h.path))
                .reads
        };
        let role = if kinds { role_of(&h.collection) } else { None };
        if let Some((m, parts)) = multiplier(h, w, reads, role.as_deref()) {
            changed = true;
            h.score *= m;
            h.signals.insert("memory".into(), Value::Object(parts));
        }
    }
    if !changed {
        return;
    }
    crate::when::score::regroup(hits, |best, _| best);
    crate::when::score::normalize(hits);
}

fn round(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use brain_doc::HitMemory;

    fn hit(uri: &str, score: f64, importance: u8, kind: Option<&str>, age: i64) -> Hit {
        let mut h: Hit = serde_json::from_value(serde_json::json!({
            "schema": 1, "kind": "hit", "rank": 1, "score": score, "uri": uri, "docid": "#000000",
            "collection": "c", "path": uri, "title": "", "date": "", "age_days": age, "line": 1,
            "snippet": ""
        }))
        .expect("hit");
        h.memory = Some(HitMemory {
            kind: kind.map(str::to_string),
            importance,
            confidence: 1.0,
            pinned: false,
            key: None,
            occurred_at: None,
            expires_at: None,
            state: "current".into(),
            superseded_by: None,
        });
        h
    }

    #[test]
    fn importance_decides_near_ties_but_never_a_clear_difference() {
        let w = MemoryWeights::default();
        let none = brain_store::access::Rehearsal::default();
        let mut hits = vec![hit("low", 1.0, 1, None, 0), hit("high", 0.98, 5, None, 0)];
        apply(&mut hits, &w, &none, &|_| None);
        assert_eq!(hits[0].uri, "high");
        assert_eq!(hits[0].score, 1.0);
        // A clear relevance gap stays.
        let mut hits = vec![
            hit("strong", 1.0, 1, None, 0),
            hit("weak", 0.7, 5, Some("fact"), 0),
        ];
        apply(&mut hits, &w, &none, &|_| None);
        assert_eq!(hits[0].uri, "strong");
    }

    #[test]
    fn a_distilled_memo_edges_out_its_raw_session_among_near_ties() {
        let w = MemoryWeights::default();
        let none = brain_store::access::Rehearsal::default();
        let mut raw = hit("raw", 1.0, 3, None, 0);
        raw.collection = "brain".into();
        raw.memory = None;
        let mut memo = hit("memo", 0.97, 3, None, 0);
        memo.collection = "distilled".into();
        memo.memory = None;
        let mut hits = vec![raw, memo];
        let role = |c: &str| (c == "distilled").then(|| "distilled".to_string());
        apply(&mut hits, &w, &none, &role);
        assert_eq!(hits[0].uri, "memo");
        assert_eq!(hits[0].signals["memory"]["collection"], 0.05);
        // A collection's own weight wins over its role's, and stays inside the cap.
        let mut w = MemoryWeights::default();
        w.collections.insert("distilled".into(), 5.0);
        let (m, _) = multiplier(&hits[0], &w, 0, Some("distilled")).expect("m");
        assert_eq!(m, 1.0 + w.cap);
    }

    #[test]
    fn the_multiplier_is_bounded_and_shows_its_parts() {
        let w = MemoryWeights::default();
        let (m, parts) = multiplier(&hit("a", 1.0, 5, Some("fact"), 0), &w, 0, None).expect("m");
        assert!(m <= 1.0 + w.cap + 1e-9);
        assert!(parts.contains_key("importance") && parts.contains_key("recency"));
        let (m, _) = multiplier(&hit("a", 1.0, 1, None, 9_000), &w, 0, None).expect("m");
        assert!(m >= 1.0 - w.cap - 1e-9);
        // Recency halves with its half-life and touches only memory records.
        let (young, _) = multiplier(&hit("a", 1.0, 3, Some("fact"), 0), &w, 0, None).expect("m");
        let (old, _) = multiplier(&hit("a", 1.0, 3, Some("fact"), 365), &w, 0, None).expect("m");
        let (plain, parts) = multiplier(&hit("a", 1.0, 3, None, 0), &w, 0, None).expect("m");
        assert!(young > old && old > 1.0);
        assert_eq!(plain, 1.0);
        assert_eq!(parts.len(), 1); // only the total
        // Rehearsal grows to its weight at five reads, and no further.
        let reads = |n| {
            multiplier(&hit("a", 1.0, 3, None, 0), &w, n, None)
                .expect("m")
                .0
        };
        assert!(reads(1) > 1.0 && reads(5) > reads(1));
        assert_eq!(reads(5), reads(500));
        assert!((reads(5) - 1.0 - w.rehearsal).abs() < 1e-9);
        // Hostile values stay inside the bound.
        let mut h = hit("a", 1.0, 200, Some("fact"), -5);
        if let Some(m) = h.memory.as_mut() {
            m.confidence = f64::NAN;
        }
        let (m, _) = multiplier(&h, &w, u64::MAX, None).expect("m");
        assert!((1.0 - w.cap..=1.0 + w.cap).contains(&m), "{m}");
    }

    #[test]
    fn a_para_archive_yields_to_an_active_near_tie_but_not_to_a_weak_match() {
        let w = MemoryWeights::default();
        let none = brain_store::access::Rehearsal::default();
        let plain = |uri: &str, score: f64, path: &str| {
            let mut h = hit(uri, score, 3, None, 0);
            h.collection = "life".into();
            h.path = path.into();
            h.memory = None;
            h
        };
        let role = |c: &str| (c == "life").then(|| "para".to_string());
        let mut hits = vec![
            plain("old", 1.0, "archives/projects/x/summary.md"),
            plain("new", 0.95, "projects/y/summary.md"),
        ];
        apply(&mut hits, &w, &none, &role);
        assert_eq!(hits[0].uri, "new");
        assert_eq!(hits[1].signals["memory"]["archived"], -0.1);
        let mut hits = vec![
            plain("old", 1.0, "archives/projects/x/summary.md"),
            plain("weak", 0.6, "projects/y/summary.md"),
        ];
        apply(&mut hits, &w, &none, &role);
        assert_eq!(hits[0].uri, "old");
        // Outside a para collection, a folder named archives is nothing special.
        let mut hits = vec![plain("a", 1.0, "archives/x.md")];
        apply(&mut hits, &w, &none, &|_| None);
        assert!(!hits[0].signals.contains_key("memory"));
    }
}
