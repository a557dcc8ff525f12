//! Documents beyond markdown in a collection (PDF, HTML, DOCX, plain text): which files they are
//! and where their markdown is kept.
//!
//! A collection whose glob takes such files (`**/*.{md,pdf,html,docx,txt}`) holds them in place;
//! `doc2md --collections` writes each one's markdown to `cache/doc2md/<collection>/<path>.md`,
//! stamped with the size and mtime of the file it was made from, and `lexindex` indexes that
//! markdown under the file's own path while the stamp matches the file. One owner for the three
//! rules (which files, where, how fresh) that doc2md, lexindex, `brain get` and doctor share.

use std::path::{Path, PathBuf};

use crate::Home;

/// File extensions of documents doc2md reads, with the format each is read as.
pub const EXTENSIONS: [(&str, &str); 8] = [
    ("pdf", "pdf"),
    ("html", "html"),
    ("htm", "html"),
    ("xhtml", "html"),
    ("shtml", "html"),
    ("docx", "docx"),
    ("txt", "text"),
    ("text", "text"),
];

/// The frontmatter key of the stamp (`{size, mtime_ns}` of the file converted).
pub const STAMP_KEY: &str = "converted_from";

/// The format of a document file by its name (`pdf`, `html`, `docx`, `text`), or `None` for
/// markdown and everything else.
pub fn format_of(rel: &str) -> Option<&'static str> {
    let ext = Path::new(rel).extension()?.to_str()?.to_ascii_lowercase();
    EXTENSIONS
        .iter()
        .find(|(e, _)| *e == ext)
        .map(|(_, format)| *format)
}

/// Whether collection `c`'s glob takes any kind of document doc2md reads (a collection of
/// `**/*.md` does not, and costs the conversion step nothing).
pub fn takes_documents(c: &crate::Collection) -> bool {
    let Ok(glob) = globset::Glob::new(&c.glob) else {
        return false;
    };
    let m = glob.compile_matcher();
    EXTENSIONS
        .iter()
        .any(|(ext, _)| m.is_match(format!("a.{ext}")) || m.is_match(format!("a/b.{ext}")))
}

/// Where the markdown of `collection`'s document `rel` is kept.
pub fn cache_path(home: &Home, collection: &str, rel: &str) -> PathBuf {
    cache_root(home).join(collection).join(format!("{rel}.md"))
}

/// `cache/doc2md/`: every collection's converted documents.
pub fn cache_root(home: &Home) -> PathBuf {
    home.root().join("cache").join("doc2md")
}

/// Where the reason a document could not be converted is kept (so it is not tried again until
/// the file changes).
pub fn failure_path(home: &Home, collection: &str, rel: &str) -> PathBuf {
    cache_root(home)
        .join(collection)
        .join(format!("{rel}.failed"))
}

/// Why the document file whose metadata is `meta` could not be converted, as it is now; `None`
/// when it has not failed (or has changed since).
pub fn failed(
    home: &Home,
    collection: &str,
    rel: &str,
    meta: &std::fs::Metadata,
) -> Option<String> {
    let text = std::fs::read_to_string(failure_path(home, collection, rel)).ok()?;
    let v: serde_json::Value = serde_json::from_str(&text).ok()?;
    (v.get("stamp")? == &stamp(meta)).then(|| v.get("reason")?.as_str().map(String::from))?
}

/// The stamp of a file: its size and mtime in nanoseconds.
pub fn stamp(meta: &std::fs::Metadata) -> serde_json::Value {
    serde_json::json!({"size": meta.len(), "mtime_ns": brain_doc::file::mtime_ns(meta)})
}

/// The markdown of a document file whose metadata is `meta`, when it is kept and made from the
/// file as it is now; `None` when it is missing or older than the file (doc2md makes it again).
pub fn cached(
    home: &Home,
    collection: &str,
    rel: &str,
    meta: &std::fs::Metadata,
) -> Option<String> {
    let text = std::fs::read_to_string(cache_path(home, collection, rel)).ok()?;
    let (fm, _) = brain_doc::markdown::split(&text).ok()?;
    (fm?.get(STAMP_KEY)? == &stamp(meta)).then_some(text)
}

/// The markdown to read for `collection`'s file `rel` at `file` (a [`crate::walk::servable`]
/// path): the file itself, or for a document the markdown kept for it — an error naming why when
/// there is none for the file as it is now.
pub fn markdown_file(
    config: &crate::Config,
    collection: &str,
    rel: &str,
    file: PathBuf,
) -> Result<PathBuf, String> {
    if format_of(rel).is_none() {
        return Ok(file);
    }
    let home = Home::at(config.home());
    let meta = std::fs::metadata(&file).map_err(|e| format!("{}: {e}", file.display()))?;
    if cached(&home, collection, rel, &meta).is_some() {
        return Ok(cache_path(&home, collection, rel));
    }
    Err(match failed(&home, collection, rel, &meta) {
        Some(reason) => format!("{rel} could not be converted: {reason}"),
        None => format!("{rel} is not converted yet (`doc2md --collections`, or `lexindex --all`)"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_by_name_and_fresh_only_while_the_file_is_unchanged() {
        assert_eq!(format_of("a/b.PDF"), Some("pdf"));
        assert_eq!(format_of("page.htm"), Some("html"));
        assert_eq!(format_of("notes.md"), None);
        assert_eq!(format_of("Makefile"), None);
        let dir = tempfile::tempdir().expect("tempdir");
        let home = Home::at(dir.path());
        let file = dir.path().join("a.txt");
        std::fs::write(&file, "one").expect("write");
        let meta = std::fs::metadata(&file).expect("meta");
        assert_eq!(cached(&home, "notes", "a.txt", &meta), None);
        let cache = cache_path(&home, "notes", "a.txt");
        std::fs::create_dir_all(cache.parent().expect("parent")).expect("mkdir");
        let stamp = serde_json::to_string(&stamp(&meta)).expect("json");
        let text = format!("---\n{STAMP_KEY}: {stamp}\n---\none\n");
        std::fs::write(&cache, &text).expect("write");
        assert_eq!(
            cached(&home, "notes", "a.txt", &meta).as_deref(),
            Some(text.as_str())
        );
        std::fs::write(&file, "one more").expect("write");
        let meta = std::fs::metadata(&file).expect("meta");
        assert_eq!(cached(&home, "notes", "a.txt", &meta), None, "stale");
    }
}
