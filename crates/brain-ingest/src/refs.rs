//! What a session touched, as typed refs (seed 003: `file | url | plan | repo | doc | commit`), so
//! `ref:src/auth.rs` finds every session that touched that file and `ref:4e5f6a7` the one that
//! made a commit:
//!
//! | call | refs |
//! |---|---|
//! | a file tool (Read, Edit, Write, `read_file`, `replace`, …), a Codex patch's files | `plan:` for a plan (`…/plans/…`, `*plan*.md`), `doc:` for documentation (`.md`, `.mdx`, `.rst`, `.adoc`, `.txt`), else `file:` |
//! | a fetch (WebFetch, `web_fetch`) | `url:`, and `repo:<host>/<owner>/<name>` for a GitHub, GitLab, Codeberg or Bitbucket repository URL |
//! | a shell command | `repo:` of `git clone URL` / `gh repo clone OWNER/NAME`; `commit:` of `git show`, `revert`, `cherry-pick`, `checkout` of a hash |
//! | a shell's output | `commit:` of the `[branch abc1234] message` line `git commit` prints |
//!
//! Searches (`Grep`, `Glob`, `LS`) touch nothing in particular and add none.

use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

use crate::tools::{command_text, patch_lines};

/// Most refs one call adds (a patch of hundreds of files names the first ones).
const MAX_REFS_PER_CALL: usize = 50;

/// Hosts whose `/<owner>/<name>` URLs are repositories.
const REPO_HOSTS: [&str; 5] = [
    "github.com",
    "gitlab.com",
    "codeberg.org",
    "bitbucket.org",
    "git.sr.ht",
];

/// The typed refs of a call of tool `name` with `input`.
pub fn refs_of(name: &str, input: &Value) -> Vec<String> {
    let s = |k: &str| {
        input
            .get(k)
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|v| !v.is_empty() && !v.contains('\n'))
    };
    let mut out: Vec<String> = match name {
        "Read" | "Edit" | "Write" | "MultiEdit" | "NotebookEdit" | "read_file" | "write_file"
        | "replace" | "edit" => s("file_path")
            .or(s("notebook_path"))
            .or(s("path"))
            .or(s("absolute_path"))
            .map(|p| vec![path_ref(p)])
            .unwrap_or_default(),
        "WebFetch" | "web_fetch" => s("url").map(url_refs).unwrap_or_default(),
        "apply_patch" => {
            let text = input
                .as_str()
                .or_else(|| input.get("input").and_then(Value::as_str))
                .or_else(|| input.get("patch").and_then(Value::as_str))
                .unwrap_or_default();
            patch_lines(text)
                .into_iter()
                .filter_map(|l| l.split_once(':').map(|(_, p)| p.trim()))
                .filter(|p| !p.is_empty())
                .map(path_ref)
                .collect()
        }
        "Bash" | "Monitor" | "run_shell_command" | "exec_command" | "shell" | "local_shell" => {
            command_text(input)
                .map(|c| shell_refs(&c))
                .unwrap_or_default()
        }
        _ => Vec::new(),
    };
    out.dedup();
    out.truncate(MAX_REFS_PER_CALL);
    out
}

/// A path as a typed ref: `plan:`, `doc:` or `file:`.
pub fn path_ref(p: &str) -> String {
    let lower = p.to_lowercase();
    let name = lower.rsplit(['/', '\\']).next().unwrap_or(&lower);
    let ext = name.rsplit_once('.').map_or("", |(_, e)| e);
    let markdown = matches!(ext, "md" | "mdx" | "markdown");
    let kind = if (markdown && (lower.contains("/plans/") || name.contains("plan")))
        || lower.contains("/.claude/plans/")
    {
        "plan"
    } else if markdown || matches!(ext, "rst" | "adoc" | "txt") {
        "doc"
    } else {
        "file"
    };
    format!("{kind}:{p}")
}

/// A fetched URL as refs: `url:` and, for a repository, `repo:`.
pub fn url_refs(u: &str) -> Vec<String> {
    let mut out = vec![format!("url:{u}")];
    if let Some(r) = repo_of_url(u) {
        out.push(format!("repo:{r}"));
    }
    out
}

