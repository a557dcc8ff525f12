//! `brain.yaml`: the collections and the partition rules.
//!
//! ```yaml
//! version: 1
//! collections:
//!   - name: brain            # [a-z0-9_-], unique
//!     path: corpus/brain     # relative to $BRAIN_HOME, absolute, or ~/…
//!     glob: "**/*.md"        # which files under path belong to it
//!     role: sessions         # retrieval role: sessions, distilled, browser, inbox, notes, wiki, raw, …
//!     trust: high            # high | medium | low (low = fenced as untrusted for agents)
//! partition:
//!   default: brain           # collection for a doc no rule matches
//!   rules:                   # first match wins; every given condition must hold
//!     - collection: brain
//!       kind: session        # source.type
//!       agent: claude        # source.agent (optional)
//!       file: "~/work/**"    # glob on source.file (optional)
//!       meta: {project: x}   # frontmatter values (optional)
//!       layout: month        # month: YYYY/MM/<stem>.md · year: YYYY/<stem>.md · flat: <stem>.md · keep: path as given
//! ```
//!
//! A missing `brain.yaml` means [`Config::defaults`]; unknown top-level keys (retention, …) are kept
//! on save.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::Home;

mod sections;
pub use sections::{EmbedderSection, ProjectsSection};

/// The pipeline's own collections: `brain`, `distilled` and `chrome-history` under
/// `$BRAIN_HOME/corpus/`, `inbox` in `$BRAIN_HOME/inbox/` (docs/collections.md; see [`builtin_path`]).
/// The inbox collection's name (and its folder's, `$BRAIN_HOME/inbox/`).
pub const INBOX: &str = "inbox";

pub const BUILTIN: [(&str, &str, Trust); 4] = [
    ("brain", "sessions", Trust::High),
    ("distilled", "distilled", Trust::High),
    ("chrome-history", "browser", Trust::Low),
    (INBOX, "inbox", Trust::High),
];

/// The folder of a built-in collection, relative to `$BRAIN_HOME`: `inbox/` for the inbox (where
/// `brain inbox` writes its day files, [`Home::inbox`]), `corpus/<name>` for the others.
pub fn builtin_path(name: &str) -> String {
    if name == INBOX {
        INBOX.into()
    } else {
        format!("corpus/{name}")
    }
}

/// Default glob of a collection.
pub const DEFAULT_GLOB: &str = "**/*.md";

/// How far text of a collection is trusted when shown to an agent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Trust {
    #[default]
    High,
    Medium,
    Low,
}

/// One collection: a folder of markdown files with a retrieval role.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Collection {
    /// Unique name, `[a-z0-9_-]+`.
    pub name: String,
    /// Folder: relative to `$BRAIN_HOME`, absolute, or starting with `~/`.
    pub path: String,
    /// Files of the collection under `path`.
    #[serde(default = "default_glob")]
    pub glob: String,
    /// Retrieval role (free text; `sessions`, `distilled`, `browser`, `inbox`, `notes`, …).
    #[serde(default)]
    pub role: String,
    /// Trust level.
    #[serde(default)]
    pub trust: Trust,
    /// Follow symbolic links that lead out of the collection's folder (indexing, `get`, MCP).
    /// Off by default: a link to `/etc` or `~/.ssh` inside a notes folder is neither indexed nor
    /// served.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub follow_links: bool,
}

fn default_glob() -> String {
    DEFAULT_GLOB.into()
}

/// Where `partition` writes a doc inside its collection.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Layout {
    /// `YYYY/MM/<stem>.md` from the doc's date.
    #[default]
    Month,
    /// `YYYY/<stem>.md`.
    Year,
    /// `<stem>.md`.
    Flat,
    /// The doc's own `path`, as given (made safe).
    Keep,
}

/// One partition rule: every condition given must hold.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Rule {
    /// Target collection.
    pub collection: String,
    /// `source.type` equals this.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// `source.agent` equals this.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    /// `source.file` matches this glob.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// Each frontmatter key has this value (compared as text).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub meta: BTreeMap<String, String>,
    /// File layout inside the collection.
    #[serde(default)]
    pub layout: Layout,
}

/// The `partition:` section.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Partition {
    /// Collection for a doc no rule matches.
    pub default: String,
    /// Rules, first match wins.
    #[serde(default)]
    pub rules: Vec<Rule>,
}

