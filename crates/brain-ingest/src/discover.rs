//! Finding session files and attributing subagent transcripts to their parent session.

use std::collections::{BTreeMap, HashSet};
use std::ffi::OsString;
use std::path::{Path, PathBuf};

use walkdir::WalkDir;

/// One session: its main transcript and the subagent transcripts that belong to it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionFiles {
    /// The session's own file (`<id>.jsonl`, `rollout-….jsonl`, `session-….json`).
    pub main: PathBuf,
    /// Subagent transcripts with their `.meta.json` when present, sorted by path.
    pub subagents: Vec<(PathBuf, Option<PathBuf>)>,
}

/// The default transcript locations of the three agents under `home`.
pub fn default_roots(home: &Path) -> Vec<PathBuf> {
    [".claude/projects", ".codex/sessions", ".gemini/tmp"]
        .iter()
        .map(|p| home.join(p))
        .filter(|p| p.exists())
        .collect()
}

/// Walk `roots` (files or folders) and group session files. Returns the sessions in path (byte) order — the
/// map sorts them, so the walk itself need not — and the
/// paths that could not be read (missing, permission denied).
pub fn discover(roots: &[PathBuf]) -> (Vec<SessionFiles>, Vec<(PathBuf, String)>) {
    let mut errors = Vec::new();
    // Keyed by the raw OS string: byte order and byte hashing, much cheaper than `Path`'s
    // component-wise comparison (which dominated a 10,000-file `--new` run).
    let mut mains: BTreeMap<OsString, Vec<(PathBuf, Option<PathBuf>)>> = BTreeMap::new();
    let mut agents: Vec<PathBuf> = Vec::new();
    let mut seen: HashSet<OsString> = HashSet::new();
    for root in roots {
        if !root.exists() {
            errors.push((root.clone(), "no such file or folder".into()));
            continue;
        }
        for entry in WalkDir::new(root).follow_links(true) {
            let entry = match entry {
                Ok(e) => e,
                Err(e) => {
                    let p = e
                        .path()
                        .map(Path::to_path_buf)
                        .unwrap_or_else(|| root.clone());
                    errors.push((p, e.to_string()));
                    continue;
                }
            };
            if !entry.file_type().is_file() {
                continue;
            }
            let p = entry.into_path();
            if !seen.insert(p.as_os_str().to_owned()) {
                continue;
            }
            match classify(&p) {
                Kind::Main => {
                    mains.entry(p.into_os_string()).or_default();
                }
                Kind::Agent => agents.push(p),
                Kind::Other => {}
            }
        }
    }
    // Subagents whose parent is not among the inputs, by the parent file they name.
    let mut orphans: BTreeMap<OsString, Vec<PathBuf>> = BTreeMap::new();
    for agent in agents {
        let meta = agent.with_extension("meta.json");
        let meta = meta.exists().then_some(meta);
        match parent_of(&agent) {
            Some(parent) if mains.contains_key(parent.as_os_str()) => {
                if let Some(list) = mains.get_mut(parent.as_os_str()) {
                    list.push((agent, meta));
                }
            }
            Some(parent) => orphans
                .entry(parent.into_os_string())
                .or_default()
                .push(agent),
            // No recoverable parent: it stands alone rather than being lost.
            None => {
                mains.entry(agent.into_os_string()).or_default();
            }
        }
    }
    // The orphans of one absent parent are one session: the first transcript reads as the main,
    // the others as its subagents (conversion names the document by the parent's session id).
    for (_, mut group) in orphans {
        group.sort();
        let mut it = group.into_iter();
        if let Some(first) = it.next() {
            let rest = it
                .map(|a| {
                    let meta = a.with_extension("meta.json");
                    let meta = meta.exists().then_some(meta);
                    (a, meta)
                })
                .collect();
            mains.insert(first.into_os_string(), rest);
        }
    }
    let sessions = mains
        .into_iter()
        .map(|(main, mut subagents)| {
            subagents.sort();
            SessionFiles {
                main: PathBuf::from(main),
                subagents,
            }
        })
        .collect();
    (sessions, errors)
}

enum Kind {
    Main,
    Agent,
    Other,
}

