//! `brain watch install` / `remove`: the watcher as a systemd user service
//! (`~/.config/systemd/user/brain-watch.service`, restarted when it fails) or a launchd agent
//! (`~/Library/LaunchAgents/com.brain.watch.plist`, kept alive), from the templates in the
//! pipelines' `schedules/` (`brain schedule` writes the slow clock's the same way). cron runs jobs,
//! not services: a watcher there is refused with what to use instead.

use std::path::{Path, PathBuf};

use brain_store::Home;

use crate::Host;
use crate::error::OpsError;
use crate::schedule::{self, Params, Scheduler};

/// The systemd unit.
pub const SERVICE: &str = "brain-watch.service";
/// The launchd label (and plist name).
pub const LAUNCHD_LABEL: &str = "com.brain.watch";

fn unit(host: &Host) -> PathBuf {
    host.systemd_dir.join(SERVICE)
}

fn plist(host: &Host) -> PathBuf {
    host.launchd_dir.join(format!("{LAUNCHD_LABEL}.plist"))
}

/// Install the watcher for `which` (systemd or launchd); what was done, a line each.
pub fn install(
    host: &Host,
    home: &Home,
    pipelines: &Path,
    which: Scheduler,
) -> Result<Vec<String>, OpsError> {
    let mut p = Params::new(host, home, pipelines);
    p.log = p.home.join("logs").join("watch.log");
    let mut did = Vec::new();
    match which {
        Scheduler::Cron | Scheduler::Login => {
            return Err(OpsError::Command {
                command: format!("brain watch install --{}", which.name()),
                reason: "cron starts jobs on a clock, it keeps no service running: use --systemd or --launchd, or start `brain watch` from your login".into(),
            });
        }
        Scheduler::Systemd => {
            let text = p.render(
                &schedule::template(pipelines, SERVICE)?,
                schedule::systemd_escape,
            );
            did.push(schedule::put(&unit(host), &text)?);
            did.extend(schedule::enable_unit(host, SERVICE)?);
        }
        Scheduler::Launchd => {
            let text = p.render(
                &schedule::template(pipelines, &format!("{LAUNCHD_LABEL}.plist"))?,
                schedule::xml_escape,
            );
            did.extend(schedule::load_plist(host, &plist(host), &text)?);
        }
    }
    Ok(did)
}

/// Remove the watcher's service from every service manager; what was done, a line each.
pub fn remove(host: &Host) -> Result<Vec<String>, OpsError> {
    let mut did = schedule::remove_units(host, SERVICE, &[unit(host)])?;
    did.extend(schedule::remove_plist(host, &plist(host))?);
    if did.is_empty() {
        did.push("no brain watch service was installed".into());
    }
    Ok(did)
}

/// The service files of the watcher that exist.
pub fn installed(host: &Host) -> Vec<PathBuf> {
    [unit(host), plist(host)]
        .into_iter()
        .filter(|p| p.exists())
        .collect()
}
