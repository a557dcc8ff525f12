//! What the logs of a home say that doctor checks: the agents' hooks as they ran (issue 53: their
//! failures must show), and the extraction's own log and state.

use brain_store::Home;

use super::Check;

/// The agents' hooks, as they ran (issue 53: their failures must show): a hook that failed since
/// its last success fails this check, naming how often, why, and the fix for that reason. Read
/// from the usage log, where every hook run leaves a row (`stop_hook`, `hook_session-start`,
/// `hook_prompt`, `hook_pre-tool`); skipped when no hook ever ran.
pub fn hook_runs(home: &Home) -> Check {
    #[derive(Default)]
    struct Runs {
        ok: u64,
        failed_since: u64,
        last_ok: Option<String>,
        reason: String,
    }
    let mut by: std::collections::BTreeMap<String, Runs> = std::collections::BTreeMap::new();
    for file in brain_store::telemetry::stats::files(home) {
        let Ok(text) = std::fs::read(&file) else {
            continue;
        };
        for line in text.split(|b| *b == b'\n') {
            let Ok(serde_json::Value::Object(row)) = serde_json::from_slice(line) else {
                continue;
            };
            let s = |k: &str| row.get(k).and_then(serde_json::Value::as_str).unwrap_or("");
            let event = s("event");
            if event != "stop_hook" && !event.starts_with("hook_") {
                continue;
            }
            let r = by.entry(event.to_string()).or_default();
            match row.get("error").and_then(serde_json::Value::as_str) {
                Some(class) => {
                    r.failed_since += 1;
                    r.reason = row
                        .get("reason")
                        .and_then(serde_json::Value::as_str)
                        .unwrap_or(class)
                        .to_string();
                }
                None => {
                    r.ok += 1;
                    r.failed_since = 0;
                    r.last_ok = Some(s("ts").to_string());
                }
            }
        }
    }
    if by.is_empty() {
        return Check::skip(
            "hook_runs",
            "no hook has run yet",
            "brain hook install --claude (the agents run them; each run is logged)",
        );
    }
    let failing: Vec<(&String, &Runs)> = by.iter().filter(|(_, r)| r.failed_since > 0).collect();
    if failing.is_empty() {
        let runs: u64 = by.values().map(|r| r.ok).sum();
        return Check::pass(
            "hook_runs",
            format!(
                "{runs} hook run{}; the last run of each hook succeeded",
                if runs == 1 { "" } else { "s" }
            ),
        );
    }
    let details: Vec<String> = failing
        .iter()
        .map(|(e, r)| {
            format!(
                "{e}: {} failure{} since {} (reason: {})",
                r.failed_since,
                if r.failed_since == 1 { "" } else { "s" },
                r.last_ok
                    .as_deref()
                    .map_or("it was installed".to_string(), |t| format!(
                        "its last success at {t}"
                    )),
                r.reason
            )
        })
        .collect();
    let fixes: Vec<&str> = failing.iter().map(|(_, r)| hook_fix(&r.reason)).collect();
    let mut fixes = fixes;
    fixes.dedup();
    Check::fail(
        "hook_runs",
        format!(
            "{} hook{} failed since {} last success: the agent got nothing from {}",
            failing.len(),
            if failing.len() == 1 { "" } else { "s" },
            if failing.len() == 1 { "its" } else { "their" },
            if failing.len() == 1 { "it" } else { "them" }
        ),
        fixes.join("; "),
    )
    .with(details)
}

/// What to do about a hook that failed for `reason`.
fn hook_fix(reason: &str) -> &'static str {
    match reason {
        "index_missing" => "the index is missing or broken: `lexindex --all`, then `brain doctor`",
        "input" | "bad_query" => {
            "the agent sent input brain cannot read (not JSON, or over 4 MiB): update brain; the agent's debug log has the message"
        }
        "timeout" => {
            "the hook ran out of time: logs/hook.log says where; `brain doctor`'s locks and index checks say why"
        }
        "locked" => {
            "another writer held the index: it passes on the next run once that writer is done"
        }
        _ => {
            "run it by hand to see the message: `echo '{\"cwd\": \"'$PWD'\"}' | brain hook run session-start` (the Stop hook: logs/hook.log)"
        }
    }
}

/// What is damaged of the extraction's own files: lines of `logs/extract.jsonl` that are not
/// JSON objects (a torn or edited line; the first few named), a `state/extract-sessions.json`
/// that does not read. Neither stops a briefing or a search; both are worth a repair.
pub(super) fn extraction_damage(home: &Home) -> Vec<String> {
    let mut out = Vec::new();
    let log = home.root().join("logs").join("extract.jsonl");
    if let Ok(bytes) = std::fs::read(&log) {
        let bad: Vec<usize> = bytes
            .split(|b| *b == b'\n')
            .enumerate()
            .filter(|(_, l)| !l.iter().all(u8::is_ascii_whitespace))
            .filter(|(_, l)| !matches!(serde_json::from_slice(l), Ok(serde_json::Value::Object(_))))
            .map(|(i, _)| i + 1)
            .collect();
        if !bad.is_empty() {
            let shown: Vec<String> = bad.iter().take(5).map(usize::to_string).collect();
            out.push(format!(
                "{}: {} line{} not JSON (line {})",
                log.display(),
                bad.len(),
                if bad.len() == 1 { "" } else { "s" },
                shown.join(", ")
            ));
        }
    }
    let state = home.state_file("extract-sessions.json");
    if let Ok(bytes) = std::fs::read(&state)
        && serde_json::from_slice::<serde_json::Value>(&bytes).is_err()
    {
        out.push(format!(
            "{}: not JSON (every session is read again at the next extraction)",
            state.display()
        ));
    }
    out
}

/// The live watcher (`brain watch`, docs/watch.md): passing while one runs for this home (its last
/// batch named, and a failure in it); failing when its service is installed but none runs;
/// skipped otherwise — the Stop hook and the slow clock still keep memory current, only later.
pub fn watch(home: &Home, host: &crate::Host) -> Check {
    let s = crate::watch::status(home);
    let Some(pid) = s.pid else {
        let installed = crate::watch::service::installed(host);
        if let Some(file) = installed.first() {
            return Check::fail(
                "watch",
                format!(
                    "the watcher's service is installed ({}) but no `brain watch` runs",
                    file.display()
                ),
                "see logs/watch.log; `systemctl --user status brain-watch` or `launchctl list com.brain.watch`",
            );
        }
        return Check::skip(
            "watch",
            "no `brain watch` runs: notes and agents without a Stop hook wait for the slow clock",
            "brain watch (docs/watch.md)",
        );
    };
    let last = s.state.as_ref().and_then(|st| st.last.as_ref());
    match last {
        Some(b) if !b.failed.is_empty() => Check::fail(
            "watch",
            format!("pid {pid}: its last batch ({}) failed", b.ts),
            "see `brain watch status`; the batch is tried again at the next change",
        )
        .with(b.failed.clone()),
        Some(b) => Check::pass(
            "watch",
            format!("pid {pid}: last batch {} ({} indexed)", b.ts, b.indexed),
        ),
        None => Check::pass("watch", format!("pid {pid}: starting")),
    }
}
