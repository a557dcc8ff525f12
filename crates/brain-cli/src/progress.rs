//! Progress bars on stderr, drawn only when stderr is a terminal.

use std::io::IsTerminal;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// A progress bar over `len` items with an ETA, hidden unless stderr is a TTY.
pub fn bar(len: u64, what: &str) -> ProgressBar {
    styled(
        len,
        what,
        "{prefix} [{bar:30}] {pos}/{len} {per_sec} ETA {eta}",
    )
}

/// A bar over `len` items drawn with `template` on stderr, hidden unless stderr is a TTY.
fn styled(len: u64, what: &str, template: &str) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let pb = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr());
    let style = ProgressStyle::with_template(template)
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("=> ");
    pb.set_style(style);
    pb.set_prefix(what.to_string());
    pb
}

/// Colour on stderr/stdout is allowed: a terminal, and `NO_COLOR` unset or empty.
pub fn color_enabled(stream_is_terminal: bool) -> bool {
    stream_is_terminal && !brain_doc::env::set(brain_doc::env::NO_COLOR)
}

/// A progress bar whose time estimate comes from the rate measured so far, not from the first
/// step (a model loads, a first batch warms caches, documents already embedded fly past: indicatif's
/// own estimate said "33m" for a three-minute job). No estimate until [`Measured::SETTLE`] has
/// passed since the first step; then `remaining / (done since the first step / time since it)`.
pub struct Measured {
    bar: ProgressBar,
    first: std::sync::Mutex<Option<(std::time::Instant, u64)>>,
}

impl Measured {
    /// How long after the first step an estimate is shown.
    pub const SETTLE: std::time::Duration = std::time::Duration::from_secs(3);

    /// A bar over `len` items, hidden unless stderr is a TTY.
    pub fn new(len: u64, what: &str) -> Measured {
        Measured {
            bar: styled(len, what, "{prefix} [{bar:30}] {pos}/{len} {msg}"),
            first: std::sync::Mutex::new(None),
        }
    }

    /// `done` of `len` items are finished (for work whose size is known only once it started).
    pub fn set_of(&self, done: u64, len: u64) {
        self.bar.set_length(len);
        self.set(done);
    }

    /// `done` items are finished.
    pub fn set(&self, done: u64) {
        self.bar.set_position(done);
        let now = std::time::Instant::now();
        let mut first = self
            .first
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let (t0, n0) = *first.get_or_insert((now, done));
        let len = self.bar.length().unwrap_or(0);
        self.bar.set_message(eta(t0, n0, now, done, len));
    }

    pub fn finish_and_clear(&self) {
        self.bar.finish_and_clear();
    }
}

/// "ETA 2m 10s" from the rate since the first step, or "measuring…" while too little has passed.
fn eta(t0: std::time::Instant, n0: u64, now: std::time::Instant, done: u64, len: u64) -> String {
    let spent = now.duration_since(t0);
    if spent < Measured::SETTLE || done <= n0 {
        return "ETA measuring…".into();
    }
    let rate = (done - n0) as f64 / spent.as_secs_f64();
    let left = len.saturating_sub(done) as f64 / rate;
    let secs = left.round() as u64;
    if secs >= 60 {
        format!("ETA {}m {:02}s", secs / 60, secs % 60)
    } else {
        format!("ETA {secs}s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    #[test]
    fn the_estimate_waits_for_a_measured_rate_then_uses_it() {
        let t0 = Instant::now();
        assert_eq!(
            eta(t0, 0, t0 + Duration::from_secs(1), 5, 100),
            "ETA measuring…"
        );
        // 10 items in 10 s since the first step: 90 left at 1/s.
        assert_eq!(
            eta(t0, 0, t0 + Duration::from_secs(10), 10, 100),
            "ETA 1m 30s"
        );
        // The first step's own count (documents already embedded) is not part of the rate.
        assert_eq!(eta(t0, 50, t0 + Duration::from_secs(5), 60, 100), "ETA 20s");
    }
}
