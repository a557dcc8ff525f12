//! Dispatch: one JSON-RPC message in, at most one out. Requests get exactly one response;
//! notifications and stray responses get none, whatever they hold.

use std::time::Instant;

use brain_doc::{ErrorCode, ErrorRecord};
use brain_store::{Home, telemetry};
use serde_json::{Map, Value, json};

use crate::handles::Handles;
use crate::jsonrpc::{self, INTERNAL_ERROR, INVALID_PARAMS, Incoming, METHOD_NOT_FOUND, RpcError};
use crate::tools::{self, Ctx};
use crate::{resources, session};

/// The revision before which argument-schema violations were protocol errors; from 2025-11-25 on
/// they are tool errors the model can correct (SEP-1303).
const ARGUMENT_ERRORS_AS_TOOL_ERRORS_SINCE: &str = "2025-11-25";

/// One MCP session over one home.
pub struct Server {
    handles: Handles,
    /// The negotiated protocol revision; before `initialize`, our newest.
    version: &'static str,
    /// `brain mcp --read-only`: no tool that writes is listed or run.
    read_only: bool,
    /// `brain mcp --output-schemas`: `tools/list` carries each tool's `outputSchema`.
    output_schemas: bool,
}

impl Server {
    /// A server for `home`; nothing is opened until a call needs it.
    pub fn new(home: Home) -> Self {
        Server {
            handles: Handles::new(home),
            version: session::PROTOCOL_VERSIONS[0],
            read_only: false,
            output_schemas: false,
        }
    }

    /// List each tool's `outputSchema` (for clients that validate structured results); left out by
    /// default, since every agent session carries `tools/list` in its context and the results'
    /// fields are docs/FORMATS.md's. `structuredContent` is returned either way.
    pub fn output_schemas(mut self, on: bool) -> Self {
        self.output_schemas = on;
        self
    }

    /// Offer and run only the tools that do not write (`remember` is neither listed nor callable):
    /// for agents that should recall, never store.
    pub fn read_only(mut self, on: bool) -> Self {
        self.read_only = on;
        if on {
            // No write of any kind, whatever a tool's library would otherwise write (telemetry,
            // the access log, a working-memory turn, caches): for the whole process.
            brain_doc::atomic::set_read_only();
        }
        self
    }

