//! Finding session files and attributing subagent transcripts to their parent session.

use std::collections::{BTreeMap, HashSet};
use std::ffi::OsString;
use std::path::{Path, PathBuf};

use walkdir::WalkDir;

/// A store that holds many conversations (issue #26), read by its own reader ([`crate::many`]).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Store {
    /// A Cursor IDE `User` folder: its global `state.vscdb` and its workspaces' (either may be
    /// absent: a workspace folder given by itself).
    CursorIde {
        globals: Vec<PathBuf>,
        workspaces: Vec<PathBuf>,
    },
    /// A cursor-agent CLI `store.db`.
    CursorAgent(PathBuf),
    /// An OpenCode `opencode.db`.
    OpenCodeDb(PathBuf),
    /// An OpenCode `storage/` tree (the folder holding `message/` and `part/`).
    OpenCodeTree(PathBuf),
    /// An Aider `.aider.chat.history.md`.
    Aider(PathBuf),
}

impl Store {
    /// The files it is read from (what `--new` compares).
    pub fn files(&self) -> Vec<PathBuf> {
        match self {
            Store::CursorIde {
                globals,
                workspaces,
            } => {
                let mut v: Vec<PathBuf> = globals.clone();
                v.extend(workspaces.iter().filter(|w| !globals.contains(w)).cloned());
                // A database's newest writes may sit in its WAL.
                let wal: Vec<PathBuf> = v.iter().map(|p| with_suffix(p, "-wal")).collect();
                v.extend(wal);
                v
            }
            Store::CursorAgent(p) | Store::OpenCodeDb(p) => vec![p.clone(), with_suffix(p, "-wal")],
            Store::Aider(p) => vec![p.clone()],
            Store::OpenCodeTree(root) => {
                let mut v: Vec<PathBuf> = WalkDir::new(root)
                    .into_iter()
                    .flatten()
                    .filter(|e| e.file_type().is_file())
                    .map(|e| e.into_path())
                    .collect();
                v.sort();
                v
            }
        }
    }

    /// The key of its entries in the `--new` state (a path).
    pub fn key(&self) -> String {
        match self {
            Store::CursorIde {
                globals,
                workspaces,
            } => globals
                .first()
                .or(workspaces.first())
                .map(|p| p.display().to_string())
                .unwrap_or_default(),
            Store::CursorAgent(p)
            | Store::OpenCodeDb(p)
            | Store::OpenCodeTree(p)
            | Store::Aider(p) => p.display().to_string(),
        }
    }
}

impl Store {
    /// What kind of store it is, singular and plural (`brain doctor` counts them).
    pub fn kind(&self) -> (&'static str, &'static str) {
        match self {
            Store::CursorIde { .. } => ("Cursor IDE folder", "Cursor IDE folders"),
            Store::CursorAgent(_) => ("cursor-agent database", "cursor-agent databases"),
            Store::OpenCodeDb(_) => ("OpenCode database", "OpenCode databases"),
            Store::OpenCodeTree(_) => ("OpenCode storage tree", "OpenCode storage trees"),
            Store::Aider(_) => ("Aider history", "Aider histories"),
        }
    }
}

/// `stores` counted by kind: `["2 OpenCode databases", "1 OpenCode storage tree"]`; a Cursor IDE
/// folder says how many global and workspace databases it has.
pub fn count_kinds(stores: &[Store]) -> Vec<String> {
    let mut counts: Vec<((&str, &str), usize)> = Vec::new();
    let mut out = Vec::new();
    for s in stores {
        if let Store::CursorIde {
            globals,
            workspaces,
        } = s
        {
            let w = workspaces.iter().filter(|w| !globals.contains(w)).count();
            out.push(format!(
                "Cursor IDE: {} global, {w} workspace database{}",
                globals.len(),
                if w == 1 { "" } else { "s" }
            ));
            continue;
        }
        match counts.iter_mut().find(|(k, _)| *k == s.kind()) {
            Some((_, n)) => *n += 1,
            None => counts.push((s.kind(), 1)),
        }
    }
    for ((one, many), n) in counts {
        out.push(format!("{n} {}", if n == 1 { one } else { many }));
    }
    out
}

fn with_suffix(p: &Path, suffix: &str) -> PathBuf {
    let mut s = p.as_os_str().to_owned();
    s.push(suffix);
    PathBuf::from(s)
}

