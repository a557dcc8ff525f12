//! Every tuning constant of retrieval, with where its value came from, and the optional
//! `$BRAIN_HOME/search_strategy.yaml` that overrides them (seed 004's strategy file, which `brain
//! tune` edits). Every key of the file is a knob of [`crate::knobs`] (type, range, meaning): a file
//! with an unknown key or a value out of range does not load (exit 64, naming the key).
//! `STALE_AFTER_DAYS` is not in the file.
//!
//! ```yaml
//! lex:
//!   title: 1.5
//!   all_terms: 1.0
//! fusion:
//!   k: 60
//!   original_weight: 2.0
//! rerank:
//!   depth: 20
//! ```
//!
//! Missing keys keep their defaults; a missing file is the defaults.

use std::path::{Path, PathBuf};

use brain_lex::search::Boosts;
use serde::{Deserialize, Serialize};

mod rerank;

pub use rerank::{RERANK_BUDGET_MS, RERANK_DEPTH, RERANK_K, RERANK_WEIGHT, RerankWeights};

/// Reciprocal rank fusion constant: 60, from Cormack, Clarke & Büttcher (SIGIR 2009), as QMD uses it.
pub const RRF_K: f64 = 60.0;
/// Weight of the original query's list in fusion relative to expansions: 2×, as QMD and seed 004
/// ("the first sub-query gets 2x weight").
pub const ORIGINAL_QUERY_WEIGHT: f64 = 2.0;
/// Bonus added to a document ranked first in any fused list (QMD's top-rank bonus).
pub const TOP_RANK_BONUS: f64 = 0.05;
/// Bonus for ranks 2–3 in any fused list (QMD).
pub const NEAR_TOP_BONUS: f64 = 0.02;

/// Candidates per list before fusion (our choice, 2026-11-22: QMD fuses 30–40 per list; fusion depth
/// bounds how far down a list a document can come from); `fusion.depth` of the file.
pub const FUSION_DEPTH: usize = 40;

/// Documents the recency walk of a time window reads per hit wanted, to order them by proximity
/// (our choice, 2026-11-24: a morning's sessions among a widened day's); `time.walk_depth`.
pub const WALK_DEPTH_PER_HIT: usize = 5;

/// Hits returned when no `-n` is given (QMD's default for `search`).
pub const DEFAULT_LIMIT: usize = 10;
/// Passages per document by default: one hit per file, the best passage.
pub const DEFAULT_PER_DOC: usize = 1;
/// Sessions as units (issue 41; measured on bench/recall and SciFact, docs/query.md): the share of a
/// further passage's score a document adds (0 turns it off), how many further passages count, and
/// the cap of what they add (a share of the best passage's score).
pub const SESSION_SHARE: f64 = 0.5;
pub const SESSION_PASSAGES: usize = 2;
pub const SESSION_CAP: f64 = 0.5;
/// Candidate passages fetched per wanted hit before folding into documents (our choice, 2026-11-22):
/// enough for short notes; when long transcripts fill the list with their own passages, the list is
/// widened by [`WIDEN_FACTOR`] until `limit` documents are found or the matches run out.
pub const CANDIDATES_PER_HIT: usize = 4;
/// How much a too-narrow candidate list grows per round.
pub const WIDEN_FACTOR: usize = 4;
/// Floor of the candidate count.
pub const MIN_CANDIDATES: usize = 40;
/// Most a passage gains for holding the query's words as written rather than only their stems
/// (our choice, 2026-11-25): 5 % — it decides ties and near-ties the stemmer makes ("customers" /
/// "customize"), never a clear BM25 difference.
pub const EXACT_FORM_BONUS: f64 = 0.05;
/// Documents of one session among the top hits before every other session has had its turn; 0 =
/// no limit (our choice, 2026-11-25, off by default). Snapshot transcripts and resumed sessions
/// repeat one session's text in several documents; a limit of 1 gives a question whose answer
/// spans sessions distinct ones near the top, but it also sends a session's full transcript behind
/// every other session when a fragment of it ranked first — measured on bench/recall, lexical
/// MRR@10 0.7746 with 1 against 0.7765 without (a literal question lost its answer to a fragment).
/// Each document is already one candidate (passages fold into their document, and the lists widen
/// until they hold enough documents), so one long session never fills the candidate pool.
pub const DEFAULT_PER_SESSION: usize = 0;
/// Age past which a hit carries a freshness warning, in days: seed 000 §5 ("only emits a freshness
/// warning when a memory is older than a day").
pub const STALE_AFTER_DAYS: i64 = 1;

