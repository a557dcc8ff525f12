//! `wm_add`, `wm_list`, `wm_update` (pin, unpin, remove, promote) — working memory
//! ([`brain_context::wm`], the same store as `brain wm`): short-lived notes carried first in every
//! `context` block until their turns run out. Every tool answers with the notes as they are after it.

use brain_context::wm::{self, Store, WmError};
use brain_doc::Classified;
use brain_doc::ErrorRecord;
use serde::Deserialize;
use serde_json::{Value, json};

use super::{Ctx, Output, Tool, decode, descriptor, input_schema};

fn record(e: WmError) -> ErrorRecord {
    let fix = match e {
        WmError::NoItem(_) => "wm_list shows the notes and their ids",
        WmError::Secret(_) => "leave the secret out; never store one",
        _ => "",
    };
    ErrorRecord::new(e.code(), e.to_string(), fix)
}

fn output_schema() -> Value {
    let item = json!({
        "type": "object",
        "properties": {
            "id": {"type": "integer"}, "text": {"type": "string"},
            "tags": {"type": "array", "items": {"type": "string"}}, "pinned": {"type": "boolean"},
            "ttl": {"type": "integer", "description": "Turns left (ignored while pinned)."},
            "created": {"type": "string"}, "deadline": {"type": "string"},
            "due": {"type": ["string", "null"], "enum": ["due soon", "overdue", null]}
        },
        "required": ["id", "text", "pinned", "ttl", "created", "due"]
    });
    json!({
        "type": "object",
        "properties": {
            "kind": {"type": "string", "enum": ["working_memory"]},
            "id": {"type": "integer", "description": "The note added (wm_add)."},
            "promoted": {"type": "string", "description": "The fact's uri (wm_update promote)."},
            "items": {"type": "array", "items": item}
        },
        "required": ["kind", "items"]
    })
}

/// The notes after the call, as text and data.
fn answer(ctx: &Ctx<'_>, store: &Store, extra: &[(&str, Value)]) -> Output {
    let now = ctx.now.timestamp().as_second();
    let items = store.items();
    let mut data = json!({
        "kind": "working_memory",
        "items": items.iter().map(|i| {
            let mut v = serde_json::to_value(i).unwrap_or_default();
            v["due"] = Value::from(i.due(now));
            v
        }).collect::<Vec<_>>(),
    });
    for (k, v) in extra {
        data[*k] = v.clone();
    }
    let mut text: String = items.iter().map(|i| format!("{}\n", i.line(now))).collect();
    if text.is_empty() {
        text = "Working memory is empty.\n".into();
    }
    Output {
        text,
        count: items.len(),
        structured: data,
    }
}

fn open(ctx: &Ctx<'_>) -> Result<Store, ErrorRecord> {
    Store::open(ctx.handles.home()).map_err(record)
}

#[derive(Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct AddArgs {
    /// The note.
    #[schemars(length(min = 1, max = wm::MAX_TEXT_BYTES))]
    text: String,
    /// Turns it lives (default 5).
    #[schemars(range(min = 1, max = wm::MAX_TTL))]
    ttl: Option<u8>,
    /// Never expires (at most 3 pinned).
    pinned: Option<bool>,
    /// When it is due: a date (2026-06-02) or RFC 3339.
    deadline: Option<String>,
    /// Tags.
    tags: Option<Vec<String>>,
}

/// What `wm_update` does to a note.
#[derive(Deserialize, schemars::JsonSchema, Clone, Copy)]
#[serde(rename_all = "lowercase")]
enum Action {
    Pin,
    Unpin,
    Remove,
    Promote,
}

#[derive(Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct UpdateArgs {
    /// The note's id (wm_list shows it).
    id: u32,
    /// promote: make it a lasting fact. At most 3 are pinned.
    action: Action,
    /// promote only: the fact's subject; a later fact of the same key supersedes it.
    key: Option<String>,
}

#[derive(Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct NoArgs {}

pub const ADD: Tool = Tool {
    name: "wm_add",
    describe: || {
        descriptor(
            "wm_add",
            "Keep a note in working memory",
            "A short note for the next turns (default 5): what to do next, a deadline. Notes lead every `context` block; `remember` is for what lasts.",
            input_schema::<AddArgs>(),
            output_schema(),
        )
    },
    run: |ctx, args| {
        let a: AddArgs = decode(args)?;
        let mut store = open(ctx)?;
        let id = store
            .add(
                &a.text,
                a.ttl,
                a.pinned.unwrap_or(false),
                a.deadline,
                a.tags.unwrap_or_default(),
                &ctx.now.timestamp(),
            )
            .map_err(record)?;
        Ok(answer(ctx, &store, &[("id", Value::from(id))]))
    },
    writes: true,
};

pub const LIST: Tool = Tool {
    name: "wm_list",
    describe: || {
        descriptor(
            "wm_list",
            "Working memory",
            "The working-memory notes, pinned first, with turns left and due marks.",
            input_schema::<NoArgs>(),
            output_schema(),
        )
    },
    run: |ctx, args| {
        let _: NoArgs = decode(args)?;
        let store = open(ctx)?;
        Ok(answer(ctx, &store, &[]))
    },
    writes: false,
};

/// One tool for what is done to a note by its id (one descriptor where there were four: every
/// agent session carries `tools/list`).
pub const UPDATE: Tool = Tool {
    name: "wm_update",
    describe: || {
        descriptor(
            "wm_update",
            "Change a working-memory note",
            "Pin, unpin or remove a note, or promote it to a permanent fact.",
            input_schema::<UpdateArgs>(),
            output_schema(),
        )
    },
    run: |ctx, args| {
        let a: UpdateArgs = decode(args)?;
        if a.key.is_some() && !matches!(a.action, Action::Promote) {
            return Err(ErrorRecord::new(
                brain_doc::ErrorCode::BadQuery,
                "`key` goes with action `promote` only",
                "leave `key` out, or promote the note",
            ));
        }
        let mut store = open(ctx)?;
        match a.action {
            Action::Pin => store.pin(a.id, true).map_err(record)?,
            Action::Unpin => store.pin(a.id, false).map_err(record)?,
            Action::Remove => store.remove(a.id).map(|_| ()).map_err(record)?,
            Action::Promote => {
                drop(store);
                let captured = wm::promote(
                    ctx.handles.home(),
                    a.id,
                    a.key,
                    brain_store::telemetry::Surface::Mcp,
                    ctx.now.clone(),
                )
                .map_err(record)?;
                let store = open(ctx)?;
                return Ok(answer(
                    ctx,
                    &store,
                    &[("promoted", Value::from(captured.uri))],
                ));
            }
        }
        Ok(answer(ctx, &store, &[]))
    },
    writes: true,
};

#[cfg(test)]
mod tests {
    #[test]
    fn every_wm_tool_has_a_distinct_name() {
        let names = [super::ADD, super::LIST, super::UPDATE].map(|t| t.name);
        let mut sorted = names.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), names.len());
    }
}
