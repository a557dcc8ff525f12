//! Cursor (issue #26): three stores, each its own reader, ids mostly not shared.
//!
//! * [`ide`] — the IDE's `state.vscdb` databases (global and per workspace): composers and the
//!   pre-2025 chat pane; many conversations per database.
//! * [`cli`] — the cursor-agent CLI's `chats/<md5(project)>/<id>/store.db`: a content-addressed
//!   blob store, read from its latest root.
//! * [`transcript`] — agent transcripts (`projects/<slug>/agent-transcripts/…jsonl`, older `.txt`,
//!   with `subagents/`): the lossy fallback when no database holds that session.
//!
//! [`tools`] maps Cursor's tool names onto every agent's (shell, read, edit, search, fetch), and
//! [`bubble`] reads one IDE message. Documents are `cursor__<id>`.

pub mod bubble;
pub mod cli;
pub mod ide;
pub mod tools;
pub mod transcript;

/// The project a conversation's absolute file paths share (the longest common folder of at least
/// two components), when nothing names it: said so in the frontmatter (`project_inferred`). A path
/// ending in `/` is a folder (a search's directory); any other is a file, whose folder counts.
/// Paths inside an agent's own dot-folder (`~/.cursor/projects/…/agent-tools/…`) are not the
/// project's, and a home folder (`/home/<user>`, `/Users/<user>`, `C:/Users/<user>`) or anything
/// above it is no project.
pub fn infer_project(files: &[String]) -> Option<String> {
    let abs: Vec<(Vec<&str>, bool)> = files
        .iter()
        .filter(|f| f.starts_with('/') || f.get(1..3) == Some(":/") || f.get(1..3) == Some(":\\"))
        .map(|f| {
            let dir = f.ends_with('/') || f.ends_with('\\');
            (
                f.split(['/', '\\'])
                    .filter(|c| !c.is_empty())
                    .collect::<Vec<_>>(),
                dir,
            )
        })
        .filter(|(p, _)| {
            !p.iter()
                .any(|c| matches!(*c, ".cursor" | ".claude" | ".codex"))
        })
        .collect();
    let folder_len = |(p, dir): &(Vec<&str>, bool)| {
        if *dir {
            p.len()
        } else {
            p.len().saturating_sub(1)
        }
    };
    let (first, _) = abs.first()?;
    let mut n = folder_len(&abs[0]);
    for p in &abs[1..] {
        n = n.min(folder_len(p));
        n = first
            .iter()
            .zip(p.0.iter())
            .take(n)
            .take_while(|(a, b)| a == b)
            .count();
    }
    let drive = usize::from(first[0].ends_with(':'));
    let home = matches!(first.get(drive).copied(), Some("home" | "Users" | "users"));
    if n < 2 + drive || (home && n < 3 + drive) {
        return None;
    }
    let joined = first[..n].join("/");
    Some(if drive == 1 {
        joined
    } else {
        format!("/{joined}")
    })
}

/// The folder a `~/.cursor/projects/<slug>` folder is named after, found among the ancestors of
/// `files`: Cursor names it by the project's path with every run of other characters than letters
/// and digits as one `-` (`/home/dev/proj-alpha` → `home-dev-proj-alpha`, `D:\1-yu\app` →
/// `d-1-yu-app`). Exact, not inferred: the slug says which ancestor it is.
pub fn project_of_slug(slug: &str, files: &[String]) -> Option<String> {
    let want = slugify(slug);
    if want.is_empty() {
        return None;
    }
    files.iter().find_map(|f| {
        let f = f.trim_end_matches(['/', '\\']);
        let mut cut = f.len();
        loop {
            let candidate = &f[..cut];
            if slugify(candidate) == want {
                return Some(candidate.replace('\\', "/"));
            }
            cut = candidate.rfind(['/', '\\'])?;
        }
    })
}

fn slugify(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        if c.is_alphanumeric() {
            out.extend(c.to_lowercase());
        } else if !out.is_empty() && !out.ends_with('-') {
            out.push('-');
        }
    }
    out.trim_end_matches('-').to_string()
}

/// The paths a (canonical) tool input names, for [`infer_project`]: its file, its search folder.
pub fn note_paths(input: &serde_json::Value, files: &mut Vec<String>) {
    if let Some(p) = input.get("file_path").and_then(serde_json::Value::as_str) {
        files.push(p.to_string());
    }
    if let Some(p) = input.get("path").and_then(serde_json::Value::as_str) {
        files.push(format!("{}/", p.trim_end_matches('/')));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_project_is_the_folder_the_files_share() {
        let f = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            infer_project(&f(&[
                "/home/dev/proj/src/a.rs",
                "/home/dev/proj/tests/b.rs"
            ])),
            Some("/home/dev/proj".into())
        );
        assert_eq!(
            infer_project(&f(&["/home/dev/proj/src/a.rs"])),
            Some("/home/dev/proj/src".into())
        );
        assert_eq!(infer_project(&f(&["/a/x.rs", "/b/y.rs"])), None);
        assert_eq!(infer_project(&f(&["src/a.rs"])), None);
        assert_eq!(
            infer_project(&f(&["c:/Users/x/app/a.ts", "c:/Users/x/app/b/c.ts"])),
            Some("c:/Users/x/app".into())
        );
        assert_eq!(
            infer_project(&f(&["/home/dev/proj/", "/home/dev/proj/src/a.rs"])),
            Some("/home/dev/proj".into())
        );
        // A home folder is no project; the agent's own files are not the project's.
        assert_eq!(
            infer_project(&f(&["/Users/a/x.txt", "/Users/a/Desktop/y.txt"])),
            None
        );
        assert_eq!(
            infer_project(&f(&["c:/Users/x/a.ts", "c:/Users/x/b/c.ts"])),
            None
        );
        assert_eq!(
            infer_project(&f(&[
                "/Users/a/app/x.txt",
                "/Users/a/.cursor/projects/p/agent-tools/1.txt"
            ])),
            Some("/Users/a/app".into())
        );
    }

    #[test]
    fn a_projects_slug_names_the_ancestor_it_was_made_from() {
        let f = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            project_of_slug(
                "home-dev-proj-alpha",
                &f(&["/home/dev/proj-alpha/src/parse.rs"])
            ),
            Some("/home/dev/proj-alpha".into())
        );
        assert_eq!(
            project_of_slug(
                "Users-a-Desktop-my-app",
                &f(&["/tmp/x", "/Users/a/Desktop/my.app/src/"])
            ),
            Some("/Users/a/Desktop/my.app".into())
        );
        assert_eq!(
            project_of_slug("d-1-yuyu-proj", &f(&["D:\\1-yuyu\\proj\\a.ts"])),
            Some("D:/1-yuyu/proj".into())
        );
        assert_eq!(
            project_of_slug("home-dev-other", &f(&["/home/dev/proj-alpha/a.rs"])),
            None
        );
        assert_eq!(project_of_slug("", &f(&["/a"])), None);
    }
}
