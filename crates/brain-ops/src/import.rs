//! `brain import`: everything a new user has, in one command (issue 38). It finds every agent's
//! default places and every browser profile, runs the documented pipeline for each
//! (`jsonl2md --new PLACES | partition | lexindex`, `chrome2md --history H | partition | lexindex`)
//! as processes of the stage binaries, the new and changed sessions queued for distillation as the
//! Stop hook queues them (`--queue`), then reads them for decisions, rejections, preferences and
//! failed commands (`brain extract`'s sessions pass, no model: [`Memory`]), then embeds what fits
//! in a time budget (`vecindex --all --budget`), and returns what happened to each source. The pipeline stays the way to compose;
//! this is the same pipeline, run for every place at once.
//!
//! What a real machine has is part of the summary, never a crash: an agent not installed (its
//! places missing), a store a running IDE holds (copied online by `jsonl2md`), an unreadable
//! profile, a half-written transcript (its torn line skipped), no model. Each source runs on its
//! own: one that fails leaves every other imported, and nothing already imported is touched (the
//! stages are incremental; a source that fails midway leaves its records in the index queue).
//! One import at a time: a second one exits 70 while the first runs.

use std::ffi::OsString;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use brain_doc::ErrorCode;
use brain_store::Home;
use serde::Serialize;

/// The agents `jsonl2md` reads, in the order the summary lists them.
pub const AGENTS: [&str; 6] = ["claude", "codex", "gemini", "cursor", "opencode", "aider"];

/// One thing to import: an agent's default places, or one browser profile's History.
#[derive(Debug, Clone, PartialEq)]
pub struct Source {
    /// `claude`, `codex`, … or `chrome-default`, `brave-profile-1`.
    pub name: String,
    /// What is read (folders, stores, a History file).
    pub paths: Vec<PathBuf>,
    /// The producer stage and its arguments.
    producer: (&'static str, Vec<OsString>),
}

/// Every source under the user's home `user_home`, and the agents none of whose places exist;
/// the sessions converted are queued for distillation in `queue` (the Stop hook's queue).
pub fn sources(
    user_home: &Path,
    local_app_data: Option<&Path>,
    queue: &Path,
) -> (Vec<Source>, Vec<&'static str>) {
    let census = brain_ingest::discover::census(user_home);
    let mut out = Vec::new();
    let mut missing = Vec::new();
    for agent in AGENTS {
        let paths: Vec<PathBuf> = census
            .iter()
            .filter(|c| c.agent == agent)
            .map(|c| c.path.clone())
            .collect();
        if paths.is_empty() {
            missing.push(agent);
            continue;
        }
        let mut args: Vec<OsString> = vec![
            "--new".into(),
            "-q".into(),
            "--queue".into(),
            queue.as_os_str().to_owned(),
        ];
        args.extend(paths.iter().map(|p| p.as_os_str().to_owned()));
        out.push(Source {
            name: agent.to_string(),
            paths,
            producer: ("jsonl2md", args),
        });
    }
    let (profiles, _) = brain_chrome::profiles::discover(Some(user_home), local_app_data);
    for p in profiles {
        let args: Vec<OsString> = vec![
            "-q".into(),
            "--history".into(),
            p.history.as_os_str().to_owned(),
            "--browser".into(),
            p.browser.id().into(),
            "--profile-name".into(),
            p.name.clone().into(),
        ];
        out.push(Source {
            name: p.slug(),
            paths: vec![p.history.clone()],
            producer: ("chrome2md", args),
        });
    }
    (out, missing)
}

impl Source {
    /// The stage that reads it (`jsonl2md`, `chrome2md`).
    pub fn producer_name(&self) -> &'static str {
        self.producer.0
    }

    #[cfg(test)]
    pub(crate) fn test(name: &str, paths: &[&str]) -> Source {
        Source {
            name: name.into(),
            paths: paths.iter().map(PathBuf::from).collect(),
            producer: (
                if name.starts_with("chrome") {
                    "chrome2md"
                } else {
                    "jsonl2md"
                },
                Vec::new(),
            ),
        }
    }
}

/// One source through its pipeline, as [`run`] imports each (the watcher's batches); a stage that
/// is not found is a failed source.
pub fn import_source(
    home: &Home,
    s: &Source,
    locate: &dyn Fn(&str) -> Option<PathBuf>,
) -> Imported {
    let found = (
        locate(s.producer.0),
        locate("partition"),
        locate("lexindex"),
    );
    match found {
        (Some(p), Some(q), Some(r)) => import_one(home, s, &p, &q, &r),
        _ => Imported {
            source: s.name.clone(),
            paths: s.paths.clone(),
            added: 0,
            updated: 0,
            unchanged: 0,
            outcome: "a stage was not found".into(),
            code: ErrorCode::IndexMissing.exit_code(),
            messages: Vec::new(),
        },
    }
}