/// The retrieval strategy: defaults here, overridable by `search_strategy.yaml`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Strategy {
    /// Lexical field weights and conjunction boost.
    pub lex: LexWeights,
    /// Reciprocal rank fusion of the lexical and vector lists.
    pub fusion: FusionWeights,
    /// Cross-encoder reranking (`--rerank`).
    pub rerank: RerankWeights,
    /// Time in questions ("last week", "the morning of 3 March", "the latest").
    pub time: TimeWeights,
    /// Projects and agents named in questions ("in the billing repo", "with codex").
    pub entity: EntityWeights,
    /// How much the vector list counts beside the lexical one, by what the query is.
    pub hybrid: HybridWeights,
    /// Memory signals: importance, confidence, pinning, a memory record's recency.
    pub memory: MemoryWeights,
    /// When a hit's age changes the answer, by kind (freshness warnings).
    pub freshness: brain_doc::memory::Freshness,
    /// Documents of one session among the top hits before the other sessions' (0: no limit).
    pub per_session: usize,
    /// Hits per query.
    pub limit: usize,
    /// Passages per document.
    pub per_doc: usize,
    /// The lexical candidate pool: how many passages are fetched before folding into documents.
    pub pool: PoolWeights,
    /// When two records are one (`brain context`, `brain ask --dedup`).
    pub dedup: DedupWeights,
}

/// The lexical candidate pool (our choices, 2026-11-22: see the constants).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PoolWeights {
    /// Candidate passages per wanted hit ([`CANDIDATES_PER_HIT`]).
    pub per_hit: usize,
    /// Fewest candidates ([`MIN_CANDIDATES`]).
    pub min: usize,
    /// Growth of a too-narrow list per round ([`WIDEN_FACTOR`]).
    pub widen: usize,
    /// Most a passage gains for the words as written ([`EXACT_FORM_BONUS`]).
    pub exact_form: f64,
    /// Sessions as units: a document's lexical score is its best passage's plus this share of
    /// each further matching passage's (the next [`PoolWeights::session_passages`], each a share
    /// of the one before), so a session holding the answer in two places outranks one whose
    /// single passage scores the same ([`SESSION_SHARE`]).
    pub session_share: f64,
    /// Further passages that count ([`SESSION_PASSAGES`]).
    pub session_passages: usize,
    /// The most they add, as a share of the best passage's score ([`SESSION_CAP`]): a session
    /// repeating a word in fifty passages gains no more than one holding it in two.
    pub session_cap: f64,
}

impl Default for PoolWeights {
    fn default() -> Self {
        PoolWeights {
            per_hit: CANDIDATES_PER_HIT,
            min: MIN_CANDIDATES,
            widen: WIDEN_FACTOR,
            exact_form: EXACT_FORM_BONUS,
            session_share: SESSION_SHARE,
            session_passages: SESSION_PASSAGES,
            session_cap: SESSION_CAP,
        }
    }
}

/// Near-duplicates (issue #23: seed 002's 0.88 cosine; the shingle measure our choice, measured on
/// pasted errors and paraphrases — brain_context::dedup).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct DedupWeights {
    /// Word 3-shingle Jaccard at or above which two records are one.
    pub shingles: f64,
    /// Cosine of stored vectors at or above which two records are one.
    pub cosine: f64,
}

