//! `brain doctor` (seed 000 §8.2): a contract test of the whole installation, run by the slow clock
//! every two hours (and by hand). Every check runs —
//! none stops the others — and each names its fix. The report is kept in `$BRAIN_HOME/state/doctor.json`
//! (what `explain` shows as the last verdict) and a `doctor_run` telemetry row records the failures.

mod identity;
mod install;
mod logs;
mod projects;
mod state;
mod team;

use std::time::Instant;

use brain_store::Home;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::{Host, OpsError};

/// The state file holding the last report.
pub const STATE_FILE: &str = "doctor.json";

/// How a check came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// The invariant holds.
    Pass,
    /// It does not: see `fix`.
    Fail,
    /// Not applicable here (e.g. no vectors configured, no hook installed).
    Skip,
}

/// One check's result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Check {
    /// Stable name (one of [`CHECKS`]).
    pub name: String,
    /// pass, fail or skip.
    pub outcome: Outcome,
    /// One line on what was found.
    pub summary: String,
    /// Specifics: the files, lines or ids concerned (a few of each).
    pub details: Vec<String>,
    /// What to run or do when it failed (or, for a skip, how to enable it); empty when passing.
    pub fix: String,
}

impl Check {
    pub(crate) fn pass(name: &str, summary: impl Into<String>) -> Check {
        Check {
            name: name.into(),
            outcome: Outcome::Pass,
            summary: summary.into(),
            details: Vec::new(),
            fix: String::new(),
        }
    }
    pub(crate) fn fail(name: &str, summary: impl Into<String>, fix: impl Into<String>) -> Check {
        Check {
            name: name.into(),
            outcome: Outcome::Fail,
            summary: summary.into(),
            details: Vec::new(),
            fix: fix.into(),
        }
    }
    pub(crate) fn skip(name: &str, summary: impl Into<String>, fix: impl Into<String>) -> Check {
        Check {
            name: name.into(),
            outcome: Outcome::Skip,
            summary: summary.into(),
            details: Vec::new(),
            fix: fix.into(),
        }
    }
    pub(crate) fn with(mut self, details: Vec<String>) -> Check {
        self.details = details;
        self
    }
}

/// What `brain doctor --json` prints and `state/doctor.json` keeps.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DoctorReport {
    /// Record version (1).
    pub schema: u32,
    /// Always `"doctor_report"`.
    pub kind: String,
    /// When it ran (RFC 3339, UTC).
    pub ts: String,
    /// Every check passed or was skipped.
    pub ok: bool,
    /// The names of the failed checks (the telemetry row's `failures`).
    pub failures: Vec<String>,
    /// Every check, in the order run.
    pub checks: Vec<Check>,
}

/// The last verdict, as `explain` shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LastDoctor {
    pub ts: String,
    pub ok: bool,
    pub failures: Vec<String>,
}

/// Run every check on `home` for the running host; record the result (when the home exists) and a
/// `doctor_run` telemetry row on `surface`.
pub fn doctor(home: &Home, surface: &str) -> Result<DoctorReport, OpsError> {
    doctor_on(home, &Host::from_env(), surface)
}

/// [`doctor`] for an explicit host (tests).
pub fn doctor_on(home: &Home, host: &Host, surface: &str) -> Result<DoctorReport, OpsError> {
    let started = Instant::now();
    let checks = all(home, host);
    let failures: Vec<String> = checks
        .iter()
        .filter(|c| c.outcome == Outcome::Fail)
        .map(|c| c.name.clone())
        .collect();
    let report = DoctorReport {
        schema: 1,
        kind: "doctor_report".into(),
        ts: jiff::Timestamp::now()
            .strftime("%Y-%m-%dT%H:%M:%SZ")
            .to_string(),
        ok: failures.is_empty(),
        failures,
        checks,
    };
    if home.root().is_dir() {
        let path = home.state_file(STATE_FILE);
        let mut text = serde_json::to_vec_pretty(&report).map_err(|e| OpsError::Io {
            path: path.clone(),
            source: std::io::Error::other(e),
        })?;
        text.push(b'\n');
        brain_doc::atomic::write(&path, &text).map_err(OpsError::io(&path))?;
        let mut row = Map::new();
        row.insert("failures".into(), Value::from(report.failures.clone()));
        row.insert("n_checks".into(), Value::from(report.checks.len()));
        row.insert(
            "latency_ms".into(),
            Value::from(started.elapsed().as_millis() as u64),
        );
        // Telemetry never breaks the action it records.
        let _ = brain_store::telemetry::append(home, surface, "doctor_run", row);
    }
    Ok(report)
}

/// The checks' names, in report order.
pub const CHECKS: [&str; 22] = [
    "binaries",
    "home",
    "privacy",
    "config",
    "collections",
    "lexical_index",
    "corpus_sync",
    "projects",
    "identity",
    "purges",
    "state_db",
    "telemetry",
    "model",
    "vector_store",
    "memory",
    "locks",
    "team",
    "agents",
    "hooks",
    "hook_runs",
    "schedules",
    "watch",
];

