//! `brain multi-get <glob|a,b,c>` — print several documents, each under a `==> uri <==` header. A
//! file larger than `--max-bytes` is not printed; a note in its place says so and how to get it.

use std::io::Write;

use brain_cli::{Exit, Failure, Stdout};
use brain_doc::ErrorCode;
use brain_resolve::{Body, Doc, Resolver, Skip, read_doc};
use brain_store::{Config, Home};

use super::usage::Row;

#[derive(clap::Args)]
pub struct Args {
    /// A glob over `collection/path` (`brain/2026/04/*.md`) or a comma-separated list of references.
    pattern: String,
    /// Skip files larger than this (QMD's default, 10 KB).
    #[arg(long, value_name = "BYTES", default_value_t = 10_240)]
    max_bytes: u64,
    /// Prefix every line with its number.
    #[arg(short = 'l', long)]
    line_numbers: bool,
}

/// Print, and log a `multi_get` row (n_docs, latency_ms, the error class on failure).
pub fn run(home: &Home, a: Args) -> anyhow::Result<Exit> {
    let mut row = Row::new("multi_get");
    let result = multi_get(home, a, &mut row);
    row.finish(home, &result);
    result
}

fn multi_get(home: &Home, a: Args, row: &mut Row) -> anyhow::Result<Exit> {
    let config = Config::load(home).map_err(Failure::from)?;
    let docs: Vec<Doc> = Resolver::new(&config, home)
        .select(&a.pattern)
        .map_err(Failure::from)?
        .into_iter()
        .map(|(_, d)| d)
        .collect::<Result<_, _>>()
        .map_err(Failure::from)?;
    row.set("n_docs", docs.len());
    if docs.is_empty() {
        eprintln!("brain: no document matches `{}`", a.pattern);
        return Ok(Exit::Code(ErrorCode::NoResults));
    }
    let mut out = Stdout::new();
    let mut read: Vec<&str> = Vec::new();
    for (i, d) in docs.iter().enumerate() {
        let name = d.name();
        if i > 0 {
            writeln!(out)?;
        }
        writeln!(out, "==> {name} <==")?;
        match read_doc(d, a.max_bytes, None, a.line_numbers) {
            Body::Text(lines) => {
                out.write_all(lines.text.as_bytes())?;
                if let Some(id) = d.id.as_deref() {
                    read.push(id);
                }
            }
            Body::Skipped(Skip::TooBig { size, max_bytes }) => writeln!(
                out,
                "[skipped: {size} bytes > --max-bytes {max_bytes}; use `brain get {name}`]"
            )?,
            Body::Skipped(Skip::Unreadable(e)) => writeln!(out, "[skipped: {e}]")?,
        }
    }
    out.flush()?;
    let _ = brain_store::access::record(
        home,
        &read,
        brain_store::access::Access::Read,
        brain_store::telemetry::Surface::from_env().as_str(),
    );
    Ok(Exit::Success)
}
