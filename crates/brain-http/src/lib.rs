//! The HTTP/1.1 transport of brain's loopback servers (`brain browse`, `brain mcp --http`).
//!
//! A connection is read on a thread of its own, within limits ([`Limits`]): the request line and
//! headers at most [`Limits::header_bytes`], the body at most [`Limits::body_bytes`] (longer: the
//! request is marked [`Request::oversized`] and the body not read), the whole request within
//! [`Limits::deadline`] — a client that sends part of a request and stops is answered `408` and
//! dropped when it runs out. Whole requests are handed, one at a time and in arrival order, to the
//! one handler on the serving thread, so slow or hostile clients hold a connection thread each
//! (at most [`Limits::connections`]) and never the server. At the cap, the connection that has
//! waited longest without sending a whole request is closed to make room: a process holding every
//! slot with connections that send nothing cannot keep others out (a real client sends its request
//! at once; only when every connection has sent one is a new one answered `503`). Answers being
//! written hold at most [`Limits::writing_bytes`] together: clients that do not read their answer
//! cannot make the server hold an answer each (past the budget an answer is `503`). Every answer
//! closes its connection (no keep-alive, no pipelining).
//!
//! Issue 37 measured the transport it replaces (tiny_http 0.12): 64 half-sent requests stalled
//! `brain browse` for over 60 s, 20 stalled POST bodies stalled `brain mcp --http` for over 40 s,
//! and a 64 MiB header was read whole.

use std::collections::BTreeMap;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// What a connection may take.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Bytes of the request line and headers together (default 16 KiB, nginx's and Node's order of
    /// magnitude: 8–16 KiB); past it: `431`.
    pub header_bytes: usize,
    /// Bytes of a body that is read; a longer one is not read and the request is `oversized`.
    pub body_bytes: usize,
    /// Time from the connection to the last byte of its request (default 10 s); past it: `408`.
    pub deadline: Duration,
    /// Connections read at once (default 256); past it a new one is answered `503` at once.
    pub connections: usize,
    /// Time allowed to write an answer to a client (default 10 s).
    pub write_timeout: Duration,
    /// Bytes of answers being written at once, all connections together (default 64 MiB).
    pub writing_bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            header_bytes: 16 * 1024,
            body_bytes: 1024 * 1024,
            deadline: Duration::from_secs(10),
            connections: 256,
            write_timeout: Duration::from_secs(10),
            writing_bytes: 64 * 1024 * 1024,
        }
    }
}

/// One request, read whole.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Request {
    pub method: String,
    /// The request target (path and query) as sent.
    pub target: String,
    /// Every header in order, names as sent.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    /// The body was longer than [`Limits::body_bytes`] and was not read.
    pub oversized: bool,
}

impl Request {
    /// Every value of header `name` (case-insensitive), in order.
    pub fn header_all(&self, name: &str) -> Vec<&str> {
        self.headers
            .iter()
            .filter(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
            .collect()
    }

    /// The `Host` the request names: `Ok(None)` when it sends none, `Err(n)` when it sends `n` of
    /// them (a request naming two hosts names none, and is refused like a bad one).
    pub fn host(&self) -> Result<Option<&str>, usize> {
        match self.header_once("Host") {
            Ok(h) => Ok(Some(h)),
            Err(0) => Ok(None),
            Err(n) => Err(n),
        }
    }

    /// The value of header `name` when it was sent exactly once; `Err(n)` with how many times it
    /// was sent otherwise (0, or 2 and more: a request that names two hosts names none).
    pub fn header_once(&self, name: &str) -> Result<&str, usize> {
        match self.header_all(name).as_slice() {
            [one] => Ok(one),
            all => Err(all.len()),
        }
    }
}

/// An answer.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Response {
    pub status: u16,
    /// Headers besides `Content-Length` and `Connection`, which the transport writes.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Response {
    /// A plain-text answer.
    pub fn text(status: u16, text: &str) -> Response {
        Response {
            status,
            headers: vec![("Content-Type".into(), "text/plain; charset=utf-8".into())],
            body: text.as_bytes().to_vec(),
        }
    }
}

