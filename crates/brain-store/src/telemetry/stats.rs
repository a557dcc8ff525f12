//! Reading `usage.jsonl` back (seed 000 §8.6, the week-1 acceptance view): how often each surface and
//! event was used, how fast, how often `ask` found nothing, what failed.
//!
//! Both generations are read (`usage.jsonl.1`, then `usage.jsonl`). A line that is not a JSON object
//! with a string `event` and an RFC 3339 `ts` is counted as malformed and skipped, never fatal: the
//! log is append-only text that other tools (shell hooks) may write too.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use jiff::Timestamp;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::Home;

/// At most this many malformed line numbers are listed (all are counted).
const MAX_LISTED: usize = 20;

/// One `(file, line)` that could not be read as a row.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Malformed {
    /// The log file.
    pub file: String,
    /// 1-based line number.
    pub line: u64,
    /// Why it was skipped.
    pub reason: String,
}

/// Usage of one event.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct EventStats {
    /// The event (`ask`, `recent`, `inbox_write`, …).
    pub event: String,
    /// Rows of this event.
    pub count: u64,
    /// Rows per surface.
    pub by_surface: BTreeMap<String, u64>,
    /// Rows that carry an `error` class.
    pub failures: u64,
    /// Those failures by reason (a row's `reason`, else its `error` class): why a hook failed.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub reasons: BTreeMap<String, u64>,
    /// Median of `latency_ms` (else `walk_ms`), nearest rank; null when no row has one.
    pub p50_ms: Option<u64>,
    /// 95th percentile, nearest rank.
    pub p95_ms: Option<u64>,
}

/// The summary `brain stats` prints.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Stats {
    /// Always `"usage_stats"`.
    pub kind: String,
    /// Start of the window (RFC 3339), or null for the whole log.
    pub since: Option<String>,
    /// Rows in the window.
    pub rows: u64,
    /// Lines skipped as malformed (in or out of the window: their time is unknown).
    pub malformed: u64,
    /// The first malformed lines (at most 20).
    pub malformed_lines: Vec<Malformed>,
    /// Time of the first and last row in the window.
    pub first: Option<String>,
    pub last: Option<String>,
    /// Distinct UTC days with at least one row (is it becoming a habit?).
    pub days_active: u64,
    /// Rows per surface.
    pub by_surface: BTreeMap<String, u64>,
    /// Per event, most used first.
    pub events: Vec<EventStats>,
    /// `ask` rows with `n_hits: 0` over `ask` rows with `n_hits`; null without any.
    pub zero_hit_rate: Option<f64>,
    /// Rows per error class (`no_results` is not an error; `refused`, `locked`, …).
    pub errors: BTreeMap<String, u64>,
    /// Indexed records by decay tier now (what the usage keeps warm); null when not counted.
    #[serde(default)]
    pub tiers: Option<crate::tiers::TierCounts>,
}

/// The log files of `home`, oldest first: `usage.jsonl.1` then `usage.jsonl`, those that exist.
pub fn files(home: &Home) -> Vec<PathBuf> {
    let current = home.usage_log();
    let mut rotated = current.as_os_str().to_owned();
    rotated.push(".1");
    [PathBuf::from(rotated), current]
        .into_iter()
        .filter(|p| p.is_file())
        .collect()
}

/// Summarize the rows of `logs` (read in order) dated at or after `since`.
pub fn summarize(logs: &[PathBuf], since: Option<Timestamp>) -> std::io::Result<Stats> {
    let mut acc = Acc::default();
    for path in logs {
        let text = std::fs::read(path)?;
        for (i, line) in text.split(|b| *b == b'\n').enumerate() {
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            acc.line(path, i as u64 + 1, line, since);
        }
    }
    Ok(acc.finish(since))
}

#[derive(Default)]
struct Acc {
    stats: Stats,
    latencies: BTreeMap<String, Vec<u64>>,
    events: BTreeMap<String, EventStats>,
    days: BTreeSet<String>,
    asks_with_hits: u64,
    asks_zero: u64,
    first: Option<Timestamp>,
    last: Option<Timestamp>,
}

impl Acc {
    fn malformed(&mut self, path: &Path, line: u64, reason: &str) {
        self.stats.malformed += 1;
        if self.stats.malformed_lines.len() < MAX_LISTED {
            self.stats.malformed_lines.push(Malformed {
                file: path.display().to_string(),
                line,
                reason: reason.into(),
            });
        }
    }

