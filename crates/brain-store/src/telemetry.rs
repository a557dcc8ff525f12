//! Telemetry (seed 000 §8.1): `$BRAIN_HOME/logs/usage.jsonl`, one row per meaningful action.
//!
//! Rows are `{schema: 1, ts, surface, event, …fields}`, appended whole under an exclusive lock so
//! concurrent writers never tear a line; the file is created and kept at mode 0600. When the file
//! reaches [`MAX_BYTES`] it is renamed to `usage.jsonl.1` (replacing the previous one) and a new file
//! starts, so the log stays bounded at about twice that size. Callers never pass query text unless
//! the user opted in ([`queries_opted_in`]); only lengths and counts. `BRAIN_TELEMETRY=off` disables
//! it. Telemetry must never break the action it records, so callers usually ignore the result.
//!
//! [`stats`] reads the log back: usage by surface and event, latency percentiles, zero-hit rate.

pub mod clicks;
pub mod stats;

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::{Map, Value};

use crate::Home;

/// Size at which `usage.jsonl` is rotated to `usage.jsonl.1`: 8 MiB, about 50,000 rows of ~160
/// bytes — months of interactive use, and small enough for `brain stats` to read in milliseconds.
pub const MAX_BYTES: u64 = 8 * 1024 * 1024;

/// Which surface an action came through (seed 000 §8.1: cli | mcp | hook | cron).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Surface {
    /// A person (or a script) at a terminal: the default.
    Cli,
    /// The MCP server, on behalf of an agent.
    Mcp,
    /// A Claude Code hook (the stop hook).
    Hook,
    /// A scheduled job (cron, systemd timer, launchd).
    Cron,
}

impl Surface {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Surface::Cli => "cli",
            Surface::Mcp => "mcp",
            Surface::Hook => "hook",
            Surface::Cron => "cron",
        }
    }

    /// Parse a wire name (case-insensitive).
    pub fn parse(s: &str) -> Option<Surface> {
        match s.trim().to_ascii_lowercase().as_str() {
            "cli" => Some(Surface::Cli),
            "mcp" => Some(Surface::Mcp),
            "hook" => Some(Surface::Hook),
            "cron" => Some(Surface::Cron),
            _ => None,
        }
    }

    /// `$BRAIN_SURFACE` (set by the stop hook and the schedules), else `cli`. An unknown value counts
    /// as `cli` rather than inventing a surface.
    pub fn from_env() -> Surface {
        brain_doc::env::get(brain_doc::env::BRAIN_SURFACE)
            .and_then(Surface::parse)
            .unwrap_or(Surface::Cli)
    }
}

impl std::fmt::Display for Surface {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// True unless `BRAIN_TELEMETRY` is `off`, `0` or `false`.
pub fn enabled() -> bool {
    !matches!(
        brain_doc::env::os(brain_doc::env::BRAIN_TELEMETRY).and_then(|v| v.to_str()),
        Some("off" | "0" | "false")
    )
}

/// Whether the user opted in to query text in telemetry rows: `BRAIN_TELEMETRY_QUERIES=1` (or `on`,
/// `true`), or `telemetry: {queries: true}` in brain.yaml. Off by default: a query can hold anything.
pub fn queries_opted_in(home: &Home) -> bool {
    queries_opted_in_by(crate::Config::load(home).ok().as_ref())
}

/// [`queries_opted_in`] with brain.yaml already read (`None`: unreadable, not opted in).
pub fn queries_opted_in_by(config: Option<&crate::Config>) -> bool {
    if let Some(v) =
        brain_doc::env::os(brain_doc::env::BRAIN_TELEMETRY_QUERIES).and_then(|v| v.to_str())
    {
        return matches!(v.trim(), "1" | "on" | "true" | "yes");
    }
    config.is_some_and(|c| {
        c.other
            .get("telemetry")
            .and_then(|t| t.get("queries"))
            .and_then(serde_norway::Value::as_bool)
            .unwrap_or(false)
    })
}

/// Append one row for `event` on `surface` (`cli`, `mcp`, `hook`, `cron`) with extra `fields`.
pub fn append(
    home: &Home,
    surface: &str,
    event: &str,
    fields: Map<String, Value>,
) -> std::io::Result<()> {
    if !enabled() {
        return Ok(());
    }
    append_to(&home.usage_log(), MAX_BYTES, &row(surface, event, fields))
}

/// The row as written: `schema`, `ts`, `surface`, `event` first, then `fields` (which cannot
/// override those four).
pub fn row(surface: &str, event: &str, fields: Map<String, Value>) -> Map<String, Value> {
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
    row
}

/// Append `row` as one line to the log at `path`, rotating it first when it has reached `max_bytes`.
///
/// The lock is taken on the log file itself (what `flock usage.jsonl …` in a shell script takes). A
/// writer that waited while another rotated the file holds a lock on the renamed file, so after
/// locking it checks that its handle is still the file at `path` and starts over if not.
pub fn append_to(path: &Path, max_bytes: u64, row: &Map<String, Value>) -> std::io::Result<()> {
    append_rows_to(path, max_bytes, std::slice::from_ref(row))
}

/// [`append_to`] for several rows, written in one locked append.
pub fn append_rows_to(
    path: &Path,
    max_bytes: u64,
    rows: &[Map<String, Value>],
) -> std::io::Result<()> {
    if brain_doc::atomic::read_only() {
        return Ok(());
    }
    let mut line = Vec::new();
    for row in rows {
        serde_json::to_writer(&mut line, row).map_err(std::io::Error::other)?;
        line.push(b'\n');
    }
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    loop {
        let mut f = open_private(path)?;
        f.lock()?;
        let current = std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()));
        let mine = f.metadata()?;
        if current != Some((mine.dev(), mine.ino())) {
            continue; // rotated (or removed) while we waited: lock the new file instead
        }
        if mine.len() >= max_bytes {
            let mut rotated = path.as_os_str().to_owned();
            rotated.push(".1");
            std::fs::rename(path, &rotated)?;
            // Still holding the lock on the renamed file: waiters notice and reopen.
            continue;
        }
        f.write_all(&line)?;
        return f.unlock();
    }
}

