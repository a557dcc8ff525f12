//! `brain related ID|ENTITY [--kind K]… [--depth N] [--json]` — what a record or an entity is
//! related to (seed 003's typed relations, brain_graph): `--kind contradicts` is "everything this
//! contradicts".

use std::io::Write;

use brain_cli::{Exit, Failure, Stdout};
use brain_doc::ErrorCode;
use brain_doc::links::RelationKind;
use brain_graph::Target;
use brain_store::Home;

/// Deepest walk allowed.
pub const MAX_DEPTH: usize = 5;

#[derive(clap::Args)]
pub struct Args {
    /// A document (`collection/path`, `brain://…`, `#docid`) or an entity (name, alias, @handle).
    #[arg(required = true)]
    what: Vec<String>,
    /// Follow only relations of this kind (repeatable): derives_from, supersedes, supports,
    /// contradicts, refines, related, mentions, project.
    #[arg(long, short = 'k', value_name = "KIND")]
    kind: Vec<String>,
    /// Steps to walk (1 to 5).
    #[arg(long, short = 'd', default_value_t = 1)]
    depth: usize,
    /// Most records listed.
    #[arg(long, short = 'n', default_value_t = 100)]
    limit: usize,
    /// One JSON object per related record.
    #[arg(long)]
    json: bool,
}

/// The kinds `--kind` accepts.
fn kinds() -> Vec<&'static str> {
    let mut k: Vec<&str> = RelationKind::ALL.iter().map(|k| k.name()).collect();
    k.extend(["mentions", "project"]);
    k
}

pub fn run(home: &Home, a: Args) -> anyhow::Result<Exit> {
    if !(1..=MAX_DEPTH).contains(&a.depth) {
        return Err(Failure::new(
            ErrorCode::BadQuery,
            format!("--depth {} is out of range (1 to {MAX_DEPTH})", a.depth),
        )
        .into());
    }
    let mut wanted = Vec::new();
    for k in &a.kind {
        let name =
            RelationKind::parse(k).map_or_else(|| k.trim().to_lowercase(), |r| r.name().into());
        if !kinds().contains(&name.as_str()) {
            return Err(Failure::new(
                ErrorCode::BadQuery,
                format!(
                    "unknown relation kind `{k}` (one of {})",
                    kinds().join(", ")
                ),
            )
            .into());
        }
        wanted.push(name);
    }
    let g = super::entity::load(home)?;
    let what = a.what.join(" ");
    let start = match g.start(&what) {
        Ok(n) => n,
        Err(Target::Ambiguous(ids)) => {
            return Err(Failure::new(
                ErrorCode::BadQuery,
                format!("`{what}` names {} entities: {}", ids.len(), ids.join(", ")),
            )
            .with_fix("name one by its full name or its id")
            .into());
        }
        Err(_) => {
            return Err(Failure::new(
                ErrorCode::NoResults,
                format!("no document or entity `{what}`"),
            )
            .with_fix(
                "a document id as `brain ask` prints it (collection/path), or brain entity list",
            )
            .into());
        }
    };
    let reached: Vec<brain_graph::ReachedRecord> = g
        .related(&start, &wanted, a.depth)
        .iter()
        .take(a.limit)
        .map(|r| g.record(r))
        .collect();
    let mut out = Stdout::new();
    if a.json {
        for r in &reached {
            brain_doc::ndjson::write_line(&mut out, r)?;
        }
    } else {
        let (_, id, title, _) = g.describe(&start);
        let head = if title.is_empty() || title == id {
            id
        } else {
            format!("{id} — {title}")
        };
        out.write_all(brain_graph::render::related(&head, &reached).as_bytes())?;
    }
    out.flush()?;
    Ok(if reached.is_empty() {
        Exit::Code(ErrorCode::NoResults)
    } else {
        Exit::Success
    })
}
