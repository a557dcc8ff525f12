//! `brain watch` — live memory: every collection, agent store and browser profile watched, each
//! change indexed within seconds through the usual stages (brain_ops::watch); `brain watch
//! status` says whether one runs and what its last batch did.

use std::io::Write;
use std::time::Duration;

use brain_cli::{Exit, Failure, Stdout};
use brain_doc::ErrorCode;
use brain_ops::schedule::Scheduler;
use brain_ops::watch::{Note, Options, Targets};
use brain_store::Home;

#[derive(clap::Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct Args {
    #[command(subcommand)]
    action: Option<Action>,
    /// Milliseconds without a new event before a batch runs (an editor's save, a checkout of
    /// 10,000 files or a growing transcript is one batch).
    #[arg(long, value_name = "MS", default_value_t = 250)]
    settle: u64,
    /// Seconds at most between a browser history's reads (it changes with every page).
    #[arg(long, value_name = "SECS", default_value_t = 300)]
    browser_every: u64,
    /// Seconds of embedding after a batch, in the background at the lowest priority (0: none;
    /// only when a model is installed).
    #[arg(long, value_name = "SECS", default_value_t = 30)]
    embed_budget: u64,
    /// Poll every SECS instead of using the OS's file events (a network folder; the watcher
    /// falls back to this by itself when the OS's watch limit is reached).
    #[arg(long, value_name = "SECS")]
    poll: Option<f64>,
    /// One JSON record per line on stdout (`watching`, `batch`, `fallback`, `warning`) instead of
    /// lines on stderr.
    #[arg(long)]
    json: bool,
}

#[derive(clap::Subcommand)]
enum Action {
    /// Run the watcher as a service that starts at login and restarts when it fails: a systemd
    /// user service (default where systemd runs) or a launchd agent (macOS). Logs go to
    /// $BRAIN_HOME/logs/watch.log. $BRAIN_SYSTEMCTL and $BRAIN_LAUNCHCTL replace the commands used.
    Install {
        /// A systemd user service (~/.config/systemd/user/brain-watch.service).
        #[arg(long, conflicts_with = "launchd")]
        systemd: bool,
        /// A launchd agent (~/Library/LaunchAgents/com.brain.watch.plist).
        #[arg(long)]
        launchd: bool,
    },
    /// Remove the watcher's service (systemd and launchd).
    Remove,
    /// Whether a watcher runs for this home, and what its last batch did (exit 0 when one runs,
    /// 67 when none does).
    Status {
        /// As one JSON record.
        #[arg(long)]
        json: bool,
    },
}

