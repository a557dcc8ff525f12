//! Time as a ranking signal: every hit's score multiplied by `1 + boost × proximity`, and "latest" /
//! "the first time" ordering the relevant hits by session time. Hits of one document stay together
//! (a document's passages are consecutive, best first).

use std::collections::HashMap;

use brain_doc::Hit;
use jiff::Timestamp;
use serde_json::Value;

use super::{Order, When};
use crate::strategy::TimeWeights;

/// When the session of `h` ran: its start (`started`, else `date`) to its end (`ended`, else the
/// start).
pub fn span(h: &Hit) -> Option<(Timestamp, Timestamp)> {
    let start: Timestamp = h.started.as_deref().unwrap_or(&h.date).parse().ok()?;
    let end = h
        .ended
        .as_deref()
        .and_then(|e| e.parse::<Timestamp>().ok())
        .map_or(start, |e| e.max(start));
    Some((start, end))
}

/// Score `hits` (best first) by `w`: proximity scales each score (the signal `time`), then an
/// ordering moves the relevant hits (at least `t.relevant` of the best) into session-time order.
/// Scores are normalized again so the best is 1; ranks are left to the caller.
pub fn apply(hits: &mut Vec<Hit>, w: &When, t: &TimeWeights) {
    if hits.is_empty() {
        return;
    }
    if w.window.is_some() || w.part.is_some() {
        for h in hits.iter_mut() {
            let p = span(h).map_or(0.0, |(a, b)| w.proximity(a, b));
            h.score *= 1.0 + t.boost * p;
            h.signals.insert("time".into(), Value::from(round(p)));
        }
        regroup(hits, |best, _| best);
    }
    if let Some(order) = w.order {
        let top = hits.iter().map(|h| h.score).fold(0.0, f64::max);
        let cut = top * t.relevant;
        let key = |h: &Hit| span(h).map_or(0, |(a, _)| a.as_second());
        regroup(hits, |best, h| {
            if best < cut {
                return best - 2.0 * top.max(1.0); // below every relevant hit, in score order
            }
            let s = key(h) as f64;
            match order {
                Order::Latest => s,
                Order::First => -s,
            }
        });
        for h in hits.iter_mut() {
            h.signals.insert("order".into(), Value::from(order.name()));
        }
    }
    normalize(hits);
}

/// Scale scores so the best is 1 (four decimals).
pub(crate) fn normalize(hits: &mut [Hit]) {
    let top = hits.iter().map(|h| h.score).fold(0.0, f64::max);
    if top > 0.0 {
        for h in hits.iter_mut() {
            h.score = round(h.score / top);
        }
    }
}

/// Sort documents by `key(best score of the document, its first hit)`, highest first, keeping each
/// document's hits together and in their order; ties keep the current order.
pub(crate) fn regroup(hits: &mut Vec<Hit>, key: impl Fn(f64, &Hit) -> f64) {
    // Per document: its best score and its first hit.
    let mut docs: Vec<(f64, usize)> = Vec::new();
    let mut at: HashMap<&str, usize> = HashMap::new();
    let mut doc_of = Vec::with_capacity(hits.len());
    for (i, h) in hits.iter().enumerate() {
        let d = *at.entry(h.uri.as_str()).or_insert_with(|| {
            docs.push((h.score, i));
            docs.len() - 1
        });
        docs[d].0 = docs[d].0.max(h.score);
        doc_of.push(d);
    }
    let mut order: Vec<(f64, usize)> = docs
        .iter()
        .enumerate()
        .map(|(d, &(best, first))| (key(best, &hits[first]), d))
        .collect();
    order.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut place = vec![0; docs.len()];
    for (n, &(_, d)) in order.iter().enumerate() {
        place[d] = n;
    }
    let mut idx: Vec<usize> = (0..hits.len()).collect();
    idx.sort_by_key(|&i| (place[doc_of[i]], i));
    let mut slots: Vec<Option<Hit>> = std::mem::take(hits).into_iter().map(Some).collect();
    *hits = idx.into_iter().filter_map(|i| slots[i].take()).collect();
}

fn round(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0
}
