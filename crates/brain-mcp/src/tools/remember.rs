//! `remember` — inbox capture ([`brain_inbox::capture`]) with the same sanitization and refusal gate
//! as `brain inbox`: the entry is appended to `inbox/YYYY-MM-DD.md` under the inbox lock and indexed at
//! once, so a `query` in the same session finds it (the server's handles see the index commit).
//! Secrets are refused and derivable noise is gated unless `force`: a tool error with the error record
//! (`refused`) and the machine `reason`. The capture logs its own telemetry row (`surface: mcp`).
//!
//! The one tool that writes: annotated not read-only, not destructive (it only appends), not
//! idempotent (two calls make two entries).

use brain_doc::Classified;
use brain_doc::ErrorRecord;
use brain_inbox::{Capture, EntryType, InboxError};
use brain_store::LockError;
use brain_store::telemetry::Surface;
use serde::Deserialize;
use serde_json::{Value, json};

use super::{Ctx, Output, Tool, decode, descriptor, input_schema};

pub const TOOL: Tool = Tool {
    name: "remember",
    describe,
    run,
    writes: true,
};

#[derive(Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct Args {
    /// What to remember: a few self-contained sentences, not a paste.
    #[schemars(length(min = 1))]
    text: String,
    #[serde(rename = "type", default)]
    #[schemars(schema_with = "entry_type_schema")]
    kind: EntryType,
    /// Tags (letters, digits, -_./).
    #[serde(default)]
    tags: Vec<String>,
    /// The project the entry is about (a name or a path).
    project: Option<String>,
    /// Store a paste the guard refuses (never a secret).
    #[serde(default)]
    force: bool,
    /// The subject (`db.engine`): a later record of it supersedes this one.
    key: Option<String>,
    /// 1-5 (5: always include).
    #[schemars(range(min = 1, max = 5))]
    importance: Option<u8>,
    /// When it happened, if not now.
    #[serde(rename = "occurredAt")]
    occurred_at: Option<String>,
    /// How long it holds (7d, 2w, 1y).
    ttl: Option<String>,
    /// When it stops being true.
    #[serde(rename = "expiresAt")]
    expires_at: Option<String>,
    /// Records (collection/path) this one replaces.
    #[serde(default)]
    supersedes: Vec<String>,
    /// Always in context.
    #[serde(default)]
    pinned: bool,
}

/// The entry types [`EntryType::ALL`] names.
fn entry_type_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let types: Vec<&str> = EntryType::ALL.iter().map(|t| t.as_str()).collect();
    schemars::json_schema!({"type": "string", "enum": types})
}

fn describe() -> Value {
    let types: Vec<&str> = EntryType::ALL.iter().map(|t| t.as_str()).collect();
    let input = input_schema::<Args>();
    let output = json!({
        "type": "object",
        "properties": {
            "kind": {"type": "string", "enum": ["inbox_entry"]},
            "entry_id": {"type": "string", "description": "YYYYMMDD-NNN"},
            "uri": {"type": "string"}, "path": {"type": "string"},
            "line": {"type": "integer", "description": "Line of the entry header in the day file."},
            "type": {"type": "string", "enum": types}, "time": {"type": "string"},
            "tags": {"type": "array", "items": {"type": "string"}},
            "project": {"type": ["string", "null"]}, "bytes": {"type": "integer"},
            "indexed": {"type": "boolean", "description": "Searchable now (false: the next lexindex picks it up)."},
            "warnings": {"type": "array", "items": {"type": "string"}}
        },
        "required": ["kind", "entry_id", "uri", "path", "line", "type", "time", "tags", "project", "bytes", "indexed", "warnings"]
    });
    let mut d = descriptor(
        "remember",
        "Remember",
        "Save a conclusion worth keeping (a decision and why, a fact, a todo, a link) into the user's memory, searchable at once. Pastes are refused unless `force`; secrets always.",
        input,
        output,
    );
    d["annotations"] = json!({
        "readOnlyHint": false,
        "destructiveHint": false,
        "idempotentHint": false,
        "openWorldHint": false,
    });
    d
}

fn run(ctx: &mut Ctx<'_>, args: Value) -> Result<Output, ErrorRecord> {
    let a: Args = decode(args)?;
    let mut req = Capture::new(a.text, ctx.now.clone());
    req.kind = a.kind;
    req.tags = a.tags;
    req.project = a.project;
    req.force = a.force;
    req.surface = Surface::Mcp;
    req.record = brain_inbox::RecordFields {
        key: a.key,
        importance: a.importance,
        ttl: a.ttl,
        expires_at: a.expires_at,
        occurred_at: a.occurred_at,
        supersedes: a.supersedes,
        pinned: a.pinned,
    };
    ctx.logged = true;
    // A purge stopped half-way is finished first, as every writer does; what it did is said in
    // the answer.
    let said = std::cell::RefCell::new(Vec::new());
    let say = |s: String| said.borrow_mut().push(s);
    let c = brain_ops::inbox::capture(ctx.handles.home(), &req, &say).map_err(|e| {
        if let Some(r) = e.reason() {
            ctx.error_extra.insert("reason".into(), r.into());
        }
        ErrorRecord::new(e.code(), e.to_string(), fix(&e))
    })?;
    let state = if c.indexed {
        "searchable now"
    } else {
        "not indexed yet"
    };
    let mut text = format!(
        "Remembered {} {} at {}:{} ({state}).\n",
        c.entry_type.as_str(),
        c.entry_id,
        c.uri,
        c.line
    );
    for w in c.warnings.iter().chain(said.borrow().iter()) {
        text.push_str(&format!("warning: {w}\n"));
    }
    let structured = super::structured(&c)?;
    Ok(Output {
        text,
        count: 1,
        structured,
    })
}

/// The fix of a failed capture, in this tool's terms where the CLI's names a flag.
fn fix(e: &InboxError) -> String {
    match e {
        InboxError::Empty => "give `text`: what you want to remember, in words".into(),
        InboxError::Noise(_) => {
            "remember what you concluded from it instead, or call again with `force: true` to store it as it is".into()
        }
        InboxError::Lock(LockError::Held { .. }) => {
            "another capture is writing the inbox; try again in a moment".into()
        }
        _ => e.fix(),
    }
}
