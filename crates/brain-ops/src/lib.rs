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
pub mod freshness;
pub mod hooks;
mod host;
pub mod locks;
pub mod registry_view;
pub mod render;
pub mod schedule;
pub mod shell;
pub mod skills;
mod status;
pub mod usage;
pub mod vectors;

pub use doctor::{DoctorReport, doctor};
pub use error::OpsError;
pub use explain::{Explain, explain, explain_on};
pub use host::Host;
pub use status::{CollectionStatus, ModelStatus, Status, status};
