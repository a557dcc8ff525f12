//! The model path of the extraction: one question per distilled session not yet asked at this
//! prompt version (`state/extract.json`), asked `--jobs` at a time; the answers that check become
//! records, the others are counted and reported (nothing of them is written).

use std::collections::BTreeMap;
use std::path::Path;

use brain_doc::markdown;
use brain_exec::{RunError, Runner, run_all};
use brain_store::{Config, Home};
use serde_json::{Map, Value};

use super::record::Origin;
use super::{Found, Options, Summary, answer, facts};
use crate::queue::files_by_stem;

/// What was asked of the model before: artifact id → sha256 of the artifact, per prompt version.
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
struct Asked {
    version: String,
    done: BTreeMap<String, String>,
}

/// One question to the model: the artifact it is about (and its sha256, what `state/extract.json`
/// keeps), where its records come from, the prompt, and the lines of the session it names.
struct Job {
    artifact: String,
    sha: String,
    origin: Origin,
    prompt: String,
    lines: u64,
}

/// `brain://<collection>/<path>` of a file of a collection of `config`.
fn uri_of(config: &Config, file: &Path) -> Option<String> {
    config.collections.iter().find_map(|c| {
        let rel = file.strip_prefix(config.resolve(&c.path)).ok()?;
        Some(format!(
            "brain://{}/{}",
            c.name,
            rel.to_string_lossy().replace('\\', "/")
        ))
    })
}

/// The questions to ask: one per distilled session not yet asked at this version (all with
/// `--all`), at most `--limit`. A record cites the session (its line when the answer gives one
/// within it), else the artifact.
fn model_jobs(
    config: &Config,
    opts: &Options,
    artifacts: &[(String, String, Map<String, Value>)],
    asked: &Asked,
) -> Vec<Job> {
    let sessions = files_by_stem(config, brain_store::para::ROLE_SESSIONS);
    let mut jobs = Vec::new();
    for (uri, text, fm) in artifacts {
        let sha = brain_doc::sha256_hex(text.as_bytes());
        if !opts.all && asked.done.get(uri) == Some(&sha) {
            continue;
        }
        let (session, project, date, _) = facts(fm);
        let file = fm
            .get("session_doc")
            .and_then(Value::as_str)
            .and_then(|id| id.rsplit('/').next())
            .map(|name| crate::prompt::stem(name).to_string())
            .and_then(|stem| sessions.get(&stem));
        let session_text = file
            .and_then(|f| std::fs::read(f).ok())
            .map(|b| brain_doc::bytes::text(&b).0.into_owned())
            .unwrap_or_default();
        let body = markdown::split(&session_text)
            .map(|(_, b)| b.to_string())
            .unwrap_or_default();
        let (cut, _) = crate::budget::cut(&body, opts.budget);
        let art_body = markdown::split(text)
            .map(|(_, b)| b.to_string())
            .unwrap_or_default();
        let prompt = answer::prompt(
            &session,
            &date,
            project.as_deref().unwrap_or("(none)"),
            art_body.trim(),
            &cut,
        );
        let cited = file.and_then(|f| uri_of(config, f));
        let lines = match &cited {
            Some(_) => session_text.lines().count() as u64,
            None => 1,
        };
        jobs.push(Job {
            artifact: uri.clone(),
            sha,
            origin: Origin {
                session,
                project,
                date,
                uri: cited.unwrap_or_else(|| uri.clone()),
            },
            prompt,
            lines,
        });
        if opts.limit.is_some_and(|n| jobs.len() >= n) {
            break;
        }
    }
    jobs
}

/// The model path: ask each question (`--jobs` at a time), keep the answers that check.
#[allow(clippy::too_many_arguments)]
pub(super) fn model(
    home: &Home,
    config: &Config,
    runner: &Runner,
    opts: &Options,
    artifacts: &[(String, String, Map<String, Value>)],
    version: &str,
    summary: &mut Summary,
    warn: &dyn Fn(String),
    progress: &dyn Fn(u64, u64),
) -> Vec<Found> {
    let state = home.state_file("extract.json");
    let mut asked: Asked = std::fs::read(&state)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .filter(|a: &Asked| a.version == version)
        .unwrap_or_else(|| Asked {
            version: version.to_string(),
            done: BTreeMap::new(),
        });
    let jobs = model_jobs(config, opts, artifacts, &asked);
    let total = jobs.len() as u64;
    let mut finished = 0;
    progress(0, total);
    let mut out = Vec::new();
    let work = |job: Job| {
        let env = [
            ("BRAIN_SESSION_ID", job.origin.session.as_str()),
            ("BRAIN_PROMPT_VERSION", version),
        ];
        let answer = runner.run(&job.prompt, &env);
        (job, answer)
    };
    run_all(
        jobs,
        opts.jobs.max(1),
        work,
        |(job, answer): (Job, Result<String, RunError>)| {
            finished += 1;
            progress(finished, total);
            let session = &job.origin.session;
            match answer.map(|a| answer::parse(&a, &job.origin.date, job.lines)) {
                Err(e) => {
                    summary.failed += 1;
                    summary.timeouts += u64::from(matches!(e, RunError::Timeout { .. }));
                    warn(format!("{session}: {e}; nothing written"));
                }
                Ok(Err(m)) => {
                    summary.malformed += 1;
                    warn(format!("{session}: malformed answer: {m}; nothing written"));
                }
                Ok(Ok(records)) => {
                    asked.done.insert(job.artifact, job.sha);
                    out.push(Found {
                        origin: job.origin,
                        records,
                    });
                }
            }
        },
    );
    if let Ok(bytes) = serde_json::to_vec_pretty(&asked)
        && let Err(e) = brain_doc::atomic::write(&state, &bytes)
    {
        warn(format!("{}: {e}", state.display()));
    }
    out
}
