//! `brain schedule install|remove|status|run` — the slow clock (`pipelines/nightly.mk`, every two
//! hours) in the user's scheduler, or in brain's own loop where no scheduler runs.

use std::io::Write;
use std::time::Duration;

use brain_cli::{Exit, Failure, Stdout};
use brain_doc::ErrorCode;
use brain_ops::Host;
use brain_ops::schedule::{self, Params, Runners, Scheduler, clock};
use brain_store::Home;

#[derive(clap::Subcommand)]
pub enum Command {
    /// Schedule `make -f <pipelines>/nightly.mk` every two hours for this BRAIN_HOME and this brain
    /// (idempotent; prints what it did). Default scheduler: launchd on macOS, a systemd user timer
    /// where systemd runs, cron where it is installed, else --login (and it says what is missing).
    /// $BRAIN_CRONTAB, $BRAIN_SYSTEMCTL and $BRAIN_LAUNCHCTL replace the commands used.
    Install(Which),
    /// Remove brain's schedule (from every scheduler unless one is named; the login line's loop is
    /// stopped too).
    Remove(Which),
    /// What runs the slow clock of this home: the schedules installed and the loop, if one runs
    /// (exit 0 when something runs it, 67 when nothing does).
    Status {
        /// As one JSON record.
        #[arg(long)]
        json: bool,
    },
    /// Run the slow clock in this process: the nightly steps now if the last run is two hours old,
    /// then every two hours until stopped (one loop per home; what --login's line and `brain watch`
    /// start). Output of the steps goes to $BRAIN_HOME/logs/nightly.log.
    Run {
        /// Run the steps once now, whatever the last run, and exit: 0, or 65 when a step failed
        /// (nightly.log says which).
        #[arg(long, conflicts_with = "detach")]
        once: bool,
        /// Start the loop in the background, away from the terminal, and return (nothing is
        /// started when one runs already).
        #[arg(long)]
        detach: bool,
        /// Seconds between runs (60 to 2,592,000: thirty days).
        #[arg(long, value_name = "SECS", default_value_t = clock::EVERY.as_secs())]
        every: u64,
        /// What started the loop (the state file says it).
        #[arg(long, hide = true, default_value = "terminal")]
        by: String,
    },
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
    /// Where no scheduler runs: a line (marked `# brain-nightly`) in your login file
    /// (~/.bash_profile, ~/.bash_login or ~/.zprofile if there, else ~/.profile) that starts
    /// `brain schedule run --detach`; installing also starts it now.
    #[arg(long)]
    login: bool,
}

impl Which {
    fn get(&self) -> Option<Scheduler> {
        match (self.cron, self.systemd, self.launchd, self.login) {
            (true, ..) => Some(Scheduler::Cron),
            (_, true, ..) => Some(Scheduler::Systemd),
            (_, _, true, _) => Some(Scheduler::Launchd),
            (.., true) => Some(Scheduler::Login),
            _ => None,
        }
    }
}

pub fn run(home: &Home, cmd: Command) -> anyhow::Result<Exit> {
    let host = Host::from_env();
    let did = match cmd {
        Command::Install(w) => {
            let (which, why) = match w.get() {
                Some(s) => (s, None),
                None => Scheduler::default_for(&host),
            };
            if let Some(why) = why {
                eprintln!("brain: {why}: the slow clock runs from your login instead");
            }
            let pipelines = brain_ops::bins::pipelines_dir(&host).map_err(Failure::from)?;
            schedule::install(&host, home, &pipelines, which).map_err(Failure::from)?
        }
        Command::Remove(w) => schedule::remove(&host, home, w.get()).map_err(Failure::from)?,
        Command::Status { json } => return status(&host, home, json),
        Command::Run {
            once,
            detach,
            every,
            by,
        } => return serve(&host, home, once, detach, every, by),
    };
    for line in did {
        eprintln!("brain: {line}");
    }
    Ok(Exit::Success)
}

fn status(host: &Host, home: &Home, json: bool) -> anyhow::Result<Exit> {
    let r = Runners::of(host, home);
    let runs = r.scheduled() || r.running.is_some();
    let mut out = Stdout::new();
    if json {
        serde_json::to_writer(&mut out, &r)?;
        writeln!(out)?;
    } else {
        let mut lines: Vec<String> = r
            .schedules
            .iter()
            .map(|s| match &s.problem {
                None => format!("{}: {}", s.kind.name(), s.location),
                Some(p) => format!("{}: {} — cannot run: {p}", s.kind.name(), s.location),
            })
            .collect();
        match &r.running {
            Some(s) => lines.push(format!(
                "loop: pid {} (by {}, since {}), every {} s; last run {}",
                s.pid,
                s.by,
                s.started,
                s.every_secs,
                s.last
                    .as_ref()
                    .map_or("none yet".into(), |l| format!("{} (exit {})", l.ts, l.exit))
            )),
            None => lines.push("loop: none runs".into()),
        }
        if !runs {
            lines.push("nothing runs the slow clock: `brain schedule install` (or --login)".into());
        }
        for l in lines {
            writeln!(out, "{l}")?;
        }
    }
    Ok(if runs {
        Exit::Success
    } else {
        Exit::Code(ErrorCode::NoResults)
    })
}

fn serve(
    host: &Host,
    home: &Home,
    once: bool,
    detach: bool,
    every: u64,
    by: String,
) -> anyhow::Result<Exit> {
    let every = Duration::from_secs(every);
    if !(clock::MIN_EVERY..=clock::MAX_EVERY).contains(&every) {
        return Err(Failure::new(
            ErrorCode::BadQuery,
            "--every: 60 to 2592000 seconds (thirty days)",
        )
        .into());
    }
    let pipelines = brain_ops::bins::pipelines_dir(host).map_err(Failure::from)?;
    let p = Params::new(host, home, &pipelines);
    if detach {
        eprintln!("brain: {}", clock::detach(home, &p, &by));
        return Ok(Exit::Success);
    }
    let how = clock::Loop {
        every,
        by,
        once,
        wait_first: false,
    };
    let last = std::cell::Cell::new(0);
    clock::serve(home, &p, &how, &|r| {
        last.set(r.exit);
        match &r.error {
            Some(e) => eprintln!("brain: the slow clock could not run at {}: {e}", r.ts),
            None => eprintln!(
                "brain: the slow clock ran at {} ({:.1} s, exit {}; output in {})",
                r.ts,
                r.secs,
                r.exit,
                p.log.display()
            ),
        }
    })
    .map_err(Failure::from)?;
    // A step that failed (or make missing): 65, as doctor's failing checks; nightly.log says which.
    Ok(match last.get() {
        0 => Exit::Success,
        _ => Exit::Code(ErrorCode::IndexMissing),
    })
}
