//! `brain` — the umbrella command. `ask`, `get`, `mcp`, `eval` … run in process through the libraries; any other
//! word runs the stage binary of that name (`brain lexindex --all`), found next to this executable
//! first, then in `../libexec/brain/` (where `make install` puts the stages), then on PATH.

mod cmd;
mod exec;

/// What `brain --help` says after the commands: the first command, and the stages.
const STAGES_HELP: &str = "\
Start with `brain import`, then `brain ask \"…\"`.

Pipeline stages (any other word runs the stage of that name, e.g. `brain lexindex --all`):
  jsonl2md, chrome2md, doc2md, partition, lexindex, vecindex, teamindex, rank, distill-prompt — also on PATH after
  `make install`, so `jsonl2md ~/.claude/projects | partition | lexindex` runs as printed;
  fmt — only as `brain fmt` (coreutils has a `fmt`): `rank \"query\" | brain fmt --md`.
Each stage has its own --help (`brain jsonl2md --help`).";

use clap::{Parser, Subcommand};

/// A local second brain for work with AI coding agents: ask it, get documents, manage collections,
/// measure retrieval.
#[derive(Parser)]
#[command(name = "brain", version, after_help = STAGES_HELP)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Import everything at once: every agent's sessions (Claude Code, Codex, Gemini, Cursor,
    /// OpenCode, Aider) from their default places and every browser profile's history, indexed,
    /// then embedded within a budget; a summary of each source. Run it again any time: only
    /// what changed is read.
    Import(cmd::import::Args),
    /// Keep memory current: watch every collection, agent store and browser profile and index
    /// each change within seconds through the same stages (`status`: is one running?).
    Watch(cmd::watch::Args),
    /// Search and print ranked, provenance-carrying answers (BM25, vector or hybrid, routed by the
    /// query; rank + fmt in one process).
    Ask(Box<cmd::ask::Args>),
    /// The memory a task needs within a token budget (cl100k_base): guaranteed records, whole
    /// threads that fit, the best of the rest; near-duplicates and cold records left out.
    Context(cmd::context::Args),
    /// Entities (people, projects, companies, concepts) and their aliases: the page of one
    /// (summary, facts, related records, timeline), every one, or names that deserve one.
    Entity(cmd::entity::Args),
    /// What a record or an entity is related to: typed relations (supports, contradicts, …),
    /// mentions, projects; --kind to follow some, --depth to walk further.
    Related(cmd::related::Args),
    /// Print one document: a path, brain://collection/path or #docid, with optional :from[:count].
    Get(cmd::get::Args),
    /// Print several documents: a glob over collection/path, or a comma-separated list.
    MultiGet(cmd::multi_get::Args),
    /// Add, list or remove collections of brain.yaml.
    #[command(subcommand)]
    Collection(cmd::collection::Command),
    /// Evaluate retrieval on a BEIR-format set: nDCG@10, MRR@10, Recall@10/100, latency.
    Eval(cmd::eval::Args),
    /// Improve the search strategy on judgments: try a change, keep it when a dev part improves
    /// and the train part does not drop, log every experiment (`tune report` shows them).
    Tune(Box<cmd::tune::Args>),
    /// The search strategy in force: every knob (show), what differs from the defaults (diff),
    /// back to the defaults (reset).
    #[command(subcommand)]
    Strategy(cmd::strategy::Command),
    /// Install or check the local embedding model ($BRAIN_HOME/models/).
    #[command(subcommand)]
    Model(cmd::model::Command),
    /// Serve the memory to agents over MCP (stdio, or loopback HTTP with --http), or print/write their
    /// config (`install --claude`).
    Mcp(cmd::mcp::Args),
    /// The memory browser: a local web view (overview, timeline, search, documents, sessions,
    /// entities), read-only, on 127.0.0.1 with a per-run token; prints its URL.
    Browse(cmd::browse::Args),
    /// Distill pending sessions into artifacts with your LLM command (seed 004), write and index them.
    Distill(cmd::distill::Args),
    /// Short runtime truth for scripts: collections, counts, last update, embedding backlog, model.
    Status(cmd::status::Args),
    /// Runtime truth: binaries, home, config, collections and freshness, model, hooks, schedules, telemetry.
    Explain(cmd::explain::Args),
    /// Run every health check (each with its fix); exit 0 only when all pass, else 65.
    Doctor(cmd::doctor::Args),
    /// Install or remove the Claude Code Stop hook (the fast clock).
    #[command(subcommand)]
    Hook(cmd::hook::Command),
    /// Install or remove the cron/systemd/launchd schedule of pipelines/nightly.mk (the slow clock).
    #[command(subcommand)]
    Schedule(cmd::schedule::Command),
    /// Install, list or remove the Claude Code skills (brain-ask, brain-recent, brain-inbox).
    #[command(subcommand)]
    Skills(cmd::skills::Command),
    /// Capture a typed note (note, decision, todo, link, fact) into $BRAIN_HOME/inbox/YYYY-MM-DD.md,
    /// searchable at once; secrets are refused.
    Inbox(cmd::inbox::Args),
    /// What became visible recently, across collections, newest first, with the collection mix.
    Recent(cmd::recent::Args),
    /// Archive a record: hidden from every search, kept on disk (`--restore` undoes it).
    Forget(cmd::forget::Args),
    /// Rehearsal: fold the access log (what was read) into the registry, count records by tier.
    #[command(subcommand)]
    Memory(cmd::memory::Command),
    /// The briefing an agent gets at session start, for a person: this project's working memory,
    /// current decisions and facts, open tasks and contradictions, what was tried and failed,
    /// what relates to the open task and the last sessions — each cited, within a token budget.
    Brief(cmd::brief::Args),
    /// Keyed records (decisions, facts, preferences, rejected approaches, failed commands) from the
    /// sessions and their distilled summaries, consolidated against what is there: ADD, SUPERSEDE,
    /// NOOP, CONFLICT, each printed and logged with its reason (no model needed; the LLM command
    /// as for distill reads the summaries too).
    Extract(cmd::extract::Args),
    /// What happened just before and after a moment (a time, or a hit's brain://…:line, a #docid,
    /// a session id), across every agent, note and browser day.
    Timeline(cmd::timeline::Args),
    /// Working memory: short-lived notes carried first in every context block (add, list, pin,
    /// unpin, rm, promote; `tick` is what the stop hook runs).
    #[command(subcommand)]
    Wm(cmd::wm::Command),
    /// Usage from telemetry: by surface and event, latency p50/p95, zero-hit rate, failures.
    Stats(cmd::stats::Args),
    /// Run a stage binary (rank, fmt, lexindex, partition, …) from the libexec folder.
    #[command(external_subcommand)]
    Stage(Vec<String>),
}

