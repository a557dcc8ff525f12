//! The tools: each is one small module with a descriptor (name, schemas, annotations) and a handler
//! from checked arguments to a result. [`TOOLS`] is the registry `tools/list` and `tools/call` read.
//!
//! A handler's failure is an [`ErrorRecord`] (docs/FORMATS.md), which the server returns as an MCP tool
//! error (`isError: true`). Arguments are checked against the tool's own `inputSchema` first
//! ([`crate::schema`]), so the schema a client sees is the one enforced.

pub(crate) mod context;
mod get;
mod graph;
mod multi_get;
mod query;
mod recent;
mod remember;
mod status;
mod timeline;
mod wm;

use brain_doc::{ErrorCode, ErrorRecord};
use jiff::Zoned;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

use crate::handles::Handles;

/// What a handler gets besides its arguments.
pub struct Ctx<'a> {
    /// The open index, config and strategy.
    pub handles: &'a mut Handles,
    /// The time queries and age labels are relative to (`$BRAIN_NOW` in tests).
    pub now: Zoned,
    /// Set by a handler whose library call wrote its own telemetry row (`recent`, `remember`), so the
    /// server does not log the call twice.
    pub logged: bool,
    /// Fields a failing handler adds to its error record line (`remember`: the refusal `reason`).
    pub error_extra: Map<String, Value>,
    /// Fields a handler adds to its telemetry row (`query`: its `query_id` and hits, for clicks).
    pub row_extra: Map<String, Value>,
}

/// A successful tool result.
pub struct Output {
    /// Text for the model (low-trust text fenced).
    pub text: String,
    /// The same as data, matching the tool's `outputSchema`.
    pub structured: Value,
    /// How many items (results, documents) it holds, for telemetry.
    pub count: usize,
}

/// One tool.
pub struct Tool {
    /// Its name in `tools/call`.
    pub name: &'static str,
    /// Its `tools/list` entry.
    pub describe: fn() -> Value,
    /// Its handler, on arguments that passed the schema.
    pub run: fn(&mut Ctx<'_>, Value) -> Result<Output, ErrorRecord>,
    /// It writes to the memory (`remember`): neither listed nor callable under `--read-only`.
    pub writes: bool,
}

/// Every tool, in `tools/list` order.
pub const TOOLS: &[Tool] = &[
    query::TOOL,
    context::TOOL,
    get::TOOL,
    multi_get::TOOL,
    status::TOOL,
    recent::TOOL,
    timeline::TOOL,
    graph::ENTITY,
    graph::RELATED,
    remember::TOOL,
    wm::ADD,
    wm::LIST,
    wm::UPDATE,
];

/// The tool called `name`.
pub fn find(name: &str) -> Option<&'static Tool> {
    TOOLS.iter().find(|t| t.name == name)
}

/// Every tool's `tools/list` entry, in [`TOOLS`] order, built once per process: the input schemas
/// are generated, and every `tools/call` checks its arguments against one.
pub fn descriptors() -> &'static [Value] {
    static ALL: std::sync::OnceLock<Vec<Value>> = std::sync::OnceLock::new();
    ALL.get_or_init(|| TOOLS.iter().map(|t| (t.describe)()).collect())
}

/// [`descriptors`] as `tools/list` sends them by default (every agent session carries the list
/// in its context, issue 59: at most 10 KB): without `outputSchema`, and the input schemas without
/// what only repeats the checks every call goes through anyway (`additionalProperties: false`;
/// `default` of `false` or `[]`, which the descriptions say). Each call is still checked against
/// the whole schema ([`input_schema_of`]).
fn lean_descriptors() -> &'static [Value] {
    static LEAN: std::sync::OnceLock<Vec<Value>> = std::sync::OnceLock::new();
    LEAN.get_or_init(|| {
        descriptors()
            .iter()
            .map(|d| {
                let mut d = d.clone();
                if let Some(o) = d.as_object_mut() {
                    o.remove("outputSchema");
                    if let Some(input) = o.get_mut("inputSchema") {
                        lean_input(input);
                    }
                }
                d
            })
            .collect()
    })
}

fn lean_input(v: &mut Value) {
    match v {
        Value::Object(o) => {
            if o.get("additionalProperties") == Some(&Value::Bool(false)) {
                o.remove("additionalProperties");
            }
            if o.get("default")
                .is_some_and(|d| d == &json!(false) || d == &json!([]))
            {
                o.remove("default");
            }
            o.values_mut().for_each(lean_input);
        }
        Value::Array(a) => a.iter_mut().for_each(lean_input),
        _ => {}
    }
}

/// The `tools/list` entries a session offers: every tool, or with `read_only` those that do not
/// write; with their output schemas when `output_schemas`.
pub fn listed(read_only: bool, output_schemas: bool) -> Vec<&'static Value> {
    let all = match output_schemas {
        true => descriptors(),
        false => lean_descriptors(),
    };
    TOOLS
        .iter()
        .zip(all)
        .filter(|(t, _)| !(read_only && t.writes))
        .map(|(_, d)| d)
        .collect()
}

