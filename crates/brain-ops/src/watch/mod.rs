//! `brain watch`: live memory (issue 57). One process watches every collection folder of
//! brain.yaml that lives outside the home, every agent's default places and every browser
//! profile's History (the places `brain import` reads, [`crate::import::sources`]), and sends each
//! change through the same stages as everything else: an agent's places through `jsonl2md --new |
//! partition | lexindex`, a browser's History through `chrome2md | partition | lexindex` at most
//! once per `browser_every` (it changes with every page), a collection through `lexindex --all`;
//! then the sessions' decisions (the extraction's pass) and, in the background at the lowest
//! priority, embeddings within a budget.
//!
//! Events are coalesced into batches: a batch runs once no event came for `settle` (or `max_wait`
//! after its first event), so an editor's atomic save, a `git checkout` of 10,000 files or a
//! transcript growing line by line is one run. Events that come while a batch runs wait for the
//! next one. Every stage is incremental (mtime, size and content hash), so a batch re-reads only
//! what changed, and a start — after a crash or `kill -9` — first runs every target once: what
//! changed while nobody watched is caught up from the stores' state, nothing is indexed twice.
//! When the OS's watch limit is reached the watcher polls instead and says so; a watched folder
//! that is removed and created again is watched again (checked every `rescan`), and its target
//! runs. Locks coordinate with Stop hooks, cron and manual runs: a stage that finds the index
//! locked leaves its records queued (stdin runs) or its target dirty for the next batch (`--all`).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use brain_doc::ErrorCode;
use brain_store::Home;
use serde::{Deserialize, Serialize};

mod live;
mod run;
pub mod service;
mod targets;

pub use targets::{Target, Targets};

/// The state file `brain watch status` reads (in `state/`).
pub const STATE_FILE: &str = "watch.json";

/// The lock one watcher holds while it runs.
pub const LOCK: &str = crate::locks::WATCH;
/// How a watcher runs.
#[derive(Debug, Clone)]
pub struct Options {
    /// A batch runs once no event came for this long.
    pub settle: Duration,
    /// … or this long after its first event, whatever still comes (four times as long when only
    /// collections wait: a checkout of thousands of files is one batch).
    pub max_wait: Duration,
    /// A browser's History is read at most this often.
    pub browser_every: Duration,
    /// Seconds of embedding after a batch (in the background, lowest priority); `None`: none.
    pub embed_budget: Option<Duration>,
    /// Poll every this long instead of the OS's events (also the fallback at the watch limit).
    pub poll: Option<Duration>,
    /// How often the watched folders are checked for ones removed or created.
    pub rescan: Duration,
    /// How often the targets are found again (an agent installed, a collection added).
    pub refresh: Duration,
    /// Run the slow clock beside the watcher with these paths (brain's own loop, every two hours;
    /// while no scheduler holds a schedule of ours), `None`: not.
    pub clock: Option<crate::schedule::Params>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            settle: Duration::from_millis(250),
            max_wait: Duration::from_secs(3),
            browser_every: Duration::from_secs(300),
            embed_budget: Some(Duration::from_secs(30)),
            poll: None,
            rescan: Duration::from_secs(5),
            refresh: Duration::from_secs(30),
            clock: None,
        }
    }
}

/// What the watcher tells its caller (the CLI prints it).
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Note {
    /// Watching these folders, with the OS's events (`events`) or by polling (`polling`).
    Watching { folders: Vec<PathBuf>, how: String },
    /// The OS refused a watch (its limit): polling from now on.
    Fallback { reason: String },
    /// A batch ran.
    Batch(Batch),
    /// Something to know that stopped nothing (an event error, a stage that could not start).
    Warning { message: String },
}

/// One batch: what ran and what it did.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Batch {
    /// When it started (RFC 3339, UTC).
    pub ts: String,
    /// The targets run, by name.
    pub targets: Vec<String>,
    /// Files whose events it answers (0 at the start's catch-up).
    pub changed: usize,
    /// Documents new or changed in the index.
    pub indexed: u64,
    pub secs: f64,
    /// What failed (a stage, its exit code and last message); the target stays dirty.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub failed: Vec<String>,
    /// What did not stop the batch (the sessions' decisions could not be read, say).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

/// `state/watch.json`: the running watcher and its last batch.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct State {
    pub pid: u32,
    pub started: String,
    pub how: String,
    pub folders: usize,
    pub batches: u64,
    pub last: Option<Batch>,
}

