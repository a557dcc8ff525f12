//! `brain hook install --claude | remove | log` — the fast clock's Claude Code Stop hook
//! (`pipelines/stop-hook.sh`) in settings.json, and the telemetry row the hook writes per run.

use std::path::PathBuf;

use brain_cli::{Exit, Failure};
use brain_doc::ErrorCode;
use brain_ops::Host;
use brain_ops::hooks::{self, Change};
use brain_store::Home;
use serde_json::{Map, Value};

#[derive(clap::Subcommand)]
pub enum Command {
    /// Add brain's Stop hook to Claude Code's settings.json (idempotent; other hooks kept; a backup
    /// `settings.json.brain-backup-<time>` first; written atomically). The hook runs
    /// pipelines/stop-hook.sh with this BRAIN_HOME and this brain.
    Install {
        /// Install into Claude Code (the agent whose Stop hook brain uses).
        #[arg(long, required = true)]
        claude: bool,
        /// The settings file [default: $CLAUDE_CONFIG_DIR/settings.json, else ~/.claude/settings.json].
        #[arg(long, value_name = "FILE")]
        settings: Option<PathBuf>,
    },
    /// Remove brain's Stop hook from Claude Code's settings.json (other hooks kept; backup first).
    Remove {
        /// From Claude Code (the default).
        #[arg(long)]
        claude: bool,
        /// The settings file [default: as for install].
        #[arg(long, value_name = "FILE")]
        settings: Option<PathBuf>,
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
    let host = Host::from_env();
    match cmd {
        Command::Install { settings, .. } => {
            let settings = settings.unwrap_or_else(|| host.claude_settings());
            let pipelines = brain_ops::bins::pipelines_dir(&host).map_err(Failure::from)?;
            let Some(brain) = host.exe.clone() else {
                return Err(Failure::new(
                    ErrorCode::Internal,
                    "cannot tell where this brain executable is",
                )
                .into());
            };
            let root = std::path::absolute(home.root())?;
            let cmd = hooks::command(&root, &brain, &pipelines.join(hooks::SCRIPT));
            let out = hooks::install(&settings, &cmd).map_err(Failure::from)?;
            let what = match out.change {
                Change::Added => "added the Stop hook to",
                Change::Replaced => "replaced brain's Stop hook in",
                _ => "unchanged: the Stop hook is already in",
            };
            eprintln!("brain: {what} {}", settings.display());
            if let Some(b) = out.backup {
                eprintln!("brain: backup of the previous file: {}", b.display());
            }
            eprintln!("brain: hook command: {cmd}");
        }
        Command::Remove { settings, .. } => {
            let settings = settings.unwrap_or_else(|| host.claude_settings());
            let out = hooks::remove(&settings).map_err(Failure::from)?;
            match out.change {
                Change::Removed(n) => eprintln!(
                    "brain: removed {n} Stop hook(s) from {}",
                    settings.display()
                ),
                _ => eprintln!(
                    "brain: no brain Stop hook in {}; nothing changed",
                    settings.display()
                ),
            }
            if let Some(b) = out.backup {
                eprintln!("brain: backup of the previous file: {}", b.display());
            }
        }
        Command::Log {
            event,
            latency_ms,
            exit_code,
            docs,
        } => {
            let surface = brain_doc::env::get("BRAIN_SURFACE").unwrap_or("hook");
            let mut row = Map::new();
            row.insert("latency_ms".into(), Value::from(latency_ms));
            row.insert("exit_code".into(), Value::from(exit_code));
            row.insert("n_docs".into(), Value::from(docs));
            brain_store::telemetry::append(home, surface, &event, row)?;
        }
    }
    Ok(Exit::Success)
}
