//! `brain ask "…"` — rank + fmt in one process (auto mode: BM25 for literal queries, hybrid for
//! conceptual ones when vectors exist). Exit 67 on no results (with `--json`, after an
//! explicit empty envelope); with `--json`, failures are also printed as an error record on stdout.

use std::io::{IsTerminal, Read, Write};
use std::time::Instant;

use brain_cli::{Exit, Failure, Stdout};
use brain_doc::ErrorCode;
use brain_fmt::args::FmtArgs;
use brain_rank::args::RankArgs;
use brain_store::Home;

use super::usage::Row;

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    rank: RankArgs,
    #[command(flatten)]
    fmt: FmtArgs,
    /// Show near-duplicates too. By default near-identical hits (word-shingle Jaccard ≥ 0.5 on
    /// each hit's text, or stored vectors this close, as in `brain context`) collapse into the
    /// best of them, the count of the others is a warning, and the list is filled to -n.
    #[arg(long)]
    no_dedup: bool,
    /// Collapse near-duplicates (the default since issue 38) and say so when only their words could
    /// be compared (no vector store: paraphrases are kept apart).
    #[arg(long, hide = true, conflicts_with = "no_dedup")]
    dedup: bool,
    /// Give each hit its page in the running `brain browse` (a `link` field with --json, a line
    /// under the hit otherwise; a session hit opens at its turn). Without a server running for this
    /// home, a warning.
    #[arg(long)]
    link: bool,
}

/// `--link`: each hit's page in the running `brain browse`, or a warning when none runs.
fn link(home: &Home, config: Option<&brain_store::Config>, hits: &mut [brain_doc::Hit]) {
    match brain_browse::running(home) {
        Some(server) => {
            let defaults;
            let config = match config {
                Some(c) => c,
                None => {
                    defaults = brain_store::Config::defaults(home);
                    &defaults
                }
            };
            for h in hits {
                h.link = Some(server.hit_link(config, h));
            }
        }
        None => eprintln!(
            "brain: warning: --link: no `brain browse` is running for this home; start one to get links"
        ),
    }
}

/// How `brain ask` collapses near-duplicates: by default quietly, with `--dedup` saying so when it
/// could compare words only.
fn collapse(a: &Args) -> brain_rank::run::Collapse {
    use brain_rank::run::Collapse;
    match (a.no_dedup, a.dedup) {
        (true, _) => Collapse::Off,
        (_, true) => Collapse::Said,
        _ => Collapse::Quiet,
    }
}

/// Run the query and log an `ask` row (query_len, n_hits, mode, latency_ms; the query text only when
/// the user opted in, see docs/telemetry.md).
pub fn run(home: &Home, a: Args) -> anyhow::Result<Exit> {
    let mut row = Row::new("ask");
    let result = ask(home, a, &mut row);
    row.finish(home, &result);
    // BRAIN_TIMINGS=1: where the time went, one JSON line on stderr (docs/query.md).
    if let Some(t) = brain_doc::timings::report() {
        eprintln!("{t}");
    }
    result
}

fn ask(home: &Home, a: Args, row: &mut Row) -> anyhow::Result<Exit> {
    let started = Instant::now();
    let mut out = Stdout::new();
    // A failure is an error record on stdout too with --json (scripts read one stream).
    let mut fail = |e: brain_rank::RunError| -> anyhow::Error {
        let f = Failure::from(e);
        if a.fmt.json {
            let _ = brain_doc::ndjson::write_line(&mut out, &f.record()).and_then(|()| out.flush());
        }
        f.into()
    };
    let read_stdin = || {
        let mut bytes = Vec::new();
        std::io::stdin().read_to_end(&mut bytes).map(|_| bytes)
    };
    let now = brain_rank::clock::at(a.rank.now.as_deref()).map_err(&mut fail)?;
    let text = a.rank.text(read_stdin).map_err(&mut fail)?;
    row.set("query_len", text.trim().chars().count());
    let t_search = brain_doc::timings::span("search");
    let engine = brain_rank::Engine::open_team(home, a.rank.engine.as_deref(), a.rank.own)
        .map_err(&mut fail)?;
    if brain_store::telemetry::queries_opted_in_by(engine.config()) {
        row.set("query", text.trim());
    }
    let answer =
        brain_rank::run::answer(&engine, &a.rank, &text, &now, collapse(&a)).map_err(&mut fail)?;
    drop(t_search);
    let strategy = engine.strategy();
    row.set("n_hits", answer.hits.len());
    // What a later `get` of a hit is a click of (issue #24; never the text unless opted in).
    let docids = brain_store::telemetry::clicks::unique_docids(&answer.hits);
    for (k, v) in brain_store::telemetry::clicks::query_fields(&text, &docids) {
        row.set(&k, v);
    }
    row.set("mode", answer.mode.map_or("?", |m| m.name()));
    let took_ms = started.elapsed().as_millis() as u64;
    let no_color = brain_doc::env::set(brain_doc::env::NO_COLOR);
    let mut opts = a.fmt.options(
        Some(text.trim().to_string()),
        std::io::stdout().is_terminal(),
        no_color,
    );
    opts.time = answer.time.clone();
    // Freshness by kind comes from the strategy (what was tuned is what runs); --stale-after wins
    // for the list's one line.
    opts.freshness = brain_doc::memory::Freshness {
        history: a.fmt.stale_after.unwrap_or(strategy.freshness.history),
        ..strategy.freshness
    };
    if a.fmt.explain {
        let mode = answer.mode.map_or("?", |m| m.name());
        eprintln!("brain: mode {mode}; lists: {}", answer.plan.join(" | "));
        if let Some(t) = &answer.time {
            eprintln!("brain: time: {}", serde_json::to_string(t)?);
        }
    }
    if !a.fmt.json {
        for w in &answer.warnings {
            eprintln!("brain: warning: {w}");
        }
    }
    let mut hits = answer.hits;
    if a.link {
        link(home, engine.config(), &mut hits);
    }
    let t_out = brain_doc::timings::span("render");
    brain_fmt::render(&hits, &opts, took_ms, &answer.warnings, &mut out)?;
    out.flush()?;
    drop(t_out);
    let _t = brain_doc::timings::span("record_listed");
    // Listed, not read: tracked apart, no boost (crate docs of brain_store::access).
    let _ = brain_store::access::record_listed(
        home,
        &hits,
        brain_store::telemetry::Surface::from_env().as_str(),
    );
    brain_rank::run::leave(engine);
    Ok(if hits.is_empty() {
        Exit::Code(ErrorCode::NoResults)
    } else {
        Exit::Success
    })
}