/// Everything a walk found.
#[derive(Debug, Default)]
pub struct Found {
    pub sessions: Vec<SessionFiles>,
    pub stores: Vec<Store>,
    pub errors: Vec<(PathBuf, String)>,
}

/// One session: its main transcript and the subagent transcripts that belong to it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionFiles {
    /// The session's own file (`<id>.jsonl`, `rollout-….jsonl`, `session-….json`).
    pub main: PathBuf,
    /// Subagent transcripts with their `.meta.json` when present, sorted by path.
    pub subagents: Vec<(PathBuf, Option<PathBuf>)>,
}

/// Where each agent keeps its sessions by default, under a home folder, on Linux, macOS and
/// Windows (`AppData`) alike: `(agent, folder)`. What `jsonl2md` reads without arguments and
/// `brain doctor` reports.
pub const DEFAULT_PLACES: [(&str, &str); 12] = [
    ("claude", ".claude/projects"),
    ("codex", ".codex/sessions"),
    ("gemini", ".gemini/tmp"),
    ("cursor", ".cursor/chats"),
    ("cursor", ".cursor/projects"),
    ("cursor", ".config/Cursor/User"),
    ("cursor", "Library/Application Support/Cursor/User"),
    ("cursor", "AppData/Roaming/Cursor/User"),
    ("opencode", ".local/share/opencode"),
    ("opencode", "Library/Application Support/opencode"),
    ("opencode", "AppData/Local/opencode"),
    ("aider", ".aider.chat.history.md"),
];

/// Folders one level under which an `.aider.chat.history.md` is looked for (Aider writes one per
/// repository, none in a place of its own): `~`, `~/code`, `~/src` (see [`aider_histories`]).
const AIDER_PARENTS: [&str; 3] = ["", "code", "src"];

/// The `.aider.chat.history.md` files of the repositories directly under `~`, `~/code`, `~/src`.
pub fn aider_histories(home: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for parent in AIDER_PARENTS {
        let dir = home.join(parent);
        let direct = dir.join(".aider.chat.history.md");
        if direct.is_file() && !out.contains(&direct) {
            out.push(direct);
        }
        let Ok(rd) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut subs: Vec<PathBuf> = rd
            .flatten()
            .map(|e| e.path().join(".aider.chat.history.md"))
            .filter(|p| p.is_file())
            .collect();
        subs.sort();
        out.extend(subs);
    }
    out
}

/// The default transcript locations of every agent under `home` (those that exist): the places
/// of [`DEFAULT_PLACES`], and the Aider histories of [`aider_histories`].
pub fn default_roots(home: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = DEFAULT_PLACES
        .iter()
        .filter(|(agent, _)| *agent != "aider")
        .map(|(_, p)| home.join(p))
        .filter(|p| p.exists())
        .collect();
    out.extend(aider_histories(home));
    out
}

/// What one default place holds (`brain doctor`'s agents check).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Census {
    pub agent: &'static str,
    pub path: PathBuf,
    /// Transcripts (one session each).
    pub transcripts: usize,
    /// Stores of many conversations, counted by kind ([`count_kinds`]).
    pub stores: Vec<String>,
}

/// Every default place of every agent under `home` that exists, with what is in it — found by
/// the same walk `jsonl2md` makes, without reading a conversation.
pub fn census(home: &Path) -> Vec<Census> {
    let mut out = Vec::new();
    for (agent, place) in DEFAULT_PLACES.iter().filter(|(a, _)| *a != "aider") {
        let path = home.join(place);
        if !path.exists() {
            continue;
        }
        let found = discover_all(std::slice::from_ref(&path));
        out.push(Census {
            agent,
            transcripts: found.sessions.len(),
            stores: count_kinds(&found.stores),
            path,
        });
    }
    for path in aider_histories(home) {
        out.push(Census {
            agent: "aider",
            transcripts: 0,
            stores: count_kinds(&[Store::Aider(path.clone())]),
            path,
        });
    }
    out
}

/// Walk `roots` (files or folders) and group session files. Returns the sessions in path (byte) order — the
/// map sorts them, so the walk itself need not — and the
/// paths that could not be read (missing, permission denied).
pub fn discover(roots: &[PathBuf]) -> (Vec<SessionFiles>, Vec<(PathBuf, String)>) {
    let f = discover_all(roots);
    (f.sessions, f.errors)
}

