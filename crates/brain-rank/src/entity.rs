//! Projects and agents named in a question — "the flaky test in the billing repo", "what did we try
//! with gemini" — become **soft boosts**, never filters: a hit of that project or agent scores
//! `1 + boost` times as much, and a second lexical list searches the project's documents so its
//! sessions the unfiltered list ranked low still come in (auto mode; `--project`/`--agent` and
//! `project:`/`agent:` stay hard filters).
//!
//! A project is known by the index (`meta.project`, a working directory such as `~/code/billing-api`)
//! and named by its folder in any spelling: `billing-api`, `billing_api`, `billing api`,
//! `BillingApi`. Folders too generic to name anything (`repo`, `src`, `tmp`, …) are not matched.

use brain_doc::Hit;
use serde_json::Value;

use crate::strategy::EntityWeights;

/// What a name points at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Project,
    Agent,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Project => "project",
            Kind::Agent => "agent",
        }
    }
}

/// A project or agent a query names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Named {
    pub kind: Kind,
    /// The value as the index holds it (`~/code/billing-api`, `codex`).
    pub value: String,
    /// The words that named it, as written.
    pub words: String,
}

impl Named {
    /// How it was read, for warnings and `--explain`.
    pub fn describe(&self) -> String {
        format!(
            "read `{}` as {} {} (soft: a boost, not a filter)",
            self.words,
            self.kind.name(),
            self.value
        )
    }

    fn matches(&self, h: &Hit) -> bool {
        let v = match self.kind {
            Kind::Project => h.project.as_deref(),
            Kind::Agent => h.agent.as_deref(),
        };
        v == Some(self.value.as_str())
    }
}

/// Folder names that name no project.
const GENERIC: [&str; 18] = [
    "repo",
    "repos",
    "project",
    "projects",
    "src",
    "tmp",
    "code",
    "workspace",
    "home",
    "work",
    "app",
    "test",
    "tests",
    "dev",
    "main",
    "private",
    "proj",
    "users",
];

/// Longest run of query words one name may span (`claude code log`).
const MAX_WORDS: usize = 4;

/// The projects (of `projects`) and agents (of `agents`) that `text` names, in query order; one
/// entry per value.
pub fn find(text: &str, projects: &[String], agents: &[String]) -> Vec<Named> {
    let words: Vec<&str> = text.split_whitespace().collect();
    let norm: Vec<String> = words.iter().map(|w| squash(w)).collect();
    let keys: Vec<(String, &String)> = projects
        .iter()
        .filter_map(|p| {
            let folder = p.rsplit(['/', '\\']).find(|s| !s.is_empty())?;
            let key = squash(folder);
            (key.len() >= 3 && !GENERIC.contains(&key.as_str())).then_some((key, p))
        })
        .collect();
    let mut out: Vec<Named> = Vec::new();
    let mut push = |n: Named| {
        if !out.iter().any(|o| o.kind == n.kind && o.value == n.value) {
            out.push(n);
        }
    };
    for i in 0..words.len() {
        for len in (1..=MAX_WORDS.min(words.len() - i)).rev() {
            let joined: String = norm[i..i + len].concat();
            if joined.is_empty() {
                continue;
            }
            // Every project of that folder name (one repository cloned on two machines is two
            // working directories).
            let same: Vec<&String> = keys
                .iter()
                .filter(|(k, _)| *k == joined)
                .map(|(_, p)| *p)
                .collect();
            if !same.is_empty() {
                for p in same {
                    push(Named {
                        kind: Kind::Project,
                        value: p.clone(),
                        words: words[i..i + len].join(" "),
                    });
                }
                break;
            }
            if len == 1
                && let Some(a) = agents.iter().find(|a| **a == joined)
            {
                push(Named {
                    kind: Kind::Agent,
                    value: a.clone(),
                    words: words[i].to_string(),
                });
            }
        }
    }
    out
}