/// Why `brain.yaml` could not be read, written or changed.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: {source}")]
    Yaml {
        path: PathBuf,
        source: serde_norway::Error,
    },
    #[error("{path}: {reason}")]
    Nesting { path: PathBuf, reason: String },
    #[error("collection name `{0}` is not valid: use lower-case letters, digits, `-` and `_`")]
    BadName(String),
    #[error("collection `{0}` already exists")]
    Duplicate(String),
    #[error("no collection `{0}` (see `brain collection list`)")]
    Unknown(String),
    #[error(
        "partition rule {index} names collection `{collection}`, which brain.yaml does not declare"
    )]
    RuleTarget { index: usize, collection: String },
    #[error("{0}")]
    Team(String),
    #[error("projects.merge: {0}")]
    Projects(String),
    #[error("partition rule {index}: bad glob `{glob}`: {reason}")]
    BadGlob {
        index: usize,
        glob: String,
        reason: String,
    },
}

impl ConfigError {
    /// The machine's fix when `brain.yaml` could not be read or written for want of storage (a
    /// full disk, a read-only mount): not the file's fault.
    fn storage(&self) -> Option<&'static str> {
        match self {
            ConfigError::Io { source, .. } => brain_doc::storage_fault(&source.to_string()),
            _ => None,
        }
    }
}

impl brain_doc::Classified for ConfigError {
    /// Every way `brain.yaml` fails is the user's file to fix: a bad query (64); storage that
    /// fails under it is 65 with the machine's fix.
    fn code(&self) -> brain_doc::ErrorCode {
        match self.storage() {
            Some(_) => brain_doc::ErrorCode::IndexMissing,
            None => brain_doc::ErrorCode::BadQuery,
        }
    }

    fn fix(&self) -> String {
        if let Some(fix) = self.storage() {
            return fix.into();
        }
        match self {
            ConfigError::Unknown(_) => "pick a collection of `brain collection list`".into(),
            _ => "fix $BRAIN_HOME/brain.yaml (`brain doctor` says where; see docs/collections.md)"
                .into(),
        }
    }
}

/// The parsed `brain.yaml`, tied to the home it came from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Config {
    /// Format version of the file (1).
    #[serde(default = "one")]
    pub version: u32,
    /// Collections, in order.
    #[serde(default)]
    pub collections: Vec<Collection>,
    /// Partition rules.
    pub partition: Partition,
    /// The team engines and the collections shared with them (docs/team.md); none by default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub team: Option<crate::team::Team>,
    /// The embedding model when it is not the local one (docs/vectors.md); none by default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub embedder: Option<EmbedderSection>,
    /// Projects the user merged or renamed (docs/jsonl2md.md#one-project-wherever-its-sessions-ran).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub projects: Option<ProjectsSection>,
    /// Other sections (retention, …), kept as they are.
    #[serde(flatten)]
    pub other: BTreeMap<String, serde_norway::Value>,
    #[serde(skip, default = "no_home")]
    home: PathBuf,
}

fn one() -> u32 {
    1
}
fn no_home() -> PathBuf {
    PathBuf::new()
}

impl Config {
    /// The defaults: the four pipeline collections ([`BUILTIN`] at [`builtin_path`]) and rules sending sessions to
    /// `brain`, browser days to `chrome-history`, distilled artifacts to `distilled`, inbox days to
    /// `inbox`; anything else to `brain`.
    pub fn defaults(home: &Home) -> Config {
        let collections = BUILTIN
            .iter()
            .map(|(name, role, trust)| Collection {
                name: (*name).into(),
                path: builtin_path(name),
                glob: DEFAULT_GLOB.into(),
                role: (*role).into(),
                trust: *trust,
                follow_links: false,
            })
            .collect();
        let rule = |kind: &str, collection: &str, layout| Rule {
            collection: collection.into(),
            kind: Some(kind.into()),
            agent: None,
            file: None,
            meta: BTreeMap::new(),
            layout,
        };
        Config {
            version: 1,
            collections,
            partition: Partition {
                default: "brain".into(),
                rules: vec![
                    rule("session", "brain", Layout::Month),
                    rule("browser", "chrome-history", Layout::Year),
                    rule("distilled", "distilled", Layout::Month),
                    rule("inbox", "inbox", Layout::Flat),
                ],
            },
            team: None,
            embedder: None,
            projects: None,
            other: BTreeMap::new(),
            home: home.root().to_path_buf(),
        }
    }