/// A bound listener.
pub struct Server {
    listener: TcpListener,
    limits: Limits,
}

impl Server {
    /// Serve on `listener` within `limits`.
    pub fn new(listener: TcpListener, limits: Limits) -> Server {
        Server { listener, limits }
    }

    /// The bound address.
    pub fn addr(&self) -> io::Result<SocketAddr> {
        self.listener.local_addr()
    }

    /// Serve until accepting fails: each whole request goes to `handler` on this thread, and its
    /// answer back to the client.
    pub fn serve(self, mut handler: impl FnMut(&Request) -> Response) -> io::Result<()> {
        let (tx, rx) = mpsc::channel::<(Request, mpsc::Sender<Response>)>();
        let limits = self.limits;
        let listener = self.listener;
        let accept = std::thread::Builder::new()
            .name("http-accept".into())
            .spawn(move || accept_loop(&listener, limits, &tx))?;
        for (req, back) in rx {
            let _ = back.send(handler(&req));
        }
        // The channel closes only when the accept loop ended: say why.
        match accept.join() {
            Ok(r) => r,
            Err(_) => Err(io::Error::other("the accept thread panicked")),
        }
    }
}

type Job = (Request, mpsc::Sender<Response>);

/// What the connection threads share: how many are open, the streams of those still reading
/// their request (by arrival, oldest first), and the bytes of answers being written.
#[derive(Default)]
struct Shared {
    open: AtomicUsize,
    reading: Mutex<BTreeMap<u64, TcpStream>>,
    writing: AtomicUsize,
}

impl Shared {
    /// Close the connection that has waited longest for its request; whether there was one.
    fn evict_oldest_reader(&self) -> bool {
        let oldest = match self.reading.lock() {
            Ok(mut r) => r.pop_first(),
            Err(_) => None,
        };
        match oldest {
            Some((_, stream)) => {
                let _ = stream.shutdown(std::net::Shutdown::Both);
                true
            }
            None => false,
        }
    }

    fn done_reading(&self, id: u64) {
        if let Ok(mut r) = self.reading.lock() {
            r.remove(&id);
        }
    }
}

fn accept_loop(listener: &TcpListener, limits: Limits, tx: &mpsc::Sender<Job>) -> io::Result<()> {
    let shared = Arc::new(Shared::default());
    let mut next_id = 0u64;
    loop {
        let (stream, _) = match listener.accept() {
            Ok(s) => s,
            // A connection reset before it was accepted, a momentary lack of descriptors:
            // the listener is fine, keep accepting.
            Err(e) if e.kind() != io::ErrorKind::InvalidInput => {
                std::thread::sleep(Duration::from_millis(10));
                continue;
            }
            Err(e) => return Err(e),
        };
        if shared.open.load(Ordering::Acquire) >= limits.connections
            && !shared.evict_oldest_reader()
        {
            let _ = stream.set_write_timeout(Some(Duration::from_secs(1)));
            let _ = write_response(
                &stream,
                &Response::text(503, "too many connections at once; try again"),
            );
            continue;
        }
        next_id += 1;
        let id = next_id;
        match stream.try_clone() {
            Ok(clone) => {
                if let Ok(mut r) = shared.reading.lock() {
                    r.insert(id, clone);
                }
            }
            // No descriptor for the clone: this connection cannot be evicted, and is dropped.
            Err(_) => continue,
        }
        shared.open.fetch_add(1, Ordering::AcqRel);
        let (tx, sh) = (tx.clone(), shared.clone());
        let spawned = std::thread::Builder::new()
            .name("http-conn".into())
            .stack_size(256 * 1024)
            .spawn(move || {
                connection(stream, id, limits, &tx, &sh);
                sh.done_reading(id);
                sh.open.fetch_sub(1, Ordering::AcqRel);
            });
        if spawned.is_err() {
            // No thread to be had: this connection is dropped, the server goes on.
            shared.done_reading(id);
            shared.open.fetch_sub(1, Ordering::AcqRel);
            continue;
        }
    }
}

