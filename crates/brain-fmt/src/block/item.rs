//! What a block holds: items with their provenance, and what was left out.

/// Where an item sits in the block.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Section {
    /// Pinned, importance 5, or of a `memory` collection: always carried.
    Always,
    /// A record of a thread that fit whole.
    Thread,
    /// The best of the rest (in a briefing: of the open task or the prompt).
    Related,
    /// A briefing after compaction: the current session's own requests.
    Now,
    /// A briefing: the project's current decisions, facts and preferences.
    Decision,
    /// A briefing: the project's open tasks.
    Task,
    /// A briefing: records that say they contradict another.
    Conflict,
    /// A briefing: rejected approaches and failed commands.
    Failed,
    /// A briefing: the project's last sessions.
    Session,
}

impl Section {
    pub fn heading(self) -> &'static str {
        match self {
            Section::Always => "Always",
            Section::Thread => "Threads",
            Section::Related => "Related",
            Section::Now => "This session (before compaction)",
            Section::Decision => "Current decisions and facts",
            Section::Task => "Open tasks",
            Section::Conflict => "Open contradictions",
            Section::Failed => "Tried and failed",
            Section::Session => "Recent sessions",
        }
    }
}

/// One record in the block, with its provenance.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Item {
    pub section: Section,
    /// The thread it came with (`project:~/work/brain`, `key:db.engine`, `entity:…`, `thread:…`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub thread: Option<String>,
    /// `collection/path`.
    pub id: String,
    /// `brain://collection/path`.
    pub uri: String,
    /// 1-based line of the file where `text` starts.
    pub line: u64,
    pub title: String,
    /// RFC 3339.
    pub date: String,
    /// `today`, `yesterday`, `N days ago`.
    pub age: String,
    /// Whole days since `date`.
    pub age_days: i64,
    /// The record's confidence (0–1), when it carries memory fields.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub confidence: Option<f64>,
    /// From a low-trust collection: fenced in the block.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub untrusted: bool,
    /// Neither created nor read in the last 30 days (seed 001): placed after warmer records unless
    /// it is one of the task's best matches.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub cold: bool,
    /// The record it says it contradicts (`relations: [{kind: contradicts, to: …}]`): shown, so a
    /// contradiction is never read as settled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contradicts: Option<String>,
    /// The search's score (0 for records carried because they are guaranteed).
    pub score: f64,
    /// Tokens of the item as rendered in the block.
    pub tokens: usize,
    pub text: String,
    /// Thread keys (not rendered).
    #[serde(skip)]
    pub keys: Vec<String>,
    /// `text` is the record's whole body (else a passage from `line`): which stored vector
    /// stands for it (the near-duplicate collapse).
    #[serde(skip)]
    pub whole: bool,
}

/// What was left out, and why.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct LeftOut {
    /// Near-duplicates of an item kept ([`crate::dedup`]).
    pub duplicates: usize,
    /// Cold records that did not fit once the warmer ones were placed (seed 001: cold lowers a
    /// record's place; one of the task's best matches keeps its place whatever its age).
    pub cold: usize,
    /// Records that did not fit the budget.
    pub over_budget: usize,
    /// Hits whose document is not servable (not a document of a collection).
    pub unreadable: usize,
    /// Hits scoring below a share of the best one's score: what barely matches the task gets no
    /// budget (brain-context's `assemble::WEAK_SHARE`).
    pub weak: usize,
}
