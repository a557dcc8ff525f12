//! The embedder interface, its backends' selection, and the embedding fingerprint.
//!
//! An [`Embedder`] turns texts into L2-normalized vectors. Backends: [`crate::bert::Bert`] (local,
//! in process, the default) and [`crate::http::Http`] (OpenAI-compatible `/v1/embeddings`, Ollama
//! `/api/embed`). Build one with [`open`] from an [`EmbedderSpec`] and reuse it for every text.
//!
//! The [`Fingerprint`] names everything that changes a stored vector: model id, dimensions, chunking
//! parameters and prompt format. A store built under another fingerprint is re-embedded whole.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::VecError;
use crate::chunk::ChunkParams;

/// Name of the default local model folder under `$BRAIN_HOME/models/` (chosen by measurement,
/// docs/vectors.md: the best quality within the speed bounds).
pub const DEFAULT_MODEL: &str = "bge-small-en-v1.5";

/// The default before bge-small-en-v1.5: a home that has it installed, and neither chose a model
/// nor installed the new default, keeps it (its vectors were made with it).
pub const PREVIOUS_DEFAULT: &str = "all-MiniLM-L6-v2";

/// How a chunk is turned into embedder input (see [`crate::chunk::embed_text`]); bump when it changes.
pub const PROMPT_FORMAT: &str = "title\\n\\nchunk;v1";

/// Something that embeds texts. Vectors are L2-normalized, so a dot product is the cosine.
pub trait Embedder: Send + Sync {
    /// A stable id of the model (`local:all-MiniLM-L6-v2`, `ollama:nomic-embed-text`, …).
    fn model_id(&self) -> String;
    /// Vector length.
    fn dims(&self) -> usize;
    /// Embed a batch of passages (document chunks), in order: with the model's passage prompt,
    /// where it has one.
    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, VecError>;
    /// Embed a batch of queries: with the model's query prompt (bge's instruction, e5's
    /// `query: `), where it has one; as passages otherwise.
    fn embed_queries(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, VecError> {
        self.embed(texts)
    }
    /// What the fingerprint records of how the model pools and prompts ([`crate::recipe::Recipe::tag`]):
    /// empty for mean pooling without prompts.
    fn recipe_tag(&self) -> String {
        String::new()
    }
    /// How many tokens the model sees for `text`, when the backend knows.
    /// Get ready for many short calls (a long-lived process, after its first query): the local
    /// model quantizes its weights so queries take the int8 kernel. Nothing by default.
    fn prepare(&self) {}

    /// How this embedder computes (e.g. the local model's batch kernel, `int8-vnni`), for reports.
    fn kernel(&self) -> &'static str {
        "remote"
    }
    fn count_tokens(&self, _text: &str) -> Option<usize> {
        None
    }
}

/// Which backend to build.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EmbedderSpec {
    /// A sentence-transformers folder (config.json, tokenizer.json, model.safetensors).
    Local { dir: PathBuf },
    /// An OpenAI-compatible server: `base` is e.g. `http://gpu-box:8080` (`/v1/embeddings` is appended).
    OpenAi {
        base: String,
        model: String,
        timeout: Duration,
        /// The environment variable holding its key (brain.yaml's `embedder.key_env`): the name
        /// only, the key is read when the embedder is built and never kept elsewhere.
        key_env: Option<String>,
    },
    /// An Ollama server: `base` is e.g. `http://gpu-box:11434` (`/api/embed` is appended).
    Ollama {
        base: String,
        model: String,
        timeout: Duration,
        key_env: Option<String>,
    },
}

/// Default timeout of an HTTP embedding request (connect + answer): generous for a GPU box embedding a
/// batch of 32 chunks, short enough that a dead server is reported within a minute.
pub const DEFAULT_HTTP_TIMEOUT: Duration = Duration::from_secs(30);

impl EmbedderSpec {
    /// The local model in force under `models` ([`local_in_force`]).
    pub fn default_local(models: &Path) -> Self {
        EmbedderSpec::Local {
            dir: models.join(local_in_force(models)),
        }
    }

