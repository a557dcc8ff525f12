//! `brain context "TASK"` (issue #23, seed 002): exactly the memory a task needs, within a token
//! budget. One assembly serves `brain context` (from the task, or from hits: `rank … | brain context
//! --hits - TASK`) and the MCP `context` tool, so they give the same block for the same hits;
//! `fmt --context` renders a block record ([`BlockRecord`]) and reads nothing else.
//!
//! * [`tokens`] — counts with a real BPE table (`cl100k_base`), never characters/4;
//! * [`dedup`] — near-duplicates by word-shingle Jaccard (also `brain ask --dedup`);
//! * [`assemble`] — the order of filling: guaranteed records (pinned, importance 5, the `memory`
//!   collections), whole threads that fit (records sharing a key, `threads:` value, entity or
//!   project), the best remaining records; superseded and expired records left out, cold ones
//!   placed last unless they are among the task's best matches;
//! * [`render`] — the `<memory-context>` block, deterministic to the byte.
//!
//! The block never exceeds the budget: items are charged as rendered, and the whole block is
//! counted again at the end (an item is dropped from the end until it fits; [`Block::slack`] says
//! how far the sum of the parts was from the count of the whole).

pub mod assemble;
pub mod brief;
pub mod hook;
/// Near-duplicate collapse, owned by `brain-rank` (`brain ask` collapses with it too).
pub use brain_rank::dedup;
pub mod sections;
pub mod wm;
/// The block itself — its record, markdown, token counts and budget fitting — owned by
/// `brain-fmt` (`fmt --context` renders one without linking an index).
pub use brain_fmt::block::{BlockRecord, fit, item, render, tokens};

use brain_doc::Hit;
use brain_rank::{Engine, Filters, RunError};
use brain_store::access::Rehearsal;
use jiff::Zoned;

pub use item::{Item, LeftOut, Section};

/// Default budget (seed 002: 20k tokens, ~10 % of a 200k context).
pub const DEFAULT_BUDGET: usize = 20_000;

/// Largest budget accepted: past it a block is a corpus dump, not context (our choice).
pub const MAX_BUDGET: usize = 200_000;

/// Search hits considered for threads and the rest.
pub const CANDIDATES: usize = 60;

/// Most hits a block is made from when they are given (`brain context --hits`): the search gives
/// [`CANDIDATES`]; past this the rest are left out with a warning (a flood on stdin costs a read
/// per hit). Our choice (2026-11-26).
pub const MAX_HITS: usize = 1000;

/// Guaranteed records read (newest first) before the budget decides.
pub const MAX_GUARANTEED: usize = 200;

/// How to assemble.
#[derive(Debug, Clone, Copy)]
pub struct Options {
    pub budget: usize,
    /// Collapse near-duplicates (on by default in `context`).
    pub dedup: bool,
    /// Count this assembly as a turn of working memory ([`wm`]): every context command does.
    pub tick: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            budget: DEFAULT_BUDGET,
            dedup: true,
            tick: true,
        }
    }
}

/// The assembled block.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Block {
    /// Always `"context"`.
    pub kind: &'static str,
    pub task: String,
    pub budget: usize,
    /// Tokens of [`Block::markdown`], counted whole.
    pub tokens: usize,
    pub tokenizer: &'static str,
    /// Working-memory notes carried first (seed 002), as they were before this turn.
    pub working: Vec<wm::Item>,
    pub items: Vec<Item>,
    pub left_out: LeftOut,
    /// Things to know (working memory moved aside because it did not read, …).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// The whole block's count minus the sum of its parts as charged (negative: the parts
    /// over-counted); what the final check absorbs.
    pub slack: i64,
    #[serde(skip)]
    pub markdown: String,
}

pub use brain_rank::dedup::stored_vectors;

/// Why a budget is refused.
pub fn check_budget(budget: usize) -> Result<(), ContextError> {
    if budget == 0 || budget > MAX_BUDGET {
        return Err(ContextError::Budget(format!(
            "--budget {budget}: give a number of tokens from 1 to {MAX_BUDGET}"
        )));
    }
    Ok(())
}

/// The guaranteed records of the engine's home (or its team engine), newest first: pinned, importance 5, or of a
/// collection of role `memory`; superseded and expired ones are hidden as in any search.
pub fn guaranteed(
    engine: &Engine,
    config: &brain_store::Config,
    now: &Zoned,
) -> Result<Vec<Hit>, RunError> {
    let memory: Vec<String> = config
        .collections
        .iter()
        .filter(|c| c.role == brain_store::para::ROLE_MEMORY)
        .map(|c| c.name.clone())
        .collect();
    let filters = Filters {
        guaranteed: Some(memory),
        ..Filters::default()
    };
    engine.latest(&filters, MAX_GUARANTEED, now)
}

