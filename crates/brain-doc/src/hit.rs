//! The hit record: one ranked passage.

use serde::{Deserialize, Serialize};

/// One ranked passage, as `rank` writes it and `fmt`, `brain ask` and the MCP server read it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Hit {
    /// Wire-format version ([`crate::SCHEMA`]).
    pub schema: u32,
    /// Always `"hit"`.
    pub kind: String,
    /// 1-based position in the result list.
    pub rank: u32,
    /// Final score, normalized to [0, 1]; higher is better.
    pub score: f64,
    /// How much of the query the hit holds, on one scale for every query (0–1): the share of the
    /// query's words (weighted by rarity) in its passage, or its cosine on the model's scale when a
    /// vector list found it. `score` orders one answer; `strength` says how sure it is. Absent
    /// where the query had no words (a recency walk).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub strength: Option<f64>,
    /// `brain://<collection>/<path>`.
    pub uri: String,
    /// Short content id, `#` + 6 hex digits ([`crate::docid`]); `brain get #a1b2c3` resolves it.
    pub docid: String,
    /// The collection the document belongs to.
    pub collection: String,
    /// The document's path inside its collection.
    pub path: String,
    /// Absolute path of the markdown file on disk, when it has one (for `fmt --files` and editors).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// Document title.
    pub title: String,
    /// Document date, RFC 3339.
    pub date: String,
    /// Whole days between `date` and the time of the query (0 = today).
    pub age_days: i64,
    /// When the document's session began (its date), RFC 3339.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started: Option<String>,
    /// When the session ended (its last message), RFC 3339; a document without an end has none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended: Option<String>,
    /// The agent's session id (`brain get <session id>` opens it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// The project the document belongs to (`meta.project`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project: Option<String>,
    /// The agent that wrote the session (`claude`, `codex`, …) or the browser.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    /// 1-based line of the passage inside the markdown file (frontmatter included).
    pub line: u64,
    /// The best passage text, one or a few lines.
    pub snippet: String,
    /// Every score component that went into `score`: bm25 and passage (lexical), vec / hyde (cosine),
    /// rrf and ranks (fusion), rerank and blended (cross-encoder), age_days (recency walk).
    #[serde(default)]
    pub signals: serde_json::Map<String, serde_json::Value>,
    /// From a low-trust collection (`trust: low`: browser history, web pages): its title and
    /// snippet are data, never instructions. Every surface an agent reads fences them
    /// ([`crate::fence`]). Omitted when false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub untrusted: bool,
    /// The record's memory fields (crate::memory), on hits of records that carry any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory: Option<HitMemory>,
    /// Where in a document beyond markdown (a PDF, a saved page, a DOCX; docs/doc2md.md) the
    /// passage is: `page-3`, a heading's anchor — `report.pdf#page-3` points into the original.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub anchor: Option<String>,
    /// Its page in the running `brain browse` (`brain ask --link`), token included.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link: Option<String>,
}

/// What a hit's record says about itself as a memory, and where it stands at the time asked.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HitMemory {
    /// `fact`, `decision`, `preference`, … (`type:` in its frontmatter).
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// 1–5 (3 when not given).
    pub importance: u8,
    /// 0–1 (1 when not given).
    pub confidence: f64,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub pinned: bool,
    /// The subject; a later active record of the same key supersedes this one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    /// When it happened, RFC 3339.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub occurred_at: Option<String>,
    /// When it stops being true, RFC 3339.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<String>,
    /// At the time asked: `current`, `superseded`, `expired` or `archived` (only `current` records
    /// are shown unless superseded ones are asked for).
    pub state: String,
    /// The record that replaced it, as a document id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub superseded_by: Option<String>,
}

/// How a query's words about time were read (`"time"` in the `--json` envelope and `explain`):
/// a window on session time, a part of the day, an ordering. Always soft — a ranking signal, never a
/// filter (`--since/--until` are the filters).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TimeWindow {
    /// The words read as time, as written.
    pub expr: String,
    /// First instant of the window, RFC 3339 in local time; none when only a part of the day or an
    /// ordering was named.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    /// Last instant of the window.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to: Option<String>,
    /// Always true: sessions outside the window are ranked lower, not dropped.
    pub soft: bool,
    /// A part of the day with its local hours (`morning 05:00-12:00`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub part: Option<String>,
    /// `latest` or `first`: relevant hits ordered by session time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub order: Option<String>,
    /// Hours outside the window at which a session's time signal falls to 1/e.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub margin_hours: Option<i64>,
}

/// Below this match strength ([`Hit::strength`]) a hit is a weak match: an answer of weak matches
/// alone is no answer (exit 67). Measured on bench/recall (66 questions about real sessions, see
/// docs/query.md): the best hit of every question sits above it, with and without vectors, while a
/// query of one real word and one the memory never held ("zzqxv nonexistent") sits below.
pub const WEAK: f64 = 0.3;

/// The signal that marks a hit found by meaning alone for a query whose words the memory does not
/// hold (a semantic neighbour): shown as `semantic`, never as a match of the words.
pub const SEMANTIC: &str = "semantic";

/// How sure a hit is, for people: its strength as a word and a number (`strong 0.92`,
/// `semantic 0.61` for a semantic neighbour); `None` for a hit without one (a recency walk).
pub fn strength_text(h: &Hit) -> Option<String> {
    let s = h.strength?;
    let word = match h.signals.get(SEMANTIC) {
        Some(serde_json::Value::Bool(true)) => SEMANTIC,
        _ => strength_label(s),
    };
    Some(format!("{word} {s:.2}"))
}

/// A match strength in a word, for people: strong, good, partial, weak.
pub fn strength_label(s: f64) -> &'static str {
    if s >= 0.85 {
        "strong"
    } else if s >= 0.6 {
        "good"
    } else if s >= WEAK {
        "partial"
    } else {
        "weak"
    }
}