    fn line(&mut self, path: &Path, n: u64, bytes: &[u8], since: Option<Timestamp>) {
        let row = match serde_json::from_slice::<Value>(bytes) {
            Ok(Value::Object(m)) => m,
            Ok(_) => return self.malformed(path, n, "not a JSON object"),
            Err(_) => return self.malformed(path, n, "not JSON (torn or edited line)"),
        };
        let Some(event) = row
            .get("event")
            .and_then(Value::as_str)
            .filter(|e| !e.is_empty())
        else {
            return self.malformed(path, n, "no `event`");
        };
        let Some(ts) = row
            .get("ts")
            .and_then(Value::as_str)
            .and_then(|t| t.parse::<Timestamp>().ok())
        else {
            return self.malformed(path, n, "no RFC 3339 `ts`");
        };
        if since.is_some_and(|s| ts < s) {
            return;
        }
        let surface = row
            .get("surface")
            .and_then(Value::as_str)
            .unwrap_or("unknown")
            .to_string();
        self.stats.rows += 1;
        self.first = Some(self.first.map_or(ts, |f| f.min(ts)));
        self.last = Some(self.last.map_or(ts, |l| l.max(ts)));
        self.days.insert(ts.to_string().chars().take(10).collect());
        *self.stats.by_surface.entry(surface.clone()).or_default() += 1;
        let e = self
            .events
            .entry(event.to_string())
            .or_insert_with(|| EventStats {
                event: event.to_string(),
                ..EventStats::default()
            });
        e.count += 1;
        *e.by_surface.entry(surface).or_default() += 1;
        if let Some(class) = row.get("error").and_then(Value::as_str) {
            e.failures += 1;
            let reason = row.get("reason").and_then(Value::as_str).unwrap_or(class);
            *e.reasons.entry(reason.to_string()).or_default() += 1;
            *self.stats.errors.entry(class.to_string()).or_default() += 1;
        }
        let ms = |k: &str| row.get(k).and_then(Value::as_u64);
        if let Some(ms) = ms("latency_ms").or_else(|| ms("walk_ms")) {
            self.latencies
                .entry(event.to_string())
                .or_default()
                .push(ms);
        }
        if event == "ask" && row.get("error").is_none() {
            match row.get("n_hits").and_then(Value::as_u64) {
                Some(0) => self.asks_zero += 1,
                Some(_) => self.asks_with_hits += 1,
                None => {}
            }
        }
    }

    fn finish(mut self, since: Option<Timestamp>) -> Stats {
        for (event, mut ms) in self.latencies {
            ms.sort_unstable();
            if let Some(e) = self.events.get_mut(&event) {
                e.p50_ms = percentile(&ms, 50);
                e.p95_ms = percentile(&ms, 95);
            }
        }
        let mut events: Vec<EventStats> = self.events.into_values().collect();
        events.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.event.cmp(&b.event)));
        let asks = self.asks_zero + self.asks_with_hits;
        Stats {
            kind: "usage_stats".into(),
            since: since.map(|s| s.to_string()),
            first: self.first.map(|t| t.to_string()),
            last: self.last.map(|t| t.to_string()),
            days_active: self.days.len() as u64,
            events,
            zero_hit_rate: (asks > 0).then(|| round(self.asks_zero as f64 / asks as f64)),
            ..self.stats
        }
    }
}

/// Nearest-rank percentile of sorted values.
fn percentile(sorted: &[u64], p: usize) -> Option<u64> {
    if sorted.is_empty() {
        return None;
    }
    let rank = (p * sorted.len()).div_ceil(100).max(1);
    sorted.get(rank - 1).copied()
}

fn round(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_percentiles() {
        let v: Vec<u64> = (1..=20).collect();
        assert_eq!(percentile(&v, 50), Some(10));
        assert_eq!(percentile(&v, 95), Some(19));
        assert_eq!(percentile(&[7], 95), Some(7));
        assert_eq!(percentile(&[], 50), None);
    }

    #[test]
    fn malformed_lines_are_counted_and_the_rest_summarized() {
        let dir = tempfile::tempdir().expect("tempdir");
        let log = dir.path().join("usage.jsonl");
        let text = [
            r#"{"schema":1,"ts":"2026-04-01T10:00:00Z","surface":"cli","event":"ask","latency_ms":10,"n_hits":3}"#,
            r#"{"schema":1,"ts":"2026-04-02T10:00:00Z","surface":"mcp","event":"ask","latency_ms":30,"n_hits":0}"#,
            r#"{"schema":1,"ts":"2026-04-02T11:00:00Z","surface":"cli","event":"inbox_refused","error":"refused"}"#,
            r#"{"schema":1,"ts":"2026-04-02T11:00:0"#,
            r#"[1,2]"#,
            r#"{"schema":1,"ts":"yesterday","event":"ask"}"#,
            r#"{"schema":1,"ts":"2026-03-01T10:00:00Z","surface":"cli","event":"ask","latency_ms":99,"n_hits":0}"#,
        ]
        .join("\n");
        std::fs::write(&log, text).expect("write");
        let since: Timestamp = "2026-03-15T00:00:00Z".parse().expect("ts");
        let s = summarize(&[log], Some(since)).expect("stats");
        assert_eq!((s.rows, s.malformed, s.days_active), (3, 3, 2));
        assert_eq!(
            s.malformed_lines.iter().map(|m| m.line).collect::<Vec<_>>(),
            [4, 5, 6]
        );
        assert_eq!(s.zero_hit_rate, Some(0.5));
        let ask = &s.events[0];
        assert_eq!(
            (ask.event.as_str(), ask.count, ask.p50_ms, ask.p95_ms),
            ("ask", 2, Some(10), Some(30))
        );
        assert_eq!(s.errors.get("refused"), Some(&1));
        assert_eq!(s.by_surface.get("mcp"), Some(&1));
        assert_eq!(s.first.as_deref(), Some("2026-04-01T10:00:00Z"));
    }
}