    /// The spec that embeds queries for the store in `store_dir`: this one, unless it is a local
    /// model other than the one that made the store and that one is still installed beside it —
    /// then that one, so a store keeps answering (with its own model) while the next model's
    /// vectors are built ([`crate::switch`]). Never a mix: the fingerprint is checked at open.
    pub fn for_store(&self, store_dir: &Path) -> EmbedderSpec {
        let EmbedderSpec::Local { dir } = self else {
            return self.clone();
        };
        let Some(made_by) = store_model(store_dir) else {
            return self.clone();
        };
        let Some(name) = made_by.strip_prefix("local:").filter(|n| valid_name(n)) else {
            return self.clone();
        };
        let other = dir.with_file_name(name);
        if other != *dir && other.join("model.safetensors").is_file() {
            EmbedderSpec::Local { dir: other }
        } else {
            self.clone()
        }
    }

    /// What the fingerprint's prompt part adds for this model, read without loading it (a local
    /// folder's pooling and prompts; nothing for a server).
    pub fn recipe_tag(&self) -> String {
        match self {
            EmbedderSpec::Local { dir } => crate::recipe::Recipe::read(dir)
                .map(|r| r.tag())
                .unwrap_or_default(),
            _ => String::new(),
        }
    }

    /// Parse `local:<dir>`, `openai:<url>#<model>` or `ollama:<url>#<model>`; `timeout` applies to the
    /// HTTP backends.
    pub fn parse(spec: &str, timeout: Duration) -> Result<Self, VecError> {
        let bad = || {
            VecError::BadInput(format!(
                "bad embedder `{spec}`: expected local:<dir>, openai:<url>#<model> or ollama:<url>#<model>"
            ))
        };
        let (kind, rest) = spec.split_once(':').ok_or_else(bad)?;
        match kind {
            "local" if !rest.is_empty() => Ok(EmbedderSpec::Local {
                dir: PathBuf::from(rest),
            }),
            "openai" | "ollama" => {
                let (base, model) = rest.rsplit_once('#').ok_or_else(bad)?;
                if !base.starts_with("http://") && !base.starts_with("https://") || model.is_empty()
                {
                    return Err(bad());
                }
                let base = base.trim_end_matches('/').to_string();
                let model = model.to_string();
                Ok(if kind == "openai" {
                    EmbedderSpec::OpenAi {
                        base,
                        model,
                        timeout,
                        key_env: None,
                    }
                } else {
                    EmbedderSpec::Ollama {
                        base,
                        model,
                        timeout,
                        key_env: None,
                    }
                })
            }
            _ => Err(bad()),
        }
    }

    /// The [`Embedder::model_id`] the built embedder will report (known without loading it).
    pub fn model_id(&self) -> String {
        match self {
            EmbedderSpec::Local { dir } => {
                format!(
                    "local:{}",
                    dir.file_name()
                        .map(|n| n.to_string_lossy().into_owned())
                        .unwrap_or_default()
                )
            }
            EmbedderSpec::OpenAi { model, .. } => format!("openai:{model}"),
            EmbedderSpec::Ollama { model, .. } => format!("ollama:{model}"),
        }
    }

    /// Whether the embedder is there without loading it: a local model folder holding weights, or
    /// an HTTP backend (asked at its first request).
    pub fn present(&self) -> bool {
        match self {
            EmbedderSpec::Local { dir } => dir.join("model.safetensors").is_file(),
            _ => true,
        }
    }

    /// The spec in force: `$BRAIN_EMBEDDER` if set, else brain.yaml's `embedder.spec`, else the
    /// default local model under `models`; a server's key variable from brain.yaml's
    /// `embedder.key_env` (the home is the folder holding `models`).
    pub fn from_env(models: &Path) -> Result<Self, VecError> {
        let home = models.parent().unwrap_or(Path::new("."));
        let section = brain_store::EmbedderSection::of_home(home)
            .map_err(|e| VecError::BadInput(e.to_string()))?
            .unwrap_or_default();
        let spec = match brain_doc::env::get(brain_doc::env::BRAIN_EMBEDDER) {
            Some(s) => Self::parse(s.trim(), DEFAULT_HTTP_TIMEOUT)?,
            None => match &section.spec {
                Some(s) => Self::parse(s.trim(), DEFAULT_HTTP_TIMEOUT)?,
                None => return Ok(Self::default_local(models)),
            },
        };
        match section.key_env {
            Some(name) => spec.with_key_env(&name),
            None => Ok(spec),
        }
    }

