//! What a watcher watches: each agent's places, each browser's History, the collections outside
//! the home; and which of them a changed path belongs to.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use brain_store::Home;
use notify::RecursiveMode;

use crate::import::Source;

/// What a watcher watches.
#[derive(Debug, Clone, Default)]
pub struct Targets {
    /// Each agent's default places (import's sources).
    pub agents: Vec<Source>,
    /// Each browser profile's History.
    pub browsers: Vec<Source>,
    /// Collection folders outside the home (the home's own are written by the stages).
    pub collections: Vec<PathBuf>,
}

/// One thing a batch runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Target {
    Agent(usize),
    Browser(usize),
    Collections,
}

impl Targets {
    /// The targets of `home`: import's sources under `user_home`, and the collections of
    /// `config` whose folders are outside the home.
    pub fn of(
        home: &Home,
        config: &brain_store::Config,
        user_home: &Path,
        local_app_data: Option<&Path>,
    ) -> Targets {
        let (sources, _) = crate::import::sources(user_home, local_app_data, &home.distill_queue());
        let (browsers, agents): (Vec<Source>, Vec<Source>) = sources
            .into_iter()
            .partition(|s| s.producer_name() == "chrome2md");
        // Compared with their `..` steps taken (`~/.brain/../notes` is outside the home).
        let root = crate::bins::normalize(home.root());
        let mut collections: Vec<PathBuf> = config
            .collections
            .iter()
            .map(|c| crate::bins::normalize(&config.resolve(&c.path)))
            .filter(|p| !p.starts_with(&root))
            .collect();
        collections.sort();
        collections.dedup();
        Targets {
            agents,
            browsers,
            collections,
        }
    }

    /// Every target, as a start runs them.
    pub fn all(&self) -> BTreeSet<Target> {
        let mut out: BTreeSet<Target> = (0..self.agents.len()).map(Target::Agent).collect();
        out.extend((0..self.browsers.len()).map(Target::Browser));
        if !self.collections.is_empty() {
            out.insert(Target::Collections);
        }
        out
    }

    /// What to watch: each path and how (a History file's folder, not recursively).
    pub(super) fn roots(&self) -> Vec<(PathBuf, RecursiveMode, Target)> {
        let mut out = Vec::new();
        for (i, s) in self.agents.iter().enumerate() {
            for p in &s.paths {
                out.push((p.clone(), RecursiveMode::Recursive, Target::Agent(i)));
            }
        }
        for (i, s) in self.browsers.iter().enumerate() {
            for p in &s.paths {
                if let Some(dir) = p.parent() {
                    out.push((
                        dir.to_path_buf(),
                        RecursiveMode::NonRecursive,
                        Target::Browser(i),
                    ));
                }
            }
        }
        for c in &self.collections {
            out.push((c.clone(), RecursiveMode::Recursive, Target::Collections));
        }
        out
    }

    /// The target a changed path belongs to: the deepest root holding it (a browser's only for
    /// its History and the files SQLite keeps beside it).
    pub(super) fn classify(&self, path: &Path) -> Option<Target> {
        for (i, s) in self.browsers.iter().enumerate() {
            for h in &s.paths {
                let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
                let history = h.file_name().and_then(|n| n.to_str()).unwrap_or("History");
                if path.parent() == h.parent() && name.starts_with(history) {
                    return Some(Target::Browser(i));
                }
            }
        }
        self.roots()
            .into_iter()
            .filter(|(r, mode, _)| *mode == RecursiveMode::Recursive && path.starts_with(r))
            .max_by_key(|(r, _, _)| r.components().count())
            .map(|(_, _, t)| t)
    }

    pub(super) fn name(&self, t: Target) -> String {
        match t {
            Target::Agent(i) => self.agents.get(i).map_or("agent", |s| &s.name).to_string(),
            Target::Browser(i) => self
                .browsers
                .get(i)
                .map_or("browser", |s| &s.name)
                .to_string(),
            Target::Collections => "collections".into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn a_changed_path_belongs_to_the_deepest_root() {
        let t = Targets {
            agents: vec![Source::test("claude", &["/u/.claude/projects"])],
            browsers: vec![Source::test(
                "chrome-default",
                &["/u/.config/chrome/Default/History"],
            )],
            collections: vec!["/u/notes".into(), "/u/notes/deep".into()],
        };
        let c = |p: &str| t.classify(Path::new(p));
        assert_eq!(c("/u/.claude/projects/x/a.jsonl"), Some(Target::Agent(0)));
        assert_eq!(c("/u/notes/deep/a.md"), Some(Target::Collections));
        assert_eq!(
            c("/u/.config/chrome/Default/History-journal"),
            Some(Target::Browser(0))
        );
        assert_eq!(c("/u/.config/chrome/Default/Cookies"), None);
        assert_eq!(c("/u/elsewhere/a.md"), None);
        assert_eq!(t.all().len(), 3);
    }
}
