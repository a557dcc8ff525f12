//! The slow clock without a scheduler (issue 59): `brain schedule run`, a loop that runs
//! `make -f <pipelines>/nightly.mk` every two hours for one home — what the crontab line does —
//! on a machine with no cron and no systemd user session (a container, WSL, a minimal server).
//! The user's login starts it (`brain schedule install --login` writes that line into the login
//! file, [`super::login`]), or `brain watch` runs it while no scheduler holds a schedule of ours.
//!
//! One loop per home: it holds `locks/clock.lock` while it lives, so a second one (another login,
//! a watcher) leaves the clock to the first. Its state (`state/clock.json`) keeps the last run, so
//! a loop started at login runs at once when that run is two hours old and waits out the rest
//! otherwise. The wait is read from the wall clock in steps of a minute at most: a laptop that
//! slept through the due time runs when it wakes.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use brain_doc::ErrorCode;
use brain_store::Home;
use serde::{Deserialize, Serialize};

use super::Params;

/// The lock a running loop holds.
pub const LOCK: &str = crate::locks::CLOCK;
/// Its state file (in `state/`).
pub const STATE_FILE: &str = "clock.json";
/// How often the slow clock runs (the crontab line's `*/2` hours).
pub const EVERY: Duration = Duration::from_secs(2 * 3600);
/// The shortest period `--every` takes: the nightly steps are not a busy loop.
pub const MIN_EVERY: Duration = Duration::from_secs(60);
/// The longest: thirty days (past it the slow clock would not be a clock).
pub const MAX_EVERY: Duration = Duration::from_secs(30 * 86_400);

/// One run of the nightly steps.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Run {
    /// When it started (RFC 3339, UTC).
    pub ts: String,
    pub secs: f64,
    /// make's exit code (0: every step passed; -1: killed by a signal).
    pub exit: i32,
    /// Why make did not run at all (not installed, say).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl Run {
    /// A run on record at `t` (what a loop that waits first counts from).
    fn at(t: jiff::Timestamp) -> Run {
        Run {
            ts: rfc3339(t),
            secs: 0.0,
            exit: 0,
            error: None,
        }
    }
}

/// `state/clock.json`: the loop and its last run.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct State {
    pub pid: u32,
    /// When the loop started (RFC 3339, UTC).
    pub started: String,
    /// What runs the loop: `login`, `watch` or `terminal`.
    pub by: String,
    pub every_secs: u64,
    /// Runs by this loop.
    pub runs: u64,
    /// The last run of any loop of this home.
    pub last: Option<Run>,
}

/// Why a loop could not run.
#[derive(Debug, thiserror::Error)]
pub enum ClockError {
    #[error("a slow clock loop already runs for this home ({0})")]
    Running(String),
    #[error(transparent)]
    Lock(brain_store::LockError),
}

impl brain_doc::Classified for ClockError {
    fn code(&self) -> ErrorCode {
        match self {
            ClockError::Running(_) => ErrorCode::Locked,
            ClockError::Lock(e) => e.code(),
        }
    }

    fn fix(&self) -> String {
        match self {
            ClockError::Running(_) => "`brain schedule status` says which; one is enough".into(),
            ClockError::Lock(e) => e.fix(),
        }
    }
}

/// The running loop of `home` and its state, if one runs.
pub fn running(home: &Home) -> Option<State> {
    if !crate::locks::held(&home.lock_file(LOCK)) {
        return None;
    }
    read_state(home)
}

/// The state file as last written (a loop that stopped leaves its last run in it).
pub fn read_state(home: &Home) -> Option<State> {
    std::fs::read(home.state_file(STATE_FILE))
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
}

fn write_state(home: &Home, state: &State) {
    if let Ok(mut text) = serde_json::to_vec_pretty(state) {
        text.push(b'\n');
        let _ = brain_doc::atomic::write(&home.state_file(STATE_FILE), &text);
    }
}

fn now() -> jiff::Timestamp {
    jiff::Timestamp::now()
}

fn rfc3339(t: jiff::Timestamp) -> String {
    t.strftime("%Y-%m-%dT%H:%M:%SZ").to_string()
}

