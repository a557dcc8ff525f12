//! What project a working folder belongs to: its repository (issue 57). A session that ran in a
//! worktree (`app/.worktrees/fix-x`, `../app-fix-x`) or a subfolder (`app/crates/core`) of one
//! repository is that repository's project, in records, briefings and filters alike.
//!
//! The repository is read from the files git keeps, never by running git: walk up from the folder
//! to the first `.git`; a folder there is a repository's own; a file (`gitdir: …`) is a worktree's
//! or a submodule's, and the `commondir` beside the worktree's git folder names the repository the
//! worktrees share. A folder that is not on this machine (a transcript recorded elsewhere) is
//! matched by the layouts tools put worktrees in ([`WORKTREE_DIRS`]), else it is its own project.

use std::path::{Component, Path, PathBuf};

use crate::home::{home_dir, project_path};

/// The longest path looked up (Linux's `PATH_MAX`): past it no session ran there.
pub const MAX_PATH: usize = 4096;

/// The most folders walked up looking for `.git`.
const MAX_DEPTH: usize = 256;

/// The longest `.git` file or `commondir` read (each is one line naming a folder).
const MAX_POINTER: u64 = 8192;

/// Folders inside a repository's own folder where tools check out its worktrees: Claude Code's
/// `.claude/worktrees/<name>` (its `--worktree` and agent worktrees) and the `.worktrees/<name>`
/// convention (superpowers, many guides). A path through one names the repository before it.
pub const WORKTREE_DIRS: [&str; 2] = [".claude/worktrees", ".worktrees"];

/// A repository as found from one of its folders.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Repository {
    /// The repository's own working folder (the main worktree): the project's folder.
    pub root: PathBuf,
    /// The git folder every worktree shares (`root/.git` for a plain clone).
    pub common: PathBuf,
    /// The checkout the folder is in: `root`, or the worktree's own folder.
    pub checkout: PathBuf,
}

/// The repository `dir` is in, or `None`: not on this machine, in no repository, or in one whose
/// folder is the user's home or the root (a dotfiles repository holds every folder, so it names
/// no project).
pub fn repository(dir: &Path) -> Option<Repository> {
    if !dir.is_absolute() || dir.as_os_str().len() > MAX_PATH {
        return None;
    }
    let mut at = Some(dir);
    for _ in 0..MAX_DEPTH {
        let d = at?;
        let dot = d.join(".git");
        match std::fs::metadata(&dot) {
            Ok(m) if m.is_dir() => {
                return named(Repository {
                    root: d.to_path_buf(),
                    common: dot,
                    checkout: d.to_path_buf(),
                });
            }
            Ok(m) if m.is_file() => return linked(d, &dot),
            _ => {}
        }
        at = d.parent();
    }
    None
}

/// Every folder `repo` is checked out in that is still there: its own, then each worktree git
/// lists (`<common>/worktrees/<name>/gitdir` names the worktree's `.git` file), sorted.
pub fn checkouts(repo: &Repository) -> Vec<PathBuf> {
    let mut out = vec![repo.root.clone()];
    let Ok(entries) = std::fs::read_dir(repo.common.join("worktrees")) else {
        return out;
    };
    let mut more: Vec<PathBuf> = entries
        .flatten()
        .take(MAX_DEPTH * 16)
        .filter_map(|e| pointer(&e.path().join("gitdir")))
        .filter_map(|dot_git| dot_git.parent().map(Path::to_path_buf))
        .filter(|w| w.is_absolute() && w.is_dir() && *w != repo.root)
        .collect();
    more.sort();
    more.dedup();
    out.extend(more);
    out
}

/// The folders a project was worked in, as records name them, when `value` is a folder of this
/// machine (`~/app`, `/home/me/app/src`) in a repository: every folder the repository is checked
/// out in ([`checkouts`]); empty for anything else.
pub fn checkout_folders(value: &str) -> Vec<String> {
    let path = match value.strip_prefix("~/") {
        Some(rest) => match home_dir() {
            Some(h) => h.join(rest),
            None => return Vec::new(),
        },
        None => PathBuf::from(value),
    };
    repository(&path)
        .map(|r| {
            checkouts(&r)
                .iter()
                .map(|c| project_path(&c.display().to_string()))
                .collect()
        })
        .unwrap_or_default()
}

