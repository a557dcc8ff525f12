//! `brain wm add | list | pin | unpin | rm | promote | tick` — working memory (brain_context::wm):
//! short-lived notes carried first in every context block until their turns run out.

use std::io::Write;

use brain_cli::{Exit, Failure, Stdout};
use brain_context::wm::{self, Store};
use brain_store::Home;

#[derive(clap::Subcommand)]
pub enum Command {
    /// Keep a note for the next turns (default 5 context assemblies or stop-hook turns, at most 10).
    Add {
        /// The note.
        #[arg(required = true)]
        text: Vec<String>,
        /// Turns it lives (1-10).
        #[arg(long, value_name = "N")]
        ttl: Option<u8>,
        /// Never expires (at most 3 pinned).
        #[arg(long)]
        pin: bool,
        /// When it is due (a date or RFC 3339): marked "due soon" within a day, "overdue" after.
        #[arg(long, value_name = "WHEN")]
        deadline: Option<String>,
        /// A tag (repeatable).
        #[arg(long = "tag", value_name = "TAG")]
        tags: Vec<String>,
    },
    /// The notes, pinned first.
    List {
        /// One JSON object: the notes with their turns left and marks.
        #[arg(long)]
        json: bool,
    },
    /// Pin a note (it never expires; at most 3).
    Pin { id: u32 },
    /// Unpin a note (its turns count down again).
    Unpin { id: u32 },
    /// Remove a note.
    Rm { id: u32 },
    /// Make a note a permanent fact (an inbox record, searchable at once) and remove it.
    Promote {
        id: u32,
        /// The subject it is about: a later fact of the same key supersedes it.
        #[arg(long)]
        key: Option<String>,
    },
    /// One turn passes (what the stop hook runs): unpinned notes lose a turn; at zero they go.
    Tick {
        /// Print nothing.
        #[arg(long)]
        quiet: bool,
    },
}

/// The store, its warnings said.
fn open(home: &Home) -> anyhow::Result<Store> {
    let store = Store::open(home).map_err(Failure::from)?;
    for w in &store.warnings {
        eprintln!("brain wm: warning: {w}");
    }
    Ok(store)
}

pub fn run(home: &Home, c: Command) -> anyhow::Result<Exit> {
    let mut out = Stdout::new();
    let now = brain_rank::clock::now();
    let secs = now.timestamp().as_second();
    match c {
        Command::Add {
            text,
            ttl,
            pin,
            deadline,
            tags,
        } => {
            let id = open(home)?
                .add(&text.join(" "), ttl, pin, deadline, tags, &now.timestamp())
                .map_err(Failure::from)?;
            writeln!(out, "{id}")?;
        }
        Command::List { json } => {
            let items = open(home)?.items();
            if json {
                let v = serde_json::json!({
                    "kind": "working_memory",
                    "items": items.iter().map(|i| {
                        let mut v = serde_json::to_value(i).unwrap_or_default();
                        v["due"] = serde_json::Value::from(i.due(secs));
                        v
                    }).collect::<Vec<_>>(),
                });
                brain_doc::ndjson::write_line(&mut out, &v)?;
            } else {
                for i in &items {
                    writeln!(out, "{}", i.line(secs))?;
                }
            }
        }
        Command::Pin { id } => open(home)?.pin(id, true).map_err(Failure::from)?,
        Command::Unpin { id } => open(home)?.pin(id, false).map_err(Failure::from)?,
        Command::Rm { id } => {
            open(home)?.remove(id).map_err(Failure::from)?;
        }
        Command::Promote { id, key } => {
            let captured = wm::promote(home, id, key, brain_store::telemetry::Surface::Cli, now)
                .map_err(Failure::from)?;
            writeln!(
                out,
                "promoted {id} to a fact: {} (brain get {})",
                captured.entry_id, captured.uri
            )?;
        }
        Command::Tick { quiet } => {
            let gone = open(home)?.tick().map_err(Failure::from)?;
            if !quiet {
                for g in gone {
                    eprintln!("brain wm: expired {}: {}", g.id, g.text);
                }
            }
        }
    }
    out.flush()?;
    Ok(Exit::Success)
}
