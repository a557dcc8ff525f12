//! `brain get <path|brain://…|#docid>[:from[:count]]` — print one document, QMD-style.

use std::io::Write;

use brain_cli::{Exit, Failure, Stdout};
use brain_resolve::{Resolver, read_lines, split_range};
use brain_store::{Config, Home};

use super::usage::Row;

#[derive(clap::Args)]
pub struct Args {
    /// The document, with an optional 1-based start line and line count: `#a1b2c3:40:20`.
    reference: String,
    /// Prefix every line with its number.
    #[arg(short = 'l', long)]
    line_numbers: bool,
    /// Print at most this many bytes (a note on stderr says where it stopped).
    #[arg(long, value_name = "BYTES", default_value_t = 1_000_000)]
    max_bytes: usize,
}

/// Print, and log a `get` row (n_docs, latency_ms, the error class on failure).
pub fn run(home: &Home, a: Args) -> anyhow::Result<Exit> {
    let mut row = Row::new("get");
    let result = get(home, a, &mut row);
    row.finish(home, &result);
    result
}

fn get(home: &Home, a: Args, row: &mut Row) -> anyhow::Result<Exit> {
    let config = Config::load(home).map_err(Failure::from)?;
    let (reference, from, count) = split_range(&a.reference);
    let resolver = Resolver::new(&config, home);
    let doc = resolver.resolve(reference).map_err(Failure::from)?;
    let lines = read_lines(
        &doc.file,
        from.unwrap_or(1),
        count,
        a.line_numbers,
        a.max_bytes,
    )
    .map_err(Failure::from)?;
    row.set("n_docs", 1);
    if let Some(id) = doc.id.as_deref() {
        // Rehearsal: a read keeps a record close (never breaks the read).
        let _ = brain_store::access::record(
            home,
            &[id],
            brain_store::access::Access::Read,
            brain_store::telemetry::Surface::from_env().as_str(),
        );
        // A read of a recent query's hit is a click of it (issue #24's implicit judgments).
        brain_store::telemetry::clicks::record_get(
            home,
            brain_store::telemetry::Surface::from_env().as_str(),
            &brain_doc::docid(id),
        );
    }
    let mut out = Stdout::new();
    out.write_all(lines.text.as_bytes())?;
    out.flush()?;
    if let Some(note) = doc.id.as_deref().and_then(|id| lifecycle_note(home, id)) {
        eprintln!("brain: note: {note}");
    }
    // A session id names the transcript; what was made from it is one `get` away.
    for id in resolver.made_from(reference) {
        eprintln!("brain: note: made from this session: brain://{id} (`brain get {id}`)");
    }
    if let Some(at) = lines.stopped_at {
        eprintln!(
            "brain: note: stopped at line {at} ({} bytes, --max-bytes {}); continue with `brain get {reference}:{at}`",
            lines.text.len(),
            a.max_bytes,
        );
    }
    Ok(Exit::Success)
}

/// What a reader of a record should know first: that it is no longer current, and what replaced
/// it (nothing is deleted: a superseded record is still read whole). `None` for a current record,
/// or when the index cannot say.
fn lifecycle_note(home: &Home, id: &str) -> Option<String> {
    let lex = brain_lex::LexIndex::open(home).ok()?;
    let searcher = brain_lex::search::Searcher::new(&lex).ok()?;
    let m = searcher.document(id).ok()?.into_iter().next()?.memory;
    let day = |t: i64| {
        jiff::Timestamp::from_second(t)
            .map(|t| t.strftime("%Y-%m-%d").to_string())
            .unwrap_or_default()
    };
    let now = brain_rank::clock::now().timestamp().as_second();
    match m.state(now) {
        "superseded" => Some(match &m.superseded_by {
            Some(by) => {
                let since = m
                    .superseded
                    .map(|t| format!(" since {}", day(t)))
                    .unwrap_or_default();
                format!("{id} is superseded by {by}{since} (`brain get {by}`)")
            }
            None => format!("{id} is marked superseded"),
        }),
        "archived" => Some(format!("{id} is archived")),
        "expired" => Some(format!(
            "{id} expired on {}",
            m.expires.map(day).unwrap_or_default()
        )),
        _ => None,
    }
}
