//! `brain mcp --http`: MCP's Streamable HTTP transport (spec 2025-06-18 and 2025-11-25, "Streamable
//! HTTP"), for clients that connect to a URL instead of starting a process.
//!
//! One endpoint, `POST /mcp`, one JSON-RPC message per body: a request gets its response as
//! `application/json` (200), a notification or response gets `202 Accepted` and no body. No
//! server-sent-event stream is offered (`GET` and `DELETE` are `405`, as the spec allows) and no
//! session id is issued: every tool call is one request/response, and the server keeps one set of
//! open index handles for all clients, answering requests one at a time, in arrival order.
//!
//! **Loopback only.** The socket is bound to `127.0.0.1`; a request whose `Origin` is not a loopback
//! origin, or whose `Host` is not a loopback name (DNS rebinding), is refused with `403` before
//! anything else is looked at ([`brain_doc::loopback`]). Bodies must be `application/json` (so a browser cannot
//! send one without a CORS preflight, which is not answered) and at most
//! [`MAX_LINE_BYTES`](crate::jsonrpc::MAX_LINE_BYTES) long (`413`).

use std::io;
use std::net::SocketAddr;
use std::panic::{AssertUnwindSafe, catch_unwind};

use brain_doc::ErrorCode;
use serde_json::Value;

use crate::jsonrpc::{self, INVALID_REQUEST, Incoming, MAX_LINE_BYTES, RpcError};
use crate::{Server, server, session};

pub use brain_doc::loopback::{is_loopback_host, is_loopback_origin};

/// The endpoint path, as QMD's `qmd mcp --http` serves it.
pub const PATH: &str = "/mcp";
/// The default port: QMD's `qmd mcp --http` default (8181), so a client set up for QMD finds brain.
pub const DEFAULT_PORT: u16 = 8181;

/// Why the transport could not start.
#[derive(Debug, thiserror::Error)]
pub enum HttpError {
    #[error("cannot listen on 127.0.0.1:{port}: {source}")]
    Bind { port: u16, source: io::Error },
}

impl brain_doc::Classified for HttpError {
    /// `locked` when another process holds the port, else `internal`.
    fn code(&self) -> ErrorCode {
        match self {
            HttpError::Bind { source, .. } if source.kind() == io::ErrorKind::AddrInUse => {
                ErrorCode::Locked
            }
            HttpError::Bind { .. } => ErrorCode::Internal,
        }
    }

    /// What to do about it.
    fn fix(&self) -> String {
        let fix: &str = {
            "another process listens on that port: stop it, or pick another with --port (0: any free port)"
        };
        fix.into()
    }
}

/// A bound, not yet serving, HTTP transport.
pub struct Listener {
    inner: brain_http::Server,
    addr: SocketAddr,
}

/// Bind `127.0.0.1:port` (0: a free port the system picks). Requests are read within
/// [`brain_http::Limits`] (bodies up to [`MAX_LINE_BYTES`]): a slow client stalls no one.
pub fn bind(port: u16) -> Result<Listener, HttpError> {
    let err = |source| HttpError::Bind { port, source };
    let (socket, addr) = brain_doc::loopback::bind(port).map_err(err)?;
    let limits = brain_http::Limits {
        body_bytes: MAX_LINE_BYTES,
        ..brain_http::Limits::default()
    };
    let inner = brain_http::Server::new(socket, limits);
    Ok(Listener { inner, addr })
}

impl Listener {
    /// The bound address (the real port when 0 was asked for).
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The endpoint URL clients connect to.
    pub fn url(&self) -> String {
        format!("http://{}{PATH}", self.addr)
    }

    /// Serve requests with `server` until the process ends (or accepting fails).
    pub fn run(self, mut server: Server) -> io::Result<()> {
        self.inner.serve(|req| answer(&mut server, req).response())
    }
}

/// What the transport needs of one HTTP request.
pub struct Request<'a> {
    pub method: &'a str,
    /// The request target (path and query).
    pub target: &'a str,
    /// Every `Origin` header (browsers send one; other clients none).
    pub origins: Vec<&'a str>,
    pub host: Option<&'a str>,
    pub content_type: Option<&'a str>,
    /// `MCP-Protocol-Version`, sent by clients after `initialize`.
    pub protocol_version: Option<&'a str>,
    pub body: &'a [u8],
    /// The body was longer than [`MAX_LINE_BYTES`] (and not read to its end).
    pub oversized: bool,
}

