//! Telemetry (seed 000 §8.1): `$BRAIN_HOME/logs/usage.jsonl`, one row per meaningful action.
//!
//! Rows are `{schema: 1, ts, surface, event, …fields}`, appended whole under an exclusive lock so
//! concurrent writers never tear a line; the file is created and kept at mode 0600. Callers never pass
//! query text (only lengths and counts). `BRAIN_TELEMETRY=off` disables it. Telemetry must never break
//! the action it records, so callers usually ignore the result.

use std::fs::OpenOptions;
use std::io::Write;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::{Map, Value};

use crate::Home;

/// True unless `BRAIN_TELEMETRY` is `off`, `0` or `false`.
pub fn enabled() -> bool {
    !matches!(std::env::var("BRAIN_TELEMETRY").as_deref(), Ok("off" | "0" | "false"))
}

/// Append one row for `event` on `surface` (`cli`, `mcp`, `hook`, `cron`) with extra `fields`.
pub fn append(home: &Home, surface: &str, event: &str, fields: Map<String, Value>) -> std::io::Result<()> {
    if !enabled() {
        return Ok(());
    }
    let mut row = Map::new();
    row.insert("schema".into(), Value::from(1));
    row.insert("ts".into(), Value::from(now_rfc3339()));
    row.insert("surface".into(), Value::from(surface));
    row.insert("event".into(), Value::from(event));
    for (k, v) in fields {
        if !matches!(k.as_str(), "schema" | "ts" | "surface" | "event") {
            row.insert(k, v);
        }
    }
    let mut line = serde_json::to_vec(&row).map_err(std::io::Error::other)?;
    line.push(b'\n');
    let path = home.usage_log();
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let mut f = OpenOptions::new().create(true).append(true).mode(0o600).open(&path)?;
    f.set_permissions(std::fs::Permissions::from_mode(0o600))?;
    f.lock()?;
    f.write_all(&line)?;
    f.unlock()
}

/// The current time, RFC 3339 in UTC with seconds.
fn now_rfc3339() -> String {
    let secs = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let (days, rem) = (secs / 86_400, secs % 86_400);
    let (y, m, d) = civil_from_days(days as i64);
    format!("{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z", rem / 3600, rem % 3600 / 60, rem % 60)
}

/// Days since 1970-01-01 → (year, month, day), after Howard Hinnant's `civil_from_days`.
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_dates_are_right() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(20_779), (2026, 11, 22));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
    }

    #[test]
    fn concurrent_rows_are_whole_and_the_file_is_private() {
        let dir = tempfile::tempdir().expect("tempdir");
        let home = Home::at(dir.path());
        std::thread::scope(|s| {
            for i in 0..50 {
                let home = &home;
                s.spawn(move || {
                    let mut f = Map::new();
                    f.insert("n".into(), Value::from(i));
                    f.insert("pad".into(), Value::from("x".repeat(5000)));
                    append(home, "cli", "test", f).expect("append");
                });
            }
        });
        let text = std::fs::read_to_string(home.usage_log()).expect("read");
        let rows: Vec<Value> = text.lines().map(|l| serde_json::from_str(l).expect("whole row")).collect();
        assert_eq!(rows.len(), 50);
        assert!(rows.iter().all(|r| r["schema"] == 1 && r["surface"] == "cli" && r["event"] == "test"));
        let mode = std::fs::metadata(home.usage_log()).expect("meta").permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
    }
}
