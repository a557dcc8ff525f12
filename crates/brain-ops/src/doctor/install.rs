//! Checks of the installation: binaries, home, config, collection folders, hooks, schedules.

use brain_store::{Config, Home};

use super::Check;
use crate::Host;

pub fn binaries(host: &Host) -> Check {
    let all = crate::bins::resolve_all(host);
    let missing: Vec<String> = all
        .iter()
        .filter(|b| b.path.is_none())
        .map(|b| b.name.clone())
        .collect();
    if missing.is_empty() {
        return Check::pass("binaries", format!("all {} binaries resolve", all.len()));
    }
    Check::fail(
        "binaries",
        format!("{} of {} binaries do not resolve: {}", missing.len(), all.len(), missing.join(", ")),
        "run `make install` (stages go to <prefix>/libexec/brain beside <prefix>/bin/brain), or put them on PATH",
    )
    .with(all.iter().map(|b| format!("{}: {}", b.name, b.path.as_deref().unwrap_or("not found"))).collect())
}

pub fn home(home: &Home) -> Check {
    let root = home.root();
    if root.is_dir() {
        Check::pass("home", format!("{} exists", root.display()))
    } else if root.exists() {
        Check::fail(
            "home",
            format!("{} is not a folder", root.display()),
            "move it away, or point $BRAIN_HOME elsewhere",
        )
    } else {
        Check::fail(
            "home",
            format!("{} does not exist", root.display()),
            "set $BRAIN_HOME to your brain home, or build one: `brain import` (docs/walkthrough.md)",
        )
    }
}

/// The home and everything in it are its owner's alone (0700 / 0600).
pub fn privacy(home: &Home) -> Check {
    let root = home.root();
    if !root.is_dir() {
        return Check::skip("privacy", "no home to check", "see the home check");
    }
    let found = brain_store::privacy::exposed(root);
    if found.is_empty() {
        return Check::pass(
            "privacy",
            format!(
                "{} and everything in it are readable by its owner alone",
                root.display()
            ),
        );
    }
    let details = found
        .iter()
        .take(5)
        .map(|e| {
            format!(
                "{} is {:04o}, should be {:04o}",
                e.path.display(),
                e.mode,
                e.private_mode()
            )
        })
        .collect();
    Check::fail(
        "privacy",
        format!(
            "{} in the home can be read by other users (every indexed passage is in there)",
            super::state::n(found.len() as u64, "path")
        ),
        "brain doctor --fix (clears the group and other bits of everything in the home)",
    )
    .with(details)
}

/// The config check, and the config the other checks use (the defaults when it is broken).
pub fn config(home: &Home) -> (Config, Check) {
    let path = home.config();
    let fix = format!("edit {} (format: docs/collections.md)", path.display());
    match Config::load(home) {
        Err(e) => (
            Config::defaults(home),
            Check::fail("config", "brain.yaml does not parse", fix).with(vec![e.to_string()]),
        ),
        Ok(c) => match c.validate() {
            Err(e) => (
                c,
                Check::fail("config", "brain.yaml does not validate", fix)
                    .with(vec![e.to_string()]),
            ),
            Ok(()) if !path.exists() => (
                c,
                Check::pass(
                    "config",
                    "no brain.yaml: the built-in defaults are in force",
                ),
            ),
            Ok(()) => {
                let n = c.collections.len();
                (
                    c,
                    Check::pass("config", format!("brain.yaml parses: {n} collections")),
                )
            }
        },
    }
}

