//! `rank [QUERY…]` — the best passages for a query (or a query document on stdin) as hit NDJSON:
//! lexical, vector or hybrid (docs/query.md).
//!
//! Exit 0 with hits, 67 when nothing matched, 64 for a bad query, 65 when there is no index or model,
//! 66 when an HTTP embedder timed out.

use std::io::Read;

use brain_cli::{Exit, Stdout};
use brain_doc::ErrorCode;
use brain_rank::args::RankArgs;
use brain_store::Home;
use clap::Parser;

/// Rank a query against the indexes of $BRAIN_HOME and print hit NDJSON: BM25, vectors, or both
/// fused (--mode; auto by default). Every hit carries its score signals.
#[derive(Parser)]
#[command(name = "rank", version)]
struct Cli {
    #[command(flatten)]
    rank: RankArgs,
}

fn main() -> std::process::ExitCode {
    brain_cli::main("rank", |cli: Cli| {
        let home = Home::from_env();
        let now =
            brain_rank::clock::at(cli.rank.now.as_deref()).map_err(brain_cli::Failure::from)?;
        if !cli.rank.fuse.is_empty() {
            let hits =
                brain_rank::run::fuse_files(&home, &cli.rank, &|w| eprintln!("rank: warning: {w}"))
                    .map_err(brain_cli::Failure::from)?;
            return print(&hits);
        }
        let text = cli
            .rank
            .text(read_stdin)
            .map_err(brain_cli::Failure::from)?;
        let answer = brain_rank::run::search(&home, &cli.rank, &text, &now)
            .map_err(brain_cli::Failure::from)?;
        for w in &answer.warnings {
            eprintln!("rank: warning: {w}");
        }
        print(&answer.hits)
    })
}

/// All of stdin, as bytes (the query when no argument gives one).
fn read_stdin() -> std::io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    std::io::stdin().read_to_end(&mut bytes).map(|_| bytes)
}

/// Hit NDJSON on stdout; exit 67 when there is none.
fn print(hits: &[brain_doc::Hit]) -> anyhow::Result<Exit> {
    let mut out = Stdout::new();
    for h in hits {
        brain_doc::ndjson::write_line(&mut out, h)?;
    }
    std::io::Write::flush(&mut out)?;
    Ok(if hits.is_empty() {
        Exit::Code(ErrorCode::NoResults)
    } else {
        Exit::Success
    })
}
