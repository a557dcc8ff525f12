//! `brain extract` — keyed records (decisions, facts, preferences, rejected approaches, failed
//! commands) from the sessions and their distilled summaries, consolidated against what is there (ADD / SUPERSEDE /
//! NOOP / CONFLICT, each printed as NDJSON and logged in logs/extract.jsonl with its reason).

use std::io::Write;

use brain_cli::{Exit, Failure, Stdout, Warnings};
use brain_distill::extract::{self, Options};
use brain_distill::{Runner, budget};
use brain_doc::{ErrorCode, ndjson};
use brain_exec::parse_duration;
use brain_store::Home;

#[derive(clap::Args)]
pub struct Args {
    /// The LLM command, run with `sh -c`: the extraction prompt on its stdin, one JSON object
    /// `{"records": [...]}` on its stdout, for each distilled session. Also $BRAIN_DISTILL_COMMAND.
    /// Without one, the artifacts' "Key Decisions" and "What Was Rejected" bullets are read. Either
    /// way the sessions new or changed since the last run are read without a model: their failed,
    /// refused and declined tool calls, and the decisions, rejections and preferences said in them.
    #[arg(long, visible_alias = "cmd", value_name = "CMD")]
    command: Option<String>,
    /// The deterministic path even when $BRAIN_DISTILL_COMMAND is set.
    #[arg(long, conflicts_with = "command")]
    no_model: bool,
    /// Stamped into each record as `extracted_by` (default: the command's first word).
    #[arg(long, value_name = "NAME")]
    label: Option<String>,
    /// Characters of session body per prompt.
    #[arg(long, value_name = "CHARS", default_value_t = budget::DEFAULT_BUDGET)]
    budget: usize,
    /// Commands running at a time.
    #[arg(long, short = 'j', value_name = "N", default_value_t = 1)]
    jobs: usize,
    /// Kill a command (and its process group) that runs longer than this.
    #[arg(long, value_name = "DURATION", default_value = "5m", value_parser = parse_duration)]
    timeout: std::time::Duration,
    /// Ask the model again about sessions it already answered for at this prompt version, and read
    /// every session again.
    #[arg(long)]
    all: bool,
    /// Ask about at most N sessions this run.
    #[arg(long, value_name = "N")]
    limit: Option<usize>,
    /// Read only the documents of this doc NDJSON file (what `partition` printed: the Stop hook's
    /// new sessions), not every collection's changes; `-` reads stdin.
    #[arg(long, value_name = "FILE")]
    docs: Option<std::path::PathBuf>,
    /// Print no summary line on stderr.
    #[arg(long, short)]
    quiet: bool,
}

/// The ids of the documents of a doc NDJSON stream (a malformed line is warned about and skipped).
fn doc_ids(
    path: &std::path::Path,
    warn: &dyn Fn(String),
) -> anyhow::Result<std::collections::HashSet<String>> {
    let input: Box<dyn std::io::BufRead> = if path.as_os_str() == "-" {
        Box::new(std::io::stdin().lock())
    } else {
        let file = std::fs::File::open(path).map_err(|e| {
            Failure::new(
                ErrorCode::BadQuery,
                format!("--docs {}: {e}", path.display()),
            )
        })?;
        Box::new(std::io::BufReader::new(file))
    };
    let mut ids = std::collections::HashSet::new();
    for item in ndjson::Reader::<_, brain_doc::Doc>::new(input, path.display().to_string()) {
        match item? {
            Ok(d) => {
                ids.insert(d.id);
            }
            Err(e) => warn(format!("{e}; skipped")),
        }
    }
    Ok(ids)
}

pub fn run(home: &Home, a: Args) -> anyhow::Result<Exit> {
    let warnings = Warnings::new("brain extract", a.quiet);
    let warn = |m: String| warnings.warn(m);
    let command = if a.no_model {
        None
    } else {
        a.command
            .or_else(|| {
                brain_doc::env::get(brain_doc::env::BRAIN_DISTILL_COMMAND).map(str::to_string)
            })
            .filter(|c| !c.trim().is_empty())
    };
    let label = a.label.unwrap_or_else(|| {
        command
            .as_deref()
            .and_then(|c| c.split_whitespace().next())
            .unwrap_or("llm")
            .to_string()
    });
    let opts = Options {
        runner: command.map(|command| Runner {
            command,
            timeout: a.timeout,
            retries: brain_distill::DEFAULT_RETRIES,
            backoff: brain_distill::DEFAULT_BACKOFF,
        }),
        label,
        jobs: a.jobs.max(1),
        budget: a.budget,
        all: a.all,
        limit: a.limit,
        only: a.docs.as_deref().map(|p| doc_ids(p, &warn)).transpose()?,
        surface: brain_doc::env::get(brain_doc::env::BRAIN_SURFACE)
            .unwrap_or("cli")
            .to_string(),
    };
    let mut out = Stdout::new();
    // NDJSON for a pipe or a file; a line a record for a person at a terminal.
    let terminal = std::io::IsTerminal::is_terminal(&std::io::stdout());
    let mut emit = |l: &extract::Logged| {
        if terminal {
            use std::io::Write;
            writeln!(
                out,
                "{:<9} {} {}: {}",
                l.decision.name().to_uppercase(),
                l.record_type,
                l.key,
                l.statement
            )
        } else {
            ndjson::write_line(&mut out, l)
        }
    };
    let bar = brain_cli::bar(0, "extract");
    let progress = |done: u64, total: u64| {
        bar.set_length(total);
        bar.set_position(done);
    };
    let summary = extract::run(home, &opts, &warn, &progress, &mut emit);
    bar.finish_and_clear();
    let summary = summary.map_err(Failure::from)?;
    out.flush()?;
    if !a.quiet {
        eprintln!("brain extract: {}", summary.line());
    }
    Ok(match summary.failure_code() {
        Some(ErrorCode::Timeout) => Exit::Code(ErrorCode::Timeout),
        Some(code) => Exit::Code(code),
        None => Exit::Success,
    })
}
