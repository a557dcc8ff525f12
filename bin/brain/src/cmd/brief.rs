//! `brain brief [--project P]` — the briefing an agent gets when a session starts (the
//! SessionStart hook's), for a person at a terminal: this project's working memory, current
//! decisions and facts, open tasks and contradictions, what was tried and failed, what relates to
//! the open task and the last sessions, each cited, within a token budget.

use brain_cli::{Exit, Failure};
use brain_context::brief::{Moment, Request};
use brain_doc::ErrorCode;
use brain_store::Home;

use super::usage::Row;

#[derive(Clone, Copy, clap::ValueEnum)]
pub enum Source {
    Startup,
    Resume,
    Clear,
    /// After a compaction: the session's own requests first (needs --session).
    Compact,
}

#[derive(clap::Args)]
pub struct Args {
    /// The project: a working directory or a project name [default: the current directory].
    #[arg(long, value_name = "P")]
    project: Option<String>,
    /// Every project (no project filter).
    #[arg(long, conflicts_with = "project")]
    all: bool,
    /// Most tokens the briefing may take, counted with cl100k_base.
    #[arg(long, default_value_t = brain_context::brief::DEFAULT_BUDGET)]
    budget: usize,
    /// The moment, as an agent's SessionStart says it.
    #[arg(long, value_enum, default_value = "startup")]
    source: Source,
    /// The agent's session id (with --source compact: whose requests to bring back).
    #[arg(long, value_name = "ID")]
    session: Option<String>,
    /// The briefing and every item's provenance as one JSON object (the markdown is `markdown`).
    #[arg(long)]
    json: bool,
    /// Brief as if it were now WHEN (RFC 3339 or YYYY-MM-DD) [default: $BRAIN_NOW, else the clock].
    #[arg(long, value_name = "WHEN")]
    now: Option<String>,
}

pub fn run(home: &Home, a: Args) -> anyhow::Result<Exit> {
    let mut row = Row::new("brief");
    let result = brief(home, a, &mut row);
    row.finish(home, &result);
    result
}

fn brief(home: &Home, a: Args, row: &mut Row) -> anyhow::Result<Exit> {
    let now = brain_rank::clock::at(a.now.as_deref()).map_err(Failure::from)?;
    let project = match (a.all, a.project) {
        (true, _) => None,
        (false, Some(p)) => Some(p),
        (false, None) => Some(std::env::current_dir()?.display().to_string()),
    };
    let engine = brain_rank::Engine::open(home).map_err(Failure::from)?;
    let req = Request {
        project,
        moment: Some(match a.source {
            Source::Startup => Moment::Startup,
            Source::Resume => Moment::Resume,
            Source::Clear => Moment::Clear,
            Source::Compact => Moment::Compact,
        }),
        session: a.session,
        prompt: None,
        // For a person, every rules file of the project.
        agent: None,
        budget: a.budget,
    };
    let block = brain_context::brief::brief(&engine, &req, &now).map_err(Failure::from)?;
    for w in &block.warnings {
        eprintln!("brain brief: warning: {w}");
    }
    row.set("n_hits", block.items.len());
    row.set("tokens", block.tokens);
    super::context::print_block(&block, a.json)?;
    if block.items.is_empty() && block.working.is_empty() {
        eprintln!("brain brief: nothing in memory for this project yet");
        return Ok(Exit::Code(ErrorCode::NoResults));
    }
    Ok(Exit::Success)
}
