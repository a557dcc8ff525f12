//! `brain explain [--json]` — the runtime truth, long form (seed 000 §7.2).

use std::io::Write;

use brain_cli::{Exit, Failure, Stdout};
use brain_store::Home;

#[derive(clap::Args)]
pub struct Args {
    /// Print one JSON object (the `explain` record of docs/FORMATS.md) instead of text.
    #[arg(long)]
    json: bool,
}

pub fn run(home: &Home, a: Args) -> anyhow::Result<Exit> {
    let e = brain_ops::explain(home).map_err(Failure::from)?;
    let mut out = Stdout::new();
    if a.json {
        serde_json::to_writer_pretty(&mut out, &e)?;
        writeln!(out)?;
    } else {
        write!(out, "{}", brain_ops::render::explain(&e))?;
    }
    out.flush()?;
    Ok(Exit::Success)
}
