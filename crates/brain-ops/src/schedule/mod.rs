//! The slow clock's schedules: a crontab line, a systemd user timer (+ service), a launchd agent —
//! rendered from the templates in `pipelines/schedules/`, installed and removed idempotently, and read
//! back for `explain`/`doctor`. Each runs `make -f <pipelines>/nightly.mk BRAIN=<this brain>` every two
//! hours with this `$BRAIN_HOME`. Where none of them runs, a line in the user's login file starts
//! brain's own loop ([`login`], [`clock`]), which `brain watch` also runs while no schedule is
//! installed. The helper commands (`crontab`, `systemctl`, `launchctl`) come from [`Host`], so tests
//! point them at stand-ins and never touch the machine's real schedules.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use brain_store::Home;
use serde::{Deserialize, Serialize};

use crate::{Host, OpsError, shell};

pub mod clock;
pub mod login;

/// The crontab marker of our line.
pub const CRON_MARKER: &str = "# brain-nightly";
/// systemd unit names.
pub const SERVICE: &str = "brain-nightly.service";
pub const TIMER: &str = "brain-nightly.timer";
/// launchd label and file.
pub const LAUNCHD_LABEL: &str = "com.brain.nightly";

/// A scheduler.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Scheduler {
    Cron,
    Systemd,
    Launchd,
    /// A line in the user's login file that starts brain's own loop ([`clock`]).
    Login,
}

impl Scheduler {
    /// Every scheduler, in the order `explain` lists them.
    pub const ALL: [Scheduler; 4] = [
        Scheduler::Cron,
        Scheduler::Systemd,
        Scheduler::Launchd,
        Scheduler::Login,
    ];

    /// `cron`, `systemd`, `launchd` or `login`.
    pub fn name(self) -> &'static str {
        match self {
            Scheduler::Cron => "cron",
            Scheduler::Systemd => "systemd",
            Scheduler::Launchd => "launchd",
            Scheduler::Login => "login",
        }
    }

    /// The natural one here: launchd on macOS, a systemd user timer where systemd runs, cron where
    /// `crontab` is installed, else the login line (with why: what is missing).
    pub fn default_for(host: &Host) -> (Scheduler, Option<String>) {
        if cfg!(target_os = "macos") {
            (Scheduler::Launchd, None)
        } else if Path::new("/run/systemd/system").is_dir()
            && crate::bins::on_path(&host.systemctl).is_some()
        {
            (Scheduler::Systemd, None)
        } else if crate::bins::on_path(&host.crontab).is_some() {
            (Scheduler::Cron, None)
        } else {
            let why = format!(
                "cron is not installed (no `{}` on PATH) and systemd does not run here",
                host.crontab
            );
            (Scheduler::Login, Some(why))
        }
    }
}

/// One installed schedule of ours, as read back.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScheduleInfo {
    /// `cron`, `systemd` or `launchd`.
    pub kind: Scheduler,
    /// Where it is: `crontab`, or the unit/plist file.
    pub location: String,
    /// The crontab line or the command it runs.
    pub entry: String,
    /// The nightly.mk it runs.
    pub nightly: Option<String>,
    /// The brain it runs (`BRAIN=`).
    pub brain: Option<String>,
    /// What is wrong with it (nightly.mk or brain missing), or null.
    pub problem: Option<String>,
}

/// What a template is filled with.
#[derive(Debug, Clone)]
pub struct Params {
    pub brain: PathBuf,
    pub home: PathBuf,
    pub nightly: PathBuf,
    pub log: PathBuf,
    pub path: String,
}

impl Params {
    /// For this host and home: the running brain, the pipelines' nightly.mk, `$BRAIN_HOME/logs/nightly.log`.
    pub fn new(host: &Host, home: &Home, pipelines: &Path) -> Params {
        let brain = host.exe.clone().unwrap_or_else(|| PathBuf::from("brain"));
        let bin_dir = brain
            .parent()
            .map(|d| d.display().to_string())
            .unwrap_or_default();
        let home_root =
            std::path::absolute(home.root()).unwrap_or_else(|_| home.root().to_path_buf());
        Params {
            nightly: pipelines.join("nightly.mk"),
            log: home_root.join("logs").join("nightly.log"),
            path: format!("{bin_dir}:/usr/local/bin:/opt/homebrew/bin:/usr/bin:/bin"),
            home: home_root,
            brain,
        }
    }

    pub(crate) fn render(&self, template: &str, esc: fn(&str) -> String) -> String {
        let s = |p: &Path| esc(&p.display().to_string());
        template
            .replace("@BRAIN_HOME@", &s(&self.home))
            .replace("@BRAIN@", &s(&self.brain))
            .replace("@NIGHTLY_MK@", &s(&self.nightly))
            .replace("@LOG@", &s(&self.log))
            .replace("@PATH@", &esc(&self.path))
    }
}

