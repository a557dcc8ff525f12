//! `fmt` — render hit NDJSON from stdin (`rank … | fmt`). Malformed lines are reported on stderr and
//! skipped. Exit 67 when the stream held no hits (the `--json` envelope is still printed); exit 64
//! when it held only malformed lines (a failing stage before fmt must not look like an empty answer).
//! `fmt --context` renders context block records (`brain context --json TASK | fmt --context`).
//! A pure filter: it reads stdin and brain.yaml's trust rule, never an index, and writes nothing.

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

    /// Render context block records instead of hits: the JSON `brain context --json TASK` prints
    /// (edited with jq or not), as the `<memory-context>` markdown `brain context` prints for it.
    /// Hits become a block with `brain context --hits - TASK`.
    #[arg(long, conflicts_with_all = ["json", "files", "md", "csv", "query"])]
    context: bool,
}

fn main() -> std::process::ExitCode {
    brain_cli::main("fmt", |cli: Cli| {
        if cli.context {
            return context();
        }
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
        let took_ms = started.elapsed().as_millis() as u64;
        let no_color = brain_doc::env::set(brain_doc::env::NO_COLOR);
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

/// `fmt --context`: each context block record on stdin as its markdown. Hits are not a block (exit
/// 64 with the command that makes one); a malformed line is skipped with a warning.
fn context() -> anyhow::Result<Exit> {
    let warn = Warnings::new("fmt", false);
    let now = brain_store::clock::now().as_second();
    // As for hits: an item of a low-trust collection is fenced whatever the record says.
    let config = brain_store::Config::load(&brain_store::Home::from_env()).ok();
    let mut out = Stdout::new();
    let (mut blocks, mut hits, mut items) = (0, 0, 0);
    for item in Reader::<_, serde_json::Value>::new(std::io::stdin().lock(), "<stdin>") {
        let v = match item? {
            Ok(v) => v,
            Err(e) => {
                warn.warn(&e);
                continue;
            }
        };
        match v.get("kind").and_then(serde_json::Value::as_str) {
            Some("context") => match serde_json::from_value::<brain_fmt::block::BlockRecord>(v) {
                Ok(mut b) => {
                    if let Some(config) = &config {
                        for i in &mut b.items {
                            let collection = i.id.split('/').next().unwrap_or_default();
                            i.untrusted |= config.is_low_trust(collection);
                        }
                    }
                    out.write_all(b.markdown(now).as_bytes())?;
                    blocks += 1;
                    items += b.items.len();
                }
                Err(e) => warn.warn(format!("<stdin>: a context record that does not read: {e}")),
            },
            Some("hit") => hits += 1,
            _ => warn.warn("<stdin>: not a context block record, skipped"),
        }
    }
    out.flush()?;
    if blocks == 0 {
        let why = if hits > 0 {
            format!(
                "{hits} hit record(s) on stdin: fmt --context renders a context block, not hits"
            )
        } else {
            "no context block record on stdin".to_string()
        };
        return Err(Failure::new(ErrorCode::BadQuery, why)
            .with_fix("`brain context --json TASK | brain fmt --context`; from hits: `rank … | brain context --hits - TASK`")
            .into());
    }
    Ok(if items == 0 {
        Exit::Code(ErrorCode::NoResults)
    } else {
        Exit::Success
    })
}