/// What importing one source did.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Imported {
    pub source: String,
    pub paths: Vec<PathBuf>,
    /// Documents new to the index, and documents that changed.
    pub added: u64,
    pub updated: u64,
    /// Documents already there, unchanged.
    pub unchanged: u64,
    /// `ok`, or what failed (the stage, its exit code and its last message).
    pub outcome: String,
    /// The exit code of the first stage that failed (0 when none did).
    pub code: u8,
    /// What the stages said on stderr (warnings, skipped records): shown with `--verbose`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub messages: Vec<String>,
}

/// What embedding did.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Embedded {
    /// `embedded`, `budget` (stopped at the budget, the rest in the backlog), `no model`,
    /// `skipped` (--no-embed) or what failed.
    pub outcome: String,
    pub embedded: u64,
    /// Documents still waiting for embeddings.
    pub pending: u64,
    pub code: u8,
}

/// What reading the sessions for memory did (the extraction's sessions pass).
#[derive(Debug, Clone, Serialize, PartialEq, Default)]
pub struct Memory {
    /// `extracted`, `skipped`, or what failed.
    pub outcome: String,
    /// Records found, by type (`decision`, `rejected`, `preference`, `fact`, `failed`).
    pub by_type: std::collections::BTreeMap<String, u64>,
    /// Records written (new, or superseding older ones); the rest were already there.
    pub written: u64,
    /// Of them, same-day contradictions flagged.
    pub conflicts: u64,
    pub code: u8,
}

/// The whole import.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Report {
    pub kind: &'static str,
    pub sources: Vec<Imported>,
    /// Agents none of whose default places exist (not installed, or kept elsewhere).
    pub not_found: Vec<String>,
    /// Decisions and the rest, read from the sessions.
    pub memory: Memory,
    pub vectors: Embedded,
    pub secs: f64,
}

impl Report {
    /// The exit code: 0 when every source and the embedding went through (an agent not installed
    /// and a missing model are not failures), else the first failure's code.
    pub fn code(&self) -> u8 {
        self.sources
            .iter()
            .map(|s| s.code)
            .chain([self.memory.code, self.vectors.code])
            .find(|c| *c != 0)
            .unwrap_or(0)
    }
}

/// How to run the stages: where each is ([`crate::bins::locate`] for the running `brain`), and
/// the embedding budget (`None`: no embedding).
pub struct Plan<'a> {
    pub locate: &'a dyn Fn(&str) -> Option<PathBuf>,
    pub embed_budget: Option<Duration>,
    /// Called before each source and before embedding: (step, steps, what).
    pub progress: &'a dyn Fn(usize, usize, &str),
}

/// Why the import could not run at all.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    #[error("another `brain import` is running ({0}); it imports the same places")]
    Running(String),
    #[error("the stage `{0}` was not found beside `brain`, in <prefix>/libexec/brain or on PATH")]
    StageMissing(&'static str),
    #[error(transparent)]
    Lock(brain_store::LockError),
}

impl brain_doc::Classified for ImportError {
    fn code(&self) -> ErrorCode {
        match self {
            ImportError::Running(_) => ErrorCode::Locked,
            ImportError::StageMissing(_) => ErrorCode::IndexMissing,
            ImportError::Lock(e) => e.code(),
        }
    }

    fn fix(&self) -> String {
        match self {
            ImportError::Running(_) => {
                "wait for it to finish (its summary says what it did)".into()
            }
            ImportError::StageMissing(_) => {
                "run `make install` (it puts the stages in <prefix>/libexec/brain)".into()
            }
            ImportError::Lock(e) => e.fix(),
        }
    }
}

/// Import every source of `sources` into `home`, then embed within the budget.
pub fn run(
    home: &Home,
    sources: &[Source],
    not_found: &[&str],
    plan: &Plan<'_>,
) -> Result<Report, ImportError> {
    let started = Instant::now();
    let _lock = match brain_store::Lock::try_acquire(&home.lock_file("import")) {
        Ok(l) => l,
        Err(brain_store::LockError::Held { holder, .. }) => {
            return Err(ImportError::Running(holder));
        }
        Err(e) => return Err(ImportError::Lock(e)),
    };
    let stage = |name: &'static str| (plan.locate)(name).ok_or(ImportError::StageMissing(name));
    let (partition, lexindex) = (stage("partition")?, stage("lexindex")?);
    let steps = sources.len() + 2;
    let mut done = Vec::new();
    for (i, s) in sources.iter().enumerate() {
        (plan.progress)(i + 1, steps, &s.name);
        let producer = stage(s.producer.0)?;
        done.push(import_one(home, s, &producer, &partition, &lexindex));
    }
    (plan.progress)(steps - 1, steps, "decisions from the sessions");
    let memory = memory(home);
    (plan.progress)(steps, steps, "embeddings");
    let vectors = match plan.embed_budget {
        None => Embedded {
            outcome: "skipped".into(),
            embedded: 0,
            pending: 0,
            code: 0,
        },
        Some(budget) => embed(home, &stage("vecindex")?, budget),
    };
    Ok(Report {
        kind: "import_report",
        sources: done,
        not_found: not_found.iter().map(|s| s.to_string()).collect(),
        memory,
        vectors,
        secs: (started.elapsed().as_secs_f64() * 10.0).round() / 10.0,
    })
}