pub fn collections(home: &Home, config: &Config) -> Check {
    // A folder inside the home is the pipeline's own (corpus/…, inbox/): it appears with its first
    // document. A folder outside it is the user's, referenced in place: it must be there.
    let root = crate::bins::normalize(
        &std::path::absolute(home.root()).unwrap_or_else(|_| home.root().to_path_buf()),
    );
    let mut bad = Vec::new();
    let mut waiting = 0;
    for c in &config.collections {
        if let Err(e) = globset::Glob::new(&c.glob) {
            bad.push(format!("{}: bad glob `{}`: {e}", c.name, c.glob));
            continue;
        }
        let dir = config.resolve(&c.path);
        if dir.is_dir() {
            continue;
        }
        let abs = crate::bins::normalize(&std::path::absolute(&dir).unwrap_or(dir.clone()));
        if abs.starts_with(&root) && !dir.exists() {
            waiting += 1; // a pipeline collection nothing was written to yet
        } else {
            bad.push(format!("{}: {} is not a folder", c.name, dir.display()));
        }
    }
    if bad.is_empty() {
        let note = if waiting > 0 {
            format!(" ({waiting} pipeline collections still empty)")
        } else {
            String::new()
        };
        return Check::pass(
            "collections",
            format!(
                "{} collection folders in place{note}",
                config.collections.len() - waiting
            ),
        );
    }
    Check::fail(
        "collections",
        format!(
            "{} of {} collections are unusable",
            bad.len(),
            config.collections.len()
        ),
        "restore the folder, fix the path in brain.yaml, or `brain collection remove NAME`",
    )
    .with(bad)
}

pub fn hooks(host: &Host) -> Check {
    use crate::hooks::{Agent, HookInfo, installed};
    let settings = host.claude_settings();
    let fix = "brain hook install --claude";
    let found = match installed(&settings, Agent::Claude) {
        Ok(f) => f,
        Err(e) => {
            return Check::fail(
                "hooks",
                "Claude Code settings cannot be read",
                format!("repair {}, then {fix}", settings.display()),
            )
            .with(vec![e.to_string()]);
        }
    };
    // Codex's and Gemini's hooks, where brain installed some (a file of theirs that does not read
    // is theirs to report: `brain explain` shows it).
    let others: Vec<(Agent, Vec<HookInfo>)> = [Agent::Codex, Agent::Gemini]
        .into_iter()
        .filter_map(|a| Some((a, installed(&a.settings(host), a).ok()?)))
        .filter(|(_, hs)| !hs.is_empty())
        .collect();
    let also: String = others
        .iter()
        .map(|(a, hs)| {
            let mut events: Vec<&str> = hs.iter().map(|h| h.event.as_str()).collect();
            events.dedup();
            format!("; {} on {}", a.name(), events.join(", "))
        })
        .collect();
    let mut bad: Vec<String> = found.iter().filter_map(|h| h.problem.clone()).collect();
    let mut fixes = vec![fix.to_string()];
    for (a, hs) in &others {
        let mut problems: Vec<String> = hs.iter().filter_map(|h| h.problem.clone()).collect();
        if *a == Agent::Codex {
            problems.extend(codex_feature_off(host));
        }
        if !problems.is_empty() {
            fixes.push(format!("brain hook install --{}", a.name()));
            bad.extend(problems.into_iter().map(|p| format!("{}: {p}", a.name())));
        }
    }
    if found.is_empty() && others.is_empty() {
        return Check::skip(
            "hooks",
            format!("no brain Stop hook in {}", settings.display()),
            fix,
        );
    }
    let mut events: Vec<&str> = found.iter().map(|h| h.event.as_str()).collect();
    events.dedup();
    if !bad.is_empty() {
        if found.iter().all(|h| h.problem.is_none()) {
            fixes.remove(0);
        }
        return Check::fail(
            "hooks",
            "an installed brain hook cannot run",
            format!("{} (rewrites it with the current paths)", fixes.join("; ")),
        )
        .with(bad);
    }
    if events == [crate::hooks::EVENT] && others.is_empty() {
        return Check::pass(
            "hooks",
            format!(
                "{} Stop hook in {} runs {}",
                found.len(),
                settings.display(),
                found[0].script.as_deref().unwrap_or("?")
            ),
        );
    }
    if found.is_empty() {
        return Check::pass(
            "hooks",
            format!("brain hooks: {}", also.trim_start_matches("; ")),
        );
    }
    let script = found
        .iter()
        .find_map(|h| h.script.as_deref())
        .map(|s| format!("; the Stop hook runs {s}"))
        .unwrap_or_default();
    Check::pass(
        "hooks",
        format!(
            "brain hooks on {} in {}{script}{also}",
            events.join(", "),
            settings.display()
        ),
    )
}

