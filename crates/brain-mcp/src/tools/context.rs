//! `context` — the memory a task needs within a token budget ([`brain_context::build`], the same
//! block as `brain context`): guaranteed records, whole threads that fit, the best of the rest,
//! counted with cl100k_base; near-duplicates, cold, superseded and expired records left out.

use brain_doc::Classified;
use brain_doc::{ErrorCode, ErrorRecord};
use serde::Deserialize;
use serde_json::{Value, json};

use super::{Ctx, Output, Tool, decode, descriptor, input_schema};

pub const TOOL: Tool = Tool {
    name: "context",
    describe,
    run,
    writes: false,
};

#[derive(Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct Args {
    /// What you are about to do, in words (as for `query`).
    #[schemars(length(min = 1, max = 65536))]
    task: String,
    /// Most tokens the block may take (cl100k_base); default 20000.
    #[schemars(range(min = 1, max = brain_context::MAX_BUDGET))]
    budget: Option<usize>,
}

fn describe() -> Value {
    let input = input_schema::<Args>();
    let item = json!({
        "type": "object",
        "properties": {
            "section": {"type": "string", "enum": ["always", "thread", "related"]},
            "thread": {"type": "string"}, "id": {"type": "string"}, "uri": {"type": "string"},
            "line": {"type": "integer"}, "title": {"type": "string"}, "date": {"type": "string"},
            "age": {"type": "string"}, "age_days": {"type": "integer"},
            "confidence": {"type": "number"}, "untrusted": {"type": "boolean"},
            "score": {"type": "number"}, "tokens": {"type": "integer"}, "text": {"type": "string"}
        },
        "required": ["section", "id", "uri", "line", "title", "date", "age", "age_days", "score", "tokens", "text"]
    });
    let output = json!({
        "type": "object",
        "properties": {
            "kind": {"type": "string", "enum": ["context"]},
            "task": {"type": "string"}, "budget": {"type": "integer"}, "tokens": {"type": "integer"},
            "tokenizer": {"type": "string"}, "slack": {"type": "integer"},
            "items": {"type": "array", "items": item},
            "left_out": {
                "type": "object",
                "properties": {
                    "duplicates": {"type": "integer"}, "cold": {"type": "integer"},
                    "over_budget": {"type": "integer"}, "unreadable": {"type": "integer"}
                },
                "required": ["duplicates", "cold", "over_budget", "unreadable"]
            }
        },
        "required": ["kind", "task", "budget", "tokens", "tokenizer", "slack", "items", "left_out"]
    });
    descriptor(
        "context",
        "Memory for a task",
        "The memory a task needs, as one block within a token budget (default 20000): pinned and important records first, then related threads, then the best of the rest, each with uri:line and age. Call once at the start of a task; use `query` for a specific question.",
        input,
        output,
    )
}

fn run(ctx: &mut Ctx<'_>, args: Value) -> Result<Output, ErrorRecord> {
    let a: Args = decode(args)?;
    let budget = a.budget.unwrap_or(brain_context::DEFAULT_BUDGET);
    brain_context::check_budget(budget)
        .map_err(|e| ErrorRecord::new(e.code(), e.to_string(), "e.g. {\"budget\": 8000}"))?;
    let opts = brain_context::Options {
        budget,
        dedup: true,
        tick: true,
    };
    let now = ctx.now.clone();
    let engine = ctx.handles.engine()?;
    let block =
        brain_context::build(engine, &a.task, opts, &now).map_err(|e| ErrorRecord::of(&e))?;
    let structured = serde_json::to_value(&block)
        .map_err(|e| ErrorRecord::new(ErrorCode::Internal, e.to_string(), ""))?;
    Ok(Output {
        text: block.markdown.clone(),
        count: block.items.len(),
        structured,
    })
}