/// `producer ARGS | partition | lexindex --json`, each stage's stderr kept.
fn import_one(
    home: &Home,
    s: &Source,
    producer: &Path,
    partition: &Path,
    lexindex: &Path,
) -> Imported {
    let mut out = Imported {
        source: s.name.clone(),
        paths: s.paths.clone(),
        added: 0,
        updated: 0,
        unchanged: 0,
        outcome: "ok".into(),
        code: 0,
        messages: Vec::new(),
    };
    let spawned = spawn_pipeline(home, producer, &s.producer.1, partition, lexindex);
    let (children, stdout) = match spawned {
        Ok(x) => x,
        Err(e) => {
            out.outcome = format!("could not start the pipeline: {e}");
            out.code = ErrorCode::Internal.exit_code();
            return out;
        }
    };
    let names = [s.producer.0, "partition", "lexindex"];
    let mut failed: Option<(usize, i32)> = None;
    for (i, (mut child, err)) in children.into_iter().enumerate() {
        let status = child.wait();
        let text = err.join().unwrap_or_default();
        out.messages.extend(
            text.lines()
                .filter(|l| !l.trim().is_empty())
                .map(str::to_string),
        );
        let code = status.ok().and_then(|s| s.code()).unwrap_or(99);
        if code != 0 && failed.is_none() {
            failed = Some((i, code));
        }
    }
    let summary = stdout.join().unwrap_or_default();
    if let Some(v) = summary
        .lines()
        .rev()
        .find_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
    {
        let n = |k: &str| v.get(k).and_then(serde_json::Value::as_u64).unwrap_or(0);
        out.added = n("added");
        out.updated = n("updated");
        out.unchanged = n("unchanged");
    }
    if let Some((i, code)) = failed {
        let last = out
            .messages
            .iter()
            .rev()
            .find(|m| m.starts_with(names[i]))
            .cloned()
            .unwrap_or_default();
        out.outcome = format!("{} exited {code}: {last}", names[i]);
        out.code = u8::try_from(code).unwrap_or(ErrorCode::Internal.exit_code());
    }
    out
}

/// The extraction's sessions pass over what was imported (no model: an LLM command, when set, is
/// the nightly job's to run, within its budget).
pub(crate) fn memory(home: &Home) -> Memory {
    let opts = brain_distill::extract::Options {
        runner: None,
        label: "deterministic".into(),
        jobs: 1,
        budget: brain_distill::budget::DEFAULT_BUDGET,
        all: false,
        limit: None,
        only: None,
        surface: "import".into(),
    };
    let mut sink = |_: &brain_distill::extract::Logged| Ok(());
    match brain_distill::extract::run(home, &opts, &|_| {}, &|_, _| {}, &mut sink) {
        Ok(s) => Memory {
            outcome: "extracted".into(),
            by_type: s.by_type.clone(),
            written: s.written,
            conflicts: s.by_decision.get("conflict").copied().unwrap_or(0),
            code: 0,
        },
        Err(e) => Memory {
            outcome: e.to_string(),
            code: brain_doc::Classified::code(&e).exit_code(),
            ..Memory::default()
        },
    }
}

type Stage = (Child, std::thread::JoinHandle<String>);

/// Start the three processes, stdout of each into the next; every stderr read on a thread.
fn spawn_pipeline(
    home: &Home,
    producer: &Path,
    args: &[OsString],
    partition: &Path,
    lexindex: &Path,
) -> std::io::Result<(Vec<Stage>, std::thread::JoinHandle<String>)> {
    let env = |c: &mut Command| {
        c.env("BRAIN_HOME", home.root()).stderr(Stdio::piped());
    };
    let mut p = Command::new(producer);
    p.args(args).stdin(Stdio::null()).stdout(Stdio::piped());
    env(&mut p);
    let mut first = p.spawn()?;
    let mut q = Command::new(partition);
    q.arg("-q").stdout(Stdio::piped());
    q.stdin(first.stdout.take().map_or_else(Stdio::null, Stdio::from));
    env(&mut q);
    let mut second = q.spawn()?;
    let mut r = Command::new(lexindex);
    r.args(["--json", "-q"]).stdout(Stdio::piped());
    r.stdin(second.stdout.take().map_or_else(Stdio::null, Stdio::from));
    env(&mut r);
    let mut third = r.spawn()?;
    let stdout = read_on_thread(third.stdout.take());
    let stages = [first, second, third]
        .into_iter()
        .map(|mut c| {
            let err = read_on_thread(c.stderr.take());
            (c, err)
        })
        .collect();
    Ok((stages, stdout))
}