/// `host/owner/name` of a repository URL (`https://github.com/a/b/pull/3` → `github.com/a/b`;
/// `git@github.com:a/b.git` too).
fn repo_of_url(u: &str) -> Option<String> {
    let rest = u
        .strip_prefix("https://")
        .or_else(|| u.strip_prefix("http://"))
        .or_else(|| u.strip_prefix("ssh://git@"))
        .or_else(|| u.strip_prefix("git@"))?;
    let rest = rest.strip_prefix("www.").unwrap_or(rest);
    let (host, path) = rest.split_once(['/', ':'])?;
    let host = host.to_lowercase();
    if !REPO_HOSTS.contains(&host.as_str()) {
        return None;
    }
    let mut parts = path.split(['/', '?', '#']).filter(|p| !p.is_empty());
    let owner = parts.next()?;
    let name = parts.next()?.trim_end_matches(".git");
    let ok = |s: &str| {
        !s.is_empty()
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
    };
    (ok(owner) && ok(name)).then(|| format!("{host}/{owner}/{name}"))
}

static CLONE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\bgit\s+clone\s+(?:-{1,2}[\w-]+(?:[= ][^\s-]\S*)?\s+)*([^\s;&|]+)")
        .unwrap_or_else(|e| unreachable!("a fixed pattern compiles: {e}"))
});
static GH_CLONE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\bgh\s+repo\s+clone\s+([\w.-]+/[\w.-]+)")
        .unwrap_or_else(|e| unreachable!("a fixed pattern compiles: {e}"))
});
static GIT_SHA: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"\bgit\s+(?:show|revert|cherry-pick|checkout)\s+(?:-{1,2}[\w-]+\s+)*([0-9a-f]{7,40})\b",
    )
    .unwrap_or_else(|e| unreachable!("a fixed pattern compiles: {e}"))
});
static COMMITTED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?m)^\[[^\]\s]+(?: \(root-commit\))? ([0-9a-f]{7,40})\] ")
        .unwrap_or_else(|e| unreachable!("a fixed pattern compiles: {e}"))
});

/// The repos and commits a shell command names.
pub fn shell_refs(cmd: &str) -> Vec<String> {
    let mut out = Vec::new();
    for c in CLONE.captures_iter(cmd) {
        let url = c[1].trim_matches(['"', '\'']);
        out.push(format!(
            "repo:{}",
            repo_of_url(url).unwrap_or_else(|| url.to_string())
        ));
    }
    for c in GH_CLONE.captures_iter(cmd) {
        out.push(format!("repo:github.com/{}", &c[1]));
    }
    for c in GIT_SHA.captures_iter(cmd) {
        out.push(format!("commit:{}", &c[1]));
    }
    out
}

/// The commits a shell's output says were made (`git commit` prints `[main 4e5f6a7] message`).
pub fn commits_in_output(text: &str) -> Vec<String> {
    COMMITTED
        .captures_iter(text)
        .map(|c| format!("commit:{}", &c[1]))
        .take(MAX_REFS_PER_CALL)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_typed_by_what_they_are() {
        assert_eq!(path_ref("src/auth.rs"), "file:src/auth.rs");
        assert_eq!(
            path_ref("/h/u/.claude/plans/humble-gliding-thunder.md"),
            "plan:/h/u/.claude/plans/humble-gliding-thunder.md"
        );
        assert_eq!(path_ref("docs/PLAN.md"), "plan:docs/PLAN.md");
        assert_eq!(path_ref("README.md"), "doc:README.md");
        assert_eq!(path_ref("notes.txt"), "doc:notes.txt");
        assert_eq!(path_ref("plans.rs"), "file:plans.rs");
    }

    #[test]
    fn repos_and_commits_come_from_urls_commands_and_output() {
        assert_eq!(
            url_refs("https://github.com/tobi/qmd/pull/3"),
            [
                "url:https://github.com/tobi/qmd/pull/3",
                "repo:github.com/tobi/qmd"
            ]
        );
        assert_eq!(
            url_refs("https://docs.rs/regex"),
            ["url:https://docs.rs/regex"]
        );
        assert_eq!(
            shell_refs(
                "cd /tmp && git clone --depth 1 https://github.com/codemie-ai/codemie-code.git && ls"
            ),
            ["repo:github.com/codemie-ai/codemie-code"]
        );
        assert_eq!(shell_refs("gh repo clone a/b"), ["repo:github.com/a/b"]);
        assert_eq!(shell_refs("git show --stat 4e5f6a7"), ["commit:4e5f6a7"]);
        assert!(shell_refs("git checkout main").is_empty());
        assert_eq!(
            commits_in_output(
                "[main 4e5f6a7] Fix the flake\n 1 file changed\n[x (root-commit) abcdef1] init\n"
            ),
            ["commit:4e5f6a7", "commit:abcdef1"]
        );
        assert!(commits_in_output("see [note 1] here").is_empty());
    }
}
