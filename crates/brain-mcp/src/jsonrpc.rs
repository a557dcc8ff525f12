//! JSON-RPC 2.0 framing as MCP's stdio transport uses it: one message per line, UTF-8, no batches.
//!
//! [`read_line`] reads one line under a byte cap (a longer line is drained and reported, never
//! buffered whole); [`parse`] classifies a line into a request, a notification or a response, or
//! the JSON-RPC error it deserves.

use std::io::{self, BufRead};

use serde_json::{Map, Value, json};

/// Longest request line we accept: 1 MiB. Requests to this server are queries and document
/// references (well under 10 KB); the cap bounds memory against a runaway or hostile client.
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// Invalid JSON was received (JSON-RPC 2.0 §5.1).
pub const PARSE_ERROR: i64 = -32700;
/// The JSON sent is not a valid request object.
pub const INVALID_REQUEST: i64 = -32600;
/// The method does not exist.
pub const METHOD_NOT_FOUND: i64 = -32601;
/// Invalid method parameters (MCP: also unknown tools, unknown resources).
pub const INVALID_PARAMS: i64 = -32602;
/// Internal error.
pub const INTERNAL_ERROR: i64 = -32603;

/// A JSON-RPC error object.
#[derive(Debug, Clone, PartialEq)]
pub struct RpcError {
    pub code: i64,
    pub message: String,
    pub data: Option<Value>,
}

impl RpcError {
    /// An error with `code` and `message`.
    pub fn new(code: i64, message: impl Into<String>) -> Self {
        RpcError {
            code,
            message: message.into(),
            data: None,
        }
    }

    /// Attach structured details.
    pub fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }

    fn to_json(&self) -> Value {
        let mut e = Map::new();
        e.insert("code".into(), self.code.into());
        e.insert("message".into(), self.message.clone().into());
        if let Some(d) = &self.data {
            e.insert("data".into(), d.clone());
        }
        Value::Object(e)
    }
}

/// One message from the client.
#[derive(Debug, Clone, PartialEq)]
pub enum Incoming {
    /// Wants an answer with the same `id`.
    Request {
        id: Value,
        method: String,
        params: Value,
    },
    /// Wants no answer, not even on error.
    Notification { method: String },
    /// An answer to a request of ours; we send none, so it is ignored.
    Response,
}

/// What one read produced.
#[derive(Debug, PartialEq)]
pub enum Line {
    /// A complete line (without its `\n` / `\r\n`) in the caller's buffer.
    Text,
    /// A line longer than the cap, drained; its length in bytes.
    TooLong(usize),
    /// End of input.
    Eof,
}

