//! The telemetry row of one CLI action (docs/telemetry.md): the event, its fields, `latency_ms`, and
//! on failure the error class. The surface is `$BRAIN_SURFACE` (the stop hook and the schedules set
//! it), else `cli`.

use std::time::Instant;

use brain_cli::{Exit, classify};
use brain_store::Home;
use brain_store::telemetry::{self, Surface};
use serde_json::{Map, Value};

/// A row being filled while the action runs.
pub struct Row {
    event: &'static str,
    fields: Map<String, Value>,
    started: Instant,
}

impl Row {
    /// Start timing `event`.
    pub fn new(event: &'static str) -> Row {
        Row {
            event,
            fields: Map::new(),
            started: Instant::now(),
        }
    }

    /// Set one field.
    pub fn set(&mut self, key: &str, value: impl Into<Value>) {
        self.fields.insert(key.into(), value.into());
    }

    /// Append the row (never failing the action): `latency_ms`, and `error` with the failure class
    /// when `result` is an error.
    pub fn finish(mut self, home: &Home, result: &anyhow::Result<Exit>) {
        if let Err(e) = result {
            self.set("error", classify(e).code.as_str());
        }
        self.set("latency_ms", self.started.elapsed().as_millis() as u64);
        let _ = telemetry::append(home, Surface::from_env().as_str(), self.event, self.fields);
    }
}
