//! `brain status [--json]` — the short runtime truth for scripts (and the MCP `status` tool's record).

use std::io::Write;

use brain_cli::{Exit, Failure, Stdout};
use brain_store::Home;

#[derive(clap::Args)]
pub struct Args {
    /// Print one JSON object (the `status` record of docs/FORMATS.md) instead of text.
    #[arg(long)]
    json: bool,
}

pub fn run(home: &Home, a: Args) -> anyhow::Result<Exit> {
    let s = brain_ops::status(home).map_err(Failure::from)?;
    let mut out = Stdout::new();
    if a.json {
        serde_json::to_writer(&mut out, &s)?;
        writeln!(out)?;
    } else {
        write!(out, "{}", brain_ops::render::status(&s))?;
    }
    out.flush()?;
    Ok(Exit::Success)
}
