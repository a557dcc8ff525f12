//! `brain collection add|list|remove` — the collections of brain.yaml (through brain-store's Config).

use std::io::Write;
use std::path::PathBuf;

use brain_cli::{Exit, Failure, Stdout};
use brain_doc::ErrorCode;
use brain_store::{Collection, Config, Home, Trust};

#[derive(clap::Subcommand)]
pub enum Command {
    /// Reference a folder of markdown files in place as a collection.
    Add {
        /// Collection name ([a-z0-9_-]).
        name: String,
        /// The folder (made absolute).
        path: PathBuf,
        /// Which files under the folder belong to it.
        #[arg(long, default_value = brain_store::DEFAULT_GLOB)]
        glob: String,
        /// Retrieval role: `para` (PARA folders: entities, archives demoted), `daily` (daily notes:
        /// dated by name, a passage per block), `memory` (MEMORY.md, ME.md: always in context), or a
        /// label for weights (notes, wiki, raw, …).
        #[arg(long, default_value = "notes")]
        role: String,
        /// high, medium or low (low is fenced as untrusted for agents).
        #[arg(long, default_value = "high", value_parser = ["high", "medium", "low"])]
        trust: String,
    },
    /// List the collections, one per line: name, path, glob, role, trust (tab-separated).
    List {
        /// One JSON object per collection.
        #[arg(long)]
        json: bool,
    },
    /// Remove a collection from brain.yaml (files are not touched; run `lexindex --all` to drop its hits).
    Remove {
        /// Collection name.
        name: String,
    },
}

pub fn run(home: &Home, cmd: Command) -> anyhow::Result<Exit> {
    let mut config = Config::load(home).map_err(Failure::from)?;
    let mut out = Stdout::new();
    match cmd {
        Command::Add {
            name,
            path,
            glob,
            role,
            trust,
        } => {
            let abs = std::path::absolute(&path).map_err(|e| {
                Failure::new(ErrorCode::BadQuery, format!("{}: {e}", path.display()))
            })?;
            if !abs.is_dir() {
                eprintln!("brain: warning: {} is not a folder (yet)", abs.display());
            }
            let trust = match trust.as_str() {
                "low" => Trust::Low,
                "medium" => Trust::Medium,
                _ => Trust::High,
            };
            let path = abs.display().to_string();
            config
                .add_collection(Collection {
                    name: name.clone(),
                    path,
                    glob,
                    role,
                    trust,
                    follow_links: false,
                })
                .map_err(Failure::from)?;
            config.save().map_err(Failure::from)?;
            eprintln!("brain: added collection `{name}`; run `lexindex --all` to index it");
        }
        Command::List { json } => {
            for c in &config.collections {
                if json {
                    brain_doc::ndjson::write_line(&mut out, c)?;
                } else {
                    let trust = serde_json::to_value(c.trust)
                        .ok()
                        .and_then(|v| v.as_str().map(str::to_string));
                    writeln!(
                        out,
                        "{}\t{}\t{}\t{}\t{}",
                        c.name,
                        c.path,
                        c.glob,
                        c.role,
                        trust.unwrap_or_default()
                    )?;
                }
            }
        }
        Command::Remove { name } => {
            config.remove_collection(&name).map_err(Failure::from)?;
            config.save().map_err(Failure::from)?;
            eprintln!(
                "brain: removed collection `{name}` from brain.yaml; its files are untouched"
            );
        }
    }
    out.flush()?;
    Ok(Exit::Success)
}