/// Read one request within the limits, have it answered, write the answer (within the shared
/// budget of bytes being written), close.
fn connection(stream: TcpStream, id: u64, limits: Limits, tx: &mpsc::Sender<Job>, shared: &Shared) {
    let _ = stream.set_write_timeout(Some(limits.write_timeout));
    let _ = stream.set_nodelay(true);
    let read = read_request(&stream, limits);
    shared.done_reading(id);
    let response = match read {
        Ok(req) => {
            let (back, answer) = mpsc::channel();
            if tx.send((req, back)).is_err() {
                return;
            }
            match answer.recv() {
                Ok(r) => r,
                Err(_) => return,
            }
        }
        Err(Refusal::Gone) => return,
        Err(Refusal::Answer(r)) => r,
    };
    let size = response.body.len();
    let held = shared.writing.fetch_add(size, Ordering::AcqRel);
    if held > 0 && held + size > limits.writing_bytes {
        shared.writing.fetch_sub(size, Ordering::AcqRel);
        drop(response);
        let busy = Response::text(
            503,
            "answers to other clients are still being written; try again",
        );
        let _ = write_response(&stream, &busy);
    } else {
        let _ = write_response(&stream, &response);
        shared.writing.fetch_sub(size, Ordering::AcqRel);
    }
    let _ = stream.shutdown(std::net::Shutdown::Write);
}

enum Refusal {
    /// The client went away (or sent nothing): nothing to answer.
    Gone,
    Answer(Response),
}

/// A reader that stops at the request's deadline.
struct Deadline<'a> {
    stream: &'a TcpStream,
    until: Instant,
}

impl Read for Deadline<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let left = self.until.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(io::Error::new(io::ErrorKind::TimedOut, "request deadline"));
        }
        self.stream.set_read_timeout(Some(left))?;
        let mut s = self.stream;
        s.read(buf)
    }
}

fn timed_out(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::TimedOut | io::ErrorKind::WouldBlock
    )
}

fn slow() -> Refusal {
    Refusal::Answer(Response::text(408, "the request did not arrive in time"))
}

fn bad(why: &str) -> Refusal {
    Refusal::Answer(Response::text(400, why))
}

/// One request: its head ([`read_head`], [`parse_head`]), then its body ([`read_body`]), all
/// within the request's deadline.
fn read_request(stream: &TcpStream, limits: Limits) -> Result<Request, Refusal> {
    let until = Instant::now() + limits.deadline;
    let mut r = BufReader::with_capacity(8 * 1024, Deadline { stream, until });
    let lines = read_head(&mut r, limits.header_bytes)?;
    let req = parse_head(lines)?;
    read_body(stream, &mut r, req, limits.body_bytes)
}

/// The request line and header lines, within `budget` bytes in all (past it: 431).
fn read_head(r: &mut impl BufRead, mut budget: usize) -> Result<Vec<String>, Refusal> {
    let mut line = Vec::new();
    let mut lines: Vec<String> = Vec::new();
    loop {
        line.clear();
        let n = match r.take(budget as u64 + 1).read_until(b'\n', &mut line) {
            Ok(n) => n,
            Err(e) if timed_out(&e) => return Err(slow()),
            Err(_) => return Err(Refusal::Gone),
        };
        if n == 0 {
            return Err(if lines.is_empty() {
                Refusal::Gone
            } else {
                bad("the request ended inside its headers")
            });
        }
        if n > budget {
            return Err(Refusal::Answer(Response::text(
                431,
                "the request line and headers are over the size limit",
            )));
        }
        if !line.ends_with(b"\n") {
            return Err(bad("the request ended inside its headers"));
        }
        budget -= n;
        let text = match std::str::from_utf8(&line) {
            Ok(t) => t.trim_end_matches(['\r', '\n']).to_string(),
            Err(_) => return Err(bad("a header is not UTF-8")),
        };
        if text.is_empty() {
            if lines.is_empty() {
                continue; // a blank line before the request line (RFC 9112 §2.2)
            }
            return Ok(lines);
        }
        lines.push(text);
    }
}

