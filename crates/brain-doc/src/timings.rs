//! Phase timings of one process, for profiling a query without a profiler: with `BRAIN_TIMINGS=1`
//! in the environment, [`span`] records how long each named phase took (and on which thread, since
//! the model, the store and the lexical lists load side by side), and [`report`] gives them as one
//! JSON object that `brain ask` prints on stderr. Without the variable a span costs one cached
//! load: nothing is recorded.

use std::sync::{Mutex, OnceLock};
use std::time::Instant;

/// Whether timings are recorded (`BRAIN_TIMINGS` set to anything but `0` or empty).
pub fn enabled() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| crate::env::get(crate::env::BRAIN_TIMINGS).is_some_and(|v| v != "0"))
}

/// A phase: `(name, start ms, duration ms, thread)`.
type Phase = (&'static str, f64, f64, String);

fn clock() -> &'static Mutex<Option<Instant>> {
    static T0: OnceLock<Mutex<Option<Instant>>> = OnceLock::new();
    T0.get_or_init(|| Mutex::new(None))
}

fn origin() -> Instant {
    match clock().lock() {
        Ok(mut t) => *t.get_or_insert_with(Instant::now),
        Err(_) => Instant::now(),
    }
}

fn phases() -> &'static Mutex<Vec<Phase>> {
    static P: OnceLock<Mutex<Vec<Phase>>> = OnceLock::new();
    P.get_or_init(|| Mutex::new(Vec::new()))
}

/// Start the clock the phases' start times count from (call first thing in `main`).
pub fn start() {
    if enabled() {
        origin();
    }
}

/// Start the clock again and forget the phases recorded so far: a long-lived process (`brain
/// mcp`) times each request on its own.
pub fn restart() {
    if !enabled() {
        return;
    }
    if let Ok(mut t) = clock().lock() {
        *t = Some(Instant::now());
    }
    if let Ok(mut p) = phases().lock() {
        p.clear();
    }
}

/// A running phase; recorded when dropped.
pub struct Span {
    name: &'static str,
    start: Option<Instant>,
}

/// Time the phase `name` until the returned guard drops.
pub fn span(name: &'static str) -> Span {
    Span {
        name,
        start: enabled().then(Instant::now),
    }
}

impl Drop for Span {
    fn drop(&mut self) {
        let Some(start) = self.start else { return };
        let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
        let at = ms(start.saturating_duration_since(origin()));
        let took = ms(start.elapsed());
        let thread = std::thread::current().name().map_or_else(
            || format!("{:?}", std::thread::current().id()),
            str::to_string,
        );
        if let Ok(mut p) = phases().lock() {
            p.push((self.name, at, took, thread));
        }
    }
}

/// The recorded phases in start order, as `{"kind":"timings","total_ms":…,"phases":[{"phase",
/// "start_ms","ms","thread"}…]}`; `None` when timings are off.
pub fn report() -> Option<serde_json::Value> {
    if !enabled() {
        return None;
    }
    let mut p = phases().lock().map(|p| p.clone()).unwrap_or_default();
    p.sort_by(|a, b| a.1.total_cmp(&b.1));
    let round = |v: f64| (v * 100.0).round() / 100.0;
    Some(serde_json::json!({
        "kind": "timings",
        "total_ms": round(origin().elapsed().as_secs_f64() * 1e3),
        "phases": p.iter().map(|(name, at, took, thread)| serde_json::json!({
            "phase": name, "start_ms": round(*at), "ms": round(*took), "thread": thread,
        })).collect::<Vec<_>>(),
    }))
}

#[cfg(test)]
mod tests {
    #[test]
    fn spans_record_nothing_when_off() {
        // The test process does not set BRAIN_TIMINGS.
        if super::enabled() {
            return;
        }
        drop(super::span("x"));
        assert!(super::report().is_none());
    }
}
