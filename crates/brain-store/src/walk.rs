//! Listing the files of a collection: under its folder, matching its glob, skipping hidden entries
//! (`.git`, `.obsidian`, atomic-write temp files `.<name>.*.tmp`) and symbolic links that lead out
//! of the folder (unless the collection sets `follow_links`).
//!
//! One rule decides which files are a collection's documents, for every surface: [`files`] lists
//! them (indexing, `recent`, doctor) and [`servable`] answers for one (`get`, `multi_get`, MCP
//! resources), so nothing is served that indexing would not take in.

use std::path::{Path, PathBuf};

use globset::GlobMatcher;

/// One file of a collection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CollectionFile {
    pub collection: String,
    /// Path inside the collection, `/`-separated.
    pub rel: String,
    pub path: PathBuf,
}

/// Every file of every collection of `config` (each collection's folder and glob), in collection
/// order, each id (`collection/rel`) once. A collection with a bad glob is reported and skipped.
pub fn collection_files(config: &crate::Config, warn: &dyn Fn(String)) -> Vec<CollectionFile> {
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    for c in &config.collections {
        for (rel, path) in of_collection(config, c, warn) {
            if seen.insert(format!("{}/{rel}", c.name)) {
                out.push(CollectionFile {
                    collection: c.name.clone(),
                    rel,
                    path,
                });
            }
        }
    }
    out
}

/// The files of collection `c` ([`files`] under its folder, glob and `follow_links`); a bad glob
/// is reported and lists nothing.
pub fn of_collection(
    config: &crate::Config,
    c: &crate::Collection,
    warn: &dyn Fn(String),
) -> Vec<(String, PathBuf)> {
    match globset::Glob::new(&c.glob) {
        Ok(g) => files(
            &config.resolve(&c.path),
            &g.compile_matcher(),
            c.follow_links,
            warn,
        ),
        Err(e) => {
            warn(format!(
                "collection `{}`: bad glob `{}`: {e}",
                c.name, c.glob
            ));
            Vec::new()
        }
    }
}

/// `(path relative to dir with '/' separators, absolute path)` of every matching file, sorted. A missing
/// folder has no files; unreadable entries go to `warn`.
///
/// Directories are read with `read_dir`, whose entries carry their type: a regular file costs no
/// `stat` here (the caller stats it once, for mtime and size). Symbolic links are followed (one
/// `stat`) when they stay inside `dir`, or anywhere with `follow_links`; a link out of the folder
/// otherwise, and a link back to a directory being walked, are reported and skipped.
pub fn files(
    dir: &Path,
    glob: &GlobMatcher,
    follow_links: bool,
    warn: &dyn Fn(String),
) -> Vec<(String, PathBuf)> {
    if !dir.is_dir() {
        return Vec::new();
    }
    let root = if follow_links {
        None
    } else {
        std::fs::canonicalize(dir).ok()
    };
    let mut out = Vec::new();
    let mut ancestors = Vec::new();
    let walker = Walker {
        glob,
        root: root.as_deref(),
        warn,
    };
    walker.walk(dir, "", &mut ancestors, &mut out);
    out
}

/// Why a file is not a document of its collection ([`servable`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refused {
    #[error("no collection `{0}`")]
    NoCollection(String),
    #[error("`{0}` is not a path inside its collection (`..`, absolute or empty)")]
    Outside(String),
    #[error("`{0}` is hidden (a name starting with `.`); hidden files are never documents")]
    Hidden(String),
    #[error("`{path}` does not match collection `{collection}`'s files (`{glob}`)")]
    NotMatched {
        path: String,
        collection: String,
        glob: String,
    },
    #[error("`{0}` is not a file of its collection")]
    Missing(String),
    #[error("`{0}` leads out of its collection through a symbolic link")]
    LinkOut(String),
}