/// [`discover`], with the stores of many conversations (Cursor, OpenCode, Aider) it found.
pub fn discover_all(roots: &[PathBuf]) -> Found {
    let mut errors = Vec::new();
    let mut cursor_dbs: Vec<PathBuf> = Vec::new();
    let mut stores: Vec<Store> = Vec::new();
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
                Kind::CursorDb => cursor_dbs.push(p),
                Kind::Store(s) => {
                    if !stores.contains(&s) {
                        stores.push(s);
                    }
                }
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
    for (globals, workspaces) in crate::cursor::ide::group(&cursor_dbs) {
        stores.push(Store::CursorIde {
            globals,
            workspaces,
        });
    }
    stores.sort();
    Found {
        sessions,
        stores,
        errors,
    }
}

enum Kind {
    Main,
    Agent,
    /// A Cursor IDE `state.vscdb` (grouped by `User` folder after the walk).
    CursorDb,
    Store(Store),
    Other,
}

/// Bytes of a markdown file read to tell an Aider history.
const AIDER_SNIFF_BYTES: u64 = 64 * 1024;

/// What a path names in the stores of Cursor, OpenCode and Aider, if anything.
fn classify_store(p: &Path, name: &str) -> Option<Kind> {
    let parent = p.parent();
    let grand = parent.and_then(Path::parent);
    let grand_name = grand
        .and_then(|d| d.file_name())
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    if name.ends_with(".vscdb") {
        return Some(Kind::CursorDb);
    }
    if name == "store.db" {
        return Some(Kind::Store(Store::CursorAgent(p.to_path_buf())));
    }
    if name == "opencode.db" {
        return Some(Kind::Store(Store::OpenCodeDb(p.to_path_buf())));
    }
    // OpenCode's tree: message/<session>/<msg>.json beside part/ (and session/, project/).
    if name.ends_with(".json") {
        let root = grand.and_then(Path::parent);
        if grand_name == "message"
            && let Some(root) = root
            && root.join("part").is_dir()
        {
            return Some(Kind::Store(Store::OpenCodeTree(root.to_path_buf())));
        }
        let in_tree = p.ancestors().skip(1).any(|a| {
            matches!(
                a.file_name().and_then(|n| n.to_str()),
                Some("part" | "session" | "project")
            ) && a.parent().is_some_and(|r| r.join("message").is_dir())
        });
        if in_tree {
            return Some(Kind::Other);
        }
    }
    // Cursor's own side files are no sessions: a store's meta.json, a workspace's workspace.json.
    let beside = |f: &str| parent.is_some_and(|d| d.join(f).exists());
    if (name == "meta.json"
        && (beside("store.db")
            || grand.is_some_and(|g| {
                g.parent()
                    .is_some_and(|c| c.file_name().is_some_and(|n| n == "chats"))
            })))
        || (name == "workspace.json" && beside("state.vscdb"))
    {
        return Some(Kind::Other);
    }
    if name == ".aider.chat.history.md" {
        return Some(Kind::Store(Store::Aider(p.to_path_buf())));
    }
    if name.ends_with(".md") {
        use std::io::Read;
        let mut head = Vec::new();
        let _ = std::fs::File::open(p).map(|f| f.take(AIDER_SNIFF_BYTES).read_to_end(&mut head));
        if crate::aider::sniff(&head) {
            return Some(Kind::Store(Store::Aider(p.to_path_buf())));
        }
        return Some(Kind::Other);
    }
    if crate::cursor::transcript::is_transcript(p) {
        return Some(if crate::cursor::transcript::is_subagent(p) {
            Kind::Agent
        } else {
            Kind::Main
        });
    }
    None
}

fn classify(p: &Path) -> Kind {
    let name = p
        .file_name()
        .map(|n| n.to_string_lossy())
        .unwrap_or_default();
    if let Some(k) = classify_store(p, &name) {
        return k;
    }
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
            // Cursor's nested layout keeps the session's transcript inside its folder.
            let inside = session_dir.join(format!("{name}.jsonl"));
            if crate::cursor::transcript::is_transcript(agent) {
                return Some(inside);
            }
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
