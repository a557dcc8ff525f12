//! The sink's unit tests: retries against a fake engine, what leaves the machine.

use super::deliver::Run;
use super::*;
use crate::spool::Spool;
use std::cell::Cell;
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::Path;
use std::time::Duration;

/// An engine that answers each request with the next status of `statuses`, and counts them.
fn fake(statuses: Vec<u16>) -> (String, std::thread::JoinHandle<usize>) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("test setup");
    let url = format!("http://{}/solr", listener.local_addr().expect("test setup"));
    let handle = std::thread::spawn(move || {
        let mut n = 0;
        for status in statuses {
            let Ok((stream, _)) = listener.accept() else {
                break;
            };
            let mut reader = BufReader::new(stream);
            let mut len = 0usize;
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                    break;
                }
                if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                    len = v.trim().parse().unwrap_or(0);
                }
            }
            let mut body = vec![0; len];
            let _ = reader.read_exact(&mut body);
            let reply = format!(
                "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: 2\r\nconnection: close\r\n\r\n{{}}"
            );
            let _ = reader.get_mut().write_all(reply.as_bytes());
            n += 1;
        }
        n
    });
    (url, handle)
}

fn run<'a>(engine: &'a Engine, dir: &Path, retries: u32, warn: &'a dyn Fn(String)) -> Run<'a> {
    Run {
        engine,
        spool: Spool::new(dir.join("spool")),
        sent_file: dir.join("sent.json"),
        sent: BTreeMap::new(),
        online: true,
        lost: false,
        retries,
        pause: Duration::from_millis(1),
        retried: Cell::new(0),
        summary: Summary::default(),
        warn,
    }
}

#[test]
fn an_overloaded_engine_is_asked_again_before_the_run_goes_offline() {
    let dir = tempfile::tempdir().expect("test setup");
    let (url, server) = fake(vec![503, 503, 200]);
    let engine = Engine::connect(&url, "brain", None, Duration::from_secs(5)).expect("test setup");
    let warned = std::cell::RefCell::new(Vec::new());
    let warn = |m: String| warned.borrow_mut().push(m);
    let r = run(&engine, dir.path(), 2, &warn);
    r.post(b"{}").expect("the third answer is a success");
    assert_eq!(r.retried.get(), 2);
    assert_eq!(server.join().expect("the fake engine"), 3);
    assert_eq!(warned.borrow().len(), 2, "{:?}", warned.borrow());
}

#[test]
fn retries_are_bounded_and_a_refusal_is_not_retried() {
    let dir = tempfile::tempdir().expect("test setup");
    let (url, server) = fake(vec![503, 503, 400]);
    let engine = Engine::connect(&url, "brain", None, Duration::from_secs(5)).expect("test setup");
    let warn = |_: String| {};
    let r = run(&engine, dir.path(), 1, &warn);
    let e = r.post(b"{}").expect_err("two 503s with one retry");
    assert!(e.is_transient(), "{e}");
    let e = r.post(b"{}").expect_err("a 400");
    assert!(matches!(e, TeamError::Engine { status: 400, .. }), "{e}");
    assert_eq!(r.retried.get(), 1);
    assert_eq!(server.join().expect("the fake engine"), 3);
}

fn input(title: &str, body: &str, meta: serde_json::Value) -> Input {
    let doc = serde_json::json!({"schema": 1, "kind": "doc", "id": "notes/a.md", "collection": "notes", "path": "a.md", "title": title, "date": "2026-03-01", "source": {"type": "note", "file": "x"}, "meta": meta, "body": body});
    Input {
        doc: serde_json::from_value(doc).expect("test setup"),
        body_line: 1,
    }
}

#[test]
fn what_leaves_is_redacted_and_the_opt_out_is_kept() {
    let ghp = "ghp_abcdefghijklmnopqrstuvwxyz0123456789";
    let (out, n) = input(
        &format!("t {ghp}"),
        &format!("b {ghp} <private>x</private>"),
        serde_json::json!({"key": ghp, "tags": [ghp, {"deep": ghp}], "n": 3}),
    )
    .outgoing()
    .expect("no opt-out");
    assert_eq!(n, 5);
    let all = serde_json::to_string(&out.doc).expect("test setup");
    assert!(!all.contains(ghp) && !all.contains("<private>"), "{all}");
    assert_eq!(out.doc.meta["n"], 3);
    assert!(
        input("t", "x\nbrain:do-not-index\n", serde_json::json!({}))
            .outgoing()
            .is_none()
    );
    assert!(
        input("brain:do-not-index", "x", serde_json::json!({}))
            .outgoing()
            .is_none()
    );
}