/// Every check, in report order ([`CHECKS`]); none stops the others.
fn all(home: &Home, host: &Host) -> Vec<Check> {
    let (config, config_check) = install::config(home);
    let registry = brain_store::Registry::open_existing(home).map_err(OpsError::from);
    let files = match &registry {
        Ok(Some(r)) => r.files().ok(),
        _ => None,
    };
    // Without a registry, nothing is indexed: every file on disk is drift.
    let indexed = match &registry {
        Ok(None) => Some(Vec::new()),
        _ => files.clone(),
    };
    let config_ok = config_check.outcome != Outcome::Fail;
    vec![
        install::binaries(host),
        install::home(home),
        install::privacy(home),
        config_check,
        install::collections(home, &config),
        state::lexical_index(home, files.as_deref()),
        state::corpus_sync(config_ok.then_some(&config), indexed.as_deref()),
        projects::projects(home, config_ok.then_some(&config)),
        identity::identity(home, config_ok.then_some(&config)),
        state::purges(home),
        state::state_db(home, registry),
        state::telemetry(home),
        state::model(home),
        state::vector_store(home),
        state::memory(home),
        state::locks(home),
        team::team(home, config_ok.then_some(&config)),
        install::agents(host),
        install::hooks(host),
        logs::hook_runs(home),
        install::schedules(home, host),
        logs::watch(home, host),
    ]
}

/// What `brain doctor --fix` repairs, before the checks run; one line per thing done:
/// - the home made private (group and other bits cleared, [`brain_store::privacy`]);
/// - purges stopped before their end finished ([`crate::purge::finish_pending`]);
/// - session documents of one conversation left from before ids named their source: the newest
///   kept, the others moved to the attic (never deleted, [`brain_store::attic`]);
/// - the indexes brought in line (`lexindex --all`, and removed documents' vectors removed) when
///   documents moved, or files on disk are not indexed as they are (`corpus_sync`).
pub fn fix(home: &Home) -> Result<Vec<String>, OpsError> {
    let mut done = Vec::new();
    if !home.root().is_dir() {
        return Ok(done);
    }
    let root = home.root();
    for e in brain_store::privacy::make_private(root).map_err(OpsError::io(root))? {
        done.push(format!(
            "{} {:04o} -> {:04o}",
            e.path.display(),
            e.mode,
            e.private_mode()
        ));
    }
    for p in
        crate::purge::finish_pending(home, std::time::Duration::from_secs(30)).map_err(|e| {
            OpsError::Io {
                path: home.state_file(brain_store::purged::FILE),
                source: std::io::Error::other(e.message),
            }
        })?
    {
        done.push(format!(
            "finished the purge of {} that was stopped before its end",
            p.id
        ));
    }
    let Ok(config) = brain_store::Config::load(home) else {
        return Ok(done);
    };
    let moved = identity::move_stale_copies(home, &config).map_err(OpsError::io(root))?;
    for (from, to) in &moved {
        done.push(format!(
            "moved {} to {} (an older copy of a session; move it back to restore it)",
            from.display(),
            to.display()
        ));
    }
    // Files on disk the index does not hold as they are (a session a run left behind): the same
    // walk `lexindex --all` does brings them in. Only files found start it: a collection whose
    // folder is away (an unmounted disk) is not emptied from the index by a fix.
    let registry = brain_store::Registry::open_existing(home)?;
    let drift = match &registry {
        Some(r) => crate::freshness::drift(&config, &r.files()?)
            .values()
            .map(|d| d.not_indexed + d.changed)
            .sum::<u64>(),
        None => 0,
    };
    drop(registry);
    if !moved.is_empty() || drift > 0 {
        // `lexindex --all` itself: documents converted, every collection walked, the vectors of
        // what it removed removed (a failure to is said, not fatal).
        let run = crate::index::LexRun {
            all: true,
            rebuild: false,
            wait: std::time::Duration::from_secs(30),
            collection: None,
        };
        let said = std::cell::RefCell::new(Vec::new());
        let say = |w: String| said.borrow_mut().push(w);
        let warned = std::cell::RefCell::new(Vec::new());
        let warn = |w: String| warned.borrow_mut().push(format!("warning: {w}"));
        let out =
            crate::index::lex(home, &run, &mut std::io::empty(), &warn, &say).map_err(|e| {
                OpsError::Io {
                    path: root.to_path_buf(),
                    source: std::io::Error::other(e.to_string()),
                }
            })?;
        if let crate::index::LexOutcome::Indexed(sum) = out {
            done.push(format!("lexindex --all: {}", sum.line()));
        }
        done.extend(said.into_inner());
        let warned = warned.into_inner();
        let more = warned.len().saturating_sub(5);
        done.extend(warned.into_iter().take(5));
        if more > 0 {
            done.push(format!(
                "… and {more} more warnings (`lexindex --all` names each)"
            ));
        }
    }
    Ok(done)
}

/// The last recorded verdict, if doctor ever ran on this home.
pub fn last(home: &Home) -> Option<LastDoctor> {
    let text = std::fs::read_to_string(home.state_file(STATE_FILE)).ok()?;
    let r: DoctorReport = serde_json::from_str(&text).ok()?;
    Some(LastDoctor {
        ts: r.ts,
        ok: r.ok,
        failures: r.failures,
    })
}