fn cron_escape(s: &str) -> String {
    shell::quote(s).replace('%', "\\%")
}
pub(crate) fn systemd_escape(s: &str) -> String {
    s.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('%', "%%")
        .replace('$', "$$")
}
pub(crate) fn xml_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}
fn xml_unescape(s: &str) -> String {
    s.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}

pub(crate) fn template(pipelines: &Path, name: &str) -> Result<String, OpsError> {
    let p = pipelines.join("schedules").join(name);
    std::fs::read_to_string(&p).map_err(OpsError::io(p))
}

/// Run a helper command (`crontab`, `systemctl`, …; may carry arguments of its own) with `args`.
pub(crate) fn helper(cmd: &str, args: &[&str], stdin: Option<&str>) -> Result<String, OpsError> {
    let words = shell::split(cmd);
    let Some((prog, pre)) = words.split_first() else {
        return Err(OpsError::Command {
            command: cmd.into(),
            reason: "empty command".into(),
        });
    };
    let shown = format!("{cmd} {}", args.join(" "));
    let fail = |reason: String| OpsError::Command {
        command: shown.clone(),
        reason,
    };
    let mut child = Command::new(prog)
        .args(pre)
        .args(args)
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| match e.kind() {
            // "`crontab -l` failed: No such file or directory" said nothing of cron.
            std::io::ErrorKind::NotFound => fail(format!(
                "`{prog}` {} (not found on PATH)",
                crate::error::NOT_INSTALLED
            )),
            _ => fail(e.to_string()),
        })?;
    if let (Some(text), Some(mut i)) = (stdin, child.stdin.take()) {
        use std::io::Write;
        i.write_all(text.as_bytes())
            .map_err(|e| fail(e.to_string()))?;
    }
    let out = child.wait_with_output().map_err(|e| fail(e.to_string()))?;
    if out.status.success() {
        Ok(brain_doc::bytes::lossy(&out.stdout))
    } else {
        Err(fail(
            brain_doc::bytes::text(&out.stderr).0.trim().to_string(),
        ))
    }
}

/// The current crontab (`crontab -l`; "no crontab for …" is an empty one).
fn read_crontab(host: &Host) -> Result<String, OpsError> {
    match helper(&host.crontab, &["-l"], None) {
        Ok(t) => Ok(t),
        Err(OpsError::Command { reason, .. }) if reason.contains("no crontab") => Ok(String::new()),
        Err(e) => Err(e),
    }
}

fn systemd_files(host: &Host) -> [PathBuf; 2] {
    [host.systemd_dir.join(SERVICE), host.systemd_dir.join(TIMER)]
}
fn launchd_file(host: &Host) -> PathBuf {
    host.launchd_dir.join(format!("{LAUNCHD_LABEL}.plist"))
}

/// `-f <nightly>` and `BRAIN=<brain>` out of a command's words.
fn describe(kind: Scheduler, location: String, entry: String, words: &[String]) -> ScheduleInfo {
    let nightly = words
        .iter()
        .position(|w| w == "-f")
        .and_then(|i| words.get(i + 1))
        .cloned();
    let brain = words
        .iter()
        .find_map(|w| w.strip_prefix("BRAIN="))
        .map(str::to_string);
    let problem = match (&nightly, &brain) {
        (None, _) => Some("runs no nightly.mk".to_string()),
        (Some(n), _) if !Path::new(n).is_file() => Some(format!("{n} is missing")),
        (_, Some(b)) if !crate::bins::is_executable(Path::new(b)) => {
            Some(format!("BRAIN {b} is missing or not executable"))
        }
        _ => None,
    };
    ScheduleInfo {
        kind,
        location,
        entry,
        nightly,
        brain,
        problem,
    }
}