/// The files people keep an agent's rules for a repository in, with the agent that loads each by
/// itself (its own file is not briefed to it again). Read as the project's pinned preferences.
pub const RULES_FILES: [(&str, Option<&str>); 8] = [
    ("AGENTS.md", Some("codex")),
    ("CLAUDE.md", Some("claude")),
    ("GEMINI.md", Some("gemini")),
    (".cursorrules", Some("cursor")),
    (".windsurfrules", None),
    (".clinerules", None),
    ("CONVENTIONS.md", None),
    (".github/copilot-instructions.md", None),
];

/// The most bytes read of a rules file (the rest is not read).
pub const MAX_RULES_BYTES: u64 = 64 << 10;

/// One rules file as read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rules {
    pub path: PathBuf,
    /// Its text (lossy UTF-8, at most [`MAX_RULES_BYTES`]).
    pub text: String,
}

/// The rules files of the checkout `dir` is in (the worktree's own files, else the folder's), in
/// [`RULES_FILES`]' order: regular files only (a link to one counts), none empty, a text read
/// once (`CLAUDE.md` linked to `AGENTS.md` is one), the file `agent` loads by itself left out.
pub fn rules(dir: &Path, agent: Option<&str>) -> Vec<Rules> {
    let base = repository(dir).map_or_else(|| dir.to_path_buf(), |r| r.checkout);
    let mut out: Vec<Rules> = Vec::new();
    for (name, reader) in RULES_FILES {
        if agent.is_some() && reader == agent {
            continue;
        }
        let path = base.join(name);
        let Some(text) = read_bounded(&path, MAX_RULES_BYTES) else {
            continue;
        };
        if text.trim().is_empty() || out.iter().any(|r| r.text == text) {
            continue;
        }
        out.push(Rules { path, text });
    }
    out
}

/// The repository folder a path names by a worktree layout (`~/app/.claude/worktrees/x/src` →
/// `~/app`), for folders that are not on this machine; `None` when it names none.
pub fn worktree_parent(p: &str) -> Option<&str> {
    let slashed = p.replace('\\', "/");
    WORKTREE_DIRS
        .iter()
        .filter_map(|dir| {
            let at = slashed.find(&format!("/{dir}/"))?;
            // The worktree's own name must follow the layout's folder.
            let rest = &slashed[at + dir.len() + 2..];
            (!rest.trim_start_matches('/').is_empty() && at > 0).then_some(at)
        })
        .min()
        .map(|at| &p[..at])
}

/// The project of a session that ran in `cwd`, as records name it (home shown as `~`,
/// [`project_path`]): the folder of the repository it is in, else the repository a worktree
/// layout names, else the folder itself.
pub fn project_of(cwd: &str) -> String {
    if let Some(repo) = repository(Path::new(cwd)) {
        return project_path(&repo.root.display().to_string());
    }
    match worktree_parent(cwd) {
        Some(root) => project_path(root),
        None => project_path(cwd),
    }
}

/// A worktree's or submodule's `.git` file: `gitdir: <folder>`. A worktree's folder holds
/// `commondir` (the shared git folder, relative to it); the repository's folder is the one that
/// shared `.git` sits in. A submodule's has none: the submodule is its own project.
fn linked(dir: &Path, dot: &Path) -> Option<Repository> {
    // A `.git` file that does not read still marks a checkout's folder.
    let Some(gitdir) = pointer(dot) else {
        return named(Repository {
            root: dir.to_path_buf(),
            common: dot.to_path_buf(),
            checkout: dir.to_path_buf(),
        });
    };
    let gitdir = if gitdir.is_absolute() {
        gitdir
    } else {
        normalize(&dir.join(gitdir))
    };
    let Some(common) = read_small(&gitdir.join("commondir")) else {
        return named(Repository {
            root: dir.to_path_buf(),
            common: gitdir,
            checkout: dir.to_path_buf(),
        });
    };
    let common = normalize(&gitdir.join(common.trim()));
    let root = if common.file_name().is_some_and(|n| n == ".git") {
        common.parent()?.to_path_buf()
    } else {
        // A bare repository with worktrees: its git folder is its name.
        common.clone()
    };
    named(Repository {
        root,
        common,
        checkout: dir.to_path_buf(),
    })
}

