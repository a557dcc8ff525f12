//! The `--json` envelope: one JSON object for the whole answer.
//!
//! ```json
//! {"schema":1,"kind":"results","query":"lock contention","took_ms":4,"count":1,"hits":[…],"warnings":[…]}
//! {"schema":1,"kind":"results","query":"cache bug last week",…,"time":{"expr":"last week","from":"…","to":"…","soft":true,"margin_hours":42}}
//! ```
//!
//! An empty result is explicit (`"count":0,"hits":[]`), never silence.

use std::io::{self, Write};

use brain_doc::Hit;
use serde::{Deserialize, Serialize};

use crate::{Options, stale_warning};

/// The JSON answer of `fmt --json` and `brain ask --json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Envelope {
    /// Wire-format version.
    pub schema: u32,
    /// Always `"results"`.
    pub kind: String,
    /// The query as given, or null when unknown (`fmt` without `--query`).
    pub query: Option<String>,
    /// Milliseconds from start to the last hit.
    pub took_ms: u64,
    /// Number of hits.
    pub count: usize,
    /// The hits, best first; a low-trust hit (`untrusted: true`) with its title and snippet
    /// fenced as `<untrusted>…</untrusted>`.
    pub hits: Vec<Hit>,
    /// Freshness warnings and any other problem worth a caller's attention.
    pub warnings: Vec<String>,
    /// How the query's words about time were read: `{"expr", "from", "to", "soft": true, …}`
    /// (`brain ask` in auto mode; absent when the query named no time).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time: Option<brain_doc::TimeWindow>,
}

impl Envelope {
    /// The envelope for `hits`, with freshness warnings added after `warnings`.
    pub fn new(hits: &[Hit], opts: &Options, took_ms: u64, warnings: &[String]) -> Envelope {
        let mut all = warnings.to_vec();
        all.extend(
            hits.iter()
                .filter_map(|h| stale_warning(h, &opts.freshness)),
        );
        all.extend(crate::history_warning(hits, &opts.freshness));
        Envelope {
            schema: brain_doc::SCHEMA,
            kind: "results".into(),
            query: opts.query.clone(),
            took_ms,
            count: hits.len(),
            hits: hits.iter().map(crate::fenced).collect(),
            warnings: all,
            time: opts.time.clone(),
        }
    }
}

pub(crate) fn render(
    hits: &[Hit],
    opts: &Options,
    took_ms: u64,
    warnings: &[String],
    mut out: &mut dyn Write,
) -> io::Result<()> {
    brain_doc::ndjson::write_line(&mut out, &Envelope::new(hits, opts, took_ms, warnings))
}
