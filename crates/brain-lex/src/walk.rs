//! Listing the files of a collection: under its folder, matching its glob, skipping hidden entries
//! (`.git`, `.obsidian`, atomic-write temp files `.<name>.*.tmp`).

use std::path::{Path, PathBuf};

use globset::GlobMatcher;
use walkdir::WalkDir;

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
pub fn collection_files(config: &brain_store::Config, warn: &dyn Fn(String)) -> Vec<CollectionFile> {
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    for c in &config.collections {
        let glob = match globset::Glob::new(&c.glob) {
            Ok(g) => g.compile_matcher(),
            Err(e) => {
                warn(format!("collection `{}`: bad glob `{}`: {e}", c.name, c.glob));
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
pub fn files(dir: &Path, glob: &GlobMatcher, warn: &dyn Fn(String)) -> Vec<(String, PathBuf)> {
    if !dir.is_dir() {
        return Vec::new();
    }
    let mut out = Vec::new();
    let walker = WalkDir::new(dir)
        .follow_links(true)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| e.depth() == 0 || !e.file_name().to_string_lossy().starts_with('.'));
    for entry in walker {
        let entry = match entry {
            Ok(e) => e,
            Err(e) => {
                warn(format!("{}: {e}", dir.display()));
                continue;
            }
        };
        if !entry.file_type().is_file() {
            continue;
        }
        let Ok(rel) = entry.path().strip_prefix(dir) else {
            continue;
        };
        let rel: Vec<String> = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        let rel = rel.join("/");
        if glob.is_match(&rel) {
            out.push((rel, entry.path().to_path_buf()));
        }
    }
    out
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
        assert!(files(&dir.path().join("missing"), &glob, &|w| panic!("{w}")).is_empty());
    }
}