impl Default for DedupWeights {
    fn default() -> Self {
        DedupWeights {
            shingles: 0.5,
            cosine: 0.88,
        }
    }
}

/// How ranked lists are fused (every constant from QMD's hybrid query, which takes RRF from Cormack
/// et al. 2009).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct FusionWeights {
    /// RRF constant k: a list adds `weight / (k + rank)`.
    pub k: f64,
    /// Weight of the original query's lists (expansions and extra sub-queries weigh 1).
    pub original_weight: f64,
    /// Added for rank 1 in any list.
    pub top_bonus: f64,
    /// Added for ranks 2–3 in any list.
    pub near_top_bonus: f64,
    /// Candidates per list before fusion ([`FUSION_DEPTH`]).
    pub depth: usize,
}

impl Default for FusionWeights {
    fn default() -> Self {
        FusionWeights {
            k: RRF_K,
            original_weight: ORIGINAL_QUERY_WEIGHT,
            top_bonus: TOP_RANK_BONUS,
            near_top_bonus: NEAR_TOP_BONUS,
            depth: FUSION_DEPTH,
        }
    }
}

/// How time words weigh (our choice, 2026-11-24, for seed 004's tuning to revisit): a window is a
/// signal, not a gate — a hit's score is multiplied by `1 + boost × proximity` (proximity 1 inside
/// the window, decaying outside), so a session inside the window outranks an equally relevant one
/// outside by up to 2× while a strong match outside still shows; the window's own lexical list
/// (filtered to the window widened by two margins) brings in sessions the unfiltered list ranked
/// too low to fetch.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TimeWeights {
    /// Multiplier of proximity in the score: `score × (1 + boost × proximity)`.
    pub boost: f64,
    /// Fusion weight of the window's lexical list.
    pub window_list: f64,
    /// "latest" / "the first time": hits scoring at least this share of the best are ordered by
    /// session time, ahead of the rest.
    pub relevant: f64,
    /// Documents the recency walk of a time window reads per hit wanted
    /// ([`WALK_DEPTH_PER_HIT`]).
    pub walk_depth: usize,
}

impl Default for TimeWeights {
    fn default() -> Self {
        TimeWeights {
            boost: 1.0,
            window_list: 1.0,
            relevant: 0.5,
            walk_depth: WALK_DEPTH_PER_HIT,
        }
    }
}

/// How a named project or agent weighs (our choice, 2026-11-24, for seed 004's tuning): a hit of
/// it scores `1 + boost` times as much — enough to lift it over equally relevant hits of other
/// projects, not over a clearly better one — and the project's own lexical list joins fusion.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct EntityWeights {
    /// Score multiplier per named project or agent a hit belongs to: `1 + boost`.
    pub boost: f64,
    /// Fusion weight of the named project's lexical list.
    pub list: f64,
}

impl Default for EntityWeights {
    fn default() -> Self {
        EntityWeights {
            boost: 0.5,
            list: 1.0,
        }
    }
}

/// The share of its weight (and of the top-rank bonus) the vector list keeps in fusion, by the
/// query's [`crate::route::VectorRoute`] (our choice, 2026-11-25, measured on SciFact and
/// bench/recall — docs/query.md): an embedding blurs names, numbers and literal tokens that BM25
/// matches exactly, so hybrid must not let it outvote the lexical list there; on plain paraphrase
/// it weighs as much.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct HybridWeights {
    /// A literal token (`--mode hybrid` only: auto answers these lexically).
    pub literal: f64,
    /// A name or a number (a capitalized word inside the sentence, a named project or agent).
    pub named: f64,
    /// Plain words.
    pub paraphrase: f64,
}

impl Default for HybridWeights {
    fn default() -> Self {
        HybridWeights {
            literal: 0.5,
            named: 0.5,
            paraphrase: 1.0,
        }
    }
}

