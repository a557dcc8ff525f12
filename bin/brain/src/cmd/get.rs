//! `brain get <path|brain://…|#docid>[:from[:count]]` — print one document, QMD-style.

use std::io::Write;

use brain_cli::{Exit, Failure, Stdout};
use brain_doc::ErrorCode;
use brain_store::{Config, Home};

use super::usage::Row;

use super::resolve::{resolve, split_range};

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
    let config =
        Config::load(home).map_err(|e| Failure::new(ErrorCode::BadQuery, e.to_string()))?;
    let (reference, from, count) = split_range(&a.reference);
    let doc = resolve(home, &config, reference)?;
    row.set("n_docs", 1);
    let text = std::fs::read_to_string(&doc.file)
        .map_err(|e| Failure::new(ErrorCode::Internal, format!("{}: {e}", doc.file.display())))?;
    let from = from.unwrap_or(1).max(1);
    let mut out = Stdout::new();
    let mut written = 0usize;
    for (i, line) in text
        .lines()
        .enumerate()
        .skip(from - 1)
        .take(count.unwrap_or(usize::MAX))
    {
        let rendered = if a.line_numbers {
            format!("{:>6}  {line}\n", i + 1)
        } else {
            format!("{line}\n")
        };
        if written + rendered.len() > a.max_bytes {
            out.flush()?;
            eprintln!(
                "brain: note: stopped at line {} ({} bytes, --max-bytes {}); continue with `brain get {}:{}`",
                i + 1,
                written,
                a.max_bytes,
                reference,
                i + 1
            );
            break;
        }
        out.write_all(rendered.as_bytes())?;
        written += rendered.len();
    }
    out.flush()?;
    Ok(Exit::Success)
}
