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
}
