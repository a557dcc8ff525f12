//! doc2md's runs: files and folders → doc records (NDJSON or markdown files), and every
//! collection's documents → their kept markdown (`--collections`, what lexindex indexes).

use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::path::{Path, PathBuf};

use brain_doc::{Classified, Doc, ErrorCode};
use brain_store::{Home, documents};
use rayon::prelude::*;
use serde::Serialize;

use crate::{ConvertError, FileFacts, Kind, Limits, RenderOptions};

/// How documents are converted.
#[derive(Debug, Clone)]
pub struct Options {
    pub limits: Limits,
    /// Secrets redacted (the default).
    pub redact: bool,
    /// The program that answers [`crate::pdf::WORKER_FLAG`] (doc2md): PDFs are read in a child
    /// of it, never in this process. `None`: PDFs are refused, saying why.
    pub worker: Option<PathBuf>,
}

/// Where records go.
pub enum Sink<'a> {
    /// One doc record per line.
    Ndjson(&'a mut dyn Write),
    /// `<dir>/<id>.md` per document.
    Dir(&'a Path),
}

/// What a run did.
#[derive(Debug, Default, Clone, Serialize)]
pub struct Summary {
    pub kind: &'static str,
    pub converted: u64,
    /// Kept markdown still made from the file as it is (`--collections`).
    pub unchanged: u64,
    /// Documents that could not be converted (each named in a warning).
    pub failed: u64,
    /// Documents that ask to be left out (`brain:do-not-index`).
    pub left_out: u64,
    /// Kept markdown whose file is gone, removed (`--collections`).
    pub removed: u64,
    /// The most serious failure's class, for the exit code.
    #[serde(skip)]
    pub worst: Option<ErrorCode>,
}

impl Summary {
    /// One line for stderr.
    pub fn line(&self) -> String {
        let mut parts = vec![format!("{} converted", self.converted)];
        for (n, what) in [
            (self.unchanged, "unchanged"),
            (self.failed, "failed"),
            (self.left_out, "left out (brain:do-not-index)"),
            (self.removed, "removed (file gone)"),
        ] {
            if n > 0 {
                parts.push(format!("{n} {what}"));
            }
        }
        parts.join(", ")
    }

    fn fail(&mut self, e: &ConvertError) {
        self.failed += 1;
        let code = e.code();
        // Timeout (66) over bad input (64); an internal failure over both.
        if self.worst.is_none_or(|w| code.exit_code() > w.exit_code()) {
            self.worst = Some(code);
        }
    }
}

/// Folders are walked this deep at most.
const MAX_DEPTH: usize = 64;
/// Documents converted at once, in path order.
const CHUNK: usize = 32;

/// The doc record of the file at `path`, `None` when it asks to be left out.
pub fn convert_file(path: &Path, opts: &Options) -> Result<Option<Doc>, ConvertError> {
    let place = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let meta = std::fs::metadata(&place).map_err(ConvertError::Read)?;
    let bytes = crate::read_bounded(&place, opts.limits.max_file_bytes)?;
    let kind = Kind::of(&place, &bytes[..bytes.len().min(8)]).ok_or_else(|| {
        ConvertError::Unreadable(
            "not a document doc2md reads (PDF, HTML, DOCX or plain text by its name)".into(),
        )
    })?;
    let converted = match (&opts.worker, kind) {
        (Some(exe), Kind::Pdf) => crate::pdf::isolated(exe, &place, &opts.limits)?,
        (None, Kind::Pdf) => {
            return Err(ConvertError::Unreadable(
                "PDFs are read in a child process of doc2md, which was not found (make install puts it beside brain)".into(),
            ));
        }
        _ => crate::convert(kind, &bytes, &opts.limits)?,
    };
    let facts = FileFacts {
        path: &place,
        kind,
        sha256: brain_doc::sha256_hex(&bytes),
        mtime_secs: brain_doc::file::mtime_ns(&meta) / 1_000_000_000,
    };
    Ok(crate::render(
        &facts,
        converted,
        RenderOptions {
            redact: opts.redact,
        },
    ))
}

/// Convert every document of `inputs` (files, or folders walked for the files doc2md reads by
/// name) into `sink`, in path order. A document that fails is warned about and counted; the rest
/// are converted. Only a failing sink ends the run.
pub fn run(
    inputs: &[PathBuf],
    opts: &Options,
    sink: &mut Sink<'_>,
    warn: &dyn Fn(String),
) -> Result<Summary, ConvertError> {
    let mut summary = Summary {
        kind: "doc2md_summary",
        ..Summary::default()
    };
    let mut files = Vec::new();
    for input in inputs {
        if input.is_dir() {
            walk(input, 0, &mut files, warn);
        } else {
            files.push(input.clone());
        }
    }
    for chunk in files.chunks(CHUNK) {
        let done: Vec<_> = chunk.par_iter().map(|f| convert_file(f, opts)).collect();
        for (file, result) in chunk.iter().zip(done) {
            match result {
                Ok(Some(doc)) => {
                    write(sink, &doc).map_err(ConvertError::Output)?;
                    summary.converted += 1;
                }
                Ok(None) => summary.left_out += 1,
                Err(e) => {
                    warn(format!("{}: {e}", file.display()));
                    summary.fail(&e);
                }
            }
        }
    }
    Ok(summary)
}

fn write(sink: &mut Sink<'_>, doc: &Doc) -> std::io::Result<()> {
    match sink {
        Sink::Ndjson(out) => brain_doc::ndjson::write_line(out, doc),
        Sink::Dir(dir) => {
            std::fs::create_dir_all(&dir)?;
            brain_doc::atomic::write(
                &dir.join(format!("{}.md", doc.id)),
                doc.to_markdown().as_bytes(),
            )
        }
    }
}

/// The files under `dir` doc2md reads by name, sorted; hidden names and linked folders are not
/// entered (a link loop cannot hold the walk).
fn walk(dir: &Path, depth: usize, out: &mut Vec<PathBuf>, warn: &dyn Fn(String)) {
    if depth > MAX_DEPTH {
        warn(format!(
            "{}: deeper than {MAX_DEPTH} folders, not walked",
            dir.display()
        ));
        return;
    }
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) => return warn(format!("{}: {e}", dir.display())),
    };
    let mut entries: Vec<_> = entries.flatten().collect();
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let name = e.file_name();
        if name.to_string_lossy().starts_with('.') {
            continue;
        }
        let Ok(kind) = e.file_type() else { continue };
        let path = e.path();
        if kind.is_dir() {
            walk(&path, depth + 1, out, warn);
        } else if documents::format_of(&name.to_string_lossy()).is_some()
            && (kind.is_file() || path.is_file())
        {
            out.push(path);
        }
    }
}

