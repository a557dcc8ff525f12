//! `brain memory fold | tiers` — the rehearsal side of memory (brain_store::access): fold the
//! access log into the registry and the table queries read, and count records by tier.

use std::io::Write;

use brain_cli::{Exit, Failure, Stdout};
use brain_store::Home;
use brain_store::access::TierCounts;

#[derive(clap::Subcommand)]
pub enum Command {
    /// Add the access log (reads by `get`, `multi-get` and MCP; listings apart) to the registry and
    /// rewrite index/rehearsal.bin, which queries read. `lexindex --all` (the slow clock) does it too.
    Fold {
        /// Print the report as one JSON object.
        #[arg(long)]
        json: bool,
    },
    /// Count indexed records by tier: hot (created or read in the last 7 days), warm (8-30),
    /// cold (older; still searchable); five reads or more make a record one tier warmer.
    Tiers {
        /// Print the counts as one JSON object.
        #[arg(long)]
        json: bool,
    },
}

pub fn run(home: &Home, c: Command) -> anyhow::Result<Exit> {
    let mut out = Stdout::new();
    match c {
        Command::Fold { json } => {
            let r = brain_store::access::fold(home).map_err(Failure::from)?;
            if json {
                brain_doc::ndjson::write_line(&mut out, &r)?;
            } else {
                writeln!(
                    out,
                    "folded {} access lines ({} malformed, skipped); {} records have counts",
                    r.lines, r.malformed, r.records
                )?;
            }
        }
        Command::Tiers { json } => {
            let t = tiers(home)?;
            if json {
                let v = serde_json::json!({
                    "kind": "memory_tiers", "hot": t.hot, "warm": t.warm, "cold": t.cold,
                });
                brain_doc::ndjson::write_line(&mut out, &v)?;
            } else {
                writeln!(out, "hot {}  warm {}  cold {}", t.hot, t.warm, t.cold)?;
            }
        }
    }
    out.flush()?;
    Ok(Exit::Success)
}

/// Count the registry's documents by tier, now (`$BRAIN_NOW` respected).
fn tiers(home: &Home) -> anyhow::Result<TierCounts> {
    let all = brain_store::access::tiers(home, brain_store::clock::now().as_second())
        .map_err(Failure::from)?;
    Ok(TierCounts::of(&all))
}
