//! Consolidation: each extracted record against the records already written for its subject —
//! ADD (a new key), SUPERSEDE (same key, newer: the old record stays, hidden, `--as-of` shows it),
//! NOOP (the same record, or a near-duplicate of a current one), CONFLICT (same key, same day,
//! another session saying otherwise: both kept, the new one says it `contradicts` the other, which
//! doctor, the briefing and `brain context` show). Read from the record files themselves, so a
//! record edited, archived (`brain forget`) or deleted by hand counts as it now is.

use std::collections::{BTreeMap, HashSet};
use std::path::Path;

use brain_doc::markdown;
use serde::Serialize;
use serde_json::Value;

use super::record::Extracted;

/// Word-set similarity at or above which two statements are one (our choice: a record that
/// changes a word or two of a current one adds nothing).
pub const SAME: f64 = 0.8;

/// What became of one extracted record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Decision {
    Add,
    Supersede,
    Noop,
    Conflict,
}

impl Decision {
    pub fn name(self) -> &'static str {
        match self {
            Decision::Add => "add",
            Decision::Supersede => "supersede",
            Decision::Noop => "noop",
            Decision::Conflict => "conflict",
        }
    }
}

/// A record already written.
#[derive(Debug, Clone)]
pub struct Existing {
    pub id: String,
    pub keyed: bool,
    pub occurred_at: String,
    pub session: String,
    pub statement: String,
    pub supersedes: Vec<String>,
    pub archived: bool,
}

/// The written records by subject.
#[derive(Debug, Default)]
pub struct Known {
    by_subject: BTreeMap<String, Vec<Existing>>,
    ids: HashSet<String>,
    /// Where the records are (`records/`), their collection and path in it: folders are read
    /// when a record of theirs is decided ([`Known::load`]).
    root: Option<(std::path::PathBuf, String, String)>,
    loaded: HashSet<std::path::PathBuf>,
}

impl Known {
    /// The records under `dir` (collection `collection`, `prefix` its path inside the
    /// collection), read one subject's folder at a time as records of it are decided: a run that
    /// decides a few records reads those few folders, not every record written before.
    pub fn lazy(dir: &Path, collection: &str, prefix: &str) -> Known {
        Known {
            root: Some((
                dir.to_path_buf(),
                collection.to_string(),
                prefix.to_string(),
            )),
            ..Known::default()
        }
    }

    /// Read every record file under `dir` (collection `collection`, `prefix` its path inside the
    /// collection); a file that does not read is skipped (`warn`).
    pub fn read(dir: &Path, collection: &str, prefix: &str, warn: &dyn Fn(String)) -> Known {
        let mut k = Known::lazy(dir, collection, prefix);
        k.load_folder(dir, warn);
        k
    }

    /// Read the folder of the record at `rel` (its path under the records folder), once.
    pub fn load(&mut self, rel: &str, warn: &dyn Fn(String)) {
        let Some((dir, _, _)) = &self.root else {
            return;
        };
        let folder = match rel.rsplit_once('/') {
            Some((f, _)) => dir.join(f),
            None => dir.clone(),
        };
        if self.loaded.insert(folder.clone()) {
            self.load_folder(&folder, warn);
        }
    }

    /// Read every record file under `folder`.
    fn load_folder(&mut self, folder: &Path, warn: &dyn Fn(String)) {
        let Some((dir, collection, prefix)) = self.root.clone() else {
            return;
        };
        for e in walkdir::WalkDir::new(folder)
            .sort_by_file_name()
            .into_iter()
            .filter_map(Result::ok)
            .filter(|e| e.file_type().is_file())
            .filter(|e| e.path().extension().is_some_and(|x| x == "md"))
        {
            let Ok(rel) = e.path().strip_prefix(&dir) else {
                continue;
            };
            let id = format!(
                "{collection}/{prefix}/{}",
                rel.to_string_lossy().replace('\\', "/")
            );
            if self.ids.contains(&id) {
                continue;
            }
            let text = match std::fs::read_to_string(e.path()) {
                Ok(t) => t,
                Err(err) => {
                    warn(format!("{}: {err}", e.path().display()));
                    continue;
                }
            };
            let Ok((Some(fm), body)) = markdown::split(&text) else {
                warn(format!(
                    "{}: no frontmatter; not a record",
                    e.path().display()
                ));
                continue;
            };
            let s = |f: &str| fm.get(f).and_then(Value::as_str).unwrap_or("").to_string();
            let subject = s("subject");
            if subject.is_empty() {
                continue;
            }
            // The memory fields are read by their one reader (as the index reads them).
            let memory = brain_doc::memory::Memory::read(&fm, None).0;
            self.add(
                subject,
                Existing {
                    id,
                    keyed: fm.contains_key("key"),
                    occurred_at: s("occurred_at"),
                    session: s("from_session"),
                    statement: body
                        .lines()
                        .next()
                        .unwrap_or("")
                        .trim_start_matches('\\')
                        .to_string(),
                    supersedes: memory.supersedes,
                    archived: memory.status == brain_doc::memory::Status::Archived,
                },
            );
        }
    }

