//! The transport's answers, without a socket: every refusal and the three kinds of message.

use brain_store::Home;
use serde_json::json;

use super::*;

fn request<'a>(body: &'a [u8]) -> Request<'a> {
    Request {
        method: "POST",
        target: "/mcp",
        origins: Vec::new(),
        host: Some("127.0.0.1:8181"),
        content_type: Some("application/json"),
        protocol_version: None,
        body,
        oversized: false,
    }
}

fn server() -> (tempfile::TempDir, Server) {
    let dir = tempfile::tempdir().expect("tempdir");
    let s = Server::new(Home::at(dir.path()));
    (dir, s)
}

const PING: &[u8] = br#"{"jsonrpc":"2.0","id":7,"method":"ping"}"#;

#[test]
fn a_request_is_answered_with_json_and_a_notification_with_202() {
    let (_d, mut s) = server();
    let r = respond(&mut s, &request(PING));
    assert_eq!(
        r,
        Reply {
            status: 200,
            body: Some(json!({"jsonrpc": "2.0", "id": 7, "result": {}}))
        }
    );
    let note = br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
    assert_eq!(
        respond(&mut s, &request(note)),
        Reply {
            status: 202,
            body: None
        }
    );
    let from_browser_on_loopback = Request {
        origins: vec!["http://localhost:5173"],
        ..request(PING)
    };
    assert_eq!(respond(&mut s, &from_browser_on_loopback).status, 200);
}

#[test]
fn foreign_origins_and_hosts_are_403_before_anything_else() {
    let (_d, mut s) = server();
    for req in [
        Request {
            origins: vec!["http://evil.example"],
            ..request(PING)
        },
        Request {
            origins: vec!["http://localhost", "null"],
            ..request(PING)
        },
        Request {
            origins: vec!["http://evil.example"],
            method: "GET",
            target: "/nowhere",
            ..request(b"")
        },
        Request {
            host: Some("rebind.example:8181"),
            ..request(PING)
        },
    ] {
        let r = respond(&mut s, &req);
        assert_eq!(r.status, 403, "{:?}", req.origins);
        assert_eq!(
            r.body.as_ref().map(|b| b["error"]["code"].clone()),
            Some(json!(INVALID_REQUEST))
        );
    }
}

#[test]
fn wrong_path_method_type_size_and_version_are_refused() {
    let (_d, mut s) = server();
    let status = |s: &mut Server, r: Request<'_>| respond(s, &r).status;
    assert_eq!(
        status(
            &mut s,
            Request {
                target: "/",
                ..request(PING)
            }
        ),
        404
    );
    assert_eq!(
        status(
            &mut s,
            Request {
                target: "/mcp?x=1",
                ..request(PING)
            }
        ),
        200
    );
    assert_eq!(
        status(
            &mut s,
            Request {
                method: "GET",
                ..request(b"")
            }
        ),
        405
    );
    assert_eq!(
        status(
            &mut s,
            Request {
                method: "DELETE",
                ..request(b"")
            }
        ),
        405
    );
    assert_eq!(
        status(
            &mut s,
            Request {
                content_type: Some("text/plain"),
                ..request(PING)
            }
        ),
        415
    );
    assert_eq!(
        status(
            &mut s,
            Request {
                content_type: None,
                ..request(PING)
            }
        ),
        415
    );
    assert_eq!(
        status(
            &mut s,
            Request {
                content_type: Some("application/json; charset=utf-8"),
                ..request(PING)
            }
        ),
        200
    );
    assert_eq!(
        status(
            &mut s,
            Request {
                oversized: true,
                ..request(PING)
            }
        ),
        413
    );
    assert_eq!(
        status(
            &mut s,
            Request {
                protocol_version: Some("2024-11-05"),
                ..request(PING)
            }
        ),
        400
    );
}

#[test]
fn malformed_bodies_are_400_and_the_version_header_is_honoured() {
    let (_d, mut s) = server();
    let r = respond(&mut s, &request(b"{not json"));
    assert_eq!(r.status, 400);
    assert_eq!(
        r.body.map(|b| b["error"]["code"].clone()),
        Some(json!(jsonrpc::PARSE_ERROR))
    );
    assert_eq!(respond(&mut s, &request(b"[]")).status, 400);
    let with_id = respond(
        &mut s,
        &request(br#"{"jsonrpc":"2.0","id":1,"method":"ping","params":[]}"#),
    );
    assert_eq!(
        with_id.status, 200,
        "a request with an id gets its JSON-RPC error as a response"
    );
    assert_eq!(s.version(), session::PROTOCOL_VERSIONS[0]);
    respond(
        &mut s,
        &Request {
            protocol_version: Some("2025-06-18"),
            ..request(PING)
        },
    );
    assert_eq!(s.version(), "2025-06-18");
}