    /// This server spec with its key read from the environment variable `name` when built. A name
    /// that is not one (`[A-Za-z_][A-Za-z0-9_]*`) is refused; a local model takes no key.
    pub fn with_key_env(self, name: &str) -> Result<Self, VecError> {
        let valid = name
            .chars()
            .enumerate()
            .all(|(i, c)| c == '_' || c.is_ascii_alphabetic() || (i > 0 && c.is_ascii_digit()));
        if name.is_empty() || name.len() > 128 || !valid {
            return Err(VecError::BadInput(format!(
                "embedder.key_env `{name}` is not an environment variable's name"
            )));
        }
        let key_env = Some(name.to_string());
        Ok(match self {
            EmbedderSpec::OpenAi {
                base,
                model,
                timeout,
                ..
            } => EmbedderSpec::OpenAi {
                base,
                model,
                timeout,
                key_env,
            },
            EmbedderSpec::Ollama {
                base,
                model,
                timeout,
                ..
            } => EmbedderSpec::Ollama {
                base,
                model,
                timeout,
                key_env,
            },
            local => local,
        })
    }
}

/// The file under `models/` naming the local model in force (`brain model use`): one line, a
/// folder name.
pub const IN_USE: &str = "in-use";

/// The name of the local model in force under `models`: the one `brain model use` named in
/// `models/in-use`; else [`DEFAULT_MODEL`] when installed; else [`PREVIOUS_DEFAULT`] when
/// installed (a home from before the default changed keeps its model until it fetches the new
/// one); else [`DEFAULT_MODEL`], whose absence the fix names.
pub fn local_in_force(models: &Path) -> String {
    if let Some(name) = in_use(models) {
        return name;
    }
    let installed = |n: &str| models.join(n).join("model.safetensors").is_file();
    if !installed(DEFAULT_MODEL) && installed(PREVIOUS_DEFAULT) {
        return PREVIOUS_DEFAULT.to_string();
    }
    DEFAULT_MODEL.to_string()
}

/// The model folder `models/in-use` names, when it names one validly.
pub fn in_use(models: &Path) -> Option<String> {
    let text = std::fs::read_to_string(models.join(IN_USE)).ok()?;
    let name = text.trim();
    valid_name(name).then(|| name.to_string())
}

/// A model folder name: one plain path component.
pub fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 128
        && name != "."
        && name != ".."
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_'))
}

/// The model id in the manifest of the store in `dir`, read without opening the store.
pub fn store_model(dir: &Path) -> Option<String> {
    let text = std::fs::read_to_string(dir.join("manifest.json")).ok()?;
    let v: serde_json::Value = serde_json::from_str(&text).ok()?;
    v.get("fingerprint")?
        .get("model")?
        .as_str()
        .map(str::to_owned)
}

/// Everything that changes a stored vector.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fingerprint {
    /// [`Embedder::model_id`].
    pub model: String,
    /// [`Embedder::dims`].
    pub dims: usize,
    /// Chunk size and overlap.
    pub chunking: ChunkParams,
    /// [`PROMPT_FORMAT`].
    pub prompt: String,
}

impl Fingerprint {
    /// The fingerprint of `embedder` with `chunking`.
    pub fn of(embedder: &dyn Embedder, chunking: ChunkParams) -> Self {
        Fingerprint {
            model: embedder.model_id(),
            dims: embedder.dims(),
            chunking,
            prompt: format!("{PROMPT_FORMAT}{}", embedder.recipe_tag()),
        }
    }

    /// A short stable text form, for manifests and messages.
    pub fn id(&self) -> String {
        format!(
            "{}/{}d/c{}o{}/{}",
            self.model,
            self.dims,
            self.chunking.max_tokens,
            self.chunking.overlap_tokens,
            self.prompt
        )
    }
}