/// `brain context TASK`: search the task, add the guaranteed records, fill the budget.
pub fn build(
    engine: &Engine,
    task: &str,
    opts: Options,
    now: &Zoned,
) -> Result<Block, ContextError> {
    let req = engine.request(now).text(task)?.limit(CANDIDATES, 1).build();
    let hits = engine.search(&req, now)?.hits;
    from_hits(engine, task, hits, opts, now)
}

/// The block for search `hits` already made (`rank … | brain context --hits - TASK`).
pub fn from_hits(
    engine: &Engine,
    task: &str,
    hits: Vec<Hit>,
    opts: Options,
    now: &Zoned,
) -> Result<Block, ContextError> {
    let mut store = wm::Store::open(engine.home())?;
    let secs = now.timestamp().as_second();
    // Working memory first; the notes that do not fit go from the last (pinned ones stay longest).
    let mut fit = fit::Fit::new(task, opts.budget, store.items(), secs)?;
    let defaults;
    let config = match engine.config() {
        Some(c) => c,
        None => {
            defaults = brain_store::Config::defaults(engine.home());
            &defaults
        }
    };
    let guaranteed = guaranteed(engine, config, now)?;
    let rehearsal = Rehearsal::load(engine.home());
    let vectors = |wanted: &[(String, Option<u64>)]| {
        engine
            .with_stored_vectors(|s| stored_vectors(s, wanted))
            .unwrap_or_else(|| vec![None; wanted.len()])
    };
    let entities = brain_graph::Entities::cached(engine.home());
    let words_only = opts.dedup && !engine.has_stored_vectors();
    let sources = assemble::Sources {
        config,
        rehearsal: &rehearsal,
        entities: &entities,
        vectors: &vectors,
        dedup: engine.dedup_thresholds(),
    };
    let terms = assemble::task_terms(task);
    let f = assemble::Fill {
        dedup: opts.dedup,
        now: secs,
        cap: assemble::item_cap(opts.budget),
        terms: &terms,
    };
    assemble::fill(&sources, guaranteed, hits, f, &mut fit);
    let filled = fit.finish();
    // A read-only session (`brain mcp --read-only`) spends no turn: it writes nothing.
    if opts.tick && !brain_doc::atomic::read_only() {
        store.tick()?;
    }
    let mut warnings = std::mem::take(&mut store.warnings);
    if words_only {
        warnings.push(brain_rank::dedup::WORDS_ONLY.to_string());
    }
    Ok(Block::of(task, opts.budget, filled, warnings))
}

impl Block {
    /// The block of a filled budget.
    pub fn of(task: &str, budget: usize, f: fit::Filled, warnings: Vec<String>) -> Block {
        Block {
            kind: "context",
            task: task.to_string(),
            budget,
            tokens: f.tokens,
            tokenizer: tokens::TOKENIZER,
            working: f.working,
            items: f.items,
            left_out: f.left_out,
            warnings,
            slack: f.slack,
            markdown: f.markdown,
        }
    }
}

/// Why a context block could not be made, each cause keeping its own class: the search's
/// (bad task 64, no index 65, …), working memory's (a file that cannot be read or written is
/// storage, never bad input), a budget out of range (64).
#[derive(Debug, thiserror::Error)]
pub enum ContextError {
    #[error(transparent)]
    Run(#[from] RunError),
    #[error("working memory: {0}")]
    Wm(#[from] wm::WmError),
    #[error("{0}")]
    Budget(String),
    #[error(transparent)]
    Frame(#[from] fit::FrameTooBig),
    #[error(transparent)]
    Registry(#[from] brain_store::RegistryError),
    #[error(transparent)]
    Rank(#[from] brain_rank::RankError),
}

impl brain_doc::Classified for ContextError {
    fn code(&self) -> brain_doc::ErrorCode {
        match self {
            ContextError::Run(e) => e.code(),
            ContextError::Wm(e) => e.code(),
            ContextError::Budget(_) | ContextError::Frame(_) => brain_doc::ErrorCode::BadQuery,
            ContextError::Registry(e) => e.code(),
            ContextError::Rank(e) => e.code(),
        }
    }

    fn fix(&self) -> String {
        match self {
            ContextError::Run(e) => e.fix(),
            ContextError::Wm(_) => String::new(),
            ContextError::Budget(_) | ContextError::Frame(_) => {
                format!("e.g. --budget {DEFAULT_BUDGET}")
            }
            ContextError::Registry(e) => e.fix(),
            ContextError::Rank(e) => e.fix(),
        }
    }
}
