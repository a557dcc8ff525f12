//! The index queue: documents a run has been given but not yet committed (issue 37). The fast
//! clock must never drop a session: a stdin run writes each record it is given here before it
//! indexes it, and a run that cannot get the index lock in time leaves its records here instead
//! of giving up. Every writer's run ([`crate::Indexer::finish`]) reads the queue, indexes what it
//! holds in the same commit, and then takes out what it read ([`take`]) — so a record is in the
//! index, or in the queue, from the moment a run reads it, whatever kills the run. The queue's
//! lock is held only to read and to take out, never across the commit: what a hook queues while a
//! long run commits (a rebuild's merge takes minutes) stays for the next writer.
//!
//! `state/lexindex-queue.ndjson`, one JSON object a line: `{"collection", "path"}` for a record
//! whose file is on disk (the file is indexed as it is when the queue is drained; a file gone by
//! then — deleted, purged — is dropped), or `{"collection", "doc"}` with the whole record for one
//! that is not. Appends and the drain take `locks/lexindex-queue.lock`.

use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::time::Duration;

use brain_doc::Doc;
use brain_store::{Home, Lock, LockError};
use serde::{Deserialize, Serialize};

/// The queue file's name under `state/`.
pub const FILE: &str = "lexindex-queue.ndjson";

/// How long an append or a drain waits for the queue's own lock (held only while a line is
/// appended, or while a run drains and commits).
pub const LOCK_WAIT: Duration = Duration::from_secs(30);

/// One queued record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    /// The collection the record belongs to.
    pub collection: String,
    /// Its path inside the collection, when its file is on disk.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// The whole record, when its file is not on disk.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub doc: Option<Box<Doc>>,
}

impl Entry {
    /// The id (`collection/path`) the entry indexes.
    pub fn id(&self) -> String {
        let path = match (&self.path, &self.doc) {
            (Some(p), _) => p.as_str(),
            (None, Some(d)) => d.path.as_str(),
            (None, None) => "",
        };
        format!("{}/{path}", self.collection)
    }
}

impl Entry {
    /// The entry for `doc` (collection: its own, else `default_collection`; `None` without one):
    /// a reference when its file is on disk under `config`, the whole record otherwise.
    pub fn for_doc(
        config: &brain_store::Config,
        doc: &Doc,
        default_collection: Option<&str>,
    ) -> Option<Entry> {
        let collection = doc
            .collection
            .as_deref()
            .or(default_collection)?
            .to_string();
        let on_disk = config
            .collection_dir(&collection)
            .is_some_and(|dir| dir.join(&doc.path).is_file());
        Some(if on_disk {
            Entry {
                collection,
                path: Some(doc.path.clone()),
                doc: None,
            }
        } else {
            Entry {
                collection,
                path: None,
                doc: Some(Box::new(doc.clone())),
            }
        })
    }
}

/// The queue file of `home`.
pub fn path(home: &Home) -> PathBuf {
    home.state_file(FILE)
}

/// Take the queue's lock.
pub fn lock(home: &Home) -> Result<Lock, LockError> {
    Lock::acquire_within(&home.lock_file("lexindex-queue"), LOCK_WAIT)
}

/// Append `entries` to the queue (file 0600, created as needed), under its lock; `durable`: fsync
/// too (a process killed after the write loses nothing either way; a power cut may without it).
pub fn append(home: &Home, entries: &[Entry], durable: bool) -> std::io::Result<()> {
    if entries.is_empty() {
        return Ok(());
    }
    let _lock = lock(home).map_err(std::io::Error::other)?;
    use std::os::unix::fs::OpenOptionsExt;
    let file = path(home);
    let annotate =
        |e: std::io::Error| std::io::Error::new(e.kind(), format!("{}: {e}", file.display()));
    if let Some(dir) = file.parent() {
        std::fs::create_dir_all(dir).map_err(annotate)?;
    }
    let mut text = Vec::new();
    for e in entries {
        serde_json::to_writer(&mut text, e).map_err(std::io::Error::other)?;
        text.push(b'\n');
    }
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .open(&file)
        .map_err(annotate)?;
    f.write_all(&text).map_err(annotate)?;
    if durable {
        f.sync_data().map_err(annotate)?;
    }
    Ok(())
}

