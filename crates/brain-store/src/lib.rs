//! The brain home (`$BRAIN_HOME`, default `~/.brain`): where every file lives, what it is configured to
//! hold, what has been indexed, and the locks that keep one writer at a time.
//!
//! Layout (docs/collections.md, docs/operations.md): `brain.yaml`, `corpus/<collection>/…`, `index/`, `state.sqlite`, `state/`
//! (small per-stage state files), `logs/usage.jsonl`, `inbox/`, `models/`, `locks/`.
//!
//! * [`Home`] — the paths;
//! * [`Config`] — `brain.yaml`: collections and partition rules;
//! * [`partition`] — which collection and file a doc goes to, and writing it there;
//! * [`Registry`] — `state.sqlite`: the document registry (what is indexed, how fresh);
//! * [`Lock`] — one writer at a time;
//! * [`walk`] — the files of a collection, as every stage that reads the corpus lists them.

pub mod access;
pub mod attic;
pub mod clock;
mod config;
pub mod documents;
mod home;
mod lock;
pub mod para;
pub mod partition;
pub mod privacy;
pub mod project;
pub mod purged;
mod registry;
pub mod sqlite_copy;
pub mod team;
pub mod telemetry;
pub mod tiers;
pub mod walk;

pub use config::{
    BUILTIN, Collection, Config, ConfigError, DEFAULT_GLOB, EmbedderSection, INBOX, Layout,
    Partition, ProjectsSection, Rule, Trust, builtin_path, check_name,
};
pub use home::{Home, display_path, home_dir, project_path};
pub use lock::{Lock, LockError, holder_pid};
pub use project::project_of;
pub use registry::{
    CollectionCounts, DocEntry, DocLinks, EntityDef, FileEntry, FileStat, LinkRow, NAME, Registry,
    RegistryError, cached_entity_defs, entities_file,
};
