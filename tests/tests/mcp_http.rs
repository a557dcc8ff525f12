//! `brain mcp --http`: the Streamable HTTP transport of the built binary on a free loopback port —
//! the Origin and Host checks over a real socket, a JSON-RPC round trip, and the official MCP
//! TypeScript SDK client (tests/mcp-client) running all its checks over HTTP.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Stdio};
use std::time::Duration;

use brain_tests::command;
use serde_json::{Value, json};

mod fixture;

const NOW: &str = "2026-04-10T12:00:00Z";

/// A running `brain mcp --http --port 0` over `home`; killed when dropped.
struct HttpServer {
    child: Child,
    /// `127.0.0.1:PORT`.
    addr: String,
    url: String,
}

impl HttpServer {
    fn start(home: &Path) -> HttpServer {
        let mut child = command("brain", home)
            .env("BRAIN_NOW", NOW)
            // The SDK client checks each result against its tool's outputSchema.
            .args(["mcp", "--http", "--port", "0", "--output-schemas"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn brain mcp --http");
        let mut stderr = BufReader::new(child.stderr.take().expect("stderr"));
        let mut line = String::new();
        stderr.read_line(&mut line).expect("the listening line");
        let url = line
            .split_whitespace()
            .find(|w| w.starts_with("http://"))
            .unwrap_or_else(|| panic!("no URL in {line:?}"))
            .to_string();
        let addr = url
            .trim_start_matches("http://")
            .trim_end_matches("/mcp")
            .to_string();
        assert!(addr.starts_with("127.0.0.1:"), "bound to loopback: {url}");
        // Keep reading stderr so the server never blocks on a full pipe.
        std::thread::spawn(move || std::io::copy(&mut stderr, &mut std::io::sink()));
        HttpServer { child, addr, url }
    }

    /// One HTTP/1.1 request with `headers`; the status and the body.
    fn send(&self, method: &str, headers: &[(&str, &str)], body: &str) -> (u16, String) {
        let mut s = TcpStream::connect(&self.addr).expect("connect");
        s.set_read_timeout(Some(Duration::from_secs(60)))
            .expect("timeout");
        let mut req = format!(
            "{method} /mcp HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n",
            self.addr
        );
        for (k, v) in headers {
            req.push_str(&format!("{k}: {v}\r\n"));
        }
        req.push_str(&format!("Content-Length: {}\r\n\r\n{body}", body.len()));
        s.write_all(req.as_bytes()).expect("send");
        let mut raw = String::new();
        s.read_to_string(&mut raw).expect("read");
        let (head, body) = raw.split_once("\r\n\r\n").unwrap_or((&raw, ""));
        let status = head
            .split_whitespace()
            .nth(1)
            .and_then(|c| c.parse().ok())
            .unwrap_or(0);
        (status, body.to_string())
    }

    /// POST one JSON-RPC message as a non-browser client (no Origin).
    fn post(&self, msg: &Value) -> (u16, String) {
        self.send(
            "POST",
            &[("Content-Type", "application/json")],
            &msg.to_string(),
        )
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn fixture() -> tempfile::TempDir {
    let work = tempfile::tempdir().expect("tempdir");
    fixture::mcp_home(work.path());
    work
}

#[test]
fn a_round_trip_over_http_and_foreign_origins_refused() {
    let work = fixture();
    let server = HttpServer::start(&work.path().join("home"));
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    let (status, body) = server.post(&init);
    assert_eq!(status, 200, "{body}");
    let v: Value = serde_json::from_str(&body).expect("JSON");
    assert_eq!(v["result"]["protocolVersion"], "2025-11-25", "{v}");
    let (status, body) =
        server.post(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    assert_eq!(
        (status, body.as_str()),
        (202, ""),
        "a notification is accepted without a body"
    );
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "query", "arguments": {"query": "lock contention"}}});
    let (status, body) = server.post(&call);
    assert_eq!(status, 200, "{body}");
    let v: Value = serde_json::from_str(&body).expect("JSON");
    assert_eq!(
        v["result"]["structuredContent"]["results"][0]["uri"], "brain://notes/kb/tantivy-locks.md",
        "{v}"
    );

    let json_type = ("Content-Type", "application/json");
    let ping = json!({"jsonrpc": "2.0", "id": 3, "method": "ping"}).to_string();
    for origin in [
        "http://evil.example",
        "null",
        "http://localhost.evil.example:8181",
    ] {
        let (status, body) = server.send("POST", &[json_type, ("Origin", origin)], &ping);
        assert_eq!(status, 403, "Origin {origin}: {body}");
        assert!(body.contains("not a loopback origin"), "{body}");
    }
    // DNS rebinding: a foreign name resolved to 127.0.0.1 still shows in Host.
    let mut s = TcpStream::connect(&server.addr).expect("connect");
    let req = format!(
        "POST /mcp HTTP/1.1\r\nHost: rebind.example\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: {}\r\n\r\n{ping}",
        ping.len()
    );
    s.write_all(req.as_bytes()).expect("send");
    let mut raw = String::new();
    s.read_to_string(&mut raw).expect("read");
    assert!(raw.starts_with("HTTP/1.1 403"), "{raw}");
    for origin in ["http://localhost:5173", "http://127.0.0.1:8181"] {
        let (status, body) = server.send("POST", &[json_type, ("Origin", origin)], &ping);
        assert_eq!(
            (status, body.as_str()),
            (200, r#"{"jsonrpc":"2.0","id":3,"result":{}}"#),
            "Origin {origin}"
        );
    }
    assert_eq!(server.send("GET", &[], "").0, 405, "no event stream");
    assert_eq!(
        server
            .send("POST", &[("Content-Type", "text/plain")], &ping)
            .0,
        415
    );
}

#[test]
fn the_official_typescript_sdk_client_drives_the_http_server() {
    let Some(dir) = brain_tests::mcp_client() else {
        return;
    };
    let work = fixture();
    let server = HttpServer::start(&work.path().join("home"));
    let stdout = brain_tests::run_mcp_client(
        &dir,
        "client.mjs",
        &[("BRAIN_MCP_URL", server.url.as_ref())],
    );
    assert!(stdout.contains("checks passed over HTTP"), "{stdout}");
}

/// `raw` sent on a new connection; the status of the answer (0 when there is none).
fn raw_status(addr: &str, raw: &[u8]) -> u16 {
    let mut s = TcpStream::connect(addr).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(60)))
        .expect("timeout");
    let _ = s.write_all(raw);
    let mut out = String::new();
    let _ = s.read_to_string(&mut out);
    out.split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0)
}