/// What the queue holds (lines that do not read are skipped and counted).
pub fn read(home: &Home) -> std::io::Result<(Vec<Entry>, usize)> {
    Ok(parse(&read_bytes(home)?))
}

/// The queue file's bytes (empty when there is none).
pub fn read_bytes(home: &Home) -> std::io::Result<Vec<u8>> {
    match std::fs::read(path(home)) {
        Ok(b) => Ok(b),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
        Err(e) => Err(e),
    }
}

/// The entries of queue bytes, and how many lines are not entries.
pub fn parse(bytes: &[u8]) -> (Vec<Entry>, usize) {
    let mut entries = Vec::new();
    let mut bad = 0;
    for line in bytes.split(|&b| b == b'\n') {
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match serde_json::from_slice::<Entry>(line) {
            Ok(e) => entries.push(e),
            Err(_) => bad += 1,
        }
    }
    (entries, bad)
}

/// Take out of the queue the bytes `drained` that a run read from it ([`read_bytes`]) and has
/// committed, keeping whatever was appended since. Appends only add to the end, so the file still
/// starts with `drained` unless a purge rewrote it ([`forget`]); then it is left whole (what the
/// run indexed is indexed again, unchanged, by the next run). Returns how many bytes stay.
pub fn take(home: &Home, drained: &[u8]) -> std::io::Result<usize> {
    if drained.is_empty() {
        return Ok(read_bytes(home)?.len());
    }
    let _lock = lock(home).map_err(std::io::Error::other)?;
    let now = read_bytes(home)?;
    let Some(rest) = now.strip_prefix(drained) else {
        return Ok(now.len());
    };
    if rest.is_empty() {
        match std::fs::remove_file(path(home)) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
        }
    } else {
        brain_doc::atomic::write(&path(home), rest)?;
    }
    Ok(rest.len())
}

/// Every doc record of `reader` (NDJSON) appended to the queue, durably, for the next run of any
/// writer (what a stdin run does when another run holds the index past its wait). Records that
/// do not read, or have no collection, go to `warn`. Returns how many were queued.
pub fn enqueue_records(
    home: &Home,
    config: &brain_store::Config,
    reader: impl BufRead,
    default_collection: Option<&str>,
    warn: &dyn Fn(String),
) -> std::io::Result<usize> {
    let mut entries = Vec::new();
    for item in brain_doc::ndjson::Reader::<_, Doc>::new(reader, "<stdin>") {
        match item? {
            Ok(doc) => match Entry::for_doc(config, &doc, default_collection) {
                Some(e) => entries.push(e),
                None => warn(format!(
                    "<stdin>: doc `{}` has no collection (pipe it through `partition`, or pass --collection)",
                    doc.id
                )),
            },
            Err(e) => warn(e.to_string()),
        }
    }
    append(home, &entries, true)?;
    Ok(entries.len())
}

/// Remove every entry of `id` (a purged record: no copy of its text may stay in the queue).
pub fn forget(home: &Home, id: &str) -> std::io::Result<usize> {
    let _lock = lock(home).map_err(std::io::Error::other)?;
    let (entries, _) = read(home)?;
    let keep: Vec<Entry> = entries.iter().filter(|e| e.id() != id).cloned().collect();
    let gone = entries.len() - keep.len();
    if gone > 0 {
        let mut text = Vec::new();
        for e in &keep {
            serde_json::to_writer(&mut text, e).map_err(std::io::Error::other)?;
            text.push(b'\n');
        }
        brain_doc::atomic::write(&path(home), &text)?;
    }
    Ok(gone)
}