/// Read one line into `buf` (cleared first), keeping at most `cap` bytes; a longer line is consumed
/// up to its newline and reported as [`Line::TooLong`]. A last line without a newline counts.
pub fn read_line(r: &mut impl BufRead, buf: &mut Vec<u8>, cap: usize) -> io::Result<Line> {
    buf.clear();
    let mut len = 0usize;
    let mut seen_any = false;
    loop {
        let chunk = match r.fill_buf() {
            Ok(c) => c,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if chunk.is_empty() {
            return Ok(if !seen_any {
                Line::Eof
            } else if len > cap {
                Line::TooLong(len)
            } else {
                finish(buf)
            });
        }
        seen_any = true;
        let (part, done) = match memchr::memchr(b'\n', chunk) {
            Some(i) => (&chunk[..i], Some(i + 1)),
            None => (chunk, None),
        };
        len += part.len();
        if len <= cap {
            buf.extend_from_slice(part);
        }
        let used = done.unwrap_or(chunk.len());
        r.consume(used);
        if done.is_some() {
            return Ok(if len > cap {
                Line::TooLong(len)
            } else {
                finish(buf)
            });
        }
    }
}

fn finish(buf: &mut Vec<u8>) -> Line {
    if buf.last() == Some(&b'\r') {
        buf.pop();
    }
    Line::Text
}

/// A line that is no acceptable message: the id to answer with (`null` when unknown) and the error.
#[derive(Debug, Clone, PartialEq)]
pub struct Rejected {
    pub id: Value,
    pub error: RpcError,
}

/// Classify one line.
pub fn parse(line: &[u8]) -> Result<Incoming, Box<Rejected>> {
    parse_inner(line).map_err(|(id, error)| Box::new(Rejected { id, error }))
}

#[allow(clippy::result_large_err)] // private: boxed once at the public edge above
fn parse_inner(line: &[u8]) -> Result<Incoming, (Value, RpcError)> {
    let value: Value = serde_json::from_slice(line).map_err(|e| {
        (
            Value::Null,
            RpcError::new(PARSE_ERROR, format!("parse error: {e}")),
        )
    })?;
    let invalid = |id: Value, msg: &str| {
        (
            id,
            RpcError::new(INVALID_REQUEST, format!("invalid request: {msg}")),
        )
    };
    let mut obj = match value {
        Value::Object(o) => o,
        Value::Array(_) => {
            return Err(invalid(
                Value::Null,
                "batches are not supported (MCP removed them in 2025-06-18)",
            ));
        }
        _ => return Err(invalid(Value::Null, "a message is a JSON object")),
    };
    let id = obj.remove("id");
    let answer_id = match &id {
        Some(v @ Value::String(_)) => v.clone(),
        Some(Value::Number(n)) if n.is_i64() || n.is_u64() => Value::Number(n.clone()),
        Some(_) => return Err(invalid(Value::Null, "`id` must be a string or an integer")),
        None => Value::Null,
    };
    if obj.get("jsonrpc") != Some(&json!("2.0")) {
        return Err(invalid(answer_id, "`jsonrpc` must be \"2.0\""));
    }
    let method = match obj.remove("method") {
        Some(Value::String(m)) => m,
        Some(_) => return Err(invalid(answer_id, "`method` must be a string")),
        None if id.is_some() && (obj.contains_key("result") || obj.contains_key("error")) => {
            return Ok(Incoming::Response);
        }
        None => return Err(invalid(answer_id, "`method` is missing")),
    };
    let params = match obj.remove("params") {
        None | Some(Value::Null) => Value::Object(Map::new()),
        Some(p @ Value::Object(_)) => p,
        Some(Value::Array(_)) => {
            return Err((
                answer_id,
                RpcError::new(
                    INVALID_PARAMS,
                    "MCP parameters are named: `params` must be an object",
                ),
            ));
        }
        Some(_) => return Err(invalid(answer_id, "`params` must be an object")),
    };
    Ok(match id {
        Some(_) => Incoming::Request {
            id: answer_id,
            method,
            params,
        },
        None => Incoming::Notification { method },
    })
}

/// A success response.
pub fn result(id: Value, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

/// An error response.
pub fn error(id: Value, err: &RpcError) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": err.to_json()})
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(input: &[u8], cap: usize) -> Vec<Result<String, usize>> {
        let mut r = io::BufReader::with_capacity(4, input);
        let mut buf = Vec::new();
        let mut out = Vec::new();
        loop {
            match read_line(&mut r, &mut buf, cap).expect("read") {
                Line::Text => out.push(Ok(brain_doc::bytes::lossy(&buf))),
                Line::TooLong(n) => out.push(Err(n)),
                Line::Eof => return out,
            }
        }
    }

    #[test]
    fn lines_are_capped_drained_and_crlf_tolerant() {
        assert_eq!(
            lines(b"ab\r\n0123456789\ncd\nlast", 5),
            vec![Ok("ab".into()), Err(10), Ok("cd".into()), Ok("last".into())]
        );
        assert_eq!(lines(b"", 5), vec![]);
        assert_eq!(lines(b"\n", 5), vec![Ok(String::new())]);
        assert_eq!(lines(b"0123456789", 5), vec![Err(10)]);
    }

    #[test]
    fn messages_are_classified() {
        let p = |s: &str| parse(s.as_bytes());
        assert_eq!(
            p(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#),
            Ok(Incoming::Request {
                id: json!(1),
                method: "ping".into(),
                params: json!({})
            })
        );
        assert_eq!(
            p(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#),
            Ok(Incoming::Notification {
                method: "notifications/initialized".into()
            })
        );
        assert_eq!(
            p(r#"{"jsonrpc":"2.0","id":"a","result":{}}"#),
            Ok(Incoming::Response)
        );
        let code = |s: &str| p(s).err().map(|r| (r.id, r.error.code));
        assert_eq!(code("{nope"), Some((Value::Null, PARSE_ERROR)));
        assert_eq!(code("[]"), Some((Value::Null, INVALID_REQUEST)));
        assert_eq!(
            code(r#"{"jsonrpc":"1.0","id":7,"method":"ping"}"#),
            Some((json!(7), INVALID_REQUEST))
        );
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#),
            Some((Value::Null, INVALID_REQUEST))
        );
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#),
            Some((Value::Null, INVALID_REQUEST))
        );
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","id":2,"method":"x","params":[1]}"#),
            Some((json!(2), INVALID_PARAMS))
        );
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","id":3}"#),
            Some((json!(3), INVALID_REQUEST))
        );
    }
}