/// Why Codex runs none of brain's hooks, if it does not: its hooks feature is off (or its
/// config.toml does not read).
fn codex_feature_off(host: &Host) -> Option<String> {
    let hooks = crate::hooks::Agent::Codex.settings(host);
    let config = crate::hooks::codex::config_file(&hooks);
    match crate::hooks::codex::enabled(&config) {
        Ok(true) => None,
        Ok(false) => Some(format!(
            "Codex runs none of them: its hooks feature is off ({} has no `[features] {} = true`)",
            config.display(),
            crate::hooks::codex::FLAG
        )),
        Err(e) => Some(e.to_string()),
    }
}

/// What runs the slow clock: a schedule of the machine's scheduler, or brain's own loop (from the
/// login line or a watcher). Failing while nothing runs it (issue 59: a skip went unseen).
pub fn schedules(home: &Home, host: &Host) -> Check {
    let r = crate::schedule::Runners::of(host, home);
    let fix = "brain schedule install (where neither cron nor systemd runs: brain schedule install --login)";
    let bad: Vec<String> = r
        .schedules
        .iter()
        .filter_map(|s| {
            s.problem
                .as_ref()
                .map(|p| format!("{} ({}): {p}", s.kind.name(), s.location))
        })
        .collect();
    if !bad.is_empty() {
        return Check::fail(
            "schedules",
            "an installed schedule cannot run",
            "brain schedule install (rewrites it with the current paths)",
        )
        .with(bad);
    }
    let kinds: Vec<&str> = r.schedules.iter().map(|s| s.kind.name()).collect();
    let lines: Vec<String> = r
        .schedules
        .iter()
        .map(|s| format!("{}: {}", s.kind.name(), s.location))
        .collect();
    if let Some(s) = &r.running {
        let last = s.last.as_ref().map_or("no run yet".into(), |l| {
            format!("last run {} (exit {})", l.ts, l.exit)
        });
        return Check::pass(
            "schedules",
            format!("brain schedule run (pid {}, by {}): {last}", s.pid, s.by),
        )
        .with(lines);
    }
    if r.scheduled() {
        return Check::pass("schedules", format!("installed: {}", kinds.join(", ")));
    }
    if !r.schedules.is_empty() {
        return Check::fail(
            "schedules",
            "the login line is installed, but no `brain schedule run` loop runs (it starts at the next login)",
            "brain schedule run --detach",
        )
        .with(lines);
    }
    Check::fail(
        "schedules",
        "nothing runs the slow clock: no schedule installed, no `brain schedule run` loop",
        fix,
    )
}

/// Which coding agents keep sessions where `jsonl2md` looks by default (its places under `$HOME`,
/// `brain_ingest::discover::DEFAULT_PLACES`), and what each place holds. Skipped when none does.
pub fn agents(host: &Host) -> Check {
    let census = brain_ingest::discover::census(&host.user_home);
    let shown = |p: &std::path::Path| match p.strip_prefix(&host.user_home) {
        Ok(rest) => format!("~/{}", rest.display()),
        Err(_) => p.display().to_string(),
    };
    let mut agents: Vec<&str> = Vec::new();
    let mut details = Vec::new();
    for c in &census {
        let mut parts: Vec<String> = Vec::new();
        if c.transcripts > 0 {
            parts.push(format!(
                "{} transcript{}",
                c.transcripts,
                if c.transcripts == 1 { "" } else { "s" }
            ));
        }
        parts.extend(c.stores.iter().cloned());
        if parts.is_empty() {
            parts.push("nothing yet".into());
        } else if !agents.contains(&c.agent) {
            agents.push(c.agent);
        }
        details.push(format!(
            "{}: {} — {}",
            c.agent,
            shown(&c.path),
            parts.join(", ")
        ));
    }
    if agents.is_empty() {
        return Check::skip(
            "agents",
            format!(
                "no agent sessions in the default places under {}",
                host.user_home.display()
            ),
            "sessions kept elsewhere convert with `jsonl2md FOLDER | partition | lexindex`",
        )
        .with(details);
    }
    Check::pass("agents", format!("sessions of {} found", agents.join(", "))).with(details)
}
