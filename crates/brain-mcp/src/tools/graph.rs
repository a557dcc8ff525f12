//! `entity` and `related` — the memory graph (brain_graph, issue #23): who or what a name is (the
//! entity page: summary, facts current and superseded, aliases, related records, timeline), and
//! what a record or entity is related to (typed relations, mentions, projects), by kind and depth.
//! The same answers as `brain entity NAME --json` and `brain related … --json`.

use brain_doc::{ErrorCode, ErrorRecord};
use brain_graph::ask;
use serde::Deserialize;
use serde_json::{Value, json};

use super::{Ctx, Output, Tool, decode, descriptor, input_schema};

pub const ENTITY: Tool = Tool {
    name: "entity",
    describe: describe_entity,
    run: run_entity,
    writes: false,
};

pub const RELATED: Tool = Tool {
    name: "related",
    describe: describe_related,
    run: run_related,
    writes: false,
};

#[derive(Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct EntityArgs {
    /// Its name, an alias, an @handle or its folder (case aside).
    #[schemars(length(min = 1, max = 300))]
    name: String,
}

#[derive(Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct RelatedArgs {
    /// A document (collection/path, brain://…, #docid) or an entity (name, alias, @handle).
    #[schemars(length(min = 1, max = 1000))]
    what: String,
    /// Only these kinds (default all): derives_from, supersedes, supports, contradicts, refines,
    /// related, mentions, project.
    #[schemars(length(max = 8))]
    kinds: Option<Vec<String>>,
    /// Steps to walk, 1 to 5 (default 1).
    #[schemars(range(min = 1, max = 5))]
    depth: Option<usize>,
    /// Most records returned (default 50).
    #[schemars(range(min = 1, max = 500))]
    limit: Option<usize>,
}

fn graph(ctx: &mut Ctx<'_>) -> Result<brain_graph::Graph, ErrorRecord> {
    let reg = brain_store::Registry::open_existing(ctx.handles.home())
        .map_err(|e| ErrorRecord::of(&e))?
        .ok_or_else(|| {
            ErrorRecord::new(
                ErrorCode::IndexMissing,
                "nothing is indexed yet",
                "lexindex --all",
            )
        })?;
    brain_graph::Graph::load(&reg).map_err(|e| ErrorRecord::of(&e))
}

fn record_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "depth": {"type": "integer"}, "relation": {"type": "string"}, "kind": {"type": "string"},
            "node": {"type": "string", "enum": ["doc", "entity"]}, "id": {"type": "string"},
            "title": {"type": "string"}, "date": {"type": "string"}, "from": {"type": "string"},
            "said_at": {"type": "string"}
        },
        "required": ["depth", "relation", "kind", "node", "id", "title", "date", "from", "said_at"]
    })
}

fn describe_entity() -> Value {
    let entity = json!({
        "type": "object",
        "properties": {
            "id": {"type": "string"}, "kind": {"type": "string"}, "name": {"type": "string"},
            "aliases": {"type": "array", "items": {"type": "string"}},
            "doc": {"type": ["string", "null"]},
            "projects": {"type": "array", "items": {"type": "string"}},
            "archived": {"type": "boolean"}
        },
        "required": ["id", "kind", "name", "aliases", "projects", "archived"]
    });
    let output = json!({
        "type": "object",
        "properties": {
            "entity": entity,
            "names": {"type": "array", "items": {"type": "string"}},
            "summary": {"type": "string"},
            "facts": {"type": "array", "items": {"type": "object"}},
            "related": {"type": "array", "items": record_schema()},
            "timeline": {"type": "array", "items": {"type": "object"}}
        },
        "required": ["entity", "names", "facts", "related", "timeline"]
    });
    descriptor(
        "entity",
        "Who or what is it",
        "What the memory knows about a person, project, company or concept: summary, facts, names, related records, timeline. A name two entities share is an error listing them.",
        input_schema::<EntityArgs>(),
        output,
    )
}

fn run_entity(ctx: &mut Ctx<'_>, args: Value) -> Result<Output, ErrorRecord> {
    let a: EntityArgs = decode(args)?;
    let g = graph(ctx)?;
    let i = ask::entity(&g, &a.name).map_err(|e| ErrorRecord::of(&e))?;
    let config = ctx.handles.config()?;
    let v = brain_graph::view(&g, config, i);
    let structured = super::structured(&v)?;
    Ok(Output {
        text: brain_graph::render::view(&v),
        count: 1,
        structured,
    })
}

fn describe_related() -> Value {
    let output = json!({
        "type": "object",
        "properties": {
            "start": {"type": "string"},
            "related": {"type": "array", "items": record_schema()}
        },
        "required": ["start", "related"]
    });
    descriptor(
        "related",
        "What is related",
        "What a record or entity is related to: typed relations, mentions, a project's sessions. `kinds` filters; `depth` walks further.",
        input_schema::<RelatedArgs>(),
        output,
    )
}

fn run_related(ctx: &mut Ctx<'_>, args: Value) -> Result<Output, ErrorRecord> {
    let a: RelatedArgs = decode(args)?;
    let depth = ask::check_depth(a.depth.unwrap_or(1)).map_err(|e| ErrorRecord::of(&e))?;
    let kinds = ask::parse_kinds(&a.kinds.unwrap_or_default()).map_err(|e| ErrorRecord::of(&e))?;
    let g = graph(ctx)?;
    let start = ask::start(&g, &a.what).map_err(|e| ErrorRecord::of(&e))?;
    let records: Vec<brain_graph::ReachedRecord> = g
        .related(&start, &kinds, depth)
        .iter()
        .take(a.limit.unwrap_or(50))
        .map(|r| g.record(r))
        .collect();
    let head = g.heading(&start);
    Ok(Output {
        text: brain_graph::render::related(&head, &records),
        count: records.len(),
        structured: json!({"start": head, "related": records}),
    })
}
