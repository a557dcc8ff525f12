//! `brain explain`: the runtime truth, long form (seed 000 §7.2) — which binaries run, which home and
//! config, what each collection holds and how fresh it is lexically and semantically, which model, which
//! hooks, schedules and skills are installed, where telemetry goes and what it last saw, and the last
//! doctor verdict. It stats the corpus (no file is read) and hashes the model weights, so it costs more
//! than [`crate::status`]; it works on a broken or empty home, reporting what it finds.

use std::collections::BTreeMap;

use brain_doc::Classified;
use brain_store::Home;
use serde::{Deserialize, Serialize};

use crate::bins::Binary;
use crate::doctor::LastDoctor;
use crate::freshness::Drift;
use crate::hooks::{Agent, HookInfo};
use brain_store::Registry;

use crate::schedule::ScheduleInfo;
use crate::skills::SkillInfo;
use crate::status::rfc3339;
use crate::status::{config_or_defaults, merged};
use crate::usage::TelemetryInfo;
use crate::vectors::ModelInfo;
use crate::{Host, OpsError};

/// Telemetry rows shown.
const TAIL: usize = 5;

/// Everything `brain explain` reports. Field by field in docs/FORMATS.md.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Explain {
    /// Record version (1).
    pub schema: u32,
    /// Always `"explain"`.
    pub kind: String,
    /// brain's version.
    pub version: String,
    /// `brain` and every stage binary, resolved the way `brain <stage>` resolves them.
    pub binaries: Vec<Binary>,
    /// The pipelines folder in use (stop-hook.sh, nightly.mk, schedules/, skills/), or null.
    pub pipelines: Option<String>,
    /// `$BRAIN_HOME` and whether it exists.
    pub home: HomeInfo,
    /// brain.yaml.
    pub config: ConfigInfo,
    /// Each collection: counts and freshness.
    pub collections: Vec<CollectionInfo>,
    /// The lexical index as a whole.
    pub lexical: LexicalInfo,
    /// The vector store as a whole.
    pub vectors: VectorInfo,
    /// The embedding model.
    pub model: ModelInfo,
    /// The distillation queue `jsonl2md --queue` fills.
    pub distill_queue: QueueInfo,
    /// Newest lexical or vector update (RFC 3339), or null.
    pub last_update: Option<String>,
    /// Our hooks in the agents' settings (Claude Code, Codex, Gemini CLI).
    pub hooks: Vec<HookInfo>,
    /// Our schedules (cron, systemd, launchd).
    pub schedules: Vec<ScheduleInfo>,
    /// Our Claude Code skills with their scope.
    pub skills: Vec<SkillInfo>,
    /// Where inbox captures go.
    pub inbox: InboxInfo,
    /// Telemetry file and its last rows.
    pub telemetry: TelemetryInfo,
    /// The last `brain doctor` verdict, or null if it never ran.
    pub last_doctor: Option<LastDoctor>,
    /// What could not be read while gathering this (e.g. an unreadable state.sqlite); the rest is shown.
    pub errors: Vec<String>,
}

/// `$BRAIN_HOME`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HomeInfo {
    pub path: String,
    /// Set by `$BRAIN_HOME` (else the default `~/.brain`).
    pub from_env: bool,
    pub exists: bool,
}

/// brain.yaml.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConfigInfo {
    pub path: String,
    /// False: the built-in defaults are in force.
    pub exists: bool,
    /// Why it does not parse or validate, or null.
    pub error: Option<String>,
}

/// One collection.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CollectionInfo {
    pub name: String,
    /// Its folder, resolved (empty for a collection only the registry still knows).
    pub path: String,
    pub role: String,
    /// `high`, `medium` or `low` (empty when not declared).
    pub trust: String,
    /// Whether the folder exists.
    pub exists: bool,
    /// Documents in the lexical index.
    pub docs: u64,
    /// Newest lexical update of its documents (RFC 3339), or null.
    pub last_indexed: Option<String>,
    /// Lexically fresh: nothing on disk that the index lacks or holds stale.
    pub lexical_fresh: bool,
    /// Disk vs index.
    pub drift: Drift,
    /// Its documents without up-to-date vectors.
    pub need_embeddings: u64,
}

/// The lexical index.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LexicalInfo {
    pub path: String,
    pub exists: bool,
    pub docs: u64,
    /// Every collection lexically fresh.
    pub fresh: bool,
    /// Files on disk not indexed, all collections.
    pub not_indexed: u64,
    /// Indexed files changed on disk since, all collections.
    pub changed: u64,
    /// Indexed documents whose file is gone, all collections.
    pub missing_files: u64,
}

/// The vector store.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VectorInfo {
    pub path: String,
    pub exists: bool,
    /// The fingerprint the vectors were made with (model/dims/chunking/prompt).
    pub fingerprint: Option<String>,
    /// Documents and chunks in the store.
    pub docs: u64,
    pub chunks: u64,
    /// Indexed documents without up-to-date vectors ("N documents need embeddings").
    pub need_embeddings: u64,
    /// No document needs embeddings (and a store exists).
    pub fresh: bool,
    /// Newest vecindex run recorded in the registry (RFC 3339), or null.
    pub last_embedded: Option<String>,
    /// The manifest could not be read: why.
    pub error: Option<String>,
}

/// The distillation queue.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct QueueInfo {
    pub path: String,
    /// Non-empty lines (session ids waiting for `brain distill`).
    pub entries: u64,
}

/// The inbox.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InboxInfo {
    /// The inbox folder.
    pub dir: String,
    /// Today's file (`YYYY-MM-DD.md`, UTC).
    pub today: String,
}