/// Why a watcher could not run.
#[derive(Debug, thiserror::Error)]
pub enum WatchError {
    #[error("another `brain watch` is running ({0})")]
    Running(String),
    #[error("the stage `{0}` was not found beside `brain`, in <prefix>/libexec/brain or on PATH")]
    StageMissing(&'static str),
    #[error(
        "nothing to watch: no collection outside the home, no agent's places, no browser profile"
    )]
    Nothing,
    #[error("the file watcher could not start: {0}")]
    Notify(String),
    #[error(transparent)]
    Lock(brain_store::LockError),
}

impl brain_doc::Classified for WatchError {
    fn code(&self) -> ErrorCode {
        match self {
            WatchError::Running(_) => ErrorCode::Locked,
            WatchError::StageMissing(_) => ErrorCode::IndexMissing,
            WatchError::Nothing => ErrorCode::NoResults,
            WatchError::Notify(_) => ErrorCode::Internal,
            WatchError::Lock(e) => e.code(),
        }
    }

    fn fix(&self) -> String {
        match self {
            WatchError::Running(_) => "`brain watch status` says which; stop it first".into(),
            WatchError::StageMissing(_) => {
                "run `make install` (it puts the stages in <prefix>/libexec/brain)".into()
            }
            WatchError::Nothing => {
                "add a folder: `brain collection add NAME FOLDER`, or run an agent once".into()
            }
            WatchError::Notify(_) => "run with --poll 2 (polling needs no OS watches)".into(),
            WatchError::Lock(e) => e.fix(),
        }
    }
}
/// Watch the targets `find` gives (asked again every `refresh`: an agent installed, a
/// collection added) of `home` until the process is stopped. `locate` finds the stages; `note`
/// hears what happens.
pub fn watch(
    home: &Home,
    find: &dyn Fn() -> Targets,
    opts: &Options,
    locate: &dyn Fn(&str) -> Option<PathBuf>,
    note: &dyn Fn(&Note),
) -> Result<(), WatchError> {
    let _lock = match brain_store::Lock::try_acquire(&home.lock_file(LOCK)) {
        Ok(l) => l,
        Err(brain_store::LockError::Held { holder, .. }) => {
            return Err(WatchError::Running(holder));
        }
        Err(e) => return Err(WatchError::Lock(e)),
    };
    for stage in ["jsonl2md", "chrome2md", "partition", "lexindex"] {
        locate(stage).ok_or(WatchError::StageMissing(stage))?;
    }
    let mut live = live::Live::start(find, opts, note)?;
    if let Some(p) = &opts.clock {
        crate::schedule::clock::spawn_beside(home.clone(), p.clone(), "watch");
    }
    note(&Note::Watching {
        folders: live.watched.iter().cloned().collect(),
        how: live.how.clone(),
    });
    let mut state = State {
        pid: std::process::id(),
        started: now_rfc3339(),
        how: live.how.clone(),
        folders: live.watched.len(),
        batches: 0,
        last: None,
    };
    let mut run = run::Runner {
        home,
        opts,
        locate,
        embedding: None,
        browser_ran: BTreeMap::new(),
    };
    loop {
        let due = live.next(&run, note)?;
        let batch = run.batch(&live.targets, &due);
        live.finished(&due, &batch);
        state.batches += 1;
        state.folders = live.watched.len();
        state.last = Some(batch.clone());
        write_state(home, &state);
        note(&Note::Batch(batch));
    }
}

fn now_rfc3339() -> String {
    jiff::Timestamp::now()
        .strftime("%Y-%m-%dT%H:%M:%SZ")
        .to_string()
}

/// The state file, written whole (a reader never sees half of it); a failure to write it stops
/// nothing.
fn write_state(home: &Home, state: &State) {
    if let Ok(mut text) = serde_json::to_vec_pretty(state) {
        text.push(b'\n');
        let _ = brain_doc::atomic::write(&home.state_file(STATE_FILE), &text);
    }
}

/// What `brain watch status` reports: the running watcher's pid (from its lock) and the last
/// state it wrote.
#[derive(Debug, Clone, Serialize)]
pub struct Status {
    /// `running` or `stopped`.
    pub status: String,
    pub pid: Option<u32>,
    pub state: Option<State>,
}

/// The watcher of `home`, if one runs, and what it last wrote.
pub fn status(home: &Home) -> Status {
    let running = crate::locks::held(&home.lock_file(LOCK));
    let state = std::fs::read(home.state_file(STATE_FILE))
        .ok()
        .and_then(|b| serde_json::from_slice::<State>(&b).ok());
    Status {
        status: if running { "running" } else { "stopped" }.into(),
        pid: state.as_ref().filter(|_| running).map(|s| s.pid),
        state,
    }
}
