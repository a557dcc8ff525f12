//! `jsonl2md`: agent session transcripts → markdown documents (doc NDJSON on stdout, or files).

use std::io::Read;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use brain_cli::{Exit, Failure, Stdout, Warnings};
use brain_doc::ErrorCode;
use brain_ingest::{Options, Sink, discover};
use brain_store::Home;
use clap::Parser;

/// Turn agent sessions into one markdown document per session: Claude Code, Codex and Gemini
/// transcripts, Cursor (the IDE's state.vscdb databases, the cursor-agent CLI's store.db, agent
/// transcripts), OpenCode (opencode.db or its storage/ tree) and Aider (.aider.chat.history.md).
/// A database or a history file holds many sessions: each is its own document, and --new
/// re-renders only the conversations that changed. Cursor and OpenCode databases are read from a
/// private copy (a running editor is never blocked).
///
/// Each session becomes a document with YAML frontmatter (session id, date, project, branch, agent,
/// models, counts, provenance with sha256, redaction count) and a body with `## Conversation`,
/// `## Tools Used`, `## Reasoning` and `## Subagents`. Output is doc NDJSON on stdout (one record per
/// session, in path order), or markdown files with --out-dir. Secrets are redacted by default; a session
/// containing `brain:do-not-index` is skipped and `<private>…</private>` spans are removed.
///
/// Exit status: 0 when every input was read (malformed lines are warned about, counted and skipped),
/// 64 when an input could not be read at all, 70 when the queue lock is held, 99 on internal errors.
///
/// Examples:
///   jsonl2md ~/.claude/projects | partition | lexindex
///   jsonl2md --new --queue ~/.brain/pending_distill.txt | partition | lexindex   # Stop hook
///   jsonl2md --out-dir /tmp/sessions session.jsonl
///   cat rollout.jsonl | jsonl2md -
#[derive(Parser, Debug)]
#[command(version, verbatim_doc_comment)]
struct Args {
    /// Session files or folders to walk (`.jsonl` transcripts, Gemini `session-*.json`, Cursor and
    /// OpenCode databases, Aider histories); `-` reads one session from stdin. Default: every
    /// agent's own place that exists — ~/.claude/projects, ~/.codex/sessions, ~/.gemini/tmp,
    /// ~/.cursor/{chats,projects}, Cursor's User folder (~/.config/Cursor/User, ~/Library/Application
    /// Support/Cursor/User, ~/AppData/Roaming/Cursor/User), OpenCode's data folder
    /// (~/.local/share/opencode, …) and the .aider.chat.history.md of repositories under ~, ~/code,
    /// ~/src.
    paths: Vec<PathBuf>,

    /// Write one `<id>.md` file per session into this folder instead of NDJSON on stdout.
    #[arg(long, value_name = "DIR")]
    out_dir: Option<PathBuf>,

    /// Only sessions whose files changed since they were last written (mtime and size first, then
    /// content hash), as remembered in the state file.
    #[arg(long)]
    new: bool,

    /// The incremental state file [default: $BRAIN_HOME/state/jsonl2md.json].
    #[arg(long, value_name = "FILE")]
    state: Option<PathBuf>,

    /// Append the ids of the documents written to this distillation queue file, each id once, under a
    /// lock (the pipeline's queue is $BRAIN_HOME/pending_distill.txt).
    #[arg(long, value_name = "FILE")]
    queue: Option<PathBuf>,

    /// Keep secrets as they are (redaction is on by default).
    #[arg(long)]
    no_redact: bool,

    /// Read the Claude Code hook payload (`{"transcript_path": …}`) from stdin and convert that session.
    #[arg(long, conflicts_with = "paths")]
    hook: bool,

    /// No warnings on stderr (they are still counted in the summary).
    #[arg(short, long)]
    quiet: bool,
}

fn main() -> ExitCode {
    brain_cli::main("jsonl2md", run)
}

fn run(args: Args) -> anyhow::Result<Exit> {
    let home = Home::from_env();
    let started = brain_ingest::run::now();
    let warnings = Warnings::new("jsonl2md", args.quiet);
    let warn = |m: String| warnings.warn(m);
    let queue = args.queue.clone();
    let mut opts = Options {
        inputs: args.paths.clone(),
        out_dir: args.out_dir.clone(),
        only_new: args.new,
        state: None,
        queue,
        redact: !args.no_redact,
        // Unreadable, it could let a purged session back in: refuse (doctor's purges check names it).
        purged: brain_store::purged::Purged::load(&home).map_err(Failure::from)?,
    };
    if args.new || args.state.is_some() {
        opts.state = Some(
            args.state
                .unwrap_or_else(|| home.state_file("jsonl2md.json")),
        );
    }
    let mut stdout = Stdout::new();
    let mut sink = match &args.out_dir {
        Some(d) => Sink::Dir(d),
        None => Sink::Ndjson(&mut stdout),
    };
    let summary = if args.paths.len() == 1 && args.paths[0].as_os_str() == "-" {
        let mut bytes = Vec::new();
        std::io::stdin()
            .read_to_end(&mut bytes)
            .context("reading stdin")?;
        brain_ingest::run_bytes(&bytes, "<stdin>", &opts, &mut sink, &warn)?
    } else {
        if args.hook {
            opts.inputs = vec![hook_transcript()?];
        } else if opts.inputs.is_empty() {
            let user_home = brain_store::home_dir().unwrap_or_default();
            opts.inputs = discover::default_roots(&user_home);
            if opts.inputs.is_empty() {
                eprintln!(
                    "jsonl2md: no sessions of Claude Code, Codex, Gemini, Cursor, OpenCode or Aider in their default places under ~ (`brain doctor` lists them)"
                );
            }
        }
        brain_ingest::run(&opts, &mut sink, &warn).map_err(Failure::from)?
    };
    eprintln!("jsonl2md: {}", summary.line(started.elapsed()));
    if summary.unreadable > 0 {
        return Ok(Exit::Code(ErrorCode::BadQuery));
    }
    Ok(Exit::Success)
}

/// The transcript named by a Claude Code hook payload on stdin (`{"transcript_path": "…", …}`).
fn hook_transcript() -> anyhow::Result<PathBuf> {
    let mut payload = String::new();
    std::io::stdin()
        .read_to_string(&mut payload)
        .context("reading the hook payload from stdin")?;
    let v: serde_json::Value = serde_json::from_str(&payload).unwrap_or_default();
    match v.get("transcript_path").and_then(serde_json::Value::as_str) {
        // A folder would be walked whole: every session under it converted on one Stop.
        Some(p) if std::path::Path::new(p).is_dir() => Err(Failure::new(
            ErrorCode::BadQuery,
            format!("the hook payload's transcript_path is a folder, not a transcript: {p}; nothing converted"),
        )
        .with_fix("the Stop hook names one session file; to convert a folder, run `jsonl2md FOLDER`")
        .into()),
        Some(p) if !p.is_empty() => Ok(PathBuf::from(p)),
        _ => Err(Failure::new(
            ErrorCode::BadQuery,
            "the hook payload on stdin has no transcript_path",
        )
        .with_fix("run without --hook, naming the transcript file")
        .into()),
    }
}
