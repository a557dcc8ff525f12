//! `brain hook install | remove | run | log` — brain's hooks in the agents' settings (Claude Code's
//! Stop hook for the fast clock; the SessionStart briefing, and opt-in per-prompt recall and
//! pre-tool "already tried" notes, for Claude Code, Codex and Gemini CLI), what those hooks run,
//! and the telemetry row the Stop hook writes per run.

use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use brain_cli::{Exit, Failure};
use brain_context::hook::Event;
use brain_doc::ErrorCode;
use brain_ops::Host;
use brain_ops::hooks::{self, Agent, Change, Hook, Wanted};
use brain_store::Home;
use serde_json::{Map, Value};

#[derive(clap::Args)]
pub struct Agents {
    /// Claude Code (~/.claude/settings.json): the Stop hook (fast clock) and the SessionStart
    /// briefing.
    #[arg(long)]
    claude: bool,
    /// Codex (~/.codex/hooks.json, or $CODEX_HOME): the SessionStart briefing.
    #[arg(long)]
    codex: bool,
    /// Gemini CLI (~/.gemini/settings.json): the SessionStart briefing.
    #[arg(long)]
    gemini: bool,
    /// The settings file, for one agent [default: the agent's own].
    #[arg(long, value_name = "FILE")]
    settings: Option<PathBuf>,
}

impl Agents {
    fn chosen(&self, default_claude: bool) -> anyhow::Result<Vec<(Agent, PathBuf)>> {
        let host = Host::from_env();
        let mut out: Vec<Agent> = [
            (self.claude, Agent::Claude),
            (self.codex, Agent::Codex),
            (self.gemini, Agent::Gemini),
        ]
        .into_iter()
        .filter(|(on, _)| *on)
        .map(|(_, a)| a)
        .collect();
        if out.is_empty() {
            if !default_claude {
                return Err(Failure::new(
                    ErrorCode::BadQuery,
                    "name the agent: --claude, --codex or --gemini (several may be given)",
                )
                .into());
            }
            out.push(Agent::Claude);
        }
        if self.settings.is_some() && out.len() > 1 {
            return Err(
                Failure::new(ErrorCode::BadQuery, "--settings is for one agent at a time").into(),
            );
        }
        Ok(out
            .into_iter()
            .map(|a| {
                let file = self.settings.clone().unwrap_or_else(|| a.settings(&host));
                (a, file)
            })
            .collect())
    }
}

#[derive(Clone, Copy, clap::ValueEnum)]
pub enum RunEvent {
    /// The briefing (SessionStart; `source` compact brings the session's own requests first).
    SessionStart,
    /// Recall for the submitted prompt (UserPromptSubmit; Gemini's BeforeAgent).
    Prompt,
    /// Rejected approaches and failed commands matching the tool's command or file (PreToolUse).
    PreTool,
}

#[derive(clap::Subcommand)]
pub enum Command {
    /// Add brain's hooks to the agents' settings (idempotent; other hooks kept; a backup
    /// `<file>.brain-backup-<time>` first; written atomically). Claude Code gets the Stop hook
    /// (pipelines/stop-hook.sh) and every agent the SessionStart briefing; --prompt and
    /// --pre-tool add the opt-in hooks (installing without them takes them out again).
    Install {
        #[command(flatten)]
        agents: Agents,
        /// Also recall for each prompt (UserPromptSubmit; Gemini: BeforeAgent), within
        /// --prompt-budget tokens.
        #[arg(long)]
        prompt: bool,
        /// Also, before a shell command or an edit, hand the agent what was tried and failed with
        /// the same command or file (PreToolUse; Claude Code and Codex).
        #[arg(long)]
        pre_tool: bool,
        /// Tokens of the session-start briefing (cl100k_base).
        #[arg(long, value_name = "N", default_value_t = brain_context::brief::DEFAULT_BUDGET)]
        budget: usize,
        /// Tokens of the per-prompt recall.
        #[arg(long, value_name = "N", default_value_t = brain_context::brief::PROMPT_BUDGET)]
        prompt_budget: usize,
    },
    /// Remove brain's hooks from the agents' settings (other hooks kept; backup first).
    Remove {
        #[command(flatten)]
        agents: Agents,
    },
    /// What an installed hook runs: read the agent's hook JSON on stdin, print the agent's JSON
    /// (`hookSpecificOutput.additionalContext`) or nothing. Fails open: any error prints nothing,
    /// exits 0 and logs a line (stderr and the usage log), so a session is never blocked.
    Run {
        #[arg(value_enum)]
        event: RunEvent,
        /// Tokens [default: 1500 for session-start, 400 for prompt].
        #[arg(long, value_name = "N")]
        budget: Option<usize>,
    },
    /// Append one `hook` telemetry row (what pipelines/stop-hook.sh calls after each run).
    Log {
        /// Event name of the row.
        #[arg(long, default_value = "stop_hook")]
        event: String,
        /// Wall time of the hook run.
        #[arg(long, value_name = "MS")]
        latency_ms: u64,
        /// Exit code of the pipeline (124: timed out).
        #[arg(long, value_name = "CODE", allow_negative_numbers = true)]
        exit_code: i64,
        /// Documents indexed (added or updated).
        #[arg(long, value_name = "N", default_value_t = 0)]
        docs: u64,
    },
}

