//! The `team` check: every team engine of brain.yaml reachable, its index of a mapping this build
//! reads, and holding exactly what this home sent it — the same documents, each with as many
//! passages (docs/team.md). An engine that cannot be reached is a skip, not a failure: a laptop
//! offline is a normal state, and its spool says what waits.

use std::time::Duration;

use brain_store::{Config, Home};

use super::Check;

const NAME: &str = "team";
/// How long the check waits for an engine.
const TIMEOUT: Duration = Duration::from_secs(5);

pub fn team(home: &Home, config: Option<&Config>) -> Check {
    let Some(team) = config
        .and_then(|c| c.team.as_ref())
        .filter(|t| !t.engines.is_empty())
    else {
        return Check::skip(
            NAME,
            "no team engine in brain.yaml",
            "to share collections with a team: docs/team.md",
        );
    };
    let who = brain_team::record::Who::from_env(team.author.as_deref());
    let mut details = Vec::new();
    let mut failed = Vec::new();
    let mut reached = 0;
    for name in team.engines.keys() {
        let engine = match brain_team::home::connect(config, Some(name), None, TIMEOUT) {
            Ok(e) => e,
            Err(e) => {
                failed.push(format!("{name}: {e}"));
                continue;
            }
        };
        let state = home.team_state(&brain_team::sink::state_key(&engine));
        let a = match brain_team::agree::agreement(&engine, &state, &who) {
            Ok(a) => a,
            Err(e) if e.is_transient() => {
                details.push(format!("{name}: {e}"));
                continue;
            }
            Err(e) => {
                failed.push(format!("{name}: {e}"));
                continue;
            }
        };
        reached += 1;
        let at = format!("{name} (index {})", engine.index());
        if !a.mapping_ok {
            failed.push(format!(
                "{at}: its mapping is {}, not one this brain reads",
                a.mapping
                    .as_deref()
                    .unwrap_or("absent while documents were sent")
            ));
        }
        for (what, ids) in [
            ("sent, not held", &a.missing),
            ("held, not sent", &a.extra),
            ("passages differ", &a.differ),
        ] {
            for id in ids.iter().take(super::state::FEW) {
                details.push(format!("{at}: {what}: {id}"));
            }
        }
        if a.waiting > 0 {
            details.push(format!("{at}: {} request(s) wait in the spool", a.waiting));
        }
        if !a.agrees() && a.mapping_ok {
            failed.push(format!(
                "{at}: this home sent {} documents ({} passages); the engine holds {} ({} passages) of {} on {}",
                a.local_docs, a.local_passages, a.remote_docs, a.remote_passages, who.author, who.machine
            ));
        } else if a.mapping_ok {
            details.push(format!(
                "{at}: {} documents ({} passages) agree; mapping {}",
                a.local_docs,
                a.local_passages,
                a.mapping.as_deref().unwrap_or("not created yet")
            ));
        }
    }
    if !failed.is_empty() {
        let mut all = failed.clone();
        all.extend(details);
        return Check::fail(
            NAME,
            failed.join("; "),
            "teamindex --all (sends what is missing, deletes what was removed); a mapping of another version: a new team.index",
        )
        .with(all);
    }
    if reached == 0 {
        return Check::skip(
            NAME,
            "no team engine could be reached: agreement not checked",
            "start the engine or reconnect, then brain doctor",
        )
        .with(details);
    }
    Check::pass(
        NAME,
        format!("{reached} team engine(s) hold what this home sent"),
    )
    .with(details)
}
