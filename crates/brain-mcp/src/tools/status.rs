//! `status` — what `brain status` reports ([`brain_ops::status`]): collections with document counts
//! and last indexing, the lexical index and vector store, the embedding and distillation backlogs, the
//! embedding model. Registry queries and three small files: milliseconds, safe to call often.

use brain_doc::ErrorRecord;
use serde_json::{Value, json};

use super::{Ctx, Output, Tool, descriptor, input_schema};

pub const TOOL: Tool = Tool {
    name: "status",
    describe,
    run,
    writes: false,
};

/// `status` takes no arguments.
#[derive(schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct Args {}

fn describe() -> Value {
    let input = input_schema::<Args>();
    let time = json!({"type": ["string", "null"], "description": "RFC 3339 (UTC), or null: never"});
    let collection = json!({
        "type": "object",
        "properties": {
            "name": {"type": "string"}, "role": {"type": "string"}, "docs": {"type": "integer"},
            "last_indexed": time, "need_embeddings": {"type": "integer"}
        },
        "required": ["name", "role", "docs", "last_indexed", "need_embeddings"]
    });
    let output = json!({
        "type": "object",
        "properties": {
            "schema": {"type": "integer"},
            "kind": {"type": "string", "enum": ["status"]},
            "home": {"type": "string"},
            "collections": {"type": "array", "items": collection},
            "docs": {"type": "integer"},
            "lexical_index": {"type": "boolean"},
            "vector_store": {"type": "boolean"},
            "need_embeddings": {"type": "integer"},
            "distill_pending": {"type": "integer"},
            "model": {
                "type": "object",
                "properties": {"id": {"type": "string"}, "present": {"type": ["boolean", "null"]}},
                "required": ["id", "present"]
            },
            "last_update": time,
            "config_error": {"type": ["string", "null"]}
        },
        "required": ["schema", "kind", "home", "collections", "docs", "lexical_index", "vector_store",
                     "need_embeddings", "distill_pending", "model", "last_update", "config_error"]
    });
    descriptor(
        "status",
        "Memory status",
        "What the memory holds: collections with counts and last indexing, embedding backlog, model. For thin or stale results.",
        input,
        output,
    )
}

fn run(ctx: &mut Ctx<'_>, _args: Value) -> Result<Output, ErrorRecord> {
    let status = brain_ops::status(ctx.handles.home()).map_err(|e| ErrorRecord::of(&e))?;
    let structured = super::structured(&status)?;
    Ok(Output {
        text: brain_ops::render::status(&status),
        count: status.collections.len(),
        structured,
    })
}
