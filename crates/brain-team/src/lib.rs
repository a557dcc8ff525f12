//! Team memory past one machine (docs/team.md): the same pipeline into a real distributed search
//! engine. brain speaks SolrCloud's HTTP API; this crate owns everything about it:
//!
//! * [`agree`] — whether this home and an engine agree (brain doctor);
//! * [`mapping`] — the index's configset (schema and solrconfig), its version, and creating it;
//! * [`home`] — this home's side: the engine brain.yaml names with its credentials (`connect`),
//!   and vecindex's chunker and model as the vectors the sink sends (`Local`);
//! * [`client`] — the engine's HTTP client: one URL, credentials from the environment or a file,
//!   every failure classified (unreachable → 65, too slow → 66, refused credentials → 71);
//! * [`query`] — brain's query language compiled to the engine's parameters, its answer read back;
//! * [`record`] — the bulk record of one passage (a chunk of a document, with its vector);
//! * [`sink`] — `teamindex`: push the shared collections, idempotent by brain's stable ids, with a
//!   spool on disk for when the engine cannot be reached.

pub mod agree;
pub mod client;
pub mod home;
pub mod mapping;
pub mod query;
pub mod record;
pub mod sink;
mod spool;

use brain_doc::{Classified, ErrorCode};

pub use client::Engine;

/// What went wrong talking to a team engine.
#[derive(Debug, thiserror::Error)]
pub enum TeamError {
    /// brain.yaml, an argument or a credentials file is not usable.
    #[error("{0}")]
    Config(String),
    /// The engine could not be reached (connection refused, no route, DNS).
    #[error("the team engine at {url} cannot be reached: {reason}")]
    Unreachable { url: String, reason: String },
    /// The engine's certificate could not be verified (or TLS failed): never sent to anyway.
    #[error("the team engine at {url}: TLS failed: {reason}")]
    Tls { url: String, reason: String },
    /// The engine did not answer in time.
    #[error("the team engine at {url} did not answer within {secs} s")]
    Timeout { url: String, secs: u64 },
    /// The engine refused the credentials.
    #[error("the team engine at {url} refused the credentials (HTTP {status})")]
    Denied { url: String, status: u16 },
    /// The engine answered with an error.
    #[error("the team engine at {url} answered HTTP {status}: {detail}")]
    Engine {
        url: String,
        status: u16,
        detail: String,
    },
    /// The engine's index exists but was made for another mapping or model.
    #[error("{0}")]
    Mapping(String),
    /// This home's record of what it sent (`sent.json`) does not parse: a disk fault or a hand
    /// edit. `teamindex` sets it aside and sends everything again.
    #[error("{}: damaged ({reason})", brain_store::display_path(path))]
    Damaged {
        path: std::path::PathBuf,
        reason: String,
    },
    /// Reading or writing this home's team state failed.
    #[error("{path}: {source}")]
    Io {
        path: std::path::PathBuf,
        source: std::io::Error,
    },
    /// The vectors could not be made (the model missing, an embedding server down): its class
    /// and fix, as the embedder said.
    #[error("{message}")]
    Embed {
        code: ErrorCode,
        message: String,
        fix: String,
    },
}

impl Classified for TeamError {
    fn code(&self) -> ErrorCode {
        match self {
            TeamError::Config(_) => ErrorCode::BadQuery,
            TeamError::Unreachable { .. } | TeamError::Mapping(_) | TeamError::Damaged { .. } => {
                ErrorCode::IndexMissing
            }
            TeamError::Engine { status, .. } if *status == 400 => ErrorCode::BadQuery,
            TeamError::Engine { .. } => ErrorCode::IndexMissing,
            TeamError::Timeout { .. } => ErrorCode::Timeout,
            TeamError::Denied { .. } | TeamError::Tls { .. } => ErrorCode::Refused,
            TeamError::Io { .. } => ErrorCode::Internal,
            TeamError::Embed { code, .. } => *code,
        }
    }

    fn fix(&self) -> String {
        match self {
            TeamError::Unreachable { .. } => "start the engine (`make engine-up` for a local one), or check --engine and team.engines in brain.yaml".into(),
            TeamError::Timeout { .. } => "the engine is overloaded or a node is down: try again, or check the cluster".into(),
            TeamError::Tls { .. } => "an engine signed by a team's own CA: set team.ca (or BRAIN_ENGINE_CA) to its PEM file (docs/team.md)".into(),
            TeamError::Denied { .. } => "set BRAIN_ENGINE_USER and BRAIN_ENGINE_PASSWORD, or team.credentials (a 0600 file holding user:password)".into(),
            TeamError::Mapping(_) => "point team.index at a new name (brain creates it), or ask the engine's owner to delete the old index".into(),
            TeamError::Embed { fix, .. } => fix.clone(),
            TeamError::Damaged { .. } => "run `teamindex --all`: it sets the file aside and sends every shared document again, replacing what the engine holds of each".into(),
            _ => String::new(),
        }
    }
}

impl TeamError {
    /// Whether a later run may succeed where this one failed (the engine down or slow): what the
    /// sink spools for instead of failing.
    pub fn is_transient(&self) -> bool {
        match self {
            TeamError::Unreachable { .. } | TeamError::Timeout { .. } => true,
            TeamError::Engine { status, .. } => *status >= 500,
            _ => false,
        }
    }
}
