//! The `identity` check and its repair: one conversation, one session document. A conversation is
//! a source file *and* the session id its document records; the repair moves older copies to the
//! attic, never deletes them.

use brain_store::{Config, Home};

use super::Check;
use super::state::{FEW, n};

/// Bytes of a document read for its frontmatter (the whole file when the frontmatter runs longer).
const HEAD: usize = 16 * 1024;

/// One conversation held by several session documents: what a collision looks like once `partition`
/// refuses to overwrite (e.g. a home indexed before ids named their source, where `turn-1.md` of one
/// folder was overwritten by another's and is now written again as `turn-1-<hash>.md`). A
/// conversation is its source file *and* the session id the document records ([`conversation_of`]):
/// a Cursor or OpenCode database, or an Aider history, holds many sessions in one file.
pub fn identity(home: &Home, config: Option<&Config>) -> Check {
    let Some(config) = config else {
        return Check::skip(
            "identity",
            "not checked: brain.yaml cannot be read",
            "fix the failing config check first",
        );
    };
    let (files, by_source) = transcripts(config);
    let shared: Vec<(&String, &Vec<Held>)> = by_source
        .iter()
        .filter(|(_, held)| held.len() > 1)
        .collect();
    if shared.is_empty() {
        return Check::pass(
            "identity",
            format!(
                "{}, each conversation in one session document",
                n(files.len() as u64, "file")
            ),
        );
    }
    let details = shared
        .iter()
        .take(FEW)
        .map(|(source, held)| {
            let ids: Vec<&str> = held.iter().map(|h| h.id.as_str()).collect();
            format!("{source}: {}", ids.join(", "))
        })
        .collect();
    Check::fail(
        "identity",
        format!(
            "{} held by more than one session document (copies from before ids named their source)",
            n(shared.len() as u64, "conversation")
        ),
        format!(
            "brain doctor --fix (keeps the newest document of each group and moves the others to {}/<today>/)",
            brain_store::display_path(&brain_store::attic::dir(home))
        ),
    )
    .with(details)
}

/// A session document: its id and file, and when it was last written.
pub struct Held {
    pub id: String,
    pub path: std::path::PathBuf,
    pub modified: Option<std::time::SystemTime>,
}

/// Every collection file, and the session documents of each conversation.
fn transcripts(
    config: &Config,
) -> (
    Vec<brain_store::walk::CollectionFile>,
    std::collections::BTreeMap<String, Vec<Held>>,
) {
    let files = brain_store::walk::collection_files(config, &|_| {});
    let mut by_source: std::collections::BTreeMap<String, Vec<Held>> = Default::default();
    for f in &files {
        if let Some(source) = conversation_of(&f.path) {
            by_source.entry(source).or_default().push(Held {
                id: format!("{}/{}", f.collection, f.rel),
                path: f.path.clone(),
                modified: std::fs::metadata(&f.path).and_then(|m| m.modified()).ok(),
            });
        }
    }
    (files, by_source)
}

/// The migration `brain doctor --fix` makes for [`identity`]: of the session documents one
/// conversation holds, keep the most recently written (the one today's ids name; ties: the longer
/// id, which carries the source hash) and move the others to the attic ([`brain_store::attic`]) —
/// nothing is deleted. Returns each file moved and where it went; the caller runs `lexindex --all`.
pub fn move_stale_copies(
    home: &Home,
    config: &Config,
) -> std::io::Result<Vec<(std::path::PathBuf, std::path::PathBuf)>> {
    let (_, by_source) = transcripts(config);
    let mut moved = Vec::new();
    for (_, mut held) in by_source.into_iter().filter(|(_, h)| h.len() > 1) {
        held.sort_by_key(|h| (h.modified, h.id.len()));
        held.pop();
        for h in held {
            let (collection, rel) = h.id.split_once('/').unwrap_or(("", h.id.as_str()));
            match brain_store::attic::move_aside(home, &h.path, collection, rel) {
                Ok(to) => moved.push((h.path, to)),
                // Moved by a fix running at the same time: nothing left to do here.
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(e),
            }
        }
    }
    Ok(moved)
}

/// The conversation a session document was made from: its source file, and the session id it
/// records (`session_id`) when there is one — `file#session`. `None` for other documents (a History
/// file or a session yields many day or distilled documents) and for unreadable files. One
/// conversation makes one session document; one file may hold many conversations (the stores of
/// Cursor, OpenCode and Aider).
fn conversation_of(path: &std::path::Path) -> Option<String> {
    use std::io::Read;
    let mut head = Vec::with_capacity(HEAD);
    std::fs::File::open(path)
        .ok()?
        .take(HEAD as u64)
        .read_to_end(&mut head)
        .ok()?;
    let text = brain_doc::bytes::text(&head).0;
    let doc = match brain_doc::Doc::from_markdown(&text) {
        Ok(d) => d,
        Err(brain_doc::DocError::UnclosedFrontmatter) if head.len() == HEAD => {
            brain_doc::Doc::from_markdown(&std::fs::read_to_string(path).ok()?).ok()?
        }
        Err(_) => return None,
    };
    if doc.source.kind != "session" || doc.source.file.is_empty() {
        return None;
    }
    match doc.meta.get("session_id").and_then(|v| v.as_str()) {
        Some(session) if !session.is_empty() => Some(format!("{}#{session}", doc.source.file)),
        _ => Some(doc.source.file),
    }
}
