//! Resolving `$BRAIN_HOME` and the paths inside it.

use std::path::{Path, PathBuf};

/// The user's home folder (`$HOME`), if known.
pub fn home_dir() -> Option<PathBuf> {
    brain_doc::env::os(brain_doc::env::HOME)
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
}

/// `path` with the user's home folder shown as `~`, for frontmatter and messages.
pub fn display_path(path: &Path) -> String {
    if let Some(home) = home_dir()
        && let Ok(rest) = path.strip_prefix(&home)
    {
        return if rest.as_os_str().is_empty() {
            "~".into()
        } else {
            format!("~/{}", rest.display())
        };
    }
    path.display().to_string()
}

/// A project's working directory as records name it: the user's home shown as `~`, also for the
/// `/Users/<name>` and `/home/<name>` homes of transcripts recorded on another machine (the one
/// rule the sessions' `project:` and the hooks' `cwd` are both read by).
pub fn project_path(p: &str) -> String {
    let shown = display_path(Path::new(p));
    if shown != p {
        return shown;
    }
    for prefix in ["/Users/", "/home/"] {
        if let Some(rest) = p.strip_prefix(prefix) {
            let (_user, tail) = rest.split_once('/').unwrap_or((rest, ""));
            return if tail.is_empty() {
                "~".into()
            } else {
                format!("~/{tail}")
            };
        }
    }
    p.to_string()
}

/// The brain home folder and the fixed paths inside it. Nothing is created until asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Home {
    root: PathBuf,
}

impl Home {
    /// `$BRAIN_HOME` if set and non-empty, else `~/.brain`, else `./.brain`.
    pub fn from_env() -> Self {
        if let Some(h) = brain_doc::env::os(brain_doc::env::BRAIN_HOME).filter(|h| !h.is_empty()) {
            return Home {
                root: PathBuf::from(h),
            };
        }
        let base = home_dir().unwrap_or_else(|| PathBuf::from("."));
        Home {
            root: base.join(".brain"),
        }
    }

    /// A home at an explicit folder.
    pub fn at(root: impl Into<PathBuf>) -> Self {
        Home { root: root.into() }
    }

    /// The home folder itself.
    pub fn root(&self) -> &Path {
        &self.root
    }
    /// `brain.yaml`: collections, partition rules, retention.
    pub fn config(&self) -> PathBuf {
        self.root.join("brain.yaml")
    }
    /// `corpus/`: pipeline-made collections, one folder each.
    pub fn corpus(&self) -> PathBuf {
        self.root.join("corpus")
    }
    /// `index/`: the lexical index and the vector store.
    pub fn index(&self) -> PathBuf {
        self.root.join("index")
    }
    /// `index/vec/`: the vector store (one generation at a time).
    pub fn vectors(&self) -> PathBuf {
        self.index().join("vec")
    }
    /// `state.sqlite`: document registry, recall counts, distill queue.
    pub fn state_db(&self) -> PathBuf {
        self.root.join("state.sqlite")
    }
    /// `state/<name>`: a small state file of one stage (e.g. `jsonl2md.json`, `chrome2md.json`).
    pub fn state_file(&self, name: &str) -> PathBuf {
        self.root.join("state").join(name)
    }
    /// What this home sent to one team engine index (`state/team/<key>/`: what was pushed, and
    /// the spool of requests waiting for the engine); `key` names the engine and index.
    pub fn team_state(&self, key: &str) -> PathBuf {
        self.state_file("team").join(key)
    }
    /// `logs/usage.jsonl`: telemetry.
    pub fn usage_log(&self) -> PathBuf {
        self.root.join("logs").join("usage.jsonl")
    }
    /// `inbox/`: typed captures, one file a day.
    pub fn inbox(&self) -> PathBuf {
        self.root.join("inbox")
    }
    /// `models/`: local embedding and rerank models.
    pub fn models(&self) -> PathBuf {
        self.root.join("models")
    }
    /// `locks/<name>.lock`.
    pub fn lock_file(&self, name: &str) -> PathBuf {
        self.root.join("locks").join(format!("{name}.lock"))
    }
    /// `pending_distill.txt`: the distillation queue `jsonl2md --queue` appends to by default.
    pub fn distill_queue(&self) -> PathBuf {
        self.root.join("pending_distill.txt")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_hang_off_the_root() {
        let h = Home::at("/x");
        assert_eq!(h.config(), PathBuf::from("/x/brain.yaml"));
        assert_eq!(h.lock_file("lex"), PathBuf::from("/x/locks/lex.lock"));
        assert_eq!(
            h.state_file("jsonl2md.json"),
            PathBuf::from("/x/state/jsonl2md.json")
        );
    }
}