/// Our schedules on this host. A scheduler that cannot be asked (no `crontab` here) has none.
pub fn installed(host: &Host) -> Vec<ScheduleInfo> {
    let mut out = Vec::new();
    if let Ok(tab) = read_crontab(host) {
        for line in tab
            .lines()
            .filter(|l| l.contains(CRON_MARKER) && !l.trim_start().starts_with('#'))
        {
            let words = shell::split(line.replace("\\%", "%").split(" # ").next().unwrap_or(line));
            out.push(describe(
                Scheduler::Cron,
                "crontab".into(),
                line.to_string(),
                &words,
            ));
        }
    }
    let [service, _] = systemd_files(host);
    if let Ok(text) = std::fs::read_to_string(&service) {
        let exec = text
            .lines()
            .find_map(|l| l.strip_prefix("ExecStart="))
            .unwrap_or_default();
        let words = shell::split(&exec.replace("%%", "%").replace("$$", "$"));
        let mut info = describe(
            Scheduler::Systemd,
            service.display().to_string(),
            exec.to_string(),
            &words,
        );
        // Units on disk are not a schedule: systemd must have the timer enabled (no user session
        // bus at install time leaves the files and no timer).
        if info.problem.is_none()
            && let Err(e) = helper(&host.systemctl, &["--user", "is-enabled", TIMER], None)
        {
            info.problem = Some(format!(
                "the timer is not enabled, so it never runs ({e}); run `systemctl --user enable --now {TIMER}` where a user session bus runs, or `brain schedule install --cron` (or `--login` where neither runs)"
            ));
        }
        out.push(info);
    }
    let plist = launchd_file(host);
    if let Ok(text) = std::fs::read_to_string(&plist) {
        let args = text
            .split("<array>")
            .nth(1)
            .and_then(|a| a.split("</array>").next())
            .unwrap_or_default();
        let words: Vec<String> = args
            .split("<string>")
            .skip(1)
            .filter_map(|s| s.split("</string>").next())
            .map(xml_unescape)
            .collect();
        out.push(describe(
            Scheduler::Launchd,
            plist.display().to_string(),
            words.join(" "),
            &words,
        ));
    }
    out.extend(login::installed(host));
    out
}

/// What runs the slow clock of `home` now: the schedules installed, and the loop (`brain schedule
/// run`, from a login or a watcher) if one runs.
#[derive(Debug, Clone, Serialize)]
pub struct Runners {
    pub schedules: Vec<ScheduleInfo>,
    pub running: Option<clock::State>,
}

impl Runners {
    pub fn of(host: &Host, home: &Home) -> Runners {
        Runners {
            schedules: installed(host),
            running: clock::running(home),
        }
    }

    /// A scheduler of the machine's (not the login line) holds a schedule that can run.
    pub fn scheduled(&self) -> bool {
        self.schedules
            .iter()
            .any(|s| s.kind != Scheduler::Login && s.problem.is_none())
    }
}

/// Write `text` to `path` unless it already holds it; the line saying what happened.
pub(crate) fn put(path: &Path, text: &str) -> Result<String, OpsError> {
    if std::fs::read_to_string(path).is_ok_and(|t| t == text) {
        return Ok(format!("unchanged {}", path.display()));
    }
    brain_doc::atomic::write(path, text.as_bytes()).map_err(OpsError::io(path))?;
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o644))
        .map_err(OpsError::io(path))?;
    Ok(format!("wrote {}", path.display()))
}

/// Run an activation command; its failure is reported as a line, not an error (the files are in place).
pub(crate) fn activate(cmd: &str, args: &[&str]) -> String {
    match helper(cmd, args, None) {
        Ok(_) => format!("ran `{cmd} {}`", args.join(" ")),
        Err(e) => format!("warning: {e}; run `{cmd} {}` yourself", args.join(" ")),
    }
}

/// `systemctl --user daemon-reload`, then `enable --now UNIT`; a failure of either fails the
/// install (the files stay written: without a user session bus the unit would never run).
pub(crate) fn enable_unit(host: &Host, unit: &str) -> Result<Vec<String>, OpsError> {
    let mut did = Vec::new();
    for args in [
        &["--user", "daemon-reload"][..],
        &["--user", "enable", "--now", unit][..],
    ] {
        helper(&host.systemctl, args, None).map_err(|e| match e {
            OpsError::Command { command, reason } => OpsError::Command {
                command,
                reason: format!(
                    "{reason} (the units are written in {}, but the {} is not enabled and will not run: is there a user session bus?)",
                    host.systemd_dir.display(),
                    if unit.ends_with(".timer") { "timer" } else { "service" }
                ),
            },
            other => other,
        })?;
        did.push(format!("ran `{} {}`", host.systemctl, args.join(" ")));
    }
    Ok(did)
}

/// Write a launchd agent's plist and load it when it changed.
pub(crate) fn load_plist(host: &Host, plist: &Path, text: &str) -> Result<Vec<String>, OpsError> {
    let line = put(plist, text)?;
    let changed = line.starts_with("wrote");
    let mut did = vec![line];
    if changed {
        let path = plist.display().to_string();
        let _ = helper(&host.launchctl, &["unload", &path], None);
        did.push(activate(&host.launchctl, &["load", "-w", &path]));
    }
    Ok(did)
}

