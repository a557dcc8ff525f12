//! `context` — the memory a task needs within a token budget ([`brain_context::build`], the same
//! block as `brain context`): guaranteed records, whole threads that fit, the best of the rest,
//! counted with cl100k_base; near-duplicates, superseded and expired records left out, cold ones
//! placed last. Without a task it is the session-start briefing of a project
//! ([`brain_context::brief`], the same block as `brain brief` and the SessionStart hooks).

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
    /// What you are about to do, in words (none: the briefing).
    #[schemars(length(min = 1, max = 65536))]
    task: Option<String>,
    /// The briefing's project (your working directory).
    #[schemars(length(min = 1, max = 4096))]
    project: Option<String>,
    /// Most tokens (cl100k_base); default 20000, briefing 1500.
    #[schemars(range(min = 1, max = brain_context::MAX_BUDGET))]
    budget: Option<usize>,
}

fn describe() -> Value {
    let input = input_schema::<Args>();
    let item = json!({
        "type": "object",
        "properties": {
            "section": {"type": "string"},
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
                    "over_budget": {"type": "integer"}, "unreadable": {"type": "integer"},
                    "weak": {"type": "integer"}
                },
                "required": ["duplicates", "cold", "over_budget", "unreadable", "weak"]
            }
        },
        "required": ["kind", "task", "budget", "tokens", "tokenizer", "slack", "items", "left_out"]
    });
    descriptor(
        "context",
        "Memory for a task",
        "The memory a task needs as one block within a token budget, each item with uri:line and age; without `task`, the project's briefing. Call once at the start of a task.",
        input,
        output,
    )
}

fn run(ctx: &mut Ctx<'_>, args: Value) -> Result<Output, ErrorRecord> {
    let a: Args = decode(args)?;
    let now = ctx.now.clone();
    let block = match a.task {
        Some(task) => {
            let budget = a.budget.unwrap_or(brain_context::DEFAULT_BUDGET);
            let opts = brain_context::Options {
                budget,
                dedup: true,
                tick: true,
            };
            let engine = ctx.handles.engine()?;
            brain_context::build(engine, &task, opts, &now)
        }
        None => {
            let engine = ctx.handles.engine()?;
            brief(engine, a.project, a.budget, &now)
        }
    }
    .map_err(|e| {
        let mut r = ErrorRecord::of(&e);
        if e.code() == ErrorCode::BadQuery {
            r.fix = "e.g. {\"budget\": 8000}".into();
        }
        r
    })?;
    let structured = super::structured(&block)?;
    Ok(Output {
        text: block.markdown.clone(),
        count: block.items.len(),
        structured,
    })
}

/// The briefing of `project` (every project without one), as the SessionStart hooks give it.
pub fn brief(
    engine: &brain_rank::Engine,
    project: Option<String>,
    budget: Option<usize>,
    now: &jiff::Zoned,
) -> Result<brain_context::Block, brain_context::ContextError> {
    let req = brain_context::brief::Request {
        project,
        moment: None,
        session: None,
        prompt: None,
        agent: None,
        budget: budget.unwrap_or(brain_context::brief::DEFAULT_BUDGET),
    };
    brain_context::brief::brief(engine, &req, now)
}