#[test]
fn slow_clients_stall_no_one_and_headers_are_bounded() {
    let work = fixture();
    let server = HttpServer::start(&work.path().join("home"));
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    // 64 connections holding half a request, 20 holding a POST whose body never comes.
    let mut held = Vec::new();
    for i in 0..84 {
        let mut s = TcpStream::connect(&server.addr).expect("connect");
        let part = if i < 64 {
            "POST /mcp HTT".to_string()
        } else {
            format!(
                "POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nContent-Length: 5000\r\n\r\n{{\"jsonrpc\":",
                server.addr
            )
        };
        s.write_all(part.as_bytes()).expect("part");
        held.push(s);
    }
    // Every whole request is answered while they hold on.
    let mut served = 0;
    for _ in 0..10 {
        let (status, body) = server.post(&init);
        assert_eq!(status, 200, "{body}");
        served += 1;
    }
    assert_eq!(served, 10);
    // A 64 MiB header is refused without being read whole; the server goes on.
    let mut big = format!("POST /mcp HTTP/1.1\r\nHost: {}\r\nX-Big: ", server.addr).into_bytes();
    big.extend(std::iter::repeat_n(b'a', 64 << 20));
    big.extend(b"\r\n\r\n");
    assert_eq!(raw_status(&server.addr, &big), 431);
    // An empty Host, or two, is a bad host.
    let body = init.to_string();
    for hosts in [
        "Host:\r\n",
        "Host: 127.0.0.1\r\nHost: evil.example\r\n",
        "Host: 127.0.0.1\r\nHost: 127.0.0.1\r\n",
    ] {
        let raw = format!(
            "POST /mcp HTTP/1.1\r\n{hosts}Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        );
        assert_eq!(raw_status(&server.addr, raw.as_bytes()), 403, "{hosts:?}");
    }
    assert_eq!(server.post(&init).0, 200);
    drop(held);
}
