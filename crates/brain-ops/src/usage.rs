//! The telemetry file as `explain` shows it and `doctor` checks it: `$BRAIN_HOME/logs/usage.jsonl`.

use std::io::{Read, Seek, SeekFrom};
use std::os::unix::fs::PermissionsExt;

use brain_store::Home;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Bytes read from the end of the file for the last events.
const TAIL_BYTES: u64 = 64 * 1024;

/// Where telemetry goes and what it last recorded.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TelemetryInfo {
    /// `$BRAIN_HOME/logs/usage.jsonl`.
    pub path: String,
    /// False when `BRAIN_TELEMETRY` is `off`, `0` or `false`.
    pub enabled: bool,
    /// Whether the file exists.
    pub exists: bool,
    /// Its permission bits in octal (`0600` expected), when it exists.
    pub mode: Option<String>,
    /// Its size in bytes.
    pub bytes: u64,
    /// The last rows (oldest first), as recorded; lines that do not parse are left out.
    pub last_events: Vec<Value>,
}

/// The telemetry file of `home` with its last `tail` rows.
pub fn info(home: &Home, tail: usize) -> TelemetryInfo {
    let path = home.usage_log();
    let meta = std::fs::metadata(&path).ok();
    TelemetryInfo {
        path: path.display().to_string(),
        enabled: brain_store::telemetry::enabled(),
        exists: meta.is_some(),
        mode: meta
            .as_ref()
            .map(|m| format!("{:04o}", m.permissions().mode() & 0o7777)),
        bytes: meta.as_ref().map_or(0, |m| m.len()),
        last_events: last_rows(&path, tail),
    }
}

fn last_rows(path: &std::path::Path, n: usize) -> Vec<Value> {
    let Ok(mut f) = std::fs::File::open(path) else {
        return Vec::new();
    };
    let len = f.metadata().map_or(0, |m| m.len());
    let start = len.saturating_sub(TAIL_BYTES);
    let mut buf = Vec::new();
    if f.seek(SeekFrom::Start(start)).is_err() || f.read_to_end(&mut buf).is_err() {
        return Vec::new();
    }
    let text = brain_doc::bytes::text(&buf).0;
    let mut lines: Vec<&str> = text.lines().collect();
    if start > 0 && !lines.is_empty() {
        lines.remove(0); // probably cut in the middle
    }
    let rows: Vec<Value> = lines
        .iter()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(Value::is_object)
        .collect();
    rows[rows.len().saturating_sub(n)..].to_vec()
}

/// Why one line of usage.jsonl is not a telemetry row, or `None` when it is one.
pub fn row_problem(line: &str) -> Option<String> {
    let v: Value = match serde_json::from_str(line) {
        Ok(v) => v,
        Err(e) => return Some(format!("not JSON ({e})")),
    };
    let Some(o) = v.as_object() else {
        return Some("not a JSON object".into());
    };
    if !o.get("schema").is_some_and(Value::is_u64) {
        return Some("no numeric `schema`".into());
    }
    for k in ["ts", "surface", "event"] {
        if !o.get(k).is_some_and(Value::is_string) {
            return Some(format!("no `{k}` string"));
        }
    }
    None
}

/// Every line of the telemetry file checked: (rows, bad lines as `line N: reason`).
pub fn check(home: &Home) -> std::io::Result<(u64, Vec<String>)> {
    let bytes = std::fs::read(home.usage_log())?;
    let text = brain_doc::bytes::text(&bytes).0;
    let mut rows = 0;
    let mut bad = Vec::new();
    for (i, line) in text.split_inclusive('\n').enumerate() {
        if !line.ends_with('\n') {
            bad.push(format!("line {}: torn (no newline at the end)", i + 1));
            continue;
        }
        if line.trim().is_empty() {
            continue;
        }
        match row_problem(line) {
            None => rows += 1,
            Some(why) => bad.push(format!("line {}: {why}", i + 1)),
        }
    }
    Ok((rows, bad))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_need_the_four_fields() {
        assert_eq!(
            row_problem(r#"{"schema":1,"ts":"t","surface":"cli","event":"ask"}"#),
            None
        );
        assert!(row_problem(r#"{"schema":1,"ts":"t","surface":"cli"}"#).is_some());
        assert!(row_problem(r#"{"schema":1,"ts":"t","surf"#).is_some());
        assert!(row_problem("[1]").is_some());
    }
}