/// The runtime truth of `home` on the running host.
pub fn explain(home: &Home) -> Result<Explain, OpsError> {
    explain_on(home, &Host::from_env())
}

/// One collection's line: where it is, its trust, what the index and the vectors hold of it.
fn collection_info(
    config: &brain_store::Config,
    name: String,
    role: String,
    n: &brain_store::CollectionCounts,
    drift: Drift,
) -> CollectionInfo {
    let declared = config.collection(&name);
    let dir = declared.map(|c| config.resolve(&c.path));
    CollectionInfo {
        path: dir
            .as_ref()
            .map(|d| d.display().to_string())
            .unwrap_or_default(),
        exists: dir.as_ref().is_some_and(|d| d.is_dir()),
        trust: declared
            .and_then(|c| serde_json::to_value(c.trust).ok())
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default(),
        docs: n.docs,
        last_indexed: n.last_lex.map(rfc3339),
        lexical_fresh: drift.fresh(),
        need_embeddings: n.need_embeddings(),
        drift,
        name,
        role,
    }
}

/// The inbox folder and today's day file in it.
fn inbox_info(home: &Home) -> InboxInfo {
    let today = jiff::Timestamp::now().strftime("%Y-%m-%d").to_string();
    InboxInfo {
        dir: home.inbox().display().to_string(),
        today: home
            .inbox()
            .join(format!("{today}.md"))
            .display()
            .to_string(),
    }
}

/// [`explain`] for an explicit host (tests).
pub fn explain_on(home: &Home, host: &Host) -> Result<Explain, OpsError> {
    let (config, mut config_error) = config_or_defaults(home);
    if config_error.is_none() {
        config_error = config.validate().err().map(|e| e.to_string());
    }
    let manifest = crate::vectors::manifest(home);
    let model = crate::vectors::model(home, true);
    let m = manifest.as_ref().ok().and_then(Option::as_ref);
    let fp = m
        .filter(|m| m.fingerprint.model == model.id)
        .map(|m| m.fingerprint.id());
    let mut errors = Vec::new();
    let read = Registry::open_existing(home)
        .map_err(OpsError::from)
        .and_then(|r| match r {
            Some(r) => Ok((r.counts(fp.as_deref())?, r.files()?)),
            None => Ok((Vec::new(), Vec::new())),
        });
    let (counts, files) = read.unwrap_or_else(|e| {
        errors.push(format!("{e} ({})", e.fix()));
        (Vec::new(), Vec::new())
    });
    let drift: BTreeMap<String, Drift> = crate::freshness::drift(&config, &files);
    let rows = merged(&config, counts);
    let last_lex = rows.iter().filter_map(|(_, _, n)| n.last_lex).max();
    let last_vec = rows.iter().filter_map(|(_, _, n)| n.last_vec).max();
    let collections: Vec<CollectionInfo> = rows
        .into_iter()
        .map(|(name, role, n)| {
            let d = drift.get(&name).cloned().unwrap_or_default();
            collection_info(&config, name, role, &n, d)
        })
        .collect();
    let sum = |f: fn(&Drift) -> u64| collections.iter().map(|c| f(&c.drift)).sum::<u64>();
    let lex_dir = brain_lex::LexIndex::dir(home);
    let need: u64 = collections.iter().map(|c| c.need_embeddings).sum();
    Ok(Explain {
        schema: 1,
        kind: "explain".into(),
        version: env!("CARGO_PKG_VERSION").into(),
        binaries: crate::bins::resolve_all(host),
        pipelines: crate::bins::pipelines_dir(host)
            .ok()
            .map(|p| p.display().to_string()),
        home: HomeInfo {
            path: home.root().display().to_string(),
            from_env: brain_doc::env::set(brain_doc::env::BRAIN_HOME),
            exists: home.root().is_dir(),
        },
        config: ConfigInfo {
            path: home.config().display().to_string(),
            exists: home.config().is_file(),
            error: config_error,
        },
        lexical: LexicalInfo {
            path: lex_dir.display().to_string(),
            exists: lex_dir.join("meta.json").is_file(),
            docs: collections.iter().map(|c| c.docs).sum(),
            fresh: collections.iter().all(|c| c.lexical_fresh),
            not_indexed: sum(|d| d.not_indexed),
            changed: sum(|d| d.changed),
            missing_files: sum(|d| d.missing_files),
        },
        vectors: VectorInfo {
            path: crate::vectors::store_dir(home).display().to_string(),
            exists: m.is_some(),
            fingerprint: m.map(|m| m.fingerprint.id()),
            docs: m.map_or(0, |m| m.docs),
            chunks: m.map_or(0, |m| m.chunks),
            need_embeddings: need,
            fresh: m.is_some() && need == 0,
            last_embedded: last_vec.map(rfc3339),
            error: manifest.as_ref().err().cloned(),
        },
        model,
        distill_queue: QueueInfo {
            path: home.distill_queue().display().to_string(),
            entries: crate::status::queue_len(home),
        },
        last_update: last_lex.max(last_vec).map(rfc3339),
        hooks: [Agent::Claude, Agent::Codex, Agent::Gemini]
            .into_iter()
            .flat_map(|a| crate::hooks::installed_or_problem(&a.settings(host), a))
            .collect(),
        schedules: crate::schedule::installed(host),
        skills: crate::skills::installed(host),
        inbox: inbox_info(home),
        telemetry: crate::usage::info(home, TAIL),
        last_doctor: crate::doctor::last(home),
        collections,
        errors,
    })
}
