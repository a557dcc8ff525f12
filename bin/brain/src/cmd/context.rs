//! `brain context "TASK" [--budget N] [--json] [--hits FILE]` — the memory a task needs, within a
//! token budget (brain_context: guaranteed records, whole threads, the best of the rest; counted
//! with cl100k_base; the same block as the MCP `context` tool, and as `rank TASK | brain context
//! --hits - TASK` for the same hits). Exit 67 when there is nothing to put in it.

use std::io::Write;

use brain_cli::{Exit, Failure, Stdout};
use brain_doc::ErrorCode;
use brain_store::Home;

use super::usage::Row;

#[derive(clap::Args)]
pub struct Args {
    /// What the agent is about to do (words, as for `brain ask`).
    #[arg(required = true)]
    task: Vec<String>,
    /// Most tokens the block may take, counted with cl100k_base.
    #[arg(long, default_value_t = brain_context::DEFAULT_BUDGET)]
    budget: usize,
    /// The block and every item's provenance as one JSON object (the markdown is `markdown`).
    #[arg(long, conflicts_with = "md")]
    json: bool,
    /// The markdown block (the default).
    #[arg(long)]
    md: bool,
    /// Keep near-duplicates (collapsed by default).
    #[arg(long)]
    no_dedup: bool,
    /// Answer as if it were now WHEN (RFC 3339 or YYYY-MM-DD) [default: $BRAIN_NOW, else the clock].
    #[arg(long, value_name = "WHEN")]
    now: Option<String>,
    /// Make the block from these hits (hit NDJSON, `rank`'s output; `-` = stdin) instead of
    /// searching the task: `rank --limit 60 TASK | brain context --hits - TASK`.
    #[arg(long, value_name = "FILE")]
    hits: Option<std::path::PathBuf>,
    /// Search a team engine (its URL, or a name in brain.yaml's team.engines) instead of this
    /// home's indexes (docs/team.md).
    #[arg(long, value_name = "URL|NAME")]
    engine: Option<String>,
}

pub fn run(home: &Home, a: Args) -> anyhow::Result<Exit> {
    let mut row = Row::new("context");
    let result = context(home, a, &mut row);
    row.finish(home, &result);
    result
}

fn context(home: &Home, a: Args, row: &mut Row) -> anyhow::Result<Exit> {
    brain_context::check_budget(a.budget).map_err(Failure::from)?;
    let task = a.task.join(" ");
    let now = brain_rank::clock::at(a.now.as_deref()).map_err(Failure::from)?;
    let mut engine = brain_rank::Engine::open(home).map_err(Failure::from)?;
    if let Some(arg) = &a.engine {
        let remote = brain_rank::engine::Remote::connect(engine.config(), Some(arg), false)
            .map_err(Failure::from)?;
        engine = engine.with_remote(remote);
    }
    let opts = brain_context::Options {
        budget: a.budget,
        dedup: !a.no_dedup,
        tick: true,
    };
    let block = match &a.hits {
        None => brain_context::build(&engine, &task, opts, &now),
        Some(file) => {
            let hits = read_hits(file)?;
            brain_context::from_hits(&engine, &task, hits, opts, &now)
        }
    }
    .map_err(Failure::from)?;
    for w in &block.warnings {
        eprintln!("brain context: warning: {w}");
    }
    row.set("n_hits", block.items.len());
    row.set("tokens", block.tokens);
    print_block(&block, a.json)?;
    if block.items.is_empty() {
        eprintln!("brain context: nothing in memory for this task");
        return Ok(Exit::Code(ErrorCode::NoResults));
    }
    Ok(Exit::Success)
}

/// A block on stdout: its markdown, or (`json`) the block with its markdown as one JSON object —
/// what `brain context` and `brain brief` print.
pub fn print_block(block: &brain_context::Block, json: bool) -> anyhow::Result<()> {
    let mut out = Stdout::new();
    if json {
        let mut v = serde_json::to_value(block)?;
        v["markdown"] = serde_json::Value::from(block.markdown.clone());
        brain_doc::ndjson::write_line(&mut out, &v)?;
    } else {
        out.write_all(block.markdown.as_bytes())?;
    }
    out.flush()?;
    Ok(())
}

/// The hit records of `file` (`-`: stdin); a malformed line is a warning and skipped.
fn read_hits(file: &std::path::Path) -> anyhow::Result<Vec<brain_doc::Hit>> {
    let warn = brain_cli::Warnings::new("brain context", false);
    let read =
        |r: &mut dyn std::io::BufRead, name: String| -> anyhow::Result<Vec<brain_doc::Hit>> {
            let mut hits = Vec::new();
            let mut over = 0;
            for item in brain_doc::ndjson::Reader::<_, brain_doc::Hit>::new(r, name) {
                match item? {
                    Ok(_) if hits.len() >= brain_context::MAX_HITS => over += 1,
                    Ok(h) => hits.push(h),
                    Err(e) => warn.warn(&e),
                }
            }
            if over > 0 {
                warn.warn(format!(
                    "{over} hits past the first {} left out",
                    brain_context::MAX_HITS
                ));
            }
            Ok(hits)
        };
    if file.as_os_str() == "-" {
        return read(&mut std::io::stdin().lock(), "<stdin>".into());
    }
    let f = std::fs::File::open(file).map_err(|e| {
        Failure::new(
            ErrorCode::BadQuery,
            format!("--hits {}: {e}", file.display()),
        )
    })?;
    read(&mut std::io::BufReader::new(f), file.display().to_string())
}
