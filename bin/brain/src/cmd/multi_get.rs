//! `brain multi-get <glob|a,b,c>` — print several documents, each under a `==> uri <==` header. A
//! file larger than `--max-bytes` is not printed; a note in its place says so and how to get it.

use std::io::Write;

use brain_cli::{Exit, Failure, Stdout};
use brain_doc::ErrorCode;
use brain_store::{Config, Home};

use super::usage::Row;

use super::resolve::{Doc, file_of_id, index_ids, resolve};

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
    let config =
        Config::load(home).map_err(|e| Failure::new(ErrorCode::BadQuery, e.to_string()))?;
    let docs: Vec<Doc> = if a.pattern.contains(['*', '?', '[']) {
        let glob = globset::Glob::new(&a.pattern)
            .map_err(|e| {
                Failure::new(
                    ErrorCode::BadQuery,
                    format!("bad glob `{}`: {e}", a.pattern),
                )
            })?
            .compile_matcher();
        index_ids(home)?
            .into_iter()
            .filter(|id| glob.is_match(id))
            .filter_map(|id| file_of_id(&config, &id).map(|file| Doc { id: Some(id), file }))
            .collect()
    } else {
        a.pattern
            .split(',')
            .map(str::trim)
            .filter(|r| !r.is_empty())
            .map(|r| resolve(home, &config, r))
            .collect::<Result<_, _>>()?
    };
    row.set("n_docs", docs.len());
    if docs.is_empty() {
        eprintln!("brain: no document matches `{}`", a.pattern);
        return Ok(Exit::Code(ErrorCode::NoResults));
    }
    let mut out = Stdout::new();
    for (i, d) in docs.iter().enumerate() {
        let name = d.id.as_ref().map_or_else(
            || d.file.display().to_string(),
            |id| format!("brain://{id}"),
        );
        if i > 0 {
            writeln!(out)?;
        }
        writeln!(out, "==> {name} <==")?;
        let size = std::fs::metadata(&d.file).map(|m| m.len()).unwrap_or(0);
        if size > a.max_bytes {
            writeln!(
                out,
                "[skipped: {size} bytes > --max-bytes {}; use `brain get {name}`]",
                a.max_bytes
            )?;
            continue;
        }
        match std::fs::read_to_string(&d.file) {
            Ok(text) => {
                for (n, line) in text.lines().enumerate() {
                    if a.line_numbers {
                        writeln!(out, "{:>6}  {line}", n + 1)?;
                    } else {
                        writeln!(out, "{line}")?;
                    }
                }
            }
            Err(e) => writeln!(out, "[skipped: {e}]")?,
        }
    }
    out.flush()?;
    Ok(Exit::Success)
}
