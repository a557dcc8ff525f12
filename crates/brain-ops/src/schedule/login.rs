//! The slow clock from the user's login, where no scheduler runs: one line, marked
//! `# brain-nightly` like the crontab line, in the login file a login shell reads, that starts
//! `brain schedule run --detach` for this home ([`super::clock`]). A second login finds the loop
//! running and starts none.
//!
//! The login file is the first of `~/.bash_profile`, `~/.bash_login` and `~/.zprofile` that exists
//! (bash reads `~/.profile` only when the first two are missing), else `~/.profile`.

use std::path::{Path, PathBuf};

use super::{CRON_MARKER, Params, ScheduleInfo, Scheduler};
use crate::{Host, OpsError, shell};

/// The files a login line may be in, in the order one is chosen.
fn candidates(host: &Host) -> [PathBuf; 4] {
    [".bash_profile", ".bash_login", ".zprofile", ".profile"].map(|f| host.user_home.join(f))
}

/// The login file the line goes in.
pub fn file(host: &Host) -> PathBuf {
    let [bash_profile, bash_login, zprofile, profile] = candidates(host);
    [bash_profile, bash_login, zprofile]
        .into_iter()
        .find(|p| p.is_file())
        .unwrap_or(profile)
}

/// The line: start the loop when this brain is still there.
pub fn line(p: &Params) -> String {
    let brain = shell::quote(&p.brain.display().to_string());
    let home = shell::quote(&p.home.display().to_string());
    format!(
        "if [ -x {brain} ]; then BRAIN_HOME={home} {brain} schedule run --detach >/dev/null 2>&1; fi {CRON_MARKER}"
    )
}

/// `text` without our lines, then `ours` (if any) at its end.
fn with_line(text: &str, ours: Option<&str>) -> String {
    let mut lines: Vec<&str> = text.lines().filter(|l| !l.contains(CRON_MARKER)).collect();
    if let Some(l) = ours {
        lines.push(l);
    }
    if lines.is_empty() {
        String::new()
    } else {
        format!("{}\n", lines.join("\n"))
    }
}

/// Write `text` over `path` atomically, keeping the file's permissions (a new one: 0644). A login
/// file that is a link (dotfiles kept in a repository) is written where it points: the link stays.
fn rewrite(path: &Path, text: &str) -> Result<(), OpsError> {
    use std::os::unix::fs::PermissionsExt;
    let target = std::fs::canonicalize(path);
    let path = target.as_deref().unwrap_or(path);
    let mode = std::fs::metadata(path).map_or(0o644, |m| m.permissions().mode() & 0o7777);
    brain_doc::atomic::write(path, text.as_bytes()).map_err(OpsError::io(path))?;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
        .map_err(OpsError::io(path))
}

/// Put the line in the login file (replacing an older one of ours); the line saying what was done.
pub fn install(host: &Host, p: &Params) -> Result<String, OpsError> {
    let path = file(host);
    let current = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(OpsError::io(&path)(e)),
    };
    let new = with_line(&current, Some(&line(p)));
    if new == current {
        return Ok(format!("unchanged {}", path.display()));
    }
    rewrite(&path, &new)?;
    Ok(format!(
        "{}: the slow clock starts at each login (`brain schedule run --detach`)",
        path.display()
    ))
}

/// Take our line out of every login file that has it; a line for each.
pub fn remove(host: &Host) -> Result<Vec<String>, OpsError> {
    let mut did = Vec::new();
    for path in candidates(host) {
        let Ok(current) = std::fs::read_to_string(&path) else {
            continue;
        };
        if current.contains(CRON_MARKER) {
            let rest = with_line(&current, None);
            // A file that held our line alone (install created it) goes with it.
            if rest.is_empty() && !path.is_symlink() {
                std::fs::remove_file(&path).map_err(OpsError::io(&path))?;
            } else {
                rewrite(&path, &rest)?;
            }
            did.push(format!(
                "removed the brain-nightly line from {}",
                path.display()
            ));
        }
    }
    Ok(did)
}

/// Our login lines, read back.
pub fn installed(host: &Host) -> Vec<ScheduleInfo> {
    let mut out = Vec::new();
    for path in candidates(host) {
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        for l in text
            .lines()
            .filter(|l| l.contains(CRON_MARKER) && !l.trim_start().starts_with('#'))
        {
            let words = shell::split(l);
            // `if [ -x BRAIN ]; then … BRAIN schedule run …`: the word before `schedule`.
            let brain = words
                .iter()
                .position(|w| w == "schedule")
                .and_then(|i| i.checked_sub(1))
                .and_then(|i| words.get(i))
                .cloned();
            let problem = match &brain {
                None => Some("runs no brain".to_string()),
                Some(b) if !crate::bins::is_executable(Path::new(b)) => {
                    Some(format!("brain {b} is missing or not executable"))
                }
                Some(_) => None,
            };
            out.push(ScheduleInfo {
                kind: Scheduler::Login,
                location: path.display().to_string(),
                entry: l.to_string(),
                nightly: None,
                brain,
                problem,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_replaces_ours_and_keeps_the_rest() {
        let p = Params {
            brain: "/opt/my brain/brain".into(),
            home: "/h/.brain".into(),
            nightly: "/x/nightly.mk".into(),
            log: "/h/.brain/logs/nightly.log".into(),
            path: String::new(),
        };
        let ours = line(&p);
        assert!(
            ours.contains("'/opt/my brain/brain' schedule run --detach"),
            "{ours}"
        );
        let before = "export EDITOR=vi\nold line # brain-nightly\nalias ll='ls -l'\n";
        let after = with_line(before, Some(&ours));
        assert_eq!(
            after,
            format!("export EDITOR=vi\nalias ll='ls -l'\n{ours}\n")
        );
        assert_eq!(with_line(&after, Some(&ours)), after, "idempotent");
        assert_eq!(
            with_line(&after, None),
            "export EDITOR=vi\nalias ll='ls -l'\n"
        );
        let words = shell::split(&ours);
        let i = words
            .iter()
            .position(|w| w == "schedule")
            .expect("schedule");
        assert_eq!(words[i - 1], "/opt/my brain/brain");
    }
}