    /// Read `brain.yaml` of `home`; a missing file gives [`Config::defaults`].
    pub fn load(home: &Home) -> Result<Config, ConfigError> {
        let _t = brain_doc::timings::span("config.load");
        let path = home.config();
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Ok(Config::defaults(home));
            }
            Err(source) => return Err(ConfigError::Io { path, source }),
        };
        brain_doc::yaml::check_nesting(&text).map_err(|reason| ConfigError::Nesting {
            path: path.clone(),
            reason,
        })?;
        let mut cfg: Config =
            serde_norway::from_str(&text).map_err(|source| ConfigError::Yaml { path, source })?;
        cfg.home = home.root().to_path_buf();
        Ok(cfg)
    }

    /// Write `brain.yaml` atomically into the home it was loaded from.
    pub fn save(&self) -> Result<(), ConfigError> {
        let path = self.home.join("brain.yaml");
        let yaml = serde_norway::to_string(self).map_err(|source| ConfigError::Yaml {
            path: path.clone(),
            source,
        })?;
        brain_doc::atomic::write(&path, yaml.as_bytes())
            .map_err(|source| ConfigError::Io { path, source })
    }

    /// Check names, rule targets and globs.
    pub fn validate(&self) -> Result<(), ConfigError> {
        for c in &self.collections {
            check_name(&c.name)?;
        }
        for (i, r) in self.partition.rules.iter().enumerate() {
            if self.collection(&r.collection).is_none() {
                return Err(ConfigError::RuleTarget {
                    index: i + 1,
                    collection: r.collection.clone(),
                });
            }
            if let Some(g) = &r.file {
                globset::Glob::new(g).map_err(|e| ConfigError::BadGlob {
                    index: i + 1,
                    glob: g.clone(),
                    reason: e.to_string(),
                })?;
            }
        }
        if self.collection(&self.partition.default).is_none() {
            return Err(ConfigError::RuleTarget {
                index: 0,
                collection: self.partition.default.clone(),
            });
        }
        if let Some(p) = &self.projects {
            p.check().map_err(ConfigError::Projects)?;
        }
        if let Some(team) = &self.team {
            team.check().map_err(ConfigError::Team)?;
            for name in &team.shared {
                if self.collection(name).is_none() {
                    return Err(ConfigError::Team(format!(
                        "team.shared names `{name}`, which brain.yaml does not declare"
                    )));
                }
            }
        }
        Ok(())
    }

    /// Whether `collection` is configured `trust: low` (its text reaches agents fenced).
    pub fn is_low_trust(&self, collection: &str) -> bool {
        self.collection(collection)
            .is_some_and(|c| c.trust == Trust::Low)
    }

    /// The collection called `name`.
    pub fn collection(&self, name: &str) -> Option<&Collection> {
        self.collections.iter().find(|c| c.name == name)
    }

    /// `name` is a collection of daily notes (role `daily`, seed 001): every block of a note is a
    /// passage of its own, wherever its words are searched (the lexical index, a team engine).
    pub fn is_daily(&self, name: &str) -> bool {
        self.collection(name)
            .is_some_and(|c| c.role == crate::para::ROLE_DAILY)
    }

    /// Every name of `names` is a collection here; the first that is not is
    /// [`ConfigError::Unknown`] (list the choices with [`Config::names`]).
    pub fn check_collections(&self, names: &[String]) -> Result<(), ConfigError> {
        match names.iter().find(|n| self.collection(n).is_none()) {
            Some(n) => Err(ConfigError::Unknown(n.clone())),
            None => Ok(()),
        }
    }

    /// The collection names, comma-separated, in declaration order.
    pub fn names(&self) -> String {
        let names: Vec<&str> = self.collections.iter().map(|c| c.name.as_str()).collect();
        names.join(", ")
    }

    /// Add a collection (a user folder referenced in place, or a new folder under the home).
    pub fn add_collection(&mut self, c: Collection) -> Result<(), ConfigError> {
        check_name(&c.name)?;
        if self.collection(&c.name).is_some() {
            return Err(ConfigError::Duplicate(c.name));
        }
        self.collections.push(c);
        Ok(())
    }

    /// Remove a collection and the partition rules that target it; returns it. Files are not touched.
    pub fn remove_collection(&mut self, name: &str) -> Result<Collection, ConfigError> {
        let i = self
            .collections
            .iter()
            .position(|c| c.name == name)
            .ok_or_else(|| ConfigError::Unknown(name.into()))?;
        self.partition.rules.retain(|r| r.collection != name);
        Ok(self.collections.remove(i))
    }

    /// The folder of collection `name`, resolved (`~/` expanded, relative paths under the home).
    pub fn collection_dir(&self, name: &str) -> Option<PathBuf> {
        self.collection(name).map(|c| self.resolve(&c.path))
    }

    /// The home folder this configuration belongs to.
    pub fn home(&self) -> &Path {
        &self.home
    }

    /// Resolve a collection path: absolute stays, `~/x` is under `$HOME`, anything else is under the home.
    pub fn resolve(&self, path: &str) -> PathBuf {
        if let Some(rest) = path.strip_prefix("~/")
            && let Some(h) = crate::home_dir()
        {
            return h.join(rest);
        }
        let p = Path::new(path);
        if p.is_absolute() {
            p.to_path_buf()
        } else {
            self.home.join(p)
        }
    }
}

