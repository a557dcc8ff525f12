//! `fmt` — render hit NDJSON from stdin (`rank … | fmt`). Malformed lines are reported on stderr and
//! skipped. Exit 67 when the stream held no hits (the `--json` envelope is still printed); exit 64
//! when it held only malformed lines (a failing stage before fmt must not look like an empty answer).

use std::io::{IsTerminal, Write};
use std::time::Instant;

use brain_cli::{Exit, Failure, Stdout, Warnings};
use brain_doc::{ErrorCode, Hit, ndjson::Reader};
use brain_fmt::args::FmtArgs;
use clap::Parser;

/// Render hit NDJSON (from `rank`) for a terminal, a script (--json), xargs (--files), notes (--md) or a
/// spreadsheet (--csv).
#[derive(Parser)]
#[command(name = "fmt", version)]
struct Cli {
    #[command(flatten)]
    fmt: FmtArgs,

    /// The query, shown in the JSON envelope and markdown heading (with --context: the task).
    #[arg(long, value_name = "TEXT")]
    query: Option<String>,

    /// A memory block for a task instead of a list (what `brain context` prints for the same hits):
    /// the home's guaranteed records, whole threads that fit, the best of the rest, within --budget
    /// tokens (cl100k_base).
    #[arg(long, conflicts_with_all = ["json", "files", "md", "csv"])]
    context: bool,

    /// With --context: most tokens the block may take.
    #[arg(long, requires = "context", default_value_t = brain_context::DEFAULT_BUDGET)]
    budget: usize,

    /// With --context: keep near-duplicates (collapsed by default).
    #[arg(long, requires = "context")]
    no_dedup: bool,
}

fn main() -> std::process::ExitCode {
    brain_cli::main("fmt", |cli: Cli| {
        let started = Instant::now();
        let warn = Warnings::new("fmt", false);
        let mut hits: Vec<Hit> = Vec::new();
        let mut skipped = Vec::new();
        for item in Reader::<_, Hit>::new(std::io::stdin().lock(), "<stdin>") {
            match item? {
                Ok(h) => hits.push(h),
                Err(e) => {
                    warn.warn(&e);
                    skipped.push(format!("skipped malformed input: {e}"));
                }
            }
        }
        // Nothing but malformed lines: the stage before fmt failed or is not `rank` — say so with
        // the bad-input code instead of rendering an empty answer.
        if hits.is_empty() && !skipped.is_empty() {
            return Err(Failure::new(
                ErrorCode::BadQuery,
                format!(
                    "no hit records on stdin, {} malformed line(s): is the stage before fmt failing?",
                    skipped.len()
                ),
            )
            .with_fix("pipe `rank …` into fmt (with `set -o pipefail` its own exit code stays visible)")
            .into());
        }
        // rank marks low-trust hits; hits from elsewhere are marked here by the same rule, so a
        // browser title never reaches an agent unfenced.
        if let Ok(config) = brain_store::Config::load(&brain_store::Home::from_env()) {
            for h in &mut hits {
                h.untrusted |= config.is_low_trust(&h.collection);
            }
        }
        if cli.context {
            return context(&cli, hits);
        }
        let took_ms = started.elapsed().as_millis() as u64;
        let no_color = brain_doc::env::set("NO_COLOR");
        let opts = cli
            .fmt
            .options(cli.query.clone(), std::io::stdout().is_terminal(), no_color);
        let mut out = Stdout::new();
        brain_fmt::render(&hits, &opts, took_ms, &skipped, &mut out)?;
        out.flush()?;
        Ok(if hits.is_empty() {
            Exit::Code(ErrorCode::NoResults)
        } else {
            Exit::Success
        })
    })
}

/// `fmt --context`: the block `brain context` prints, for the hits on stdin.
fn context(cli: &Cli, hits: Vec<Hit>) -> anyhow::Result<Exit> {
    brain_context::check_budget(cli.budget).map_err(Failure::from)?;
    let home = brain_store::Home::from_env();
    let now = brain_rank::clock::now();
    let engine = brain_rank::Engine::open(&home).map_err(Failure::from)?;
    let opts = brain_context::Options {
        budget: cli.budget,
        dedup: !cli.no_dedup,
        tick: true,
    };
    let task = cli.query.clone().unwrap_or_default();
    let block =
        brain_context::from_hits(&engine, &task, hits, opts, &now).map_err(Failure::from)?;
    let mut out = Stdout::new();
    out.write_all(block.markdown.as_bytes())?;
    out.flush()?;
    Ok(if block.items.is_empty() {
        Exit::Code(ErrorCode::NoResults)
    } else {
        Exit::Success
    })
}
