//! `$BRAIN_HOME/tune-log.jsonl`: every experiment of every run, appended under a lock, mode 0600;
//! then one summary per run. Two runs with the same inputs and seed write the same lines but for
//! `ts` and `duration_ms` (a test holds it).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use brain_store::Home;

/// The log's file name inside `$BRAIN_HOME`.
pub const FILE: &str = "tune-log.jsonl";

/// Size past which the log is rotated (`tune-log.jsonl.1`): thousands of runs.
const MAX_BYTES: u64 = 16 * 1024 * 1024;

/// One experiment (`kind: "tune_experiment"`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Experiment {
    pub kind: String,
    /// The run: a hash of what it tunes on and with (set, split, objective, mode, seed, start).
    pub run: String,
    pub iteration: usize,
    /// knob → [old, new].
    pub changes: BTreeMap<String, (Value, Value)>,
    pub hypothesis: String,
    pub train: f64,
    pub dev: f64,
    /// dev minus the dev score kept so far.
    pub delta: f64,
    /// `baseline`, `keep`, `revert`, or `rejected` (a proposal that broke a knob's range or
    /// type, or a proposer that failed; `reason` says which).
    pub decision: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    pub ts: String,
    pub duration_ms: u64,
}

/// Scores of one part, whole and by class.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PartScore {
    pub score: f64,
    pub queries: usize,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub classes: BTreeMap<String, f64>,
}

/// The end of a run (`kind: "tune_summary"`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    pub kind: String,
    pub run: String,
    pub set: String,
    pub objective: String,
    pub mode: String,
    pub seed: u64,
    /// How train and dev were made.
    pub parts: String,
    pub iterations: usize,
    pub kept: usize,
    /// `patience`, `iterations`, `minutes`, `exhausted`.
    pub stopped: String,
    pub before: BTreeMap<String, PartScore>,
    pub after: BTreeMap<String, PartScore>,
    /// knob → [before, after], for every knob that moved.
    pub moved: BTreeMap<String, (Value, Value)>,
    /// The test split, scored once at the end (`--final-test`): before and after.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub test: Option<(PartScore, PartScore)>,
    /// Where the tuned strategy went (none kept: the file is untouched).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub strategy: Option<String>,
    pub ts: String,
    pub duration_ms: u64,
}

/// Append one record.
pub fn append(home: &Home, record: &impl Serialize) -> std::io::Result<()> {
    let v = serde_json::to_value(record).map_err(std::io::Error::other)?;
    let Value::Object(row) = v else {
        return Err(std::io::Error::other("a log record is an object"));
    };
    brain_store::telemetry::append_to(&home.root().join(FILE), MAX_BYTES, &row)
}

/// Every record of the log (experiments and summaries), in order; lines that do not read are
/// skipped.
pub fn read(home: &Home) -> Vec<Value> {
    std::fs::read_to_string(home.root().join(FILE))
        .map(|t| {
            t.lines()
                .filter_map(|l| serde_json::from_str(l).ok())
                .collect()
        })
        .unwrap_or_default()
}

/// Now, RFC 3339 (the wall clock: `ts` says when the experiment ran).
pub fn now() -> String {
    jiff::Timestamp::now()
        .round(jiff::Unit::Second)
        .map_or_else(|_| String::new(), |t| t.to_string())
}