/// The file of `rel` in `collection` if — and only if — it is one of that collection's documents
/// under the rules [`files`] walks by: a relative path of plain components, nothing hidden, matching
/// the collection's glob, a regular file whose real path stays inside the collection's real folder
/// (unless the collection sets `follow_links`).
pub fn servable(config: &crate::Config, collection: &str, rel: &str) -> Result<PathBuf, Refused> {
    let c = config
        .collections
        .iter()
        .find(|c| c.name == collection)
        .ok_or_else(|| Refused::NoCollection(collection.into()))?;
    let parts: Vec<std::path::Component<'_>> = Path::new(rel).components().collect();
    if parts.is_empty()
        || !parts
            .iter()
            .all(|p| matches!(p, std::path::Component::Normal(_)))
    {
        return Err(Refused::Outside(rel.into()));
    }
    if parts
        .iter()
        .any(|p| p.as_os_str().to_string_lossy().starts_with('.'))
    {
        return Err(Refused::Hidden(rel.into()));
    }
    let glob = globset::Glob::new(&c.glob)
        .map(|g| g.compile_matcher())
        .map_err(|_| Refused::NotMatched {
            path: rel.into(),
            collection: collection.into(),
            glob: c.glob.clone(),
        })?;
    if !glob.is_match(rel) {
        return Err(Refused::NotMatched {
            path: rel.into(),
            collection: collection.into(),
            glob: c.glob.clone(),
        });
    }
    let dir = config.resolve(&c.path);
    let file = dir.join(rel);
    if !file.is_file() {
        return Err(Refused::Missing(rel.into()));
    }
    if !c.follow_links {
        let inside = match (std::fs::canonicalize(&dir), std::fs::canonicalize(&file)) {
            (Ok(root), Ok(real)) => real.starts_with(&root),
            _ => false,
        };
        if !inside {
            return Err(Refused::LinkOut(rel.into()));
        }
    }
    Ok(file)
}

struct Walker<'a> {
    glob: &'a GlobMatcher,
    /// The collection's real folder when links may not lead out of it.
    root: Option<&'a Path>,
    warn: &'a dyn Fn(String),
}

