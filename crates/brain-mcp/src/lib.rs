//! The MCP server of `brain` (`brain mcp`): agents search and read the memory through the Model
//! Context Protocol, with tools that are drop-in compatible with QMD's.
//!
//! Transport: newline-delimited JSON-RPC 2.0 over stdio ([`serve`]), hand-written over serde_json,
//! synchronous and single-threaded: one request at a time, in order, which is what a stdio client
//! sends. No async runtime: the server is ready as soon as the process starts, and every malformed
//! input has an exact, tested answer.
//!
//! * [`jsonrpc`] — framing, the line cap ([`jsonrpc::MAX_LINE_BYTES`]), message classification, error codes;
//! * [`session`] — version negotiation (current and previous revision) and the `initialize` answer;
//! * [`Server`] — dispatch, `tools/call` error mapping, telemetry (`surface: mcp`);
//! * tools: `query`, `get`, `multi_get` (QMD's), `status`, `recent` and `remember` (the libraries behind
//!   `brain status`, `brain recent`, `brain inbox`; see `docs/mcp.md`), argument checking against their
//!   own schemas ([`schema`]), the search adapter ([`search`]), low-trust fencing ([`fence`]);
//! * [`resources`] — `brain://{collection}/{+path}`;
//! * [`install`] — the Claude Code configuration snippet;
//! * [`http`] — the optional Streamable HTTP transport (`brain mcp --http`), loopback only.

mod handles;
pub mod http;
pub mod install;
pub mod jsonrpc;
mod prompts;
mod resources;
pub mod schema;
pub mod search;
mod server;
pub mod session;
mod tools;

use std::io::{self, BufRead, Write};
use std::panic::{AssertUnwindSafe, catch_unwind};

use serde_json::Value;

pub use server::Server;

use jsonrpc::{INVALID_REQUEST, Line, MAX_LINE_BYTES, RpcError};

/// Serve one session: read requests from `input` until it ends, write one response line per request
/// to `output`, flushed at once. Returns on end of input (a clean shutdown) or when `output` fails.
pub fn serve(
    mut server: Server,
    mut input: impl BufRead,
    mut output: impl Write,
) -> io::Result<()> {
    let mut buf = Vec::with_capacity(4096);
    loop {
        let reply = match jsonrpc::read_line(&mut input, &mut buf, MAX_LINE_BYTES)? {
            Line::Eof => return Ok(()),
            Line::TooLong(n) => Some(jsonrpc::error(
                Value::Null,
                &RpcError::new(
                    INVALID_REQUEST,
                    format!(
                        "request line of {n} bytes is over the {MAX_LINE_BYTES}-byte limit; it was not read"
                    ),
                ),
            )),
            Line::Text if buf.iter().all(u8::is_ascii_whitespace) => None,
            Line::Text => catch_unwind(AssertUnwindSafe(|| server.handle_line(&buf)))
                .unwrap_or_else(|_| request_id(&buf).map(server::internal_error)),
        };
        if let Some(r) = reply {
            serde_json::to_writer(&mut output, &r)?;
            output.write_all(b"\n")?;
            output.flush()?;
            // After the answer is out: the model, once loaded, readies itself for the next queries.
            server.idle();
        }
    }
}

/// The id of a request line, for answering one whose handling panicked (a notification has none).
fn request_id(line: &[u8]) -> Option<Value> {
    serde_json::from_slice::<Value>(line)
        .ok()?
        .get("id")
        .cloned()
}