fn named(repo: Repository) -> Option<Repository> {
    let shared = repo.root.parent().is_none() || home_dir().is_some_and(|h| repo.root == h);
    (!shared).then_some(repo)
}

/// The folder a `.git` file or a worktree's `gitdir` names (`gitdir: X` or a bare path).
fn pointer(file: &Path) -> Option<PathBuf> {
    let text = read_small(file)?;
    let line = text.lines().next()?.trim();
    let path = line.strip_prefix("gitdir:").unwrap_or(line).trim();
    (!path.is_empty()).then(|| PathBuf::from(path))
}

/// A file of at most [`MAX_POINTER`] bytes, as text.
fn read_small(path: &Path) -> Option<String> {
    read_bounded(path, MAX_POINTER)
}

/// The first `max` bytes of a regular file, as text (invalid UTF-8 replaced).
fn read_bounded(path: &Path, max: u64) -> Option<String> {
    use std::io::Read;
    // Checked before the open: opening a FIFO planted as `commondir` would wait for a writer.
    if !std::fs::metadata(path).ok()?.is_file() {
        return None;
    }
    let f = std::fs::File::open(path).ok()?;
    let mut bytes = Vec::new();
    f.take(max).read_to_end(&mut bytes).ok()?;
    Some(String::from_utf8_lossy(&bytes).into_owned())
}