/// L2-normalize `v` in place (a zero vector stays zero).
pub fn normalize(v: &mut [f32]) {
    let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if n > 0.0 {
        v.iter_mut().for_each(|x| *x /= n);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use brain_doc::Classified;

    #[test]
    fn specs_parse_and_bad_ones_are_bad_input() {
        let t = Duration::from_secs(5);
        assert_eq!(
            EmbedderSpec::parse("ollama:http://h:11434/#nomic", t).ok(),
            Some(EmbedderSpec::Ollama {
                base: "http://h:11434".into(),
                model: "nomic".into(),
                timeout: t,
                key_env: None,
            })
        );
        // A key's variable: a name, or refused; a local model takes none.
        let openai = EmbedderSpec::parse("openai:http://h#m", t).expect("spec");
        assert!(matches!(
            openai.clone().with_key_env("EXAMPLE_KEY_2"),
            Ok(EmbedderSpec::OpenAi { key_env: Some(ref k), .. }) if k == "EXAMPLE_KEY_2"
        ));
        for bad in ["", "2KEY", "KEY-X", "KEY X", "$KEY"] {
            assert!(openai.clone().with_key_env(bad).is_err(), "{bad}");
        }
        let local = EmbedderSpec::parse("local:/m", t).expect("spec");
        assert_eq!(local.clone().with_key_env("K").ok(), Some(local));
        assert!(matches!(
            EmbedderSpec::parse("local:/m", t),
            Ok(EmbedderSpec::Local { .. })
        ));
        for bad in ["x", "openai:http://h", "ollama:ftp://h#m", "onnx:/m"] {
            let e = EmbedderSpec::parse(bad, t).expect_err(bad);
            assert_eq!(e.code().exit_code(), 64, "{bad}");
        }
    }

    #[test]
    fn the_model_in_force_is_chosen_and_a_hostile_in_use_file_is_ignored() {
        let d = tempfile::tempdir().expect("tempdir");
        let m = d.path();
        let install = |name: &str| {
            std::fs::create_dir_all(m.join(name)).expect("mkdir");
            std::fs::write(m.join(name).join("model.safetensors"), b"x").expect("write");
        };
        // Nothing installed: the default (its absence is what the fix names).
        assert_eq!(local_in_force(m), DEFAULT_MODEL);
        // Only the previous default installed: a home from before the change keeps it.
        install(PREVIOUS_DEFAULT);
        assert_eq!(local_in_force(m), PREVIOUS_DEFAULT);
        install(DEFAULT_MODEL);
        assert_eq!(local_in_force(m), DEFAULT_MODEL);
        // `brain model use` wins; a name that is not one plain folder is ignored.
        std::fs::write(m.join(IN_USE), "e5-small-v2\n").expect("write");
        assert_eq!(local_in_force(m), "e5-small-v2");
        for bad in [
            "../../etc",
            "/abs",
            "a/b",
            "..",
            "",
            "x\ny",
            &"a".repeat(300),
        ] {
            std::fs::write(m.join(IN_USE), bad).expect("write");
            assert_eq!(local_in_force(m), DEFAULT_MODEL, "{bad:?}");
        }
        std::fs::write(m.join(IN_USE), [0xff, 0xfe]).expect("write");
        assert_eq!(local_in_force(m), DEFAULT_MODEL);
    }

    #[test]
    fn a_query_is_embedded_by_the_model_that_made_the_store() {
        let d = tempfile::tempdir().expect("tempdir");
        let (models, store) = (d.path().join("models"), d.path().join("vec"));
        for n in [DEFAULT_MODEL, PREVIOUS_DEFAULT] {
            std::fs::create_dir_all(models.join(n)).expect("mkdir");
            std::fs::write(models.join(n).join("model.safetensors"), b"x").expect("write");
        }
        std::fs::create_dir_all(&store).expect("mkdir");
        let spec = EmbedderSpec::Local {
            dir: models.join(DEFAULT_MODEL),
        };
        // No store: the model in force.
        assert_eq!(spec.for_store(&store), spec);
        let manifest = |model: &str| {
            let m = serde_json::json!({"fingerprint": {"model": model}});
            std::fs::write(store.join("manifest.json"), m.to_string()).expect("write");
        };
        manifest(&format!("local:{PREVIOUS_DEFAULT}"));
        assert_eq!(
            spec.for_store(&store),
            EmbedderSpec::Local {
                dir: models.join(PREVIOUS_DEFAULT)
            }
        );
        // A store made by a model no longer installed, by a server, or naming a path: the model
        // in force (the fingerprint check then refuses the mix).
        for other in ["local:gone", "ollama:nomic", "local:../../etc", "local:"] {
            manifest(other);
            assert_eq!(spec.for_store(&store), spec, "{other}");
        }
        std::fs::write(store.join("manifest.json"), b"{not json").expect("write");
        assert_eq!(spec.for_store(&store), spec);
    }

    #[test]
    fn fingerprint_changes_with_chunking() {
        let a = Fingerprint {
            model: "m".into(),
            dims: 3,
            chunking: ChunkParams::default(),
            prompt: PROMPT_FORMAT.into(),
        };
        let mut b = a.clone();
        b.chunking.max_tokens = 128;
        assert_ne!(a.id(), b.id());
    }
}