    /// The negotiated protocol revision.
    pub fn version(&self) -> &'static str {
        self.version
    }

    /// Answer requests under `version` from now on (the HTTP transport's `MCP-Protocol-Version`
    /// header); only a revision we speak is taken.
    pub fn set_version(&mut self, version: &str) {
        if let Some(v) = session::PROTOCOL_VERSIONS.iter().find(|v| **v == version) {
            self.version = v;
        }
    }

    /// Between requests (the last answer written): let the open engine prepare its model for the
    /// queries to come ([`brain_rank::Engine::prepare_vectors`]; once, only after a vector query).
    pub fn idle(&mut self) {
        if let Some(e) = self.handles.engine_if_open() {
            e.prepare_vectors();
        }
    }

    /// Handle one line; the response to write, if any.
    pub fn handle_line(&mut self, line: &[u8]) -> Option<Value> {
        self.handle(jsonrpc::parse(line))
    }

    /// Handle one classified message; the response to write, if any.
    pub fn handle(&mut self, message: Result<Incoming, Box<jsonrpc::Rejected>>) -> Option<Value> {
        match message {
            Err(r) => Some(jsonrpc::error(r.id, &r.error)),
            Ok(Incoming::Request { id, method, params }) => {
                Some(match self.request(&method, &params) {
                    Ok(result) => jsonrpc::result(id, result),
                    Err(e) => jsonrpc::error(id, &e),
                })
            }
            Ok(Incoming::Notification { .. } | Incoming::Response) => None,
        }
    }

    fn request(&mut self, method: &str, params: &Value) -> Result<Value, RpcError> {
        match method {
            "initialize" => {
                let (result, version) =
                    session::initialize(self.handles.home(), params, self.read_only)?;
                self.version = version;
                Ok(result)
            }
            "ping" => Ok(json!({})),
            "tools/list" => {
                Ok(json!({"tools": tools::listed(self.read_only, self.output_schemas)}))
            }
            "tools/call" => {
                brain_doc::timings::restart();
                let out = self.call(params);
                report_timings();
                out
            }
            "prompts/list" => Ok(crate::prompts::list()),
            "prompts/get" => {
                let started = Instant::now();
                let out = crate::prompts::get(&mut self.handles, params);
                let mut f = Map::new();
                f.insert("ok".into(), out.is_ok().into());
                self.log("prompt_get", started, f);
                out
            }
            "resources/list" => Ok(resources::list()),
            "resources/templates/list" => Ok(resources::templates()),
            "resources/read" => {
                let started = Instant::now();
                let out = resources::read(&mut self.handles, params);
                let mut f = Map::new();
                f.insert("ok".into(), out.is_ok().into());
                self.log("resource_read", started, f);
                out
            }
            _ => Err(RpcError::new(
                METHOD_NOT_FOUND,
                format!("method not found: `{method}`"),
            )),
        }
    }

    /// `tools/call`: unknown tool → -32602; arguments against the schema → -32602 before 2025-11-25, a
    /// tool error after; a handler failure → a tool error carrying the error record. One telemetry row
    /// per call: `tool_call`, unless the handler's library logged its own (`recent`, `remember`).
    fn call(&mut self, params: &Value) -> Result<Value, RpcError> {
        let started = Instant::now();
        let Some(name) = params.get("name").and_then(Value::as_str) else {
            return Err(RpcError::new(
                INVALID_PARAMS,
                "tools/call needs `name` (a string)",
            ));
        };
        let Some(tool) = tools::find(name).filter(|t| !(self.read_only && t.writes)) else {
            let known: Vec<&str> = tools::TOOLS
                .iter()
                .filter(|t| !(self.read_only && t.writes))
                .map(|t| t.name)
                .collect();
            let why = if self.read_only && tools::find(name).is_some() {
                " (this server runs --read-only: it recalls, never stores)"
            } else {
                ""
            };
            return Err(RpcError::new(
                INVALID_PARAMS,
                format!("unknown tool `{name}`{why} (tools: {})", known.join(", ")),
            ));
        };
        let args = match params.get("arguments") {
            None | Some(Value::Null) => json!({}),
            Some(a) => a.clone(),
        };
        let mut logged = false;
        let mut extra = Map::new();
        let mut row_extra = Map::new();
        let schema = tools::input_schema_of(tool.name).unwrap_or(&Value::Null);
        let outcome = match crate::schema::check(&args, schema) {
            Err(msg) if self.version < ARGUMENT_ERRORS_AS_TOOL_ERRORS_SINCE => {
                return Err(RpcError::new(
                    INVALID_PARAMS,
                    format!("invalid arguments for `{name}`: {msg}"),
                ));
            }
            Err(msg) => Err(ErrorRecord::new(
                ErrorCode::BadQuery,
                format!("invalid arguments for `{name}`: {msg}"),
                "see the tool's inputSchema in tools/list",
            )),
            Ok(()) => {
                let mut ctx = Ctx {
                    handles: &mut self.handles,
                    now: brain_rank::clock::now(),
                    logged: false,
                    error_extra: Map::new(),
                    row_extra: Map::new(),
                };
                let out = (tool.run)(&mut ctx, args);
                logged = ctx.logged;
                extra = ctx.error_extra;
                row_extra = ctx.row_extra;
                out
            }
        };
        let mut f = row_extra;
        f.insert("tool".into(), name.into());
        f.insert("ok".into(), outcome.is_ok().into());
        let result = match outcome {
            Ok(out) => {
                f.insert("results".into(), out.count.into());
                json!({"content": [{"type": "text", "text": out.text}], "structuredContent": out.structured, "isError": false})
            }
            Err(e) => {
                f.insert("error".into(), e.error.as_str().into());
                json!({"content": [{"type": "text", "text": tools::error_text(&e, &extra)}], "isError": true})
            }
        };
        if !logged {
            self.log("tool_call", started, f);
        }
        Ok(result)
    }

    /// A telemetry row (never query text); a failing log never fails the call.
    fn log(&self, event: &str, started: Instant, mut fields: Map<String, Value>) {
        fields.insert(
            "latency_ms".into(),
            ((started.elapsed().as_secs_f64() * 10_000.0).round() / 10.0).into(),
        );
        let _ = telemetry::append(self.handles.home(), "mcp", event, fields);
    }
}

/// `BRAIN_TIMINGS=1 brain mcp`: each tool call's phases on stderr, one JSON line (the server's log;
/// nothing when the variable is unset).
#[allow(clippy::print_stderr)]
fn report_timings() {
    if let Some(t) = brain_doc::timings::report() {
        eprintln!("{t}");
    }
}

/// A response for a request the server could not handle without panicking.
pub fn internal_error(id: Value) -> Value {
    jsonrpc::error(
        id,
        &RpcError::new(
            INTERNAL_ERROR,
            "internal error: the server hit a bug; the session goes on",
        ),
    )
}
