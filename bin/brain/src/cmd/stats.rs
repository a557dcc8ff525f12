//! `brain stats` — the usage log read back (seed 000 §8.6): rows by surface and event, latency
//! p50/p95, zero-hit rate, failures by class. Malformed lines are counted and skipped. Exit 67 when
//! the log has no row in the window (with `--json`, after the explicit empty summary).

use std::io::Write;

use brain_cli::{Exit, Failure, Stdout};
use brain_doc::ErrorCode;
use brain_rank::query::{Edge, parse_time};
use brain_store::Home;
use brain_store::telemetry::stats::{self, Stats};

#[derive(clap::Args)]
pub struct Args {
    /// Only rows since: 24h, 7d, 2w, today, YYYY-MM-DD or RFC 3339 (default: the whole log).
    #[arg(long, value_name = "WHEN")]
    since: Option<String>,
    /// Print the summary as one JSON record (`usage_stats`).
    #[arg(long)]
    json: bool,
}

pub fn run(home: &Home, a: Args) -> anyhow::Result<Exit> {
    let since = match &a.since {
        Some(s) => Some(
            parse_time(s, &brain_rank::clock::now(), Edge::Start).map_err(|e| {
                Failure::new(ErrorCode::BadQuery, format!("--since: {e}"))
                    .with_fix("use 7d, 24h, YYYY-MM-DD or an RFC 3339 time")
            })?,
        ),
        None => None,
    };
    let files = stats::files(home);
    let mut s = stats::summarize(&files, since)?;
    s.tiers = brain_store::access::tiers(home, brain_store::clock::now().as_second())
        .ok()
        .map(|t| brain_store::access::TierCounts::of(&t));
    for m in &s.malformed_lines {
        eprintln!(
            "brain stats: warning: {}:{}: {}; skipped",
            m.file, m.line, m.reason
        );
    }
    let mut out = Stdout::new();
    if a.json {
        brain_doc::ndjson::write_line(&mut out, &s)?;
    } else if s.rows > 0 {
        terminal(&s, &mut out)?;
    }
    out.flush()?;
    if s.rows == 0 {
        let why = if files.is_empty() {
            format!(
                "no usage recorded yet ({} does not exist; is BRAIN_TELEMETRY=off?)",
                home.usage_log().display()
            )
        } else {
            "no usage rows in this window".to_string()
        };
        eprintln!("brain stats: {why}");
        return Ok(Exit::Code(ErrorCode::NoResults));
    }
    Ok(Exit::Success)
}

/// The events the agents' hooks log (`stop_hook`, `hook_session-start`, …).
fn is_hook(event: &str) -> bool {
    event == "stop_hook" || event.starts_with("hook_")
}

fn terminal(s: &Stats, out: &mut Stdout) -> std::io::Result<()> {
    let window = s
        .since
        .as_deref()
        .map_or_else(|| "whole log".to_string(), |t| format!("since {t}"));
    writeln!(
        out,
        "{} rows, {window}, {} active days ({} to {})",
        s.rows,
        s.days_active,
        s.first.as_deref().unwrap_or("-"),
        s.last.as_deref().unwrap_or("-")
    )?;
    let surfaces: Vec<String> = s
        .by_surface
        .iter()
        .map(|(k, v)| format!("{k} {v}"))
        .collect();
    writeln!(out, "surfaces: {}", surfaces.join(" · "))?;
    writeln!(
        out,
        "\n{:<16} {:>6} {:>6} {:>8} {:>8}  surfaces",
        "event", "rows", "failed", "p50 ms", "p95 ms"
    )?;
    let ms = |v: Option<u64>| v.map_or_else(|| "-".to_string(), |v| v.to_string());
    for e in &s.events {
        let by: Vec<String> = e
            .by_surface
            .iter()
            .map(|(k, v)| format!("{k} {v}"))
            .collect();
        writeln!(
            out,
            "{:<16} {:>6} {:>6} {:>8} {:>8}  {}",
            e.event,
            e.count,
            e.failures,
            ms(e.p50_ms),
            ms(e.p95_ms),
            by.join(", ")
        )?;
    }
    writeln!(out)?;
    if let Some(t) = &s.tiers {
        writeln!(
            out,
            "memory tiers: hot {}  warm {}  cold {}",
            t.hot, t.warm, t.cold
        )?;
    }
    match s.zero_hit_rate {
        Some(r) => writeln!(out, "zero-hit rate (ask): {:.1}%", r * 100.0)?,
        None => writeln!(out, "zero-hit rate (ask): - (no ask with a hit count)")?,
    }
    let errors: Vec<String> = s.errors.iter().map(|(k, v)| format!("{k} {v}")).collect();
    writeln!(
        out,
        "failures by class: {}",
        if errors.is_empty() {
            "none".to_string()
        } else {
            errors.join(" · ")
        }
    )?;
    // The hooks run where no one watches: each one that failed, and why.
    for e in s
        .events
        .iter()
        .filter(|e| e.failures > 0 && is_hook(&e.event))
    {
        let why: Vec<String> = e.reasons.iter().map(|(k, v)| format!("{k} {v}")).collect();
        writeln!(
            out,
            "hook {}: {} of {} runs failed ({})",
            e.event,
            e.failures,
            e.count,
            why.join(" · ")
        )?;
    }
    if s.malformed > 0 {
        writeln!(out, "malformed lines skipped: {}", s.malformed)?;
    }
    Ok(())
}
