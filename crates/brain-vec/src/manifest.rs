//! A store generation's manifest (`manifest.json`, replaced atomically, last: it names the
//! generation readers open) and the embedding rate it carries.

use serde::{Deserialize, Serialize};

use crate::embed::Fingerprint;

/// The manifest naming the current generation.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Manifest {
    /// Store format version ([`SCHEMA`]).
    pub schema: u32,
    /// Current generation; its files are `g<generation>.*`.
    pub generation: u64,
    /// What the vectors were made with.
    pub fingerprint: Fingerprint,
    /// Rows (chunks).
    pub chunks: u64,
    /// Documents.
    pub docs: u64,
    /// Whether the generation has its int8 copy (`g<N>.q8`); stores written before it existed do not,
    /// and are scanned in f32.
    #[serde(default)]
    pub int8: bool,
    /// The embedding rate measured by the last run that embedded enough to measure (carried over by
    /// runs that did not): what `status` projects the backlog's drain time with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<Rate>,
}

/// An embedding rate measured by a `vecindex` run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Rate {
    /// Seconds of embedding per document (its chunks' forward passes; reused chunks cost nothing).
    pub secs_per_doc: f64,
    /// Seconds per chunk embedded.
    pub secs_per_chunk: f64,
    /// Documents the run embedded (how much the figure rests on).
    pub docs: usize,
    /// The batch kernel (`int8-vnni`, `f32`, `remote`).
    pub kernel: String,
    /// When it was measured (RFC 3339).
    pub measured_at: String,
}

impl Rate {
    /// Fewer computed chunks than this make no rate (a handful of chunks is mostly start-up).
    pub const MIN_CHUNKS: usize = 32;

    /// Projected seconds to embed `docs` documents at this rate.
    pub fn drain_secs(&self, docs: u64) -> f64 {
        self.secs_per_doc * docs as f64
    }
}

/// A projected duration for people: `~40 s`, `~12 min`, `~3.5 h`.
pub fn human_secs(secs: f64) -> String {
    if secs < 90.0 {
        format!("~{:.0} s", secs.max(1.0))
    } else if secs < 90.0 * 60.0 {
        format!("~{:.0} min", secs / 60.0)
    } else {
        format!("~{:.1} h", secs / 3600.0)
    }
}
