//! `brain schedule install|remove [--cron|--systemd|--launchd]` — the slow clock
//! (`pipelines/nightly.mk`, every two hours) in the user's scheduler.

use brain_cli::{Exit, Failure};
use brain_ops::Host;
use brain_ops::schedule::{self, Scheduler};
use brain_store::Home;

#[derive(clap::Subcommand)]
pub enum Command {
    /// Schedule `make -f <pipelines>/nightly.mk` every two hours for this BRAIN_HOME and this brain
    /// (idempotent; prints what it did). Default scheduler: launchd on macOS, a systemd user timer
    /// where systemd runs, else cron. $BRAIN_CRONTAB, $BRAIN_SYSTEMCTL and $BRAIN_LAUNCHCTL replace
    /// the commands used.
    Install(Which),
    /// Remove brain's schedule (from every scheduler unless one is named).
    Remove(Which),
}

#[derive(clap::Args)]
#[group(multiple = false)]
pub struct Which {
    /// A crontab line (marked `# brain-nightly`).
    #[arg(long)]
    cron: bool,
    /// A systemd user timer + service (~/.config/systemd/user/brain-nightly.*).
    #[arg(long)]
    systemd: bool,
    /// A launchd agent (~/Library/LaunchAgents/com.brain.nightly.plist).
    #[arg(long)]
    launchd: bool,
}

impl Which {
    fn get(&self) -> Option<Scheduler> {
        match (self.cron, self.systemd, self.launchd) {
            (true, _, _) => Some(Scheduler::Cron),
            (_, true, _) => Some(Scheduler::Systemd),
            (_, _, true) => Some(Scheduler::Launchd),
            _ => None,
        }
    }
}

pub fn run(home: &Home, cmd: Command) -> anyhow::Result<Exit> {
    let host = Host::from_env();
    let did = match cmd {
        Command::Install(w) => {
            let which = w.get().unwrap_or_else(|| Scheduler::default_for(&host));
            let pipelines = brain_ops::bins::pipelines_dir(&host).map_err(Failure::from)?;
            schedule::install(&host, home, &pipelines, which).map_err(Failure::from)?
        }
        Command::Remove(w) => schedule::remove(&host, w.get()).map_err(Failure::from)?,
    };
    for line in did {
        eprintln!("brain: {line}");
    }
    Ok(Exit::Success)
}