pub fn run(home: &Home, a: Args) -> anyhow::Result<Exit> {
    match a.action {
        Some(Action::Status { json }) => return status(home, json),
        Some(Action::Install { systemd, launchd }) => {
            let host = brain_ops::Host::from_env();
            let which = match (systemd, launchd) {
                (true, _) => Scheduler::Systemd,
                (_, true) => Scheduler::Launchd,
                _ => match Scheduler::default_for(&host).0 {
                    Scheduler::Launchd => Scheduler::Launchd,
                    _ => Scheduler::Systemd,
                },
            };
            let pipelines = brain_ops::bins::pipelines_dir(&host).map_err(Failure::from)?;
            let did = brain_ops::watch::service::install(&host, home, &pipelines, which)
                .map_err(Failure::from)?;
            return said(&did);
        }
        Some(Action::Remove) => {
            let did = brain_ops::watch::service::remove(&brain_ops::Host::from_env())
                .map_err(Failure::from)?;
            return said(&did);
        }
        None => {}
    }
    let Some(user_home) = brain_store::home_dir().filter(|h| h.is_absolute()) else {
        return Err(Failure::new(
            ErrorCode::BadQuery,
            "no home folder: $HOME is unset or not an absolute path",
        )
        .with_fix("set $HOME")
        .into());
    };
    // brain.yaml must read at the start; a later edit that does not read keeps the last targets'
    // collections out until it reads again (the agents and browsers stay watched).
    brain_store::Config::load(home).map_err(Failure::from)?;
    let local = brain_doc::env::os(brain_doc::env::LOCALAPPDATA).map(std::path::PathBuf::from);
    let find = || {
        let config =
            brain_store::Config::load(home).unwrap_or_else(|_| brain_store::Config::defaults(home));
        Targets::of(home, &config, &user_home, local.as_deref())
    };
    let poll = match a.poll {
        Some(s) if !(0.05..=3600.0).contains(&s) => {
            return Err(Failure::new(ErrorCode::BadQuery, "--poll: 0.05 to 3600 seconds").into());
        }
        Some(s) => Some(Duration::from_secs_f64(s)),
        None => None,
    };
    // No schedule of the machine's runs the slow clock: the watcher runs brain's own loop beside it.
    let host = brain_ops::Host::from_env();
    let clock = match brain_ops::bins::pipelines_dir(&host) {
        Ok(p) if !brain_ops::schedule::Runners::of(&host, home).scheduled() => {
            Some(brain_ops::schedule::Params::new(&host, home, &p))
        }
        _ => None,
    };
    let opts = Options {
        clock,
        settle: Duration::from_millis(a.settle.clamp(10, 60_000)),
        browser_every: Duration::from_secs(a.browser_every),
        embed_budget: (a.embed_budget > 0).then(|| Duration::from_secs(a.embed_budget)),
        poll,
        ..Options::default()
    };
    let note = |n: &Note| print_note(n, a.json);
    brain_ops::watch::watch(home, &find, &opts, &brain_ops::bins::locate, &note)
        .map_err(Failure::from)?;
    Ok(Exit::Success)
}

/// What the watcher says: one JSON record per line on stdout (`--json`), else lines on stderr.
fn print_note(n: &Note, json: bool) {
    if json {
        if let Ok(line) = serde_json::to_string(n) {
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "{line}");
            let _ = out.flush();
        }
        return;
    }
    match n {
        Note::Watching { folders, how } => {
            eprintln!(
                "brain watch: {} folders ({how}); Ctrl-C stops",
                folders.len()
            );
            for f in folders {
                eprintln!("  {}", f.display());
            }
        }
        Note::Fallback { reason } => eprintln!("brain watch: polling: {reason}"),
        Note::Warning { message } => eprintln!("brain watch: {message}"),
        Note::Batch(b) => {
            eprintln!(
                "brain watch: {} [{}] {} changed, {} indexed in {:.2} s",
                b.ts,
                b.targets.join(", "),
                b.changed,
                b.indexed,
                b.secs
            );
            for f in &b.failed {
                eprintln!("  failed (tried again next batch): {f}");
            }
            for w in &b.warnings {
                eprintln!("  {w}");
            }
        }
    }
}

fn said(did: &[String]) -> anyhow::Result<Exit> {
    for line in did {
        eprintln!("brain: {line}");
    }
    Ok(Exit::Success)
}

fn status(home: &Home, json: bool) -> anyhow::Result<Exit> {
    let s = brain_ops::watch::status(home);
    let mut out = Stdout::new();
    if json {
        serde_json::to_writer(&mut out, &s)?;
        writeln!(out)?;
    } else {
        match (&s.pid, &s.state) {
            (Some(pid), Some(st)) => {
                writeln!(
                    out,
                    "running: pid {pid}, since {}, {} folders ({}), {} batches",
                    st.started, st.folders, st.how, st.batches
                )?;
            }
            _ => writeln!(out, "stopped: no `brain watch` runs for this home")?,
        }
        if let Some(b) = s.state.as_ref().and_then(|st| st.last.as_ref()) {
            writeln!(
                out,
                "last batch: {} [{}] {} indexed in {:.2} s{}",
                b.ts,
                b.targets.join(", "),
                b.indexed,
                b.secs,
                if b.failed.is_empty() {
                    String::new()
                } else {
                    format!("; failed: {}", b.failed.join("; "))
                }
            )?;
        }
    }
    out.flush()?;
    Ok(if s.pid.is_some() {
        Exit::Success
    } else {
        Exit::Code(ErrorCode::NoResults)
    })
}
