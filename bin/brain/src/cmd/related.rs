//! `brain related ID|ENTITY [--kind K]… [--depth N] [--json]` — what a record or an entity is
//! related to (seed 003's typed relations, brain_graph): `--kind contradicts` is "everything this
//! contradicts".

use std::io::Write;

use brain_cli::{Exit, Failure, Stdout};
use brain_doc::ErrorCode;
use brain_store::Home;

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

pub fn run(home: &Home, a: Args) -> anyhow::Result<Exit> {
    let depth = brain_graph::ask::check_depth(a.depth).map_err(Failure::from)?;
    let wanted = brain_graph::ask::parse_kinds(&a.kind).map_err(Failure::from)?;
    let g = super::entity::load(home)?;
    let what = a.what.join(" ");
    let start = brain_graph::ask::start(&g, &what).map_err(Failure::from)?;
    let reached: Vec<brain_graph::ReachedRecord> = g
        .related(&start, &wanted, depth)
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
        out.write_all(brain_graph::render::related(&g.heading(&start), &reached).as_bytes())?;
    }
    out.flush()?;
    Ok(if reached.is_empty() {
        Exit::Code(ErrorCode::NoResults)
    } else {
        Exit::Success
    })
}