/// The working directories (of `projects`) a `project:` filter or `--project` names: the value
/// itself, and every known project whose folder it spells in any form (`claude-code-log`,
/// `claude_code_log`, `ClaudeCodeLog` all name `~/work/claude-code-log` and `/Users/x/src/claude-code-log`),
/// or whose path ends with it (`github/claude-code-log`). A hard filter still — only how it is
/// spelled is forgiven.
///
/// One project wherever its sessions ran (issue 57, [`brain_store::project`]): a value that is a
/// folder of this machine in a repository also names every folder the repository is checked out
/// in and every known project inside those (its subfolders, its worktrees); and a known project
/// in a worktree layout (`app/.claude/worktrees/x`) is named with the repository before it.
///
/// Merged by the user (`merged`: brain.yaml's `projects: merge:`, from → into): a project merged
/// into one named is named too, and one named names the project it was merged into, with that
/// one's other parts.
pub fn resolve_projects(
    values: &[String],
    projects: &[String],
    merged: &[(String, String)],
) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut checkouts: Vec<String> = Vec::new();
    for v in values {
        if !out.contains(v) {
            out.push(v.clone());
        }
        for c in brain_store::project::checkout_folders(v) {
            if !out.contains(&c) {
                out.push(c.clone());
            }
            checkouts.push(c);
        }
        let key = squash(v);
        if key.is_empty() {
            continue;
        }
        let tail = v.trim_matches(['/', '\\']);
        for p in projects {
            let folder = p.rsplit(['/', '\\']).find(|s| !s.is_empty()).unwrap_or(p);
            let ends = !tail.is_empty()
                && p.trim_end_matches(['/', '\\'])
                    .strip_suffix(tail)
                    .is_some_and(|head| head.ends_with(['/', '\\']));
            if (squash(folder) == key || ends) && !out.contains(p) {
                out.push(p.clone());
            }
        }
    }
    for p in projects {
        if !out.contains(p) && is_part(p, &out, &checkouts) {
            out.push(p.clone());
        }
    }
    let spelled = |name: &str| {
        let key = squash(name);
        !key.is_empty() && values.iter().any(|v| squash(v) == key)
    };
    // Each pass can only add: at most one pass per merge, and one to see nothing more comes.
    for _ in 0..=merged.len() {
        let mut added = false;
        for (from, into) in merged {
            if (out.contains(into) || spelled(into)) && !out.contains(from) {
                out.push(from.clone());
                added = true;
            }
            if out.contains(from) && !out.contains(into) {
                out.push(into.clone());
                added = true;
            }
        }
        if !added {
            break;
        }
    }
    out
}

/// Whether the known project `p` is one of `named`: inside a folder the repository is checked out
/// in (`checkouts`: a subfolder, an in-tree worktree), or in a worktree layout whose repository is
/// named.
fn is_part(p: &str, named: &[String], checkouts: &[String]) -> bool {
    let inside = checkouts.iter().any(|c| {
        p.strip_prefix(c.as_str())
            .is_some_and(|rest| rest.starts_with(['/', '\\']))
    });
    inside || brain_store::project::worktree_parent(p).is_some_and(|r| named.iter().any(|n| n == r))
}

/// The index's projects with the folders each was worked in ([`resolve_projects`]'s rule without
/// the spellings), for doctor: a project is its repository's folder when that is on this machine
/// (with every checkout of it), else the repository a worktree layout names when the index knows
/// it, else itself; a project the user merged (`merged`, from → into) is listed under the one it
/// was merged into. Sorted by project; its own folder first.
pub fn project_folders(
    projects: &[String],
    merged: &[(String, String)],
) -> Vec<(String, Vec<String>)> {
    let mut groups: std::collections::BTreeMap<String, Vec<String>> = Default::default();
    for p in projects {
        let checkouts = brain_store::project::checkout_folders(p);
        let key = match checkouts.first() {
            Some(root) => root.clone(),
            None => brain_store::project::worktree_parent(p)
                .filter(|r| projects.iter().any(|q| q == r))
                .map_or_else(|| p.clone(), str::to_string),
        };
        let folders = groups.entry(key.clone()).or_insert_with(|| vec![key]);
        for f in checkouts.into_iter().chain([p.clone()]) {
            if !folders.contains(&f) {
                folders.push(f);
            }
        }
    }
    for (from, into) in merged {
        let Some(moved) = groups.remove(from) else {
            continue;
        };
        let folders = groups.entry(into.clone()).or_default();
        for f in moved {
            if !folders.contains(&f) {
                folders.push(f);
            }
        }
    }
    groups.into_iter().collect()
}