pub fn run(home: &Home, cmd: Command) -> anyhow::Result<Exit> {
    match cmd {
        Command::Install {
            agents,
            prompt,
            pre_tool,
            budget,
            prompt_budget,
        } => install(home, &agents, prompt, pre_tool, budget, prompt_budget)?,
        Command::Remove { agents } => {
            for (_, settings) in agents.chosen(true)? {
                let out = hooks::remove(&settings).map_err(Failure::from)?;
                match out.change {
                    Change::Removed(n) => {
                        eprintln!(
                            "brain: removed {n} brain hook(s) from {}",
                            settings.display()
                        )
                    }
                    _ => eprintln!(
                        "brain: no brain hook in {}; nothing changed",
                        settings.display()
                    ),
                }
                if let Some(b) = out.backup {
                    eprintln!("brain: backup of the previous file: {}", b.display());
                }
            }
        }
        Command::Run { event, budget } => return Ok(run_hook(home, event, budget)),
        Command::Log {
            event,
            latency_ms,
            exit_code,
            docs,
        } => {
            let surface = brain_doc::env::get(brain_doc::env::BRAIN_SURFACE).unwrap_or("hook");
            let mut row = Map::new();
            row.insert("latency_ms".into(), Value::from(latency_ms));
            row.insert("exit_code".into(), Value::from(exit_code));
            row.insert("n_docs".into(), Value::from(docs));
            if exit_code != 0 {
                row.insert("error".into(), Value::from(exit_class(exit_code)));
                row.insert("reason".into(), Value::from(format!("exit {exit_code}")));
            }
            brain_store::telemetry::append(home, surface, &event, row)?;
        }
    }
    Ok(Exit::Success)
}

fn install(
    home: &Home,
    agents: &Agents,
    prompt: bool,
    pre_tool: bool,
    budget: usize,
    prompt_budget: usize,
) -> anyhow::Result<()> {
    for b in [budget, prompt_budget] {
        brain_context::check_budget(b).map_err(Failure::from)?;
    }
    let host = Host::from_env();
    let Some(brain) = host.exe.clone() else {
        return Err(Failure::new(
            ErrorCode::Internal,
            "cannot tell where this brain executable is",
        )
        .into());
    };
    let root = std::path::absolute(home.root())?;
    let chosen = agents.chosen(false)?;
    // The hooks never make a home: installing them does (private, as every home is).
    std::fs::create_dir_all(&root)?;
    let script = if chosen.iter().any(|(a, _)| *a == Agent::Claude) {
        let pipelines = brain_ops::bins::pipelines_dir(&host).map_err(Failure::from)?;
        Some(hooks::command(
            &root,
            &brain,
            &pipelines.join(hooks::SCRIPT),
        ))
    } else {
        None
    };
    let budget_arg = |b: usize, default: usize| (b != default).then_some(b);
    let mut wanted = Vec::new();
    if let Some(s) = script {
        wanted.push(Wanted {
            hook: Hook::Stop,
            command: s,
        });
    }
    let mut add = |hook: Hook, b: Option<usize>| {
        wanted.push(Wanted {
            hook,
            command: hooks::run_command(&root, &brain, hook, b),
        })
    };
    add(
        Hook::SessionStart,
        budget_arg(budget, brain_context::brief::DEFAULT_BUDGET),
    );
    if prompt {
        add(
            Hook::Prompt,
            budget_arg(prompt_budget, brain_context::brief::PROMPT_BUDGET),
        );
    }
    if pre_tool {
        add(Hook::PreTool, None);
    }
    for (agent, settings) in chosen {
        let out = hooks::install(&settings, agent, &wanted).map_err(Failure::from)?;
        let what = match out.change {
            Change::Added => "added brain's hooks to",
            Change::Replaced => "updated brain's hooks in",
            _ => "unchanged: brain's hooks are already in",
        };
        eprintln!(
            "brain: {what} {} ({}: {})",
            settings.display(),
            agent.name(),
            out.events.join(", ")
        );
        if agent == Agent::Codex {
            enable_codex_hooks(&settings)?;
        }
        if pre_tool && agent.event(Hook::PreTool).is_none() {
            eprintln!(
                "brain: {} has no pre-tool hook that can hand the agent a note; not installed",
                agent.name()
            );
        }
        if let Some(b) = out.backup {
            eprintln!("brain: backup of the previous file: {}", b.display());
        }
    }
    Ok(())
}