/// When the run after `last` is due (now when there was none, or its time does not read).
fn due_after(last: Option<&Run>, every: Duration) -> jiff::Timestamp {
    let at = last.and_then(|r| r.ts.parse::<jiff::Timestamp>().ok());
    let span = jiff::SignedDuration::try_from(every).unwrap_or(jiff::SignedDuration::MAX);
    match at {
        // A time in the future (a clock set back) waits no longer than one period from now.
        Some(t) if t <= now() => t.checked_add(span).unwrap_or_else(|_| now()),
        Some(_) => now().checked_add(span).unwrap_or_else(|_| now()),
        None => now(),
    }
}

/// Run the nightly steps once, as the crontab line does: `make -s -j2 -f NIGHTLY BRAIN=brain`
/// with this home, its PATH, and its output appended to `logs/nightly.log`.
pub fn run_once(home: &Home, p: &Params) -> Run {
    let started = Instant::now();
    let ts = rfc3339(now());
    let failed = |error: String| Run {
        ts: ts.clone(),
        secs: started.elapsed().as_secs_f64(),
        exit: 127,
        error: Some(error),
    };
    let log = match open_log(&p.log) {
        Ok(f) => f,
        Err(e) => return failed(format!("{}: {e}", p.log.display())),
    };
    let (out, err) = match (log.try_clone(), log.try_clone()) {
        (Ok(o), Ok(e)) => (o, e),
        (Err(e), _) | (_, Err(e)) => return failed(e.to_string()),
    };
    let status = Command::new("make")
        .args(["-s", "-j2", "-f"])
        .arg(&p.nightly)
        .arg(format!("BRAIN={}", p.brain.display()))
        .env("BRAIN_HOME", home.root())
        .env("PATH", &p.path)
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err)
        .status();
    match status {
        Ok(s) => Run {
            ts,
            secs: started.elapsed().as_secs_f64(),
            exit: s.code().unwrap_or(-1),
            error: None,
        },
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => failed(format!(
            "`make` {} (not found on PATH)",
            crate::error::NOT_INSTALLED
        )),
        Err(e) => failed(format!("`make` could not start: {e}")),
    }
}

/// The log, appended to (created private, with its folder).
fn open_log(path: &Path) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .open(path)
}

/// How a loop runs.
#[derive(Debug, Clone)]
pub struct Loop {
    pub every: Duration,
    /// `login`, `watch` or `terminal` (the state file says it).
    pub by: String,
    /// Run once now, whatever the last run, and return.
    pub once: bool,
    /// With no run on record, wait one period first rather than run at once (a watcher has just
    /// caught every source up by itself).
    pub wait_first: bool,
}

/// Hold the clock of `home` and run the nightly steps whenever they are due (every `every`)
/// until the process is stopped; with `once`, run them now and return. `note` hears each run.
pub fn serve(home: &Home, p: &Params, how: &Loop, note: &dyn Fn(&Run)) -> Result<(), ClockError> {
    let _lock = match brain_store::Lock::try_acquire(&home.lock_file(LOCK)) {
        Ok(l) => l,
        Err(brain_store::LockError::Held { holder, .. }) => {
            return Err(ClockError::Running(holder));
        }
        Err(e) => return Err(ClockError::Lock(e)),
    };
    let mut state = State {
        pid: std::process::id(),
        started: rfc3339(now()),
        by: how.by.clone(),
        every_secs: how.every.as_secs(),
        runs: 0,
        last: read_state(home).and_then(|s| s.last),
    };
    write_state(home, &state);
    let started = now();
    loop {
        if !how.once {
            let mut due = due_after(state.last.as_ref(), how.every);
            if how.wait_first && state.last.is_none() {
                due = due_after(Some(&Run::at(started)), how.every);
            }
            while now() < due {
                let left = due.duration_since(now()).unsigned_abs();
                std::thread::sleep(left.min(Duration::from_secs(60)));
            }
        }
        let run = run_once(home, p);
        state.runs += 1;
        state.last = Some(run.clone());
        write_state(home, &state);
        note(&run);
        if how.once {
            return Ok(());
        }
    }
}