/// Collection names: non-empty, `[a-z0-9_-]`, so they are safe in paths and URIs.
pub fn check_name(name: &str) -> Result<(), ConfigError> {
    let ok = !name.is_empty()
        && name.len() <= 64
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_');
    if ok {
        Ok(())
    } else {
        Err(ConfigError::BadName(name.into()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_file_means_defaults_and_save_round_trips() {
        let dir = tempfile::tempdir().expect("tempdir");
        let home = Home::at(dir.path());
        let mut cfg = Config::load(&home).expect("load");
        assert_eq!(cfg, Config::defaults(&home));
        cfg.validate().expect("defaults are valid");
        assert_eq!(
            cfg.collection_dir("brain"),
            Some(dir.path().join("corpus/brain"))
        );
        assert_eq!(cfg.collection_dir("inbox"), Some(home.inbox()));
        cfg.add_collection(Collection {
            name: "notes".into(),
            path: "/data/vault".into(),
            glob: DEFAULT_GLOB.into(),
            role: "notes".into(),
            trust: Trust::Medium,
            follow_links: false,
        })
        .expect("add");
        cfg.other.insert(
            "retention".into(),
            serde_norway::Value::String("90d".into()),
        );
        cfg.save().expect("save");
        let back = Config::load(&home).expect("reload");
        assert_eq!(back, cfg);
        assert_eq!(
            back.collection_dir("notes"),
            Some(PathBuf::from("/data/vault"))
        );
    }

    #[test]
    fn names_are_checked_and_unique() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut cfg = Config::defaults(&Home::at(dir.path()));
        let c = |name: &str| Collection {
            name: name.into(),
            path: "x".into(),
            glob: DEFAULT_GLOB.into(),
            role: String::new(),
            trust: Trust::High,
            follow_links: false,
        };
        assert!(matches!(
            cfg.add_collection(c("Bad Name")),
            Err(ConfigError::BadName(_))
        ));
        assert!(matches!(
            cfg.add_collection(c("brain")),
            Err(ConfigError::Duplicate(_))
        ));
        assert!(matches!(
            cfg.remove_collection("nope"),
            Err(ConfigError::Unknown(_))
        ));
    }

    #[test]
    fn removing_a_collection_drops_its_rules() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut cfg = Config::defaults(&Home::at(dir.path()));
        cfg.remove_collection("chrome-history").expect("remove");
        assert!(
            cfg.partition
                .rules
                .iter()
                .all(|r| r.collection != "chrome-history")
        );
        cfg.validate().expect("still valid");
    }

    #[test]
    fn project_merges_are_bounded_and_name_two_projects() {
        let merges = |pairs: Vec<(String, String)>| ProjectsSection {
            merge: pairs.into_iter().collect(),
        };
        assert!(merges(vec![("~/a".into(), "~/b".into())]).check().is_ok());
        for bad in [("~/a", "~/a"), ("", "x"), ("x", " ")] {
            let section = merges(vec![(bad.0.into(), bad.1.into())]);
            assert!(section.check().is_err(), "{bad:?}");
        }
        let many = merges(
            (0..=sections::MAX_MERGES)
                .map(|i| (format!("/p{i}"), "x".into()))
                .collect(),
        );
        assert!(many.check().is_err());
        // brain.yaml with a bad section does not validate, and says where.
        let dir = tempfile::tempdir().expect("tempdir");
        let mut cfg = Config::defaults(&Home::at(dir.path()));
        cfg.projects = Some(merges(vec![("~/a".into(), "~/a".into())]));
        let err = cfg.validate().expect_err("into itself");
        assert!(err.to_string().starts_with("projects.merge"), "{err}");
    }

    #[test]
    fn yaml_errors_name_the_file() {
        let dir = tempfile::tempdir().expect("tempdir");
        let home = Home::at(dir.path());
        std::fs::write(home.config(), "collections: [\n").expect("write");
        let err = Config::load(&home).expect_err("bad yaml");
        assert!(err.to_string().contains("brain.yaml"), "{err}");
    }
}
