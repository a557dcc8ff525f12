//! `brain recent` — what became visible across collections, newest first (brain_rank::recent). Exit 67
//! when the window is empty (with `--json`, after the explicit empty report); 65 with no registry.

use std::io::Write;

use brain_cli::{Exit, Failure, Stdout};
use brain_doc::ErrorCode;
use brain_rank::query::{Edge, parse_time};
use brain_rank::recent::{DEFAULT_LIMIT, RecentOptions, RecentReport, walk};
use brain_store::Home;
use brain_store::telemetry::Surface;

#[derive(clap::Args)]
pub struct Args {
    /// Start of the window: 24h, 7d, 2w, 3mo, today, yesterday, YYYY-MM-DD or RFC 3339.
    #[arg(long, value_name = "WHEN", default_value = "24h")]
    since: String,
    /// Only this collection (repeatable).
    #[arg(short = 'c', long = "collection", value_name = "NAME")]
    collections: Vec<String>,
    /// Items to list, newest first (all are counted in the totals).
    #[arg(short = 'n', long, value_name = "N", default_value_t = DEFAULT_LIMIT)]
    limit: usize,
    /// Print the report (walk_ms, n_total, pending, collections with share, items) as one JSON record.
    #[arg(long)]
    json: bool,
}

pub fn run(home: &Home, a: Args) -> anyhow::Result<Exit> {
    let now = brain_rank::clock::now();
    let mut out = Stdout::new();
    let fail = |out: &mut Stdout, f: Failure, json: bool| -> anyhow::Result<Exit> {
        if json {
            brain_doc::ndjson::write_line(&mut *out, &f.record())?;
            out.flush()?;
        }
        Err(f.into())
    };
    let since = match parse_time(&a.since, &now, Edge::Start) {
        Ok(t) => t,
        Err(e) => {
            let f = Failure::new(ErrorCode::BadQuery, format!("--since: {e}"))
                .with_fix("use 24h, 7d, 2w, today, yesterday, YYYY-MM-DD or an RFC 3339 time");
            return fail(&mut out, f, a.json);
        }
    };
    let opts = RecentOptions {
        since,
        collections: a.collections,
        limit: a.limit,
        now,
        surface: Some(Surface::from_env()),
    };
    let report = match walk(home, &opts) {
        Ok(r) => r,
        Err(e) => {
            return fail(&mut out, Failure::from(e), a.json);
        }
    };
    if a.json {
        brain_doc::ndjson::write_line(&mut out, &report)?;
    } else {
        terminal(&report, &mut out)?;
    }
    out.flush()?;
    let pending = if report.pending > 0 {
        format!(", {} not indexed yet", report.pending)
    } else {
        String::new()
    };
    eprintln!(
        "brain recent: {} since {}{pending}; walked in {} ms",
        report.n_total, report.since, report.walk_ms
    );
    if report.n_total == 0 {
        eprintln!("brain recent: nothing became visible in this window (try a longer --since)");
        return Ok(Exit::Code(ErrorCode::NoResults));
    }
    Ok(Exit::Success)
}

fn terminal(r: &RecentReport, out: &mut Stdout) -> std::io::Result<()> {
    for i in &r.items {
        let pending = if i.indexed { "" } else { "  (not indexed yet)" };
        writeln!(out, "{}  [{}]  {}{pending}", i.age, i.collection, i.title)?;
        writeln!(out, "   {}  {}", i.uri, i.visible_at)?;
    }
    if r.items.len() < r.n_total {
        writeln!(
            out,
            "… {} more (-n to list more)",
            r.n_total - r.items.len()
        )?;
    }
    let mix: Vec<String> = r
        .collections
        .iter()
        .map(|c| format!("{} {} ({:.0}%)", c.collection, c.count, c.share * 100.0))
        .collect();
    writeln!(out, "\n{} total: {}", r.n_total, mix.join(" · "))
}