/// Lower-case letters and digits only: `Billing_API` → `billingapi`.
fn squash(w: &str) -> String {
    w.chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

/// Raise the hits of the named projects and agents (signal `named`), keep each document's hits
/// together, best first, and normalize so the best is 1.
pub fn apply(hits: &mut Vec<Hit>, named: &[Named], w: &EntityWeights) {
    if named.is_empty() || hits.is_empty() {
        return;
    }
    for h in hits.iter_mut() {
        let n = named.iter().filter(|n| n.matches(h)).count();
        if n > 0 {
            h.score *= 1.0 + w.boost * n as f64;
            h.signals.insert("named".into(), Value::from(n as u64));
        }
    }
    crate::when::score::regroup(hits, |best, _| best);
    crate::when::score::normalize(hits);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_project_filter_names_every_working_directory_of_that_folder() {
        let projects: Vec<String> = [
            "~/work/claude-code-log",
            "/Users/dain/workspace/claude-code-log",
            "e:\\src\\claude-code-log",
            "~/work/claude-code-login",
            "~/github/other",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let got = resolve_projects(&["ClaudeCodeLog".into()], &projects, &[]);
        assert_eq!(
            got,
            [
                "ClaudeCodeLog",
                "~/work/claude-code-log",
                "/Users/dain/workspace/claude-code-log",
                "e:\\src\\claude-code-log"
            ]
        );
        let got = resolve_projects(&["github/other".into()], &projects, &[]);
        assert_eq!(got, ["github/other", "~/github/other"]);
        // A path that is only a suffix of a folder name names nothing more.
        assert_eq!(resolve_projects(&["other".into()], &projects, &[]).len(), 2);
        assert_eq!(resolve_projects(&["ther".into()], &projects, &[]), ["ther"]);
        assert_eq!(resolve_projects(&["--".into()], &projects, &[]), ["--"]);
        assert!(resolve_projects(&[], &projects, &[]).is_empty());
    }

    /// Projects recorded in a worktree layout before sessions were named by their repository
    /// (or by another machine) are the repository's: `--project` on it names them too.
    #[test]
    fn a_worktree_layout_project_is_named_with_its_repository() {
        let projects: Vec<String> = [
            "/Users/d/web",
            "/Users/d/web/.claude/worktrees/agent-a4",
            "/Users/d/web/.worktrees/fix",
            "/Users/d/web/docs",
            "/Users/d/webby/.worktrees/fix",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let grouped = project_folders(&projects, &[]);
        assert_eq!(grouped.len(), 3, "{grouped:?}");
        assert_eq!(grouped[0].0, "/Users/d/web");
        assert_eq!(grouped[0].1.len(), 3, "{grouped:?}");
        let got = resolve_projects(&["web".into()], &projects, &[]);
        assert_eq!(
            got,
            [
                "web",
                "/Users/d/web",
                "/Users/d/web/.claude/worktrees/agent-a4",
                "/Users/d/web/.worktrees/fix"
            ],
            "a subfolder not on this machine is not known to be the repository's"
        );
    }

    /// brain.yaml's `projects: merge:` (issue 57: a user can merge or rename a project).
    #[test]
    fn merged_projects_are_named_together_either_way() {
        let projects: Vec<String> = ["/Users/d/billing", "~/work/billing-api", "~/other"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let merged = vec![
            (
                "/Users/d/billing".to_string(),
                "~/work/billing-api".to_string(),
            ),
            ("~/other".to_string(), "ledger".to_string()),
        ];
        let got = resolve_projects(&["~/work/billing-api".into()], &projects, &merged);
        assert_eq!(got, ["~/work/billing-api", "/Users/d/billing"]);
        let got = resolve_projects(&["/Users/d/billing".into()], &projects, &merged);
        assert!(got.contains(&"~/work/billing-api".to_string()), "{got:?}");
        // A rename: the name given names the project.
        let got = resolve_projects(&["Ledger".into()], &projects, &merged);
        assert!(got.contains(&"~/other".to_string()), "{got:?}");
        let grouped = project_folders(&projects, &merged);
        assert_eq!(
            grouped,
            [
                ("ledger".to_string(), vec!["~/other".to_string()]),
                (
                    "~/work/billing-api".to_string(),
                    vec![
                        "~/work/billing-api".to_string(),
                        "/Users/d/billing".to_string()
                    ]
                ),
            ]
        );
    }

    #[test]
    fn a_project_is_named_by_its_folder_in_any_spelling_and_agents_by_name() {
        let projects = vec![
            "~/code/billing-api".to_string(),
            "C:\\src\\github\\claude-code-log".to_string(),
            "/Users/dain/workspace/claude-code-log".to_string(),
            "~/repo".to_string(),
        ];
        let agents = vec!["claude".to_string(), "codex".to_string()];
        for q in [
            "pytest error in billing-api",
            "pytest error in billing_api",
            "pytest error in the billing api",
            "pytest error in BillingApi",
        ] {
            let n = find(q, &projects, &agents);
            assert_eq!(n.len(), 1, "{q}");
            assert_eq!(n[0].value, "~/code/billing-api");
        }
        let n = find(
            "timeline filter in claude code log with codex",
            &projects,
            &agents,
        );
        assert_eq!(
            n.iter()
                .map(|n| (n.kind, n.value.as_str()))
                .collect::<Vec<_>>(),
            [
                (Kind::Project, "C:\\src\\github\\claude-code-log"),
                (Kind::Project, "/Users/dain/workspace/claude-code-log"),
                (Kind::Agent, "codex")
            ],
            "every working directory of the folder name"
        );
        // A generic folder names nothing.
        assert!(find("the repo was slow", &projects, &agents).is_empty());
        assert!(find("", &projects, &agents).is_empty());
    }
}