/// The `inputSchema` of the tool called `name`.
pub fn input_schema_of(name: &str) -> Option<&'static Value> {
    let i = TOOLS.iter().position(|t| t.name == name)?;
    descriptors().get(i).map(|d| &d["inputSchema"])
}

/// Decode checked arguments into a handler's type.
pub fn decode<T: DeserializeOwned>(args: Value) -> Result<T, ErrorRecord> {
    serde_json::from_value(args).map_err(|e| {
        ErrorRecord::new(
            ErrorCode::BadQuery,
            format!("bad arguments: {e}"),
            "see the tool's inputSchema",
        )
    })
}

/// A result as the `structuredContent` of an answer (a value that does not serialize is internal).
pub fn structured(v: &impl serde::Serialize) -> Result<Value, ErrorRecord> {
    serde_json::to_value(v).map_err(|e| ErrorRecord::new(ErrorCode::Internal, e.to_string(), ""))
}

/// Every name of `collections` is a collection of `config`, else a `bad_query` naming the first that
/// is not, with the list of those there are.
pub fn check_collections(
    config: &brain_store::Config,
    collections: &[String],
) -> Result<(), ErrorRecord> {
    config.check_collections(collections).map_err(|e| match e {
        brain_store::ConfigError::Unknown(c) => ErrorRecord::new(
            ErrorCode::BadQuery,
            format!("no collection `{c}`"),
            format!("collections: {}", config.names()),
        ),
        other => ErrorRecord::new(ErrorCode::BadQuery, other.to_string(), ""),
    })
}

/// A tool's `inputSchema`, generated from its argument type: field doc comments are the
/// descriptions, `#[schemars(length/range)]` the bounds, `deny_unknown_fields` closes it. Inlined
/// (no `$ref`), no `$schema` or title, and an `Option` field is optional rather than nullable — the
/// keywords [`crate::schema::check`] enforces. The `tools/list` golden pins the result.
pub fn input_schema<T: schemars::JsonSchema>() -> Value {
    let settings = schemars::generate::SchemaSettings::draft2020_12().with(|s| {
        s.meta_schema = None;
        s.inline_subschemas = true;
    });
    let mut v = settings
        .into_generator()
        .into_root_schema_for::<T>()
        .to_value();
    if let Some(o) = v.as_object_mut() {
        o.remove("title");
        o.remove("description");
    }
    plain_keywords(&mut v);
    v
}

/// Everywhere in a generated schema: `"type": ["T", "null"]` → `"type": "T"` (an absent argument is
/// how a client leaves one out; null is not accepted), and no `format` (schemars' `uint`, `double`
/// are not JSON Schema formats, and a strict validator refuses unknown ones).
fn plain_keywords(v: &mut Value) {
    match v {
        Value::Object(o) => {
            o.remove("format");
            if let Some(Value::Array(types)) = o.get("type") {
                let kept: Vec<Value> = types.iter().filter(|t| *t != "null").cloned().collect();
                if kept.len() == 1 && kept.len() < types.len() {
                    o.insert("type".into(), kept[0].clone());
                }
            }
            o.values_mut().for_each(plain_keywords);
        }
        Value::Array(a) => a.iter_mut().for_each(plain_keywords),
        _ => {}
    }
}

/// The descriptor of a reading tool: read-only, closed-world (only the local memory), as QMD marks its
/// tools. Every agent session carries the `tools/list` answer in its context, so it says each
/// thing once (issue 38: 26.5 KB before): the output schema is the structure alone (its field
/// docs are docs/FORMATS.md), and the title is not repeated in the annotations.
pub fn descriptor(
    name: &str,
    title: &str,
    description: &str,
    input: Value,
    mut output: Value,
) -> Value {
    structure_only(&mut output);
    json!({
        "name": name,
        "title": title,
        "description": description,
        "inputSchema": input,
        "outputSchema": output,
        "annotations": {"readOnlyHint": true, "openWorldHint": false},
    })
}

/// A schema without its prose (`description`, `title`), everywhere in it.
fn structure_only(v: &mut Value) {
    match v {
        Value::Object(o) => {
            o.remove("description");
            o.remove("title");
            o.values_mut().for_each(structure_only);
        }
        Value::Array(a) => a.iter_mut().for_each(structure_only),
        _ => {}
    }
}

/// The text of a tool error: the error record as one JSON line, readable by a model and a program,
/// with the handler's `extra` fields after the record's own.
pub fn error_text(e: &ErrorRecord, extra: &Map<String, Value>) -> String {
    let mut v = serde_json::to_value(e).unwrap_or_else(|_| json!({"message": e.message}));
    if let Some(obj) = v.as_object_mut() {
        for (k, x) in extra {
            obj.entry(k.clone()).or_insert_with(|| x.clone());
        }
    }
    v.to_string()
}

/// A document lookup failure as an error record.
pub fn docs_error(e: brain_resolve::DocsError) -> ErrorRecord {
    ErrorRecord::of(&e)
}