    /// Count a record written now (later records of the run see it).
    pub fn add(&mut self, subject: String, e: Existing) {
        self.ids.insert(e.id.clone());
        self.by_subject.entry(subject).or_default().push(e);
    }

    /// Whether a record of this id is written.
    pub fn has(&self, id: &str) -> bool {
        self.ids.contains(id)
    }

    /// The current records of `subject`, as the index will see them: not archived, not listed in
    /// another's `supersedes`, and — when keyed — not outdated by a later keyed record.
    pub fn current(&self, subject: &str) -> Vec<&Existing> {
        let Some(all) = self.by_subject.get(subject) else {
            return Vec::new();
        };
        let replaced: HashSet<&str> = all
            .iter()
            .flat_map(|e| e.supersedes.iter().map(String::as_str))
            .collect();
        let newest_keyed = all
            .iter()
            .filter(|e| e.keyed && !e.archived)
            .map(|e| e.occurred_at.as_str())
            .max();
        all.iter()
            .filter(|e| !e.archived && !replaced.contains(e.id.as_str()))
            .filter(|e| !e.keyed || Some(e.occurred_at.as_str()) >= newest_keyed)
            .collect()
    }
}

/// Lower-case words of `s` (letters and digits).
fn words(s: &str) -> HashSet<String> {
    s.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// Jaccard similarity of the word sets of `a` and `b` (1 for two empty statements).
pub fn similarity(a: &str, b: &str) -> f64 {
    let (a, b) = (words(a), words(b));
    if a.is_empty() && b.is_empty() {
        return 1.0;
    }
    a.intersection(&b).count() as f64 / a.union(&b).count() as f64
}

/// Whether two statements of one subject say the same thing: at least half of the words that
/// carry meaning (not the cue's "let's use", not "the", [`super::said::content_words`]) shared —
/// "let's use pnpm for run 3" and "ok, use pnpm for run 4" agree; "use postgres for the registry"
/// and "use sqlite for the registry" do not.
pub fn agree(a: &str, b: &str) -> bool {
    let set = |s: &str| -> HashSet<String> {
        super::said::content_words(s, usize::MAX)
            .into_iter()
            .collect()
    };
    let (a, b) = (set(a), set(b));
    let union = a.union(&b).count();
    union > 0 && a.intersection(&b).count() * 2 >= union
}

/// What to do with `e` (from `session`) of `subject`, written at `id`: the decision, why, and
/// the ids it names (those it supersedes, or the one it contradicts, or the one it repeats).
pub fn decide(
    known: &Known,
    subject: &str,
    id: &str,
    e: &Extracted,
    session: &str,
) -> (Decision, String, Vec<String>) {
    if known.has(id) {
        return (
            Decision::Noop,
            "already extracted (the same session, key and statement)".into(),
            vec![id.to_string()],
        );
    }
    let current = known.current(subject);
    if current.is_empty() {
        return (Decision::Add, format!("new key {subject}"), Vec::new());
    }
    if let Some((c, sim)) = current
        .iter()
        .map(|c| (c, similarity(&c.statement, &e.statement)))
        .find(|(_, s)| *s >= SAME)
    {
        return (
            Decision::Noop,
            format!("a near-duplicate of {} (similarity {sim:.2})", c.id),
            vec![c.id.clone()],
        );
    }
    let newest = current
        .iter()
        .max_by(|a, b| a.occurred_at.cmp(&b.occurred_at).then(a.id.cmp(&b.id)))
        .copied();
    let Some(newest) = newest else {
        return (Decision::Add, format!("new key {subject}"), Vec::new());
    };
    let day = |s: &str| s.get(..10).unwrap_or(s).to_string();
    let ids: Vec<String> = current.iter().map(|c| c.id.clone()).collect();
    // Two failures or rejections of one subject on one day are history, not a contradiction.
    let claims = matches!(e.kind.as_str(), "decision" | "fact" | "preference");
    if claims && day(&e.occurred_at) == day(&newest.occurred_at) && newest.session != session {
        // Two sessions of one day that choose the same thing in other words agree.
        if agree(&newest.statement, &e.statement) {
            return (
                Decision::Noop,
                format!("agrees with {} (same key and day)", newest.id),
                vec![newest.id.clone()],
            );
        }
        return (
            Decision::Conflict,
            format!(
                "same key and day as {}, from another session, saying otherwise",
                newest.id
            ),
            vec![newest.id.clone()],
        );
    }
    if e.occurred_at.as_str() >= newest.occurred_at.as_str() {
        return (
            Decision::Supersede,
            format!("newer than the current record(s) of {subject}"),
            ids,
        );
    }
    (
        Decision::Add,
        format!(
            "older than the current {}: kept as history (hidden by it; --as-of shows it)",
            newest.id
        ),
        Vec::new(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ex(statement: &str, at: &str) -> Extracted {
        Extracted {
            kind: "decision".into(),
            key: "db.engine".into(),
            statement: statement.into(),
            occurred_at: at.into(),
            refs: vec![],
            error: None,
            confidence: 0.9,
            line: 1,
        }
    }

    fn existing(id: &str, statement: &str, at: &str, session: &str) -> Existing {
        Existing {
            id: id.into(),
            keyed: true,
            occurred_at: at.into(),
            session: session.into(),
            statement: statement.into(),
            supersedes: vec![],
            archived: false,
        }
    }

    #[test]
    fn the_four_decisions() {
        let mut k = Known::default();
        let s = "api:db.engine";
        let e = ex("Use SQLite for the registry", "2026-01-02");
        assert_eq!(decide(&k, s, "r/1", &e, "s1").0, Decision::Add);
        k.add(
            s.into(),
            existing("r/1", "Use SQLite for the registry", "2026-01-02", "s1"),
        );
        assert_eq!(decide(&k, s, "r/1", &e, "s1").0, Decision::Noop);
        assert_eq!(
            decide(
                &k,
                s,
                "r/2",
                &ex("use sqlite for the registry!", "2026-02-01"),
                "s2"
            )
            .0,
            Decision::Noop
        );
        assert_eq!(
            decide(
                &k,
                s,
                "r/3",
                &ex("Postgres replaces SQLite", "2026-01-02"),
                "s3"
            )
            .0,
            Decision::Conflict
        );
        let (d, _, ids) = decide(
            &k,
            s,
            "r/4",
            &ex("Postgres replaces SQLite", "2026-03-01"),
            "s4",
        );
        assert_eq!((d, ids), (Decision::Supersede, vec!["r/1".to_string()]));
        let (d, why, _) = decide(&k, s, "r/5", &ex("MySQL at first", "2025-12-01"), "s0");
        assert_eq!(d, Decision::Add);
        assert!(why.contains("history"), "{why}");
        // The same choice in other words from another session of that day agrees: no conflict.
        assert_eq!(
            decide(
                &k,
                s,
                "r/6",
                &ex("ok, use sqlite for the registry", "2026-01-02"),
                "s6"
            )
            .0,
            Decision::Noop
        );
        assert!(agree("let's use pnpm for run 3", "ok, use pnpm for run 4"));
        assert!(!agree(
            "use postgres for the registry",
            "use sqlite for the registry"
        ));
        // Superseded by a later keyed record: only the newest is current.
        k.add(
            s.into(),
            existing("r/4", "Postgres replaces SQLite", "2026-03-01", "s4"),
        );
        let cur: Vec<&str> = k.current(s).iter().map(|e| e.id.as_str()).collect();
        assert_eq!(cur, ["r/4"]);
    }
}
