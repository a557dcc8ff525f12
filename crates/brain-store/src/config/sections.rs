//! The sections of `brain.yaml` read on their own: `embedder:` (read without the rest of the
//! file by the vector side) and `projects:`.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::ConfigError;

/// `brain.yaml`'s `embedder:` section: a model server instead of the local model.
///
/// ```yaml
/// embedder:
///   spec: openai:https://api.example.com#text-embedding-3-small
///   key_env: EXAMPLE_API_KEY   # the variable holding the key; the key itself is never written
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EmbedderSection {
    /// `openai:<url>#<model>`, `ollama:<url>#<model>` or `local:<dir>` (`$BRAIN_EMBEDDER` wins).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spec: Option<String>,
    /// The name of the environment variable holding the server's key, sent as a bearer token.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key_env: Option<String>,
}

impl EmbedderSection {
    /// The `embedder:` section of the home whose `brain.yaml` is in `root` (none when the file or
    /// the section is absent). Only that section is read, so the vector side of a process that has
    /// not loaded the config does not parse the rest.
    pub fn of_home(root: &Path) -> Result<Option<EmbedderSection>, ConfigError> {
        #[derive(Deserialize)]
        struct Only {
            #[serde(default)]
            embedder: Option<EmbedderSection>,
        }
        let path = root.join("brain.yaml");
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(source) => return Err(ConfigError::Io { path, source }),
        };
        brain_doc::yaml::check_nesting(&text).map_err(|reason| ConfigError::Nesting {
            path: path.clone(),
            reason,
        })?;
        let only: Only =
            serde_norway::from_str(&text).map_err(|source| ConfigError::Yaml { path, source })?;
        Ok(only.embedder)
    }
}

/// `projects:` of brain.yaml: `merge:` maps a project as the index names it (a folder, as
/// `brain doctor` lists them) to the project it is part of — another folder, or a name of your
/// own (a rename). Read by every surface that resolves a project.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct ProjectsSection {
    #[serde(default)]
    pub merge: BTreeMap<String, String>,
}

/// The most merges `projects: merge:` may hold (each resolution walks them).
pub const MAX_MERGES: usize = 1000;

impl ProjectsSection {
    /// At most [`MAX_MERGES`], none from or into an empty name or into itself.
    pub fn check(&self) -> Result<(), String> {
        if self.merge.len() > MAX_MERGES {
            return Err(format!("{} merges; at most {MAX_MERGES}", self.merge.len()));
        }
        for (from, into) in &self.merge {
            if from.trim().is_empty() || into.trim().is_empty() || from == into {
                return Err(format!("`{from}` → `{into}`: give two different projects"));
            }
        }
        Ok(())
    }

    /// The merges, `(from, into)`.
    pub fn pairs(&self) -> Vec<(String, String)> {
        self.merge
            .iter()
            .map(|(f, i)| (f.clone(), i.clone()))
            .collect()
    }
}