impl HybridWeights {
    /// The share of `route`.
    pub fn share(&self, route: &crate::route::VectorRoute) -> f64 {
        match route {
            crate::route::VectorRoute::Literal => self.literal,
            crate::route::VectorRoute::Named(_) => self.named,
            crate::route::VectorRoute::Paraphrase => self.paraphrase,
        }
    }
}

/// Memory signals as one bounded multiplier on relevance (crate::memory; our choice, 2026-11-25,
/// from seed 003's proportions — importance 0.15 and recency 0.20 against similarity 0.65 — scaled
/// down to reorder near-ties only): each signal moves a score by at most its weight, all together
/// by at most `cap`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct MemoryWeights {
    /// Importance 5 adds this much, 1 takes it away (3: nothing).
    pub importance: f64,
    /// Confidence 0 takes this much away (1: nothing).
    pub confidence: f64,
    /// A pinned record adds this much.
    pub pinned: f64,
    /// A record read five times or more adds this much (less for fewer reads).
    pub rehearsal: f64,
    /// A memory record (one with a `type`) of today adds this much, halving every half-life.
    pub recency: f64,
    pub recency_half_life_days: f64,
    /// Most all signals together move a score, either way.
    pub cap: f64,
    /// What a hit of a collection of this role adds (negative: takes away), inside the cap —
    /// seed 000: "a raw session should not rank like a distilled memo".
    pub roles: std::collections::BTreeMap<String, f64>,
    /// The same by collection name (wins over its role).
    pub collections: std::collections::BTreeMap<String, f64>,
    /// What a record under `archives/` of a `para` collection adds (negative: demoted, seed 001 —
    /// inactive items stay searchable but yield to active ones), inside the cap.
    pub archived: f64,
}

impl Default for MemoryWeights {
    fn default() -> Self {
        MemoryWeights {
            importance: 0.10,
            confidence: 0.05,
            pinned: 0.05,
            rehearsal: 0.10,
            recency: 0.05,
            recency_half_life_days: 30.0,
            cap: 0.15,
            roles: [("distilled".to_string(), 0.05)].into_iter().collect(),
            collections: std::collections::BTreeMap::new(),
            // Our choice (2026-11-25): the most of the cap a signal takes; an archived match
            // still beats an active one scoring under 0.78 of it.
            archived: -0.10,
        }
    }
}

/// The lexical weights as they appear in the YAML file (f64 here, so a value reads back as written;
/// the index takes them as f32).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LexWeights {
    pub title: f64,
    pub headings: f64,
    pub path: f64,
    pub body: f64,
    pub ident: f64,
    pub all_terms: f64,
    pub tie_breaker: f64,
}

impl Default for LexWeights {
    fn default() -> Self {
        let b = Boosts::default();
        LexWeights {
            title: f64::from(b.title),
            headings: f64::from(b.headings),
            path: f64::from(b.path),
            body: f64::from(b.body),
            ident: f64::from(b.ident),
            all_terms: f64::from(b.all_terms),
            tie_breaker: f64::from(b.tie_breaker),
        }
    }
}

impl From<LexWeights> for Boosts {
    fn from(w: LexWeights) -> Boosts {
        Boosts {
            title: w.title as f32,
            headings: w.headings as f32,
            path: w.path as f32,
            body: w.body as f32,
            ident: w.ident as f32,
            all_terms: w.all_terms as f32,
            tie_breaker: w.tie_breaker as f32,
        }
    }
}

impl Default for Strategy {
    fn default() -> Self {
        Strategy {
            lex: LexWeights::default(),
            fusion: FusionWeights::default(),
            rerank: RerankWeights::default(),
            time: TimeWeights::default(),
            entity: EntityWeights::default(),
            hybrid: HybridWeights::default(),
            memory: MemoryWeights::default(),
            freshness: brain_doc::memory::Freshness::default(),
            per_session: DEFAULT_PER_SESSION,
            limit: DEFAULT_LIMIT,
            per_doc: DEFAULT_PER_DOC,
            pool: PoolWeights::default(),
            dedup: DedupWeights::default(),
        }
    }
}