fn classify(p: &Path) -> Kind {
    let name = p
        .file_name()
        .map(|n| n.to_string_lossy())
        .unwrap_or_default();
    let under_subagents = p.parent().is_some_and(|d| {
        let d = d.as_os_str().as_encoded_bytes();
        d.ends_with(b"/subagents") || memchr::memmem::find(d, b"/subagents/").is_some()
    });
    if name.starts_with("agent-") && name.ends_with(".jsonl") {
        return Kind::Agent;
    }
    if under_subagents || name.ends_with(".meta.json") {
        return Kind::Other;
    }
    if name.ends_with(".jsonl") || name.ends_with(".json") {
        Kind::Main
    } else {
        Kind::Other
    }
}

/// The parent session file of a subagent transcript: `<dir>/<session>/subagents/**/agent-X.jsonl` →
/// `<dir>/<session>.jsonl`; `<dir>/agent-X.jsonl` → `<dir>/<sessionId>.jsonl` (from its first line).
/// How much of a subagent transcript is read for its `sessionId` (it is on every line; a first line
/// holding a whole pasted file can be long).
const SESSION_ID_BYTES: u64 = 256 * 1024;

fn parent_of(agent: &Path) -> Option<PathBuf> {
    let comps: Vec<_> = agent.ancestors().collect();
    for (i, a) in comps.iter().enumerate() {
        if a.file_name().is_some_and(|n| n == "subagents") {
            let session_dir = comps.get(i + 1)?;
            let name = session_dir.file_name()?.to_string_lossy().into_owned();
            return Some(session_dir.with_file_name(format!("{name}.jsonl")));
        }
    }
    let id = session_id_of(agent)?;
    if id.is_empty() || id.contains('/') || id.contains("..") {
        return None;
    }
    Some(agent.with_file_name(format!("{id}.jsonl")))
}

/// The `sessionId` of a transcript: from the first of its first 20 lines that carries one, read as
/// conversion reads it (a BOM or UTF-16 decoded, a garbage first line passed over). Only the first
/// [`SESSION_ID_BYTES`] are read: discovery must not read a long transcript twice.
fn session_id_of(p: &Path) -> Option<String> {
    use std::io::Read;
    let mut bytes = Vec::new();
    std::fs::File::open(p)
        .ok()?
        .take(SESSION_ID_BYTES)
        .read_to_end(&mut bytes)
        .ok()?;
    let text = crate::lines::decode(&bytes);
    crate::lines::split(&text).take(20).find_map(|(_, raw)| {
        let v: serde_json::Value = serde_json::from_slice(raw).ok()?;
        Some(v.get("sessionId")?.as_str()?.to_string())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_subagent_layouts_attach_to_their_parent() {
        let d = tempfile::tempdir().expect("tempdir");
        let p = d.path();
        std::fs::write(p.join("s1.jsonl"), "{}\n").expect("w");
        std::fs::write(p.join("agent-a.jsonl"), "{\"sessionId\":\"s1\"}\n").expect("w");
        std::fs::write(p.join("agent-orphan.jsonl"), "{\"sessionId\":\"gone\"}\n").expect("w");
        std::fs::create_dir_all(p.join("s2/subagents/wf")).expect("mkdir");
        std::fs::write(p.join("s2.jsonl"), "{}\n").expect("w");
        std::fs::write(p.join("s2/subagents/wf/agent-b.jsonl"), "{}\n").expect("w");
        std::fs::write(p.join("s2/subagents/wf/agent-b.meta.json"), "{}").expect("w");
        std::fs::write(p.join("s2/subagents/wf/journal.jsonl"), "{}\n").expect("w");
        let (sessions, errors) = discover(&[p.to_path_buf()]);
        assert!(errors.is_empty());
        let mains: Vec<_> = sessions
            .iter()
            .map(|s| {
                s.main
                    .file_name()
                    .expect("name")
                    .to_string_lossy()
                    .into_owned()
            })
            .collect();
        assert_eq!(mains, vec!["agent-orphan.jsonl", "s1.jsonl", "s2.jsonl"]);
        assert_eq!(sessions[1].subagents, vec![(p.join("agent-a.jsonl"), None)]);
        assert_eq!(
            sessions[2].subagents,
            vec![(
                p.join("s2/subagents/wf/agent-b.jsonl"),
                Some(p.join("s2/subagents/wf/agent-b.meta.json"))
            )]
        );
    }
}
