//! The trust and privacy rules of DESIGN, end to end: the home is its owner's alone whatever the
//! umask; `get`/MCP serve only documents of a collection; low-trust text is marked on every surface.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use brain_tests::{bin_dir, command, run, workspace};

/// Every path under `root` (itself included), links not followed.
fn tree(root: &Path) -> Vec<(PathBuf, u32)> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(p) = stack.pop() {
        let meta = std::fs::symlink_metadata(&p).expect("stat");
        out.push((p.clone(), meta.permissions().mode() & 0o777));
        if meta.is_dir() {
            for e in std::fs::read_dir(&p).expect("read_dir").flatten() {
                stack.push(e.path());
            }
        }
    }
    out
}

#[test]
fn a_full_run_under_umask_022_leaves_nothing_in_the_home_readable_by_others() {
    let dir = tempfile::tempdir().expect("tempdir");
    let home = dir.path().join("home");
    let transcripts = workspace().join("golden/jsonl2md/claude-compaction");
    // The user's shell umask is 022: the stages must not inherit it.
    let script = format!(
        "umask 022; set -e -o pipefail; B={bin}; \
         $B/jsonl2md --new {src} | $B/partition | $B/lexindex; \
         $B/lexindex --all; \
         echo 'remember: the staging database is on port 5433' | $B/brain inbox >/dev/null; \
         $B/brain ask staging --json >/dev/null; \
         $B/brain doctor >/dev/null || true",
        bin = bin_dir().display(),
        src = transcripts.display()
    );
    let c = command("brain", &home);
    let out = Command::new("bash")
        .args(["-c", &script])
        .envs(c.get_envs().filter_map(|(k, v)| v.map(|v| (k, v))))
        .output()
        .expect("bash");
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let all = tree(&home);
    assert!(all.len() > 20, "a real home: {}", all.len());
    for what in ["state.sqlite", "index", "corpus", "inbox", "locks"] {
        assert!(
            all.iter().any(|(p, _)| p.to_string_lossy().contains(what)),
            "{what} was made"
        );
    }
    let open: Vec<String> = all
        .iter()
        .filter(|(_, mode)| mode & 0o077 != 0)
        .map(|(p, mode)| format!("{} {mode:04o}", p.display()))
        .collect();
    assert!(open.is_empty(), "readable by others: {open:#?}");
    // And doctor agrees.
    let out = run(command("brain", &home).args(["doctor", "--json"]), b"");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("report");
    let privacy = report["checks"]
        .as_array()
        .and_then(|c| c.iter().find(|c| c["name"] == "privacy"))
        .expect("privacy check");
    assert_eq!(privacy["outcome"], "pass", "{privacy}");
}