/// Bring the kept markdown of every collection's documents up to date: each document file whose
/// markdown is missing or older than the file is converted (a failure is kept too, so a damaged
/// file is tried again only when it changes); kept markdown whose file is gone is removed.
pub fn collections(
    home: &Home,
    config: &brain_store::Config,
    opts: &Options,
    warn: &dyn Fn(String),
) -> Result<Summary, ConvertError> {
    let mut summary = Summary {
        kind: "doc2md_summary",
        ..Summary::default()
    };
    let files: Vec<_> = brain_store::walk::collection_files(config, warn)
        .into_iter()
        .filter(|f| documents::format_of(&f.rel).is_some())
        .collect();
    let mut keep: HashMap<String, HashSet<String>> = HashMap::new();
    let mut stale = Vec::new();
    for f in &files {
        keep.entry(f.collection.clone())
            .or_default()
            .insert(f.rel.clone());
        let Ok(meta) = std::fs::metadata(&f.path) else {
            continue;
        };
        if documents::cached(home, &f.collection, &f.rel, &meta).is_some()
            || documents::failed(home, &f.collection, &f.rel, &meta).is_some()
        {
            summary.unchanged += 1;
        } else {
            stale.push((f, meta));
        }
    }
    for chunk in stale.chunks(CHUNK) {
        let done: Vec<_> = chunk
            .par_iter()
            .map(|(f, _)| convert_file(&f.path, opts))
            .collect();
        for ((f, meta), result) in chunk.iter().zip(done) {
            let stamp = documents::stamp(meta);
            let written = match result {
                Ok(Some(mut doc)) => {
                    summary.converted += 1;
                    doc.id = format!("{}/{}", f.collection, f.rel);
                    doc.collection = Some(f.collection.clone());
                    doc.path = f.rel.clone();
                    doc.meta.insert(documents::STAMP_KEY.into(), stamp);
                    keep_file(home, f, Some(doc.to_markdown()), None)
                }
                Ok(None) => {
                    summary.left_out += 1;
                    let reason = "left out: it says brain:do-not-index";
                    keep_file(
                        home,
                        f,
                        None,
                        Some(serde_json::json!({"stamp": stamp, "reason": reason})),
                    )
                }
                Err(e) => {
                    warn(format!("{}: {e}", f.path.display()));
                    summary.fail(&e);
                    let reason = e.to_string();
                    keep_file(
                        home,
                        f,
                        None,
                        Some(serde_json::json!({"stamp": stamp, "reason": reason})),
                    )
                }
            };
            written.map_err(ConvertError::Output)?;
        }
    }
    summary.removed = remove_orphans(home, &keep, warn);
    Ok(summary)
}