/// `a/b/../c` → `a/c`, without touching the disk (the folders may be symlinks git wrote through).
fn normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_worktree_layout_names_the_repository_before_it() {
        assert_eq!(
            worktree_parent("/Users/d/x/.claude/worktrees/agent-a4/src"),
            Some("/Users/d/x")
        );
        assert_eq!(worktree_parent("~/app/.worktrees/fix-x"), Some("~/app"));
        assert_eq!(
            worktree_parent("e:\\src\\app\\.worktrees\\fix"),
            Some("e:\\src\\app")
        );
        // The layout's folder itself, or a layout at the start, names no worktree.
        assert_eq!(worktree_parent("~/app/.worktrees/"), None);
        assert_eq!(worktree_parent("/.worktrees/x"), None);
        assert_eq!(worktree_parent("~/app/worktrees/x"), None);
        assert_eq!(worktree_parent("~/app"), None);
        // The outermost layout wins: a worktree's own worktree is still the repository's.
        assert_eq!(
            worktree_parent("/r/.worktrees/a/.claude/worktrees/b"),
            Some("/r")
        );
    }

    #[test]
    fn a_folder_not_here_is_its_own_project_unless_a_layout_names_one() {
        assert_eq!(project_of("/nowhere/at/all/app"), "/nowhere/at/all/app");
        assert_eq!(
            project_of("/nowhere/app/.claude/worktrees/agent-1"),
            "/nowhere/app"
        );
        assert_eq!(project_of("relative/app"), "relative/app");
        assert_eq!(repository(Path::new(&"/a".repeat(3000))), None);
    }

    /// A repository with a worktree inside its folder, one beside it, a submodule and a bare
    /// repository's worktree, laid out as git 2.x writes them.
    #[test]
    fn worktrees_and_subfolders_are_their_repository() {
        let t = tempfile::tempdir().expect("tempdir");
        let app = t.path().join("app");
        let write = |p: PathBuf, text: &str| {
            std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
            std::fs::write(p, text).expect("write");
        };
        std::fs::create_dir_all(app.join("crates/core")).expect("mkdir");
        for (name, at) in [
            ("fix", app.join(".worktrees/fix")),
            ("side", t.path().join("app-side")),
        ] {
            let meta = app.join(".git/worktrees").join(name);
            write(meta.join("commondir"), "../..\n");
            write(
                meta.join("gitdir"),
                &format!("{}\n", at.join(".git").display()),
            );
            write(at.join(".git"), &format!("gitdir: {}\n", meta.display()));
            std::fs::create_dir_all(at.join("src")).expect("mkdir");
        }
        let repo = repository(&app.join("crates/core")).expect("a repository");
        assert_eq!(repo.root, app);
        assert_eq!(repo.common, app.join(".git"));
        for (at, checkout) in [
            (app.join(".worktrees/fix/src"), app.join(".worktrees/fix")),
            (t.path().join("app-side"), t.path().join("app-side")),
        ] {
            let found = repository(&at).expect("a repository");
            assert_eq!((&found.root, &found.common), (&repo.root, &repo.common));
            assert_eq!(found.checkout, checkout, "{}", at.display());
        }
        assert_eq!(
            checkouts(&repo),
            [
                app.clone(),
                app.join(".worktrees/fix"),
                t.path().join("app-side")
            ]
        );
        // A submodule (a relative gitdir without commondir) is its own project.
        let sub = app.join("vendor/lib");
        write(sub.join(".git"), "gitdir: ../../.git/modules/lib\n");
        std::fs::create_dir_all(app.join(".git/modules/lib")).expect("mkdir");
        assert_eq!(repository(&sub).expect("a repository").root, sub);
        // A bare repository's worktree names the bare folder.
        let bare = t.path().join("b.git");
        let wt = t.path().join("b-main");
        write(bare.join("worktrees/main/commondir"), "../..");
        write(
            wt.join(".git"),
            &format!("gitdir: {}", bare.join("worktrees/main").display()),
        );
        assert_eq!(repository(&wt).expect("a repository").root, bare);
        // A folder in no repository, a dangling or huge pointer: none.
        let lone = t.path().join("lone");
        std::fs::create_dir_all(&lone).expect("mkdir");
        assert_eq!(repository(&lone), None);
        let bad = t.path().join("bad");
        write(bad.join(".git"), "");
        std::fs::create_dir_all(bad.join("src")).expect("mkdir");
        assert_eq!(
            repository(&bad.join("src")).expect("a repository").root,
            bad
        );
        write(bad.join(".git"), &"x".repeat(100_000));
        assert!(repository(&bad).is_some_and(|r| r.root == bad));
    }

    #[test]
    fn rules_files_are_the_checkouts_own_read_once_and_bounded() {
        let t = tempfile::tempdir().expect("tempdir");
        let app = t.path().join("app");
        std::fs::create_dir_all(app.join(".git")).expect("git");
        std::fs::create_dir_all(app.join("src")).expect("src");
        std::fs::write(app.join("AGENTS.md"), "Run cargo test before a commit.\n").expect("agents");
        std::os::unix::fs::symlink(app.join("AGENTS.md"), app.join("CLAUDE.md")).expect("link");
        std::fs::write(app.join("GEMINI.md"), "  \n").expect("empty");
        std::fs::write(app.join(".cursorrules"), vec![b'x'; 200_000]).expect("big");
        let got = rules(&app.join("src"), None);
        let names: Vec<String> = got
            .iter()
            .map(|r| {
                r.path
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default()
            })
            .collect();
        assert_eq!(
            names,
            ["AGENTS.md", ".cursorrules"],
            "a link to the same text is one, an empty one none"
        );
        assert_eq!(got[1].text.len() as u64, MAX_RULES_BYTES);
        // Codex loads AGENTS.md by itself: its copy through CLAUDE.md is what it gets.
        let codex: Vec<PathBuf> = rules(&app, Some("codex"))
            .into_iter()
            .map(|r| r.path)
            .collect();
        assert_eq!(codex, [app.join("CLAUDE.md"), app.join(".cursorrules")]);
        // A FIFO as a rules file is not opened (it would wait for a writer).
        let fifo = t.path().join("fifo");
        std::fs::create_dir_all(&fifo).expect("fifo dir");
        let made = std::process::Command::new("mkfifo")
            .arg(fifo.join("AGENTS.md"))
            .status()
            .is_ok_and(|s| s.success());
        if made {
            assert!(rules(&fifo, None).is_empty());
        }
    }

    #[test]
    fn paths_normalize_without_the_disk() {
        assert_eq!(
            normalize(Path::new("/r/app/.git/worktrees/x/../..")),
            PathBuf::from("/r/app/.git")
        );
        assert_eq!(normalize(Path::new("/a/./b")), PathBuf::from("/a/b"));
    }
}