fn open_private(path: &Path) -> std::io::Result<File> {
    let f = OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .open(path)?;
    f.set_permissions(std::fs::Permissions::from_mode(0o600))?;
    Ok(f)
}

/// The current time, RFC 3339 in UTC with seconds.
fn now_rfc3339() -> String {
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (days, rem) = (secs / 86_400, secs % 86_400);
    let (y, m, d) = civil_from_days(days as i64);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
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
    fn surfaces_parse_and_unknown_ones_are_refused() {
        for s in [Surface::Cli, Surface::Mcp, Surface::Hook, Surface::Cron] {
            assert_eq!(Surface::parse(s.as_str()), Some(s));
        }
        assert_eq!(Surface::parse(" MCP "), Some(Surface::Mcp));
        assert_eq!(Surface::parse("web"), None);
    }

    #[test]
    fn reserved_keys_cannot_be_overridden_by_fields() {
        let mut f = Map::new();
        f.insert("event".into(), Value::from("forged"));
        f.insert("n".into(), Value::from(1));
        let r = row("cli", "ask", f);
        assert_eq!(r["event"], "ask");
        assert_eq!(
            r.keys().collect::<Vec<_>>(),
            ["schema", "ts", "surface", "event", "n"]
        );
    }

    #[test]
    fn the_log_rotates_at_the_size_limit_and_keeps_one_generation() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("logs/usage.jsonl");
        let one = |n: u64| {
            let mut f = Map::new();
            f.insert("n".into(), Value::from(n));
            row("cli", "t", f)
        };
        let len = serde_json::to_vec(&one(0)).expect("json").len() as u64 + 1;
        // Room for three rows, so the fourth rotates; the seventh rotates again.
        for n in 0..8 {
            append_to(&path, 3 * len, &one(n)).expect("append");
        }
        let ns = |p: &Path| -> Vec<u64> {
            std::fs::read_to_string(p)
                .expect("read")
                .lines()
                .map(|l| {
                    serde_json::from_str::<Value>(l).expect("row")["n"]
                        .as_u64()
                        .expect("n")
                })
                .collect()
        };
        assert_eq!(ns(&path), [6, 7]);
        assert_eq!(ns(&dir.path().join("logs/usage.jsonl.1")), [3, 4, 5]);
        let mode = std::fs::metadata(&path).expect("meta").permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
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
        let rows: Vec<Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).expect("whole row"))
            .collect();
        assert_eq!(rows.len(), 50);
        assert!(
            rows.iter()
                .all(|r| r["schema"] == 1 && r["surface"] == "cli" && r["event"] == "test")
        );
        let mode = std::fs::metadata(home.usage_log())
            .expect("meta")
            .permissions()
            .mode()
            & 0o777;
        assert_eq!(mode, 0o600);
    }
}