/// Identity of a directory, for loop detection through symbolic links.
#[cfg(unix)]
fn dir_id(path: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

#[cfg(not(unix))]
fn dir_id(path: &Path) -> Option<(u64, u64)> {
    let _ = path;
    None
}

impl Walker<'_> {
    fn walk(
        &self,
        dir: &Path,
        prefix: &str,
        ancestors: &mut Vec<(u64, u64)>,
        out: &mut Vec<(String, PathBuf)>,
    ) {
        let warn = self.warn;
        let id = dir_id(dir);
        if let Some(id) = id {
            if ancestors.contains(&id) {
                warn(format!(
                    "{}: a symbolic link loops back to a folder being walked; skipped",
                    dir.display()
                ));
                return;
            }
            ancestors.push(id);
        }
        let mut entries: Vec<std::fs::DirEntry> = match std::fs::read_dir(dir) {
            Ok(rd) => rd
                .filter_map(|e| e.map_err(|e| warn(format!("{}: {e}", dir.display()))).ok())
                .collect(),
            Err(e) => {
                warn(format!("{}: {e}", dir.display()));
                Vec::new()
            }
        };
        entries.sort_by_key(std::fs::DirEntry::file_name);
        for e in entries {
            let name = e.file_name();
            let name = name.to_string_lossy();
            if name.starts_with('.') {
                continue;
            }
            let path = e.path();
            let Ok(mut ty) = e.file_type() else {
                warn(format!("{}: unreadable entry", path.display()));
                continue;
            };
            if ty.is_symlink() {
                if let Some(root) = self.root {
                    let inside =
                        std::fs::canonicalize(&path).is_ok_and(|real| real.starts_with(root));
                    if !inside {
                        warn(format!(
                            "{}: a symbolic link out of the collection; skipped (set `follow_links: true` on the collection to follow it)",
                            path.display()
                        ));
                        continue;
                    }
                }
                match std::fs::metadata(&path) {
                    Ok(m) => ty = m.file_type(),
                    Err(err) => {
                        warn(format!("{}: {err}", path.display()));
                        continue;
                    }
                }
            }
            let rel = if prefix.is_empty() {
                name.into_owned()
            } else {
                format!("{prefix}/{name}")
            };
            if ty.is_dir() {
                self.walk(&path, &rel, ancestors, out);
            } else if ty.is_file() && self.glob.is_match(&rel) {
                out.push((rel, path));
            }
        }
        if id.is_some() {
            ancestors.pop();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hidden_entries_and_non_matching_files_are_skipped() {
        let dir = tempfile::tempdir().expect("tempdir");
        for f in [
            "a.md",
            "sub/b.md",
            "sub/c.txt",
            ".git/x.md",
            "sub/.b.md.x1.tmp",
            ".obsidian/y.md",
        ] {
            let p = dir.path().join(f);
            std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
            std::fs::write(p, "x").expect("write");
        }
        let glob = globset::Glob::new("**/*.md")
            .expect("glob")
            .compile_matcher();
        let got: Vec<String> = files(dir.path(), &glob, false, &|w| panic!("{w}"))
            .into_iter()
            .map(|(r, _)| r)
            .collect();
        assert_eq!(got, ["a.md", "sub/b.md"]);
        #[cfg(unix)]
        {
            // A link to a file is followed; a link back up is reported, not walked forever.
            std::os::unix::fs::symlink(dir.path().join("a.md"), dir.path().join("sub/link.md"))
                .expect("link");
            std::os::unix::fs::symlink(dir.path(), dir.path().join("sub/up")).expect("link");
            let warned = std::cell::Cell::new(0);
            let got: Vec<String> =
                files(dir.path(), &glob, false, &|_| warned.set(warned.get() + 1))
                    .into_iter()
                    .map(|(r, _)| r)
                    .collect();
            assert_eq!(got, ["a.md", "sub/b.md", "sub/link.md"]);
            assert_eq!(warned.get(), 1);
        }
        assert!(
            files(&dir.path().join("missing"), &glob, false, &|w| panic!(
                "{w}"
            ))
            .is_empty()
        );
    }

    #[cfg(unix)]
    #[test]
    fn links_out_of_the_folder_are_skipped_unless_followed_and_never_served() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (notes, outside) = (dir.path().join("notes"), dir.path().join("outside"));
        for d in [&notes, &outside] {
            std::fs::create_dir_all(d).expect("mkdir");
        }
        std::fs::write(notes.join("a.md"), "x").expect("write");
        std::fs::write(notes.join(".env"), "SECRET=1").expect("write");
        std::fs::write(notes.join("notes.txt"), "x").expect("write");
        std::fs::write(outside.join("passwd.md"), "root:x").expect("write");
        std::os::unix::fs::symlink(outside.join("passwd.md"), notes.join("p.md")).expect("link");
        std::os::unix::fs::symlink(&outside, notes.join("out")).expect("link");
        std::os::unix::fs::symlink(notes.join("a.md"), notes.join("inside.md")).expect("link");
        let glob = globset::Glob::new("**/*.md")
            .expect("glob")
            .compile_matcher();
        let list = |follow| -> Vec<String> {
            files(&notes, &glob, follow, &|_| {})
                .into_iter()
                .map(|(r, _)| r)
                .collect()
        };
        assert_eq!(list(false), ["a.md", "inside.md"]);
        assert_eq!(list(true), ["a.md", "inside.md", "out/passwd.md", "p.md"]);

        let home = crate::Home::at(dir.path().join("home"));
        let mut config = crate::Config::defaults(&home);
        let mut c = crate::Collection {
            name: "notes".into(),
            path: notes.display().to_string(),
            glob: "**/*.md".into(),
            role: "notes".into(),
            trust: crate::Trust::High,
            follow_links: false,
        };
        config.add_collection(c.clone()).expect("add");
        assert!(servable(&config, "notes", "a.md").is_ok());
        assert!(servable(&config, "notes", "inside.md").is_ok());
        for (rel, want) in [
            ("p.md", Refused::LinkOut("p.md".into())),
            ("out/passwd.md", Refused::LinkOut("out/passwd.md".into())),
            (".env", Refused::Hidden(".env".into())),
            (
                "../outside/passwd.md",
                Refused::Outside("../outside/passwd.md".into()),
            ),
            ("/etc/passwd", Refused::Outside("/etc/passwd".into())),
            ("", Refused::Outside("".into())),
            ("missing.md", Refused::Missing("missing.md".into())),
        ] {
            assert_eq!(servable(&config, "notes", rel), Err(want), "{rel}");
        }
        assert!(matches!(
            servable(&config, "notes", "notes.txt"),
            Err(Refused::NotMatched { .. })
        ));
        assert_eq!(
            servable(&config, "nope", "a.md"),
            Err(Refused::NoCollection("nope".into()))
        );
        // Opted in: links out are followed, for this collection only.
        c.follow_links = true;
        let mut config = crate::Config::defaults(&home);
        config.add_collection(c).expect("add");
        assert!(servable(&config, "notes", "p.md").is_ok());
    }
}
