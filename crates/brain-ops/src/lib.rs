//! Runtime truth and operations for `brain` (seed 000 §7–8): the system explains its own state, checks
//! itself, and installs the two clocks.
//!
//! * [`status`] — the short form for scripts and the MCP `status` tool: collections with document
//!   counts, last update, the embedding backlog, model presence. Registry queries only: fast on any corpus.
//! * [`explain`] — the long form (seed 000 §7.2): binaries, home, config, per-collection freshness
//!   (files on disk newer than the index, documents needing embeddings), model and its hash, hooks,
//!   schedules, skills, inbox, telemetry tail, last doctor verdict.
//! * [`doctor`] — every health check, none stopping the others, each with its fix; the verdict is kept
//!   for `explain` and logged as a `doctor_run` telemetry row.
//! * [`hooks`], [`schedule`], [`skills`] — install and remove the Claude Code Stop hook (the fast clock),
//!   the cron/systemd/launchd schedule of `pipelines/nightly.mk` (the slow clock) and the skills.
//! * [`bins`] — finding stage binaries and the pipelines folder, the way `brain <stage>` does.
//!
//! Errors are [`OpsError`]s with an exit-code class ([`OpsError::code`]) and a fix.

pub mod bins;
pub mod doctor;
mod error;
mod explain;
pub mod forget;
pub mod freshness;
pub mod hooks;
mod host;
pub mod import;
pub mod inbox;
pub mod index;
pub mod locks;
pub mod purge;
pub mod render;
pub mod schedule;
mod settings;
pub mod shell;
pub mod skills;
mod status;
pub mod timeline;
pub mod usage;
pub mod vectors;
pub mod watch;

pub use doctor::{DoctorReport, doctor};
pub use error::OpsError;
pub use explain::{Explain, explain, explain_on};
pub use host::Host;
pub use status::{CollectionStatus, ModelStatus, Status, status};

#[cfg(test)]
mod formats_doc {
    //! `docs/FORMATS.md` is checked against the types: every serialized field must be documented.

    fn keys(v: &serde_json::Value, out: &mut Vec<String>) {
        match v {
            serde_json::Value::Object(m) => {
                for (k, v) in m {
                    out.push(k.clone());
                    if k != "last_events" {
                        keys(v, out);
                    }
                }
            }
            serde_json::Value::Array(a) => a.iter().for_each(|v| keys(v, out)),
            _ => {}
        }
    }

    #[test]
    fn every_field_is_documented() {
        let formats = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../docs/FORMATS.md"
        ))
        .expect("docs/FORMATS.md exists");
        let dir = tempfile::tempdir().expect("tempdir");
        let home = brain_store::Home::at(dir.path());
        std::fs::create_dir_all(home.corpus().join("brain")).expect("mkdir");
        std::fs::write(home.corpus().join("brain/a.md"), "---\ntitle: a\n---\nx\n").expect("write");
        // A host inside the temp folder, with a hook, skills and a systemd schedule installed.
        let host = crate::Host {
            user_home: dir.path().into(),
            exe: std::env::current_exe().ok(),
            claude_dir: dir.path().join(".claude"),
            codex_dir: dir.path().join(".codex"),
            gemini_dir: dir.path().join(".gemini"),
            crontab: "false".into(),
            systemctl: "true".into(),
            launchctl: "true".into(),
            systemd_dir: dir.path().join("units"),
            launchd_dir: dir.path().join("agents"),
            pipelines: None,
        };
        let pipelines = crate::bins::pipelines_dir(&host).expect("the checkout's pipelines");
        let stop = crate::hooks::Wanted {
            hook: crate::hooks::Hook::Stop,
            command: "x/stop-hook.sh".into(),
        };
        crate::hooks::install(
            &host.claude_settings(),
            crate::hooks::Agent::Claude,
            &[stop],
        )
        .expect("hook");
        crate::skills::install(&host, &pipelines, crate::skills::EVERYWHERE).expect("skills");
        crate::schedule::install(
            &host,
            &home,
            &pipelines,
            crate::schedule::Scheduler::Systemd,
        )
        .expect("schedule");
        let report = crate::doctor::doctor_on(&home, &host, "cli").expect("doctor");
        let mut all = Vec::new();
        for v in [
            serde_json::to_value(crate::status(&home).expect("status")).expect("json"),
            serde_json::to_value(crate::explain_on(&home, &host).expect("explain")).expect("json"),
            serde_json::to_value(&report).expect("json"),
        ] {
            keys(&v, &mut all);
        }
        all.sort();
        all.dedup();
        let missing: Vec<_> = all
            .iter()
            .filter(|k| !formats.contains(&format!("`{k}`")))
            .collect();
        assert!(
            missing.is_empty(),
            "fields missing from docs/FORMATS.md: {missing:?}"
        );
    }
}