fn main() -> std::process::ExitCode {
    brain_doc::timings::start();
    brain_cli::main("brain", |cli: Cli| {
        let home = brain_store::Home::from_env();
        match cli.command {
            Command::Import(a) => cmd::import::run(&home, a),
            Command::Watch(a) => cmd::watch::run(&home, a),
            Command::Ask(a) => cmd::ask::run(&home, *a),
            Command::Context(a) => cmd::context::run(&home, a),
            Command::Brief(a) => cmd::brief::run(&home, a),
            Command::Extract(a) => cmd::extract::run(&home, a),
            Command::Timeline(a) => cmd::timeline::run(&home, a),
            Command::Wm(c) => cmd::wm::run(&home, c),
            Command::Entity(a) => cmd::entity::run(&home, a),
            Command::Related(a) => cmd::related::run(&home, a),
            Command::Get(a) => cmd::get::run(&home, a),
            Command::MultiGet(a) => cmd::multi_get::run(&home, a),
            Command::Collection(c) => cmd::collection::run(&home, c),
            Command::Eval(a) => cmd::eval::run(&home, a),
            Command::Tune(a) => cmd::tune::run(&home, *a),
            Command::Strategy(c) => cmd::strategy::run(&home, c),
            Command::Distill(a) => cmd::distill::run(&home, a),
            Command::Status(a) => cmd::status::run(&home, a),
            Command::Explain(a) => cmd::explain::run(&home, a),
            Command::Doctor(a) => cmd::doctor::run(&home, a),
            Command::Hook(c) => cmd::hook::run(&home, c),
            Command::Schedule(c) => cmd::schedule::run(&home, c),
            Command::Skills(c) => cmd::skills::run(c),
            Command::Mcp(a) => cmd::mcp::run(&home, a),
            Command::Browse(a) => cmd::browse::run(&home, a),
            Command::Inbox(a) => cmd::inbox::run(&home, a),
            Command::Recent(a) => cmd::recent::run(&home, a),
            Command::Stats(a) => cmd::stats::run(&home, a),
            Command::Memory(c) => cmd::memory::run(&home, c),
            Command::Forget(a) => cmd::forget::run(&home, a),
            Command::Model(c) => cmd::model::run(&home, c),
            Command::Stage(argv) => exec::run(&argv),
        }
    })
}
