//! `brain distill` — run the user's LLM command over every pending session (the queue file plus
//! sessions whose artifact has a stale prompt_version) and write the artifacts into `distilled`.

use std::io::Write;
use std::path::PathBuf;

use brain_cli::{Exit, Failure, Stdout, Warnings};
use brain_distill::{Options, Runner, Template, budget, distill};
use brain_doc::Classified;
use brain_doc::{ErrorCode, ndjson};
use brain_exec::parse_duration;
use brain_store::Home;

#[derive(clap::Args)]
pub struct Args {
    /// The LLM command, run with `sh -c`: the prompt on its stdin, the artifact on its stdout
    /// (e.g. `gemini -m gemini-2.5-flash`, `llm -m gpt-4o-mini`, `claude -p`). Also $BRAIN_DISTILL_COMMAND.
    #[arg(long, visible_alias = "cmd", value_name = "CMD")]
    command: Option<String>,
    /// Distill the pending sessions: the queue `jsonl2md --queue` fills plus sessions whose artifact's
    /// prompt_version is stale. This is what `brain distill` always does; the flag is accepted for
    /// seed 004's `brain.py distill --from-pending` spelling.
    #[arg(long)]
    from_pending: bool,
    /// Stamped into each artifact as `distilled_by` (default: the command's first word).
    #[arg(long, value_name = "NAME")]
    label: Option<String>,
    /// Prompt template instead of the built-in one (see `distill-prompt --print-template`).
    #[arg(long, value_name = "FILE")]
    template: Option<PathBuf>,
    /// Characters of session body per prompt (seed 004: 8,000).
    #[arg(long, value_name = "CHARS", default_value_t = budget::DEFAULT_BUDGET)]
    budget: usize,
    /// Commands running at a time.
    #[arg(long, short = 'j', value_name = "N", default_value_t = 1)]
    jobs: usize,
    /// Kill a command (and its process group) that runs longer than this (`90s`, `10m`); an answer
    /// takes seconds to a minute, so ten minutes means it hangs.
    #[arg(long, value_name = "DURATION", default_value = "10m", value_parser = parse_duration)]
    timeout: std::time::Duration,
    /// First wait after a rate-limit answer (429, "rate limit", RESOURCE_EXHAUSTED); doubles per retry
    /// (seed 004: 60 s, 120 s, 240 s). Also $BRAIN_DISTILL_BACKOFF.
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    backoff: Option<std::time::Duration>,
    /// Retries after a rate-limit answer.
    #[arg(long, value_name = "N", default_value_t = brain_distill::DEFAULT_RETRIES)]
    retries: u32,
    /// Distill at most N sessions this run.
    #[arg(long, value_name = "N")]
    limit: Option<usize>,
    /// Print the pending session ids (one a line) and exit without running anything.
    #[arg(long)]
    list: bool,
    /// Print no summary line on stderr.
    #[arg(long, short)]
    quiet: bool,
}

pub fn run(home: &Home, a: Args) -> anyhow::Result<Exit> {
    let bad = |m: String| Failure::new(ErrorCode::BadQuery, m);
    let template = Template::load(a.template.as_deref()).map_err(|e| bad(e.to_string()))?;
    let warnings = Warnings::new("brain distill", a.quiet);
    let warn = |m: String| warnings.warn(m);
    let mut out = Stdout::new();
    if a.list {
        let pending = distill::pending(home, &template, &warn).map_err(Failure::from)?;
        for p in pending {
            writeln!(out, "{}", p.id)?;
        }
        out.flush()?;
        return Ok(Exit::Success);
    }
    let backoff = match (
        a.backoff,
        brain_doc::env::get(brain_doc::env::BRAIN_DISTILL_BACKOFF),
    ) {
        (Some(d), _) => d,
        (None, Some(v)) => {
            parse_duration(v).map_err(|e| bad(format!("BRAIN_DISTILL_BACKOFF: {e}")))?
        }
        _ => brain_distill::DEFAULT_BACKOFF,
    };
    let _always_from_pending = a.from_pending;
    let command = a
        .command
        .or_else(|| brain_doc::env::get(brain_doc::env::BRAIN_DISTILL_COMMAND).map(str::to_string));
    let Some(command) = command.filter(|c| !c.trim().is_empty()) else {
        return Err(
            bad("no LLM command: pass --command or set BRAIN_DISTILL_COMMAND".into())
                .with_fix("brain distill --command 'llm -m gpt-4o-mini'")
                .into(),
        );
    };
    let label = a.label.unwrap_or_else(|| {
        command
            .split_whitespace()
            .next()
            .unwrap_or("llm")
            .to_string()
    });
    let opts = Options {
        template,
        budget: a.budget,
        runner: Runner {
            command,
            timeout: a.timeout,
            retries: a.retries,
            backoff,
        },
        jobs: a.jobs.max(1),
        label,
        limit: a.limit,
        surface: brain_doc::env::get(brain_doc::env::BRAIN_SURFACE)
            .unwrap_or("cli")
            .to_string(),
    };
    let mut emit = |d: &brain_doc::Doc| ndjson::write_line(&mut out, d);
    let bar = brain_cli::bar(0, "distill");
    let progress = |done: u64, total: u64| {
        bar.set_length(total);
        bar.set_position(done);
    };
    let summary = distill::run(home, &opts, &warn, &progress, &mut emit);
    bar.finish_and_clear();
    let summary = summary.map_err(|e| {
        let fix = if e.code() == ErrorCode::Locked {
            "wait for the running `brain distill` to finish"
        } else {
            ""
        };
        Failure::from(e).with_fix(fix)
    })?;
    out.flush()?;
    if !a.quiet {
        eprintln!("brain distill: {}", summary.line());
    }
    Ok(match summary.failure_code() {
        Some(code) => Exit::Code(code),
        None => Exit::Success,
    })
}
