//! `brain entity NAME | list | suggest [--apply]` — entities and their aliases (brain_graph):
//! the entity page, every entity, and names mentioned often enough to deserve one.

use std::io::Write;

use brain_cli::{Exit, Failure, Stdout};
use brain_doc::ErrorCode;
use brain_graph::Graph;
use brain_store::{Config, Home, Registry};

#[derive(clap::Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct Args {
    #[command(subcommand)]
    command: Option<Command>,
    /// The entity: its name, an alias, an @handle or its folder (case and spacing aside; never a
    /// guess — a name two entities share is reported, exit 64).
    name: Vec<String>,
    /// The page as one JSON object.
    #[arg(long)]
    json: bool,
}

#[derive(clap::Subcommand)]
pub enum Command {
    /// The page of entity NAME (also `brain entity NAME`): summary, facts, names, related records,
    /// timeline.
    Show {
        #[arg(required = true)]
        name: Vec<String>,
        #[arg(long)]
        json: bool,
    },
    /// Every entity: PARA folders, files with `entity:`/`aliases:`, projects of sessions.
    List {
        /// Only entities of this kind (person, project, company, concept, …).
        #[arg(long)]
        kind: Option<String>,
        /// One JSON object per entity.
        #[arg(long)]
        json: bool,
    },
    /// Names mentioned (entities:, [[wiki links]], @handles) in enough documents to deserve an
    /// entity, and not one yet.
    Suggest {
        /// Documents that must mention a name (seed 001: three).
        #[arg(long, default_value_t = brain_graph::MIN_MENTIONS)]
        min: usize,
        /// Create each suggested entity's folder (summary.md, items.json) in a `para` collection,
        /// and index it.
        #[arg(long)]
        apply: bool,
        /// The collection to create them in [default: the first of role para].
        #[arg(long, value_name = "NAME", requires = "apply")]
        collection: Option<String>,
        /// One JSON object per suggestion (with --apply: what was done).
        #[arg(long)]
        json: bool,
    },
}

/// The graph of `home`'s registry (65 when nothing was ever indexed).
pub fn load(home: &Home) -> anyhow::Result<Graph> {
    let reg = Registry::open_existing(home)
        .map_err(Failure::from)?
        .ok_or_else(|| {
            Failure::new(ErrorCode::IndexMissing, "nothing is indexed yet")
                .with_fix("lexindex --all")
        })?;
    Ok(Graph::load(&reg).map_err(Failure::from)?)
}

pub fn run(home: &Home, a: Args) -> anyhow::Result<Exit> {
    let command = match a.command {
        Some(c) => c,
        // No name: the list (what a person typing `brain entity` wants to see first).
        None if a.name.is_empty() => Command::List {
            kind: None,
            json: a.json,
        },
        None => Command::Show {
            name: a.name,
            json: a.json,
        },
    };
    let mut out = Stdout::new();
    let g = load(home)?;
    match command {
        Command::Show { name, json } => {
            let config = Config::load(home).map_err(Failure::from)?;
            let i = brain_graph::ask::entity(&g, &name.join(" ")).map_err(Failure::from)?;
            let v = brain_graph::view(&g, &config, i);
            if json {
                brain_doc::ndjson::write_line(&mut out, &v)?;
            } else {
                out.write_all(brain_graph::render::view(&v).as_bytes())?;
            }
        }
        Command::List { kind, json } => {
            let all: Vec<&brain_graph::Entity> = g
                .entities
                .list
                .iter()
                .filter(|e| kind.as_deref().is_none_or(|k| e.kind == k.to_lowercase()))
                .collect();
            if json {
                for e in &all {
                    brain_doc::ndjson::write_line(&mut out, e)?;
                }
            } else {
                out.write_all(brain_graph::render::list(&all).as_bytes())?;
            }
            if all.is_empty() {
                out.flush()?;
                return Ok(Exit::Code(ErrorCode::NoResults));
            }
        }
        Command::Suggest {
            min,
            apply,
            collection,
            json,
        } => {
            let found = brain_graph::suggest(&g, min);
            if apply {
                return apply_them(home, &mut out, collection.as_deref(), &found, json);
            }
            if json {
                for s in &found {
                    brain_doc::ndjson::write_line(&mut out, s)?;
                }
            } else {
                out.write_all(brain_graph::render::suggestions(&found).as_bytes())?;
            }
            if found.is_empty() {
                out.flush()?;
                eprintln!(
                    "brain entity suggest: no name is mentioned in {min} documents without being an entity"
                );
                return Ok(Exit::Code(ErrorCode::NoResults));
            }
        }
    }
    out.flush()?;
    Ok(Exit::Success)
}

/// `suggest --apply`: create the folders, then index their summaries so the entities exist now.
fn apply_them(
    home: &Home,
    out: &mut Stdout,
    into: Option<&str>,
    found: &[brain_graph::Suggestion],
    json: bool,
) -> anyhow::Result<Exit> {
    let config = Config::load(home).map_err(Failure::from)?;
    let today = brain_store::clock::now().strftime("%Y-%m-%d").to_string();
    let (collection, done) =
        brain_graph::suggest::apply(&config, into, found, &today).map_err(Failure::from)?;
    let created: Vec<&brain_graph::suggest::Applied> =
        done.iter().filter(|d| d.outcome == "created").collect();
    if !created.is_empty() {
        let mut ix =
            brain_lex::Indexer::open_within(home, false, std::time::Duration::from_secs(10))
                .map_err(Failure::from)?;
        let root = config.collection_dir(&collection).unwrap_or_default();
        for d in &created {
            if let Err(reason) = ix
                .index_file(&collection, &d.rel, &root.join(&d.rel))
                .map_err(Failure::from)?
            {
                eprintln!("brain entity suggest: warning: {reason}");
            }
        }
        ix.finish().map_err(Failure::from)?;
    }
    for d in &done {
        if json {
            brain_doc::ndjson::write_line(out, d)?;
        } else {
            writeln!(out, "{:<8} {}  {collection}/{}", d.outcome, d.name, d.rel)?;
        }
    }
    out.flush()?;
    Ok(if done.is_empty() {
        Exit::Code(ErrorCode::NoResults)
    } else {
        Exit::Success
    })
}
