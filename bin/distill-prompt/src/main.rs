//! `distill-prompt`: session doc NDJSON on stdin → one prompt record per session on stdout
//! (`{id, session_id, prompt_version, prompt, cut?}`), for any LLM CLI to consume.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;

use anyhow::Context;
use brain_cli::{Exit, Failure, Stdout, Warnings};
use brain_distill::{Template, budget, prompt};
use brain_doc::{Doc, ErrorCode, ndjson};
use clap::Parser;

/// Turn session docs into distillation prompts (seed 004's prompt; one NDJSON record per session).
///
/// Reads doc NDJSON on stdin (as `jsonl2md` writes it). Each session body longer than --budget
/// characters is cut keeping headings, user turns, decisions and tool lines (the record's `cut`
/// says what was removed). `prompt_version` is `v1-` + 12 hex digits of the template's sha256.
/// Non-session records and malformed lines are reported on stderr and skipped.
#[derive(Parser)]
#[command(version)]
struct Args {
    /// Use this template instead of the built-in one; placeholders {session_id} {date} {project}
    /// {title} {session}.
    #[arg(long, value_name = "FILE")]
    template: Option<PathBuf>,
    /// Characters of session body per prompt (seed 004: 8,000).
    #[arg(long, value_name = "CHARS", default_value_t = budget::DEFAULT_BUDGET)]
    budget: usize,
    /// Print the built-in template and exit.
    #[arg(long)]
    print_template: bool,
    /// Print no summary line on stderr.
    #[arg(long, short)]
    quiet: bool,
}

fn main() -> std::process::ExitCode {
    brain_cli::main("distill-prompt", run)
}

fn run(args: Args) -> anyhow::Result<Exit> {
    let mut out = Stdout::new();
    let template = Template::load(args.template.as_deref()).map_err(Failure::from)?;
    if args.print_template {
        out.write_all(template.text().as_bytes())?;
        out.flush()?;
        return Ok(Exit::Success);
    }
    let stdin = std::io::stdin();
    if stdin.is_terminal() {
        return Err(Failure::new(
            ErrorCode::BadQuery,
            "no input: pipe session doc NDJSON into distill-prompt",
        )
        .with_fix("jsonl2md ~/.claude/projects/x/session.jsonl | distill-prompt")
        .into());
    }
    let warnings = Warnings::new("distill-prompt", false);
    let mut written = 0u64;
    for item in ndjson::Reader::<_, Doc>::new(stdin.lock(), "<stdin>") {
        match item.context("reading stdin")? {
            Ok(doc) => match prompt::build(&doc, &template, args.budget) {
                Ok(p) => {
                    ndjson::write_line(&mut out, &p)?;
                    written += 1;
                }
                Err(e) => warnings.warn(format!("<stdin>: {e}")),
            },
            Err(e) => warnings.warn(e),
        }
    }
    out.flush()?;
    if !args.quiet {
        eprintln!(
            "distill-prompt: {written} prompts ({}) / {} skipped",
            template.version(),
            warnings.count()
        );
    }
    Ok(Exit::Success)
}