/// Why a strategy text does not read.
#[derive(Debug, thiserror::Error)]
pub enum ParseError {
    #[error(transparent)]
    Yaml(serde_norway::Error),
    #[error(transparent)]
    Knob(crate::knobs::KnobError),
    #[error("{0}")]
    Nesting(String),
}

/// Why the strategy file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum StrategyError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: {source}")]
    Yaml {
        path: PathBuf,
        source: serde_norway::Error,
    },
    #[error("{path}: {source}")]
    Knob {
        path: PathBuf,
        source: crate::knobs::KnobError,
    },
    #[error("{path}: {reason}")]
    Nesting { path: PathBuf, reason: String },
}

impl brain_doc::Classified for StrategyError {
    /// Every way the strategy file fails is the user's file to fix: a bad query (64).
    fn code(&self) -> brain_doc::ErrorCode {
        brain_doc::ErrorCode::BadQuery
    }

    fn fix(&self) -> String {
        "fix what it names in $BRAIN_HOME/search_strategy.yaml, or `brain strategy reset`".into()
    }
}

impl Strategy {
    /// The file name inside `$BRAIN_HOME`.
    pub const FILE: &'static str = "search_strategy.yaml";

    /// Load `path`, or the defaults when it does not exist: every key checked against the knob
    /// registry first (an unknown key or a value out of range is an error naming it).
    pub fn load(path: &Path) -> Result<Strategy, StrategyError> {
        let _t = brain_doc::timings::span("strategy.load");
        match std::fs::read_to_string(path) {
            Ok(text) => Self::parse(&text).map_err(|e| match e {
                ParseError::Yaml(source) => StrategyError::Yaml {
                    path: path.into(),
                    source,
                },
                ParseError::Knob(source) => StrategyError::Knob {
                    path: path.into(),
                    source,
                },
                ParseError::Nesting(reason) => StrategyError::Nesting {
                    path: path.into(),
                    reason,
                },
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Strategy::default()),
            Err(source) => Err(StrategyError::Io {
                path: path.into(),
                source,
            }),
        }
    }

    /// A strategy from the text of a strategy file (checked as [`Strategy::load`] checks it).
    pub fn parse(text: &str) -> Result<Strategy, ParseError> {
        brain_doc::yaml::check_nesting(text).map_err(ParseError::Nesting)?;
        let v: serde_json::Value = serde_norway::from_str(text).map_err(ParseError::Yaml)?;
        crate::knobs::check(&v).map_err(ParseError::Knob)?;
        if v.is_null() {
            return Ok(Strategy::default());
        }
        serde_norway::from_str(text).map_err(ParseError::Yaml)
    }

    /// The lexical boosts.
    pub fn boosts(&self) -> Boosts {
        self.lex.into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_partial_file_overrides_only_its_keys() {
        let dir = std::env::temp_dir().join(format!("brain-strategy-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        let p = dir.join(Strategy::FILE);
        std::fs::write(&p, "lex:\n  title: 3.0\nlimit: 5\n").expect("write");
        let s = Strategy::load(&p).expect("load");
        assert_eq!(s.lex.title, 3.0);
        assert_eq!(s.limit, 5);
        assert_eq!(s.lex.body, LexWeights::default().body);
        assert_eq!(s.fusion.k, RRF_K);
        std::fs::write(&p, "lex:\n  titel: 3.0\n").expect("write");
        assert!(
            matches!(Strategy::load(&p), Err(StrategyError::Knob { .. })),
            "typos are errors"
        );
        let e = Strategy::load(&p).expect_err("typo").to_string();
        assert!(e.contains("unknown key `lex.titel`"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn no_file_is_the_defaults() {
        let s = Strategy::load(Path::new("/nonexistent/search_strategy.yaml")).expect("defaults");
        assert_eq!(s, Strategy::default());
    }
}