fn read_on_thread(r: Option<impl Read + Send + 'static>) -> std::thread::JoinHandle<String> {
    std::thread::spawn(move || {
        let mut s = String::new();
        if let Some(mut r) = r {
            let mut bytes = Vec::new();
            let _ = r.read_to_end(&mut bytes);
            s = brain_doc::bytes::lossy(&bytes);
        }
        s
    })
}

/// Whether the model in force is installed (vecindex checks its weights when it loads them).
pub(crate) fn model_installed(home: &Home) -> bool {
    matches!(brain_vec::EmbedderSpec::default_local(&home.models()), brain_vec::EmbedderSpec::Local { dir } if dir.join("model.safetensors").is_file())
}

/// `vecindex --all --budget SECS`, its progress bar on our stderr, its report read from stdout.
fn embed(home: &Home, vecindex: &Path, budget: Duration) -> Embedded {
    if !model_installed(home) {
        return Embedded {
            outcome: "no model".into(),
            embedded: 0,
            pending: 0,
            code: 0,
        };
    }
    let run = Command::new(vecindex)
        .args(["--all", "-q", "--budget"])
        .arg(budget.as_secs().max(1).to_string())
        .env("BRAIN_HOME", home.root())
        .stdin(Stdio::null())
        .stderr(Stdio::inherit())
        .output();
    let out = match run {
        Ok(o) => o,
        Err(e) => {
            return Embedded {
                outcome: format!("could not start vecindex: {e}"),
                embedded: 0,
                pending: 0,
                code: ErrorCode::Internal.exit_code(),
            };
        }
    };
    let report = brain_doc::bytes::text(&out.stdout)
        .0
        .lines()
        .rev()
        .find_map(|l| serde_json::from_str::<serde_json::Value>(l).ok());
    let n = |k: &str| {
        report
            .as_ref()
            .and_then(|v| v.get(k))
            .and_then(serde_json::Value::as_u64)
            .unwrap_or(0)
    };
    let code = out.status.code().unwrap_or(99);
    let (embedded, pending) = (n("embedded"), n("pending"));
    Embedded {
        outcome: match code {
            0 if pending > 0 => "budget".into(),
            0 => "embedded".into(),
            c => format!("vecindex exited {c}"),
        },
        embedded,
        pending,
        code: u8::try_from(code).unwrap_or(ErrorCode::Internal.exit_code()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use brain_doc::Classified;

    fn report(codes: &[u8], vectors: u8) -> Report {
        Report {
            kind: "import_report",
            sources: codes
                .iter()
                .map(|c| Imported {
                    source: "s".into(),
                    paths: Vec::new(),
                    added: 0,
                    updated: 0,
                    unchanged: 0,
                    outcome: String::new(),
                    code: *c,
                    messages: Vec::new(),
                })
                .collect(),
            not_found: Vec::new(),
            memory: Memory::default(),
            vectors: Embedded {
                outcome: String::new(),
                embedded: 0,
                pending: 0,
                code: vectors,
            },
            secs: 0.0,
        }
    }

    #[test]
    fn the_exit_code_is_the_first_failure() {
        assert_eq!(report(&[0, 0], 0).code(), 0);
        assert_eq!(report(&[0, 64, 65], 0).code(), 64);
        assert_eq!(report(&[0], 65).code(), 65);
    }

    #[test]
    fn a_missing_stage_is_exit_65_and_nothing_runs() {
        let dir = tempfile::tempdir().expect("tempdir");
        let home = Home::at(dir.path().join("home"));
        let plan = Plan {
            locate: &|_| None,
            embed_budget: None,
            progress: &|_, _, _| {},
        };
        let e = run(&home, &[], &[], &plan).expect_err("no stages");
        assert!(matches!(e, ImportError::StageMissing("partition")), "{e}");
        assert_eq!(e.code(), ErrorCode::IndexMissing);
        assert!(e.fix().contains("make install"));
    }

    #[test]
    fn sources_name_each_agent_found_and_each_missing_one() {
        let dir = tempfile::tempdir().expect("tempdir");
        let user = dir.path();
        std::fs::create_dir_all(user.join(".codex/sessions")).expect("codex");
        let (found, missing) = sources(user, None, &user.join("queue"));
        let names: Vec<&str> = found.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["codex"]);
        assert_eq!(missing, ["claude", "gemini", "cursor", "opencode", "aider"]);
    }
}