/// The HTTP answer: a status and an optional JSON body.
#[derive(Debug, Clone, PartialEq)]
pub struct Reply {
    pub status: u16,
    pub body: Option<Value>,
}

impl Reply {
    fn refuse(status: u16, message: impl Into<String>) -> Reply {
        let error = RpcError::new(INVALID_REQUEST, message);
        Reply {
            status,
            body: Some(jsonrpc::error(Value::Null, &error)),
        }
    }

    fn response(&self) -> brain_http::Response {
        let body = self
            .body
            .as_ref()
            .map(|b| b.to_string().into_bytes())
            .unwrap_or_default();
        let mut headers = Vec::new();
        if self.body.is_some() {
            headers.push(("Content-Type".into(), "application/json".into()));
        }
        if self.status == 405 {
            headers.push(("Allow".into(), "POST".into()));
        }
        brain_http::Response {
            status: self.status,
            headers,
            body,
        }
    }
}

/// Answer one request the transport read whole.
// The server's log: the user running `brain mcp --http` is told of a refused request.
#[allow(clippy::print_stderr)]
fn answer(server: &mut Server, req: &brain_http::Request) -> Reply {
    let host = match req.host() {
        Ok(h) => h,
        Err(n) => {
            eprintln!("brain mcp: refused a request naming {n} hosts");
            return Reply::refuse(403, format!("a request naming {n} hosts is not answered"));
        }
    };
    let first = |name: &str| req.header_all(name).first().copied();
    let request = Request {
        method: &req.method,
        target: &req.target,
        origins: req.header_all("Origin"),
        host,
        content_type: first("Content-Type"),
        protocol_version: first("MCP-Protocol-Version"),
        oversized: req.oversized,
        body: &req.body,
    };
    let reply = respond(server, &request);
    if reply.status == 403 {
        eprintln!(
            "brain mcp: refused a request from Origin {:?}, Host {:?}: not loopback",
            request.origins, request.host
        );
    }
    reply
}

/// The transport's answer to one request (see the module docs for the order of the checks).
pub fn respond(server: &mut Server, req: &Request<'_>) -> Reply {
    if let Some(o) = req.origins.iter().find(|o| !is_loopback_origin(o)) {
        return Reply::refuse(403, format!("Origin `{o}` is not a loopback origin"));
    }
    if let Some(h) = req.host.filter(|h| !is_loopback_host(h)) {
        return Reply::refuse(403, format!("Host `{h}` is not this machine"));
    }
    let path = req.target.split(['?', '#']).next().unwrap_or_default();
    if path != PATH {
        return Reply::refuse(404, format!("no endpoint `{path}`: MCP is at {PATH}"));
    }
    if req.method != "POST" {
        return Reply::refuse(
            405,
            format!(
                "{} is not served: POST one JSON-RPC message (no event stream, no sessions)",
                req.method
            ),
        );
    }
    let json = req.content_type.is_some_and(|t| {
        t.split(';')
            .next()
            .is_some_and(|m| m.trim().eq_ignore_ascii_case("application/json"))
    });
    if !json {
        return Reply::refuse(415, "the body must be `Content-Type: application/json`");
    }
    if req.oversized {
        return Reply::refuse(
            413,
            format!("the body is over the {MAX_LINE_BYTES}-byte limit; it was not read"),
        );
    }
    if let Some(v) = req.protocol_version {
        if !session::PROTOCOL_VERSIONS.contains(&v) {
            return Reply::refuse(
                400,
                format!(
                    "unsupported MCP-Protocol-Version `{v}` (this server speaks {})",
                    session::PROTOCOL_VERSIONS.join(", ")
                ),
            );
        }
        server.set_version(v);
    }
    match jsonrpc::parse(req.body) {
        // Not a message that can be answered: the spec's 400, with the JSON-RPC error as the body.
        Err(r) if r.id.is_null() => Reply {
            status: 400,
            body: Some(jsonrpc::error(r.id, &r.error)),
        },
        Err(r) => Reply {
            status: 200,
            body: Some(jsonrpc::error(r.id, &r.error)),
        },
        Ok(Incoming::Request { id, method, params }) => {
            let answer_id = id.clone();
            let msg = Incoming::Request { id, method, params };
            let body = catch_unwind(AssertUnwindSafe(|| server.handle(Ok(msg))))
                .unwrap_or_else(|_| Some(server::internal_error(answer_id)));
            Reply { status: 200, body }
        }
        Ok(msg) => {
            server.handle(Ok(msg));
            Reply {
                status: 202,
                body: None,
            }
        }
    }
}

#[cfg(test)]
mod tests;
