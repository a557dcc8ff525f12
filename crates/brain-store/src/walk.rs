//! Listing the files of a collection: under its folder, matching its glob, skipping hidden entries
//! (`.git`, `.obsidian`, atomic-write temp files `.<name>.*.tmp`).

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
        let glob = match globset::Glob::new(&c.glob) {
            Ok(g) => g.compile_matcher(),
            Err(e) => {
                warn(format!(
                    "collection `{}`: bad glob `{}`: {e}",
                    c.name, c.glob
                ));
                continue;
            }
        };
        for (rel, path) in files(&config.resolve(&c.path), &glob, warn) {
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

/// `(path relative to dir with '/' separators, absolute path)` of every matching file, sorted. A missing
/// folder has no files; unreadable entries go to `warn`.
///
/// Directories are read with `read_dir`, whose entries carry their type: a regular file costs no
/// `stat` here (the caller stats it once, for mtime and size). Symbolic links are followed (one
/// `stat`); a link back to a directory being walked is reported and skipped.
pub fn files(dir: &Path, glob: &GlobMatcher, warn: &dyn Fn(String)) -> Vec<(String, PathBuf)> {
    if !dir.is_dir() {
        return Vec::new();
    }
    let mut out = Vec::new();
    let mut ancestors = Vec::new();
    walk(dir, "", glob, warn, &mut ancestors, &mut out);
    out
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

fn walk(
    dir: &Path,
    prefix: &str,
    glob: &GlobMatcher,
    warn: &dyn Fn(String),
    ancestors: &mut Vec<(u64, u64)>,
    out: &mut Vec<(String, PathBuf)>,
) {
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
            walk(&path, &rel, glob, warn, ancestors, out);
        } else if ty.is_file() && glob.is_match(&rel) {
            out.push((rel, path));
        }
    }
    if id.is_some() {
        ancestors.pop();
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
        let got: Vec<String> = files(dir.path(), &glob, &|w| panic!("{w}"))
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
            let got: Vec<String> = files(dir.path(), &glob, &|_| warned.set(warned.get() + 1))
                .into_iter()
                .map(|(r, _)| r)
                .collect();
            assert_eq!(got, ["a.md", "sub/b.md", "sub/link.md"]);
            assert_eq!(warned.get(), 1);
        }
        assert!(files(&dir.path().join("missing"), &glob, &|w| panic!("{w}")).is_empty());
    }
}