/// Turn on Codex's hooks feature in the config.toml beside its hooks file `settings` (Codex runs
/// no hook without it), saying so.
fn enable_codex_hooks(settings: &std::path::Path) -> anyhow::Result<()> {
    let config = hooks::codex::config_file(settings);
    if let Some(backup) = hooks::codex::enable(&config).map_err(Failure::from)? {
        eprintln!(
            "brain: turned on Codex's hooks feature in {} ([features] {} = true): Codex runs no hook without it",
            config.display(),
            hooks::codex::FLAG
        );
        if let Some(b) = backup {
            eprintln!("brain: backup of the previous file: {}", b.display());
        }
    }
    Ok(())
}

/// The error class of a hook pipeline's exit code: the contract's (64 bad input, 65 missing, 70
/// locked, …), a timeout's (124 from timeout(1), 137/143 killed), else internal.
fn exit_class(code: i64) -> &'static str {
    match code {
        124 | 137 | 143 => ErrorCode::Timeout.as_str(),
        c => ErrorCode::ALL
            .iter()
            .find(|e| i64::from(e.exit_code()) == c)
            .map_or(ErrorCode::Internal.as_str(), |e| e.as_str()),
    }
}

/// `brain hook run EVENT`: answer the agent, or fail open (nothing on stdout, exit 0, a line on
/// stderr and in the usage log).
fn run_hook(home: &Home, event: RunEvent, budget: Option<usize>) -> Exit {
    let started = Instant::now();
    let (event, name, default) = match event {
        RunEvent::SessionStart => (
            Event::SessionStart,
            "session-start",
            brain_context::brief::DEFAULT_BUDGET,
        ),
        RunEvent::Prompt => (Event::Prompt, "prompt", brain_context::brief::PROMPT_BUDGET),
        RunEvent::PreTool => (Event::PreTool, "pre-tool", 0),
    };
    // A hook never makes a home (nor a lock, a log or working memory in one): without one there
    // is nothing to brief from, and nowhere to log it.
    if !home.root().is_dir() {
        eprintln!(
            "brain hook run {name}: no brain home at {} (nothing was given to the agent; `brain import` makes one)",
            home.root().display()
        );
        return Exit::Success;
    }
    let answer = std::panic::catch_unwind(std::panic::AssertUnwindSafe(
        || -> anyhow::Result<Option<String>> {
            let input = brain_context::hook::read_input(std::io::stdin().lock())?;
            let now = brain_rank::clock::at(None)?;
            let engine = brain_rank::Engine::open(home)?;
            let budget = budget.unwrap_or(default);
            Ok(brain_context::hook::respond(
                &engine, event, &input, budget, &now,
            )?)
        },
    ));
    // What failed, for the usage log: the error's class and a short reason (never the message:
    // it may quote the prompt or a path).
    let (out, error) = match answer {
        Ok(Ok(out)) => (out, None),
        Ok(Err(e)) => {
            let class = brain_cli::classify(&e).code.as_str();
            let reason = if e
                .downcast_ref::<brain_context::hook::InputError>()
                .is_some()
            {
                "input"
            } else {
                class
            };
            (None, Some((e.to_string(), class, reason)))
        }
        Err(_) => (
            None,
            Some(("internal error (a panic)".to_string(), "internal", "panic")),
        ),
    };
    let mut row = Map::new();
    row.insert(
        "latency_ms".into(),
        Value::from(started.elapsed().as_millis() as u64),
    );
    row.insert("ok".into(), Value::from(error.is_none()));
    row.insert(
        "bytes".into(),
        Value::from(out.as_ref().map_or(0, |o| o.len())),
    );
    if let Some((message, class, reason)) = &error {
        eprintln!("brain hook run {name}: {message} (nothing was given to the agent)");
        // The message stays on stderr: it may quote the prompt or a path.
        row.insert("failed".into(), Value::from(true));
        row.insert("error".into(), Value::from(*class));
        row.insert("reason".into(), Value::from(*reason));
    }
    if let Some(text) = out {
        let mut stdout = std::io::stdout().lock();
        let _ = writeln!(stdout, "{text}").and_then(|_| stdout.flush());
    }
    if let Some(t) = brain_doc::timings::report() {
        eprintln!("{t}");
    }
    // A home that does not exist is not made by a hook that failed to read it.
    if home.root().is_dir() {
        let _ = brain_store::telemetry::append(home, "hook", &format!("hook_{name}"), row);
    }
    Exit::Success
}
