//! `brain skills install|remove|list` — the Claude Code skills shipped in `pipelines/skills/`
//! (brain-ask, brain-recent, brain-inbox), in `~/.claude/skills/` ($CLAUDE_CONFIG_DIR/skills).

use std::io::Write;

use brain_cli::{Exit, Failure, Stdout};
use brain_ops::{Host, skills};

#[derive(clap::Subcommand)]
pub enum Command {
    /// Copy the shipped skills into Claude Code's skills folder (idempotent; prints what it did).
    /// They apply in every folder unless --scope names where.
    Install {
        /// Only in these folders (a glob, e.g. `~/code/**`; repeatable). Default: every folder.
        #[arg(long, value_name = "GLOB")]
        scope: Vec<String>,
    },
    /// Remove the shipped skills from Claude Code's skills folder.
    Remove,
    /// List the installed brain skills: name, scope, path (tab-separated).
    List,
}

pub fn run(cmd: Command) -> anyhow::Result<Exit> {
    let host = Host::from_env();
    let did = match cmd {
        Command::List => {
            let mut out = Stdout::new();
            for s in skills::installed(&host) {
                writeln!(
                    out,
                    "{}\t{}\t{}",
                    s.name,
                    s.scope.unwrap_or_default(),
                    s.path
                )?;
            }
            out.flush()?;
            return Ok(Exit::Success);
        }
        Command::Install { scope } => {
            let pipelines = brain_ops::bins::pipelines_dir(&host).map_err(Failure::from)?;
            skills::install(&host, &pipelines, &skills::scope_text(&scope))
                .map_err(Failure::from)?
        }
        Command::Remove => {
            let pipelines = brain_ops::bins::pipelines_dir(&host).map_err(Failure::from)?;
            skills::remove(&host, &pipelines).map_err(Failure::from)?
        }
    };
    for line in did {
        eprintln!("brain: {line}");
    }
    Ok(Exit::Success)
}