#[test]
fn an_unreachable_engine_is_not_waited_for() {
    let dir = tempfile::tempdir().expect("test setup");
    let port = TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("test setup")
        .port();
    let engine = Engine::connect(
        &format!("http://127.0.0.1:{port}/solr"),
        "brain",
        None,
        Duration::from_secs(5),
    )
    .expect("test setup");
    let warn = |_: String| {};
    let r = run(&engine, dir.path(), 3, &warn);
    assert!(matches!(r.post(b"{}"), Err(TeamError::Unreachable { .. })));
    assert_eq!(r.retried.get(), 0);
}

fn sent_of(ids: &[&str]) -> BTreeMap<String, state::Sent> {
    ids.iter()
        .map(|id| {
            let s = state::Sent {
                hash: "h".into(),
                passages: 1,
                collection: "notes".into(),
            };
            (id.to_string(), s)
        })
        .collect()
}

#[test]
fn a_refused_or_damaged_spool_file_is_set_aside_and_what_it_carried_is_sent_again() {
    let dir = tempfile::tempdir().expect("test setup");
    // The engine takes the first request, refuses the second for good, takes the third.
    let (url, server) = fake(vec![200, 400, 200]);
    let engine = Engine::connect(&url, "brain", None, Duration::from_secs(5)).expect("test setup");
    let warned = std::cell::RefCell::new(Vec::new());
    let warn = |m: String| warned.borrow_mut().push(m);
    let mut r = run(&engine, dir.path(), 0, &warn);
    r.sent = sent_of(&["notes/a.md", "notes/b.md", "notes/c.md"]);
    let add = |id: &str| format!(r#"{{"add":{{"doc":{{"id":"{id}!0","doc_id":"{id}"}}}}}}"#);
    r.spool.put(add("notes/a.md").as_bytes()).expect("put");
    r.spool.put(add("notes/b.md").as_bytes()).expect("put");
    r.spool.put(add("notes/c.md").as_bytes()).expect("put");
    r.drain().expect("drain");
    assert_eq!(server.join().expect("the fake engine"), 3);
    assert_eq!(r.summary.drained, 2);
    assert!(r.spool.pending().expect("pending").is_empty());
    // b was refused: set aside, and no longer counted as sent (this run sends it again).
    assert_eq!(
        r.sent.keys().collect::<Vec<_>>(),
        ["notes/a.md", "notes/c.md"]
    );
    assert!(!r.lost);
    let saved = state::load(&dir.path().join("sent.json")).expect("saved at once");
    assert!(!saved.contains_key("notes/b.md"));
    assert_eq!(
        std::fs::read_dir(dir.path().join("spool/refused"))
            .expect("aside")
            .count(),
        1
    );
    assert!(
        warned.borrow()[0].contains("its 1 documents are sent again"),
        "{:?}",
        warned.borrow()
    );

    // A file that is not a request at all is never sent: every document is sent again, old
    // passages first deleted (the run is `lost`).
    let (url, server) = fake(vec![200]);
    let engine = Engine::connect(&url, "brain", None, Duration::from_secs(5)).expect("test setup");
    let mut r = run(&engine, dir.path(), 0, &warn);
    r.sent = sent_of(&["notes/a.md", "notes/c.md"]);
    r.spool
        .put(br#"{"add":{"doc":{"doc_id":"notes/a.md","te"#)
        .expect("put");
    r.spool.put(add("notes/c.md").as_bytes()).expect("put");
    r.drain().expect("drain");
    assert_eq!(
        server.join().expect("the fake engine"),
        1,
        "only the good file went"
    );
    assert!(r.lost && r.sent.is_empty());
    assert!(r.spool.pending().expect("pending").is_empty());
    assert!(warned.borrow()[1].contains("every shared document is sent again"));
}
