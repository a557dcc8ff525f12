//! `brain doctor [--json]` — every health check (seed 000 §8.2); exit 0 only when none failed, else 65.

use std::io::Write;

use brain_cli::{Exit, Failure, Stdout};
use brain_doc::ErrorCode;
use brain_store::Home;

#[derive(clap::Args)]
pub struct Args {
    /// Print the report as one JSON object (the `doctor_report` record of docs/FORMATS.md).
    #[arg(long)]
    json: bool,
    /// Repair what can be repaired safely before checking (each repair is named on stderr): make
    /// the home and everything in it readable by its owner alone (folders 0700, files 0600), and
    /// delete the older copies of a session written before ids named their source (then
    /// re-index).
    #[arg(long)]
    fix: bool,
}

pub fn run(home: &Home, a: Args) -> anyhow::Result<Exit> {
    let surface = brain_doc::env::get(brain_doc::env::BRAIN_SURFACE).unwrap_or("cli");
    if a.fix {
        let done = brain_ops::doctor::fix(home).map_err(Failure::from)?;
        for line in done {
            eprintln!("brain doctor: fixed: {line}");
        }
    }
    let r = brain_ops::doctor(home, surface).map_err(Failure::from)?;
    let mut out = Stdout::new();
    if a.json {
        serde_json::to_writer_pretty(&mut out, &r)?;
        writeln!(out)?;
    } else {
        write!(out, "{}", brain_ops::render::doctor(&r))?;
    }
    out.flush()?;
    // A failed check means the substrate or its environment is not what it should be: the contract's
    // 65 ("index, model or engine missing"), the same class as the failures it finds.
    Ok(if r.ok {
        Exit::Success
    } else {
        Exit::Code(ErrorCode::IndexMissing)
    })
}