/// Run the clock of `home` on a thread of this process (what `brain watch` does while no schedule
/// is installed): while another loop holds it, try again every five minutes, so the clock never
/// stops because a login's loop ended.
pub fn spawn_beside(home: Home, p: Params, by: &'static str) {
    let how = Loop {
        every: EVERY,
        by: by.into(),
        once: false,
        wait_first: true,
    };
    let _ = std::thread::Builder::new()
        .name("brain-clock".into())
        .spawn(move || {
            while let Err(ClockError::Running(_)) = serve(&home, &p, &how, &|_| {}) {
                std::thread::sleep(Duration::from_secs(300));
            }
        });
}

/// Start `brain schedule run` in the background, away from the terminal (its own process group,
/// no stdin; its messages appended to `logs/nightly.log`), unless a loop runs already. The line
/// saying which.
pub fn detach(home: &Home, p: &Params, by: &str) -> String {
    if let Some(s) = running(home) {
        return format!("the slow clock already runs (pid {}, by {})", s.pid, s.by);
    }
    let log = match open_log(&p.log) {
        Ok(f) => f,
        Err(e) => return format!("warning: {}: {e}", p.log.display()),
    };
    use std::os::unix::process::CommandExt;
    let child = Command::new(&p.brain)
        .args(["schedule", "run", "--by", by])
        .env("BRAIN_HOME", home.root())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(log)
        .process_group(0)
        .spawn();
    match child {
        Ok(c) => format!(
            "started the slow clock: `{} schedule run` (pid {}), every {} h",
            p.brain.display(),
            c.id(),
            EVERY.as_secs() / 3600
        ),
        Err(e) => format!(
            "warning: `{} schedule run` could not start: {e}",
            p.brain.display()
        ),
    }
}

/// Stop the running loop of `home` (SIGTERM), if one runs; the line saying so.
pub fn stop(home: &Home) -> Option<String> {
    let s = running(home)?;
    let pid = rustix::process::Pid::from_raw(i32::try_from(s.pid).ok()?)?;
    Some(
        match rustix::process::kill_process(pid, rustix::process::Signal::TERM) {
            Ok(()) => format!("stopped the slow clock loop (pid {})", s.pid),
            Err(e) => format!(
                "warning: the slow clock loop (pid {}) was not stopped: {e}",
                s.pid
            ),
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run_at(ts: &str) -> Run {
        Run {
            ts: ts.into(),
            secs: 1.0,
            exit: 0,
            error: None,
        }
    }

    #[test]
    fn the_next_run_is_one_period_after_the_last() {
        let every = Duration::from_secs(7200);
        assert!(due_after(None, every) <= now());
        let old = rfc3339(now() - jiff::SignedDuration::from_secs(3 * 3600));
        assert!(due_after(Some(&run_at(&old)), every) <= now());
        let recent = rfc3339(now() - jiff::SignedDuration::from_secs(600));
        let due = due_after(Some(&run_at(&recent)), every);
        let wait = due.duration_since(now()).as_secs();
        assert!((6500..=6600).contains(&wait), "{wait}");
        // A last run in the future (the clock was set back) waits one period, not years.
        let future = due_after(Some(&run_at("2999-01-01T00:00:00Z")), every);
        assert!(future.duration_since(now()).as_secs() <= 7200);
        // A time that does not read runs now.
        assert!(due_after(Some(&run_at("yesterday")), every) <= now());
    }

    #[test]
    fn a_damaged_state_file_reads_as_no_loop_and_no_last_run() {
        let dir = tempfile::tempdir().expect("tempdir");
        let home = Home::at(dir.path());
        let path = home.state_file(STATE_FILE);
        std::fs::create_dir_all(path.parent().expect("state dir")).expect("mkdir");
        let garbage: Vec<u8> = (0..100_000u32).map(|i| (i * 7919 % 251) as u8).collect();
        for bytes in [
            &b"{\"pid\": 12, \"started\": \"2026-"[..],
            b"",
            b"null",
            b"[1,2,3]",
            &garbage[..],
        ] {
            std::fs::write(&path, bytes).expect("write");
            assert!(
                read_state(&home).is_none(),
                "{:?}",
                String::from_utf8_lossy(bytes)
            );
            assert!(running(&home).is_none());
        }
    }
}