/// The request line and headers read into a request (no body yet).
fn parse_head(lines: Vec<String>) -> Result<Request, Refusal> {
    let mut it = lines.into_iter();
    let first = it.next().unwrap_or_default();
    let mut parts = first.split(' ');
    let (Some(method), Some(target), Some(version), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(bad("not an HTTP request line"));
    };
    if !version.starts_with("HTTP/1.") || method.is_empty() || target.is_empty() {
        return Err(bad("not an HTTP/1.x request"));
    }
    let mut req = Request {
        method: method.to_string(),
        target: target.to_string(),
        ..Request::default()
    };
    for h in it {
        let Some((name, value)) = h.split_once(':') else {
            return Err(bad("a header line without a colon"));
        };
        if name.is_empty() || name.ends_with([' ', '\t']) {
            return Err(bad("a malformed header name"));
        }
        req.headers
            .push((name.to_string(), value.trim().to_string()));
    }
    Ok(req)
}

/// The body `Content-Length` announces, read whole; past `max` bytes it is not read and the
/// request is marked oversized. A chunked body is refused (411).
fn read_body(
    stream: &TcpStream,
    r: &mut impl Read,
    mut req: Request,
    max: usize,
) -> Result<Request, Refusal> {
    if !req.header_all("Transfer-Encoding").is_empty() {
        return Err(Refusal::Answer(Response::text(
            411,
            "a chunked body is not read: send Content-Length",
        )));
    }
    let length = match req.header_all("Content-Length").as_slice() {
        [] => 0,
        [one] => match one.parse::<usize>() {
            Ok(n) => n,
            Err(_) => return Err(bad("Content-Length is not a number")),
        },
        _ => return Err(bad("two Content-Length headers")),
    };
    if length > max {
        req.oversized = true;
        return Ok(req);
    }
    if length > 0
        && req
            .header_all("Expect")
            .iter()
            .any(|e| e.eq_ignore_ascii_case("100-continue"))
    {
        let mut s = stream;
        let _ = s.write_all(b"HTTP/1.1 100 Continue\r\n\r\n");
    }
    let mut body = vec![0; length];
    match r.read_exact(&mut body) {
        Ok(()) => {}
        Err(e) if timed_out(&e) => return Err(slow()),
        Err(_) => return Err(bad("the body ended before its Content-Length")),
    }
    req.body = body;
    Ok(req)
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        202 => "Accepted",
        204 => "No Content",
        302 => "Found",
        303 => "See Other",
        304 => "Not Modified",
        400 => "Bad Request",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        411 => "Length Required",
        413 => "Content Too Large",
        415 => "Unsupported Media Type",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        _ => "",
    }
}

fn write_response(stream: &TcpStream, r: &Response) -> io::Result<()> {
    let mut head = format!("HTTP/1.1 {} {}\r\n", r.status, reason(r.status));
    for (k, v) in &r.headers {
        // A header is written only if it cannot break the response apart.
        if k.contains(['\r', '\n', ':']) || v.contains(['\r', '\n']) {
            continue;
        }
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str(&format!(
        "Content-Length: {}\r\nConnection: close\r\n\r\n",
        r.body.len()
    ));
    let mut s = stream;
    s.write_all(head.as_bytes())?;
    s.write_all(&r.body)?;
    s.flush()
}

#[cfg(test)]
mod tests;