/// Keep `markdown` (and no failure) or `failure` (and no markdown) for the file `f`.
fn keep_file(
    home: &Home,
    f: &brain_store::walk::CollectionFile,
    markdown: Option<String>,
    failure: Option<serde_json::Value>,
) -> std::io::Result<()> {
    let md = documents::cache_path(home, &f.collection, &f.rel);
    let failed = documents::failure_path(home, &f.collection, &f.rel);
    if let Some(dir) = md.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let (write_to, text, remove) = match (markdown, failure) {
        (Some(text), _) => (md, text, failed),
        (None, failure) => (failed, failure.unwrap_or_default().to_string(), md),
    };
    brain_doc::atomic::write(&write_to, text.as_bytes())?;
    match std::fs::remove_file(&remove) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

/// Remove kept markdown and failures whose document is no longer a file of its collection
/// (its collection gone too); the count of documents removed.
fn remove_orphans(
    home: &Home,
    keep: &HashMap<String, HashSet<String>>,
    warn: &dyn Fn(String),
) -> u64 {
    let root = documents::cache_root(home);
    let mut kept = Vec::new();
    collect(&root, "", 0, &mut kept);
    let mut removed = 0;
    for (rel, path) in kept {
        let Some((collection, doc)) = rel.split_once('/') else {
            continue;
        };
        let doc_rel = doc
            .strip_suffix(".md")
            .or_else(|| doc.strip_suffix(".failed"))
            .unwrap_or(doc);
        if keep.get(collection).is_some_and(|k| k.contains(doc_rel)) {
            continue;
        }
        match std::fs::remove_file(&path) {
            Ok(()) => removed += u64::from(doc.ends_with(".md")),
            Err(e) => warn(format!("{}: {e}", path.display())),
        }
    }
    removed
}

fn collect(dir: &Path, prefix: &str, depth: usize, out: &mut Vec<(String, PathBuf)>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        // Another run's file being written (`.<name>.<n>.tmp`) is not kept markdown.
        if name.starts_with('.') {
            continue;
        }
        let rel = if prefix.is_empty() {
            name
        } else {
            format!("{prefix}/{name}")
        };
        match e.file_type() {
            Ok(t) if t.is_dir() && depth < MAX_DEPTH => collect(&e.path(), &rel, depth + 1, out),
            Ok(t) if t.is_file() => out.push((rel, e.path())),
            _ => {}
        }
    }
}