/// Stop and disable `unit`, remove `files` (those there), reload systemd; nothing when none is
/// there.
pub(crate) fn remove_units(
    host: &Host,
    unit: &str,
    files: &[PathBuf],
) -> Result<Vec<String>, OpsError> {
    let mut did = Vec::new();
    if !files.iter().any(|f| f.exists()) {
        return Ok(did);
    }
    did.push(activate(
        &host.systemctl,
        &["--user", "disable", "--now", unit],
    ));
    for f in files.iter().filter(|f| f.exists()) {
        std::fs::remove_file(f).map_err(OpsError::io(f))?;
        did.push(format!("removed {}", f.display()));
    }
    did.push(activate(&host.systemctl, &["--user", "daemon-reload"]));
    Ok(did)
}

/// Unload and remove a launchd agent's plist, if there.
pub(crate) fn remove_plist(host: &Host, plist: &Path) -> Result<Vec<String>, OpsError> {
    if !plist.exists() {
        return Ok(Vec::new());
    }
    let _ = helper(
        &host.launchctl,
        &["unload", &plist.display().to_string()],
        None,
    );
    std::fs::remove_file(plist).map_err(OpsError::io(plist))?;
    Ok(vec![format!("removed {}", plist.display())])
}

/// Install the schedule for `which`; returns what was done, one line each.
pub fn install(
    host: &Host,
    home: &Home,
    pipelines: &Path,
    which: Scheduler,
) -> Result<Vec<String>, OpsError> {
    let p = Params::new(host, home, pipelines);
    let mut did = Vec::new();
    match which {
        Scheduler::Cron => {
            let line = p.render(&template(pipelines, "brain.cron")?, cron_escape);
            let ours: Vec<&str> = line
                .lines()
                .filter(|l| l.contains(CRON_MARKER) && !l.starts_with('#'))
                .collect();
            let current = read_crontab(host)?;
            let mut lines: Vec<&str> = current
                .lines()
                .filter(|l| !l.contains(CRON_MARKER))
                .collect();
            lines.extend(&ours);
            let new = format!("{}\n", lines.join("\n"));
            if new == current {
                did.push("unchanged crontab".into());
            } else {
                helper(&host.crontab, &["-"], Some(&new))?;
                did.push(format!("crontab: {}", ours.join(" | ")));
            }
        }
        Scheduler::Systemd => {
            let [service, timer] = systemd_files(host);
            did.push(put(
                &service,
                &p.render(&template(pipelines, SERVICE)?, systemd_escape),
            )?);
            did.push(put(&timer, &template(pipelines, TIMER)?)?);
            // A timer that is not enabled never runs: the install fails (the units stay written).
            did.extend(enable_unit(host, TIMER)?);
        }
        Scheduler::Launchd => {
            let text = p.render(
                &template(pipelines, &format!("{LAUNCHD_LABEL}.plist"))?,
                xml_escape,
            );
            did.extend(load_plist(host, &launchd_file(host), &text)?);
        }
        Scheduler::Login => {
            did.push(login::install(host, &p)?);
            did.push(clock::detach(home, &p, "login"));
        }
    }
    Ok(did)
}

/// Remove our schedule from `which` (every scheduler when `None`; the login line also stops the
/// loop of `home`); returns what was done.
pub fn remove(host: &Host, home: &Home, which: Option<Scheduler>) -> Result<Vec<String>, OpsError> {
    let mut did = Vec::new();
    let wanted = |s: Scheduler| which.is_none_or(|w| w == s);
    if wanted(Scheduler::Cron) {
        match read_crontab(host) {
            Ok(current) if current.contains(CRON_MARKER) => {
                let kept: Vec<&str> = current
                    .lines()
                    .filter(|l| !l.contains(CRON_MARKER))
                    .collect();
                let new = if kept.is_empty() {
                    String::new()
                } else {
                    format!("{}\n", kept.join("\n"))
                };
                helper(&host.crontab, &["-"], Some(&new))?;
                did.push("removed the brain-nightly crontab line".into());
            }
            Ok(_) => {}
            Err(e) if which.is_some() => return Err(e),
            Err(_) => {}
        }
    }
    if wanted(Scheduler::Systemd) {
        did.extend(remove_units(host, TIMER, &systemd_files(host))?);
    }
    if wanted(Scheduler::Launchd) {
        did.extend(remove_plist(host, &launchd_file(host))?);
    }
    if wanted(Scheduler::Login) {
        did.extend(login::remove(host)?);
        did.extend(clock::stop(home));
    }
    if did.is_empty() {
        did.push("no brain schedule was installed".into());
    }
    Ok(did)
}
