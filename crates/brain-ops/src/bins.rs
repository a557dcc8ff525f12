//! Finding the stage binaries and the shipped pipelines, libexec-style (like git's exec-path): the
//! folder of the running executable first, then `<prefix>/libexec/brain/` beside `<prefix>/bin/brain`,
//! then PATH. `brain <stage>`, `explain`, `doctor` and `pipelines/stop-hook.sh` all look in this order.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::{Host, OpsError};

/// The stage binaries `make install` puts in `<prefix>/libexec/brain` (the Makefile's STAGES).
pub const STAGES: [&str; 10] = [
    "jsonl2md",
    "chrome2md",
    "doc2md",
    "distill-prompt",
    "partition",
    "lexindex",
    "vecindex",
    "teamindex",
    "rank",
    "fmt",
];

/// The file that marks a folder as the pipelines folder.
const PIPELINES_MARKER: &str = "stop-hook.sh";

/// Where `name` is, looking beside `exe` first; `None` when it is nowhere. A program found on PATH
/// counts only if `--version` names it as ours (`fmt 0.1.0`), so coreutils' `fmt` is never taken for
/// the `fmt` stage.
pub fn locate_from(exe: Option<&Path>, name: &str) -> Option<PathBuf> {
    let mut candidates = Vec::new();
    if let Some(dir) = exe.and_then(Path::parent) {
        candidates.push(dir.join(name));
        if let Some(prefix) = dir.parent() {
            candidates.push(prefix.join("libexec").join("brain").join(name));
        }
    }
    if let Some(found) = candidates.into_iter().find(|p| is_executable(p)) {
        return Some(found);
    }
    let path = brain_doc::env::os(brain_doc::env::PATH)?;
    std::env::split_paths(&path)
        .map(|p| p.join(name))
        .find(|p| is_executable(p) && (name == "brain" || is_ours(p, name)))
}

/// The first executable `name` on PATH (no ownership check), or `name` itself when it is a path.
pub fn on_path(name: &str) -> Option<PathBuf> {
    if name.contains('/') {
        return is_executable(Path::new(name)).then(|| PathBuf::from(name));
    }
    let path = brain_doc::env::os(brain_doc::env::PATH)?;
    std::env::split_paths(&path)
        .map(|p| p.join(name))
        .find(|p| is_executable(p))
}

/// Whether `p --version` prints `<name> <digit>…`, as every stage's clap `--version` does.
fn is_ours(p: &Path, name: &str) -> bool {
    std::process::Command::new(p)
        .arg("--version")
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output()
        .is_ok_and(|o| {
            brain_doc::bytes::text(&o.stdout)
                .0
                .strip_prefix(name)
                .and_then(|r| r.strip_prefix(' '))
                .is_some_and(|v| v.starts_with(|c: char| c.is_ascii_digit()))
        })
}

/// Where the stage `name` is for the running executable.
pub fn locate(name: &str) -> Option<PathBuf> {
    locate_from(std::env::current_exe().ok().as_deref(), name)
}

/// A regular file with an execute bit.
pub fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// One binary and where it resolved.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Binary {
    /// Its name (`brain`, `lexindex`, …).
    pub name: String,
    /// Absolute path, or null when it resolves nowhere.
    pub path: Option<String>,
}

/// `brain` itself (the running executable) and every stage, resolved.
pub fn resolve_all(host: &Host) -> Vec<Binary> {
    let brain = host
        .exe
        .as_ref()
        .filter(|p| p.file_name().is_some_and(|n| n == "brain"))
        .cloned()
        .or_else(|| locate_from(host.exe.as_deref(), "brain"));
    let mut out = vec![Binary {
        name: "brain".into(),
        path: brain.map(|p| p.display().to_string()),
    }];
    out.extend(STAGES.iter().map(|s| Binary {
        name: (*s).into(),
        path: locate_from(host.exe.as_deref(), s).map(|p| p.display().to_string()),
    }));
    out
}

/// The candidate pipelines folders, in lookup order: `$BRAIN_PIPELINES`; `<prefix>/share/brain`
/// beside `<prefix>/bin/brain` (installed); `<checkout>/pipelines` for `<checkout>/target/<profile>/brain`;
/// the checkout this binary was built from.
pub fn pipelines_candidates(host: &Host) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Some(p) = &host.pipelines {
        out.push(p.clone());
        return out;
    }
    if let Some(prefix) = host
        .exe
        .as_deref()
        .and_then(Path::parent)
        .and_then(Path::parent)
    {
        out.push(prefix.join("share").join("brain"));
        if let Some(checkout) = prefix.parent() {
            out.push(checkout.join("pipelines"));
        }
    }
    out.push(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../pipelines"));
    out
}

/// The pipelines folder (stop-hook.sh, nightly.mk, schedules/, skills/), installed or in a checkout.
pub fn pipelines_dir(host: &Host) -> Result<PathBuf, OpsError> {
    let candidates = pipelines_candidates(host);
    candidates
        .iter()
        .find(|d| d.join(PIPELINES_MARKER).is_file())
        .map(|d| std::path::absolute(d).unwrap_or_else(|_| d.clone()))
        .map(|d| normalize(&d))
        .ok_or_else(|| OpsError::PipelinesMissing {
            looked: candidates
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", "),
        })
}

/// `a/b/../c` → `a/c`, lexically (paths we built ourselves; no symlink resolution wanted).
pub(crate) fn normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stages_beside_the_executable_win_then_libexec() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().expect("tempdir");
        let bin = dir.path().join("bin");
        let libexec = dir.path().join("libexec/brain");
        for d in [&bin, &libexec] {
            std::fs::create_dir_all(d).expect("mkdir");
        }
        let exe = bin.join("brain");
        for f in [
            &exe,
            &libexec.join("rank"),
            &bin.join("fmt"),
            &libexec.join("fmt"),
        ] {
            std::fs::write(f, "#!/bin/sh\n").expect("write");
            std::fs::set_permissions(f, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        }
        std::fs::write(libexec.join("lexindex"), "not executable").expect("write");
        assert_eq!(locate_from(Some(&exe), "rank"), Some(libexec.join("rank")));
        assert_eq!(locate_from(Some(&exe), "fmt"), Some(bin.join("fmt")));
        assert_ne!(
            locate_from(Some(&exe), "lexindex"),
            Some(libexec.join("lexindex"))
        );
    }

    #[test]
    fn normalize_drops_parent_steps() {
        assert_eq!(
            normalize(Path::new("/a/b/../../c/./d")),
            PathBuf::from("/c/d")
        );
    }
}
