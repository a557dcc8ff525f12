use super::*;

/// A server on a free loopback port answering every request with its method, target and body
/// length; its address.
fn start(limits: Limits) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let server = Server::new(listener, limits);
    let addr = server.addr().expect("addr");
    std::thread::spawn(move || {
        server.serve(|r| {
            let host = match r.header_once("Host") {
                Ok(h) => h.to_string(),
                Err(n) => format!("{n} hosts"),
            };
            Response::text(
                200,
                &format!(
                    "{} {} {} {} {}",
                    r.method,
                    r.target,
                    r.body.len(),
                    r.oversized,
                    host
                ),
            )
        })
    });
    addr
}

fn exchange(addr: SocketAddr, bytes: &[u8]) -> String {
    let mut s = TcpStream::connect(addr).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(30)))
        .expect("timeout");
    s.write_all(bytes).expect("send");
    let mut out = String::new();
    let _ = s.read_to_string(&mut out);
    out
}

#[test]
fn a_request_is_answered_and_the_connection_closed() {
    let addr = start(Limits::default());
    let out = exchange(
        addr,
        b"POST /mcp?x=1 HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5\r\n\r\nhello",
    );
    assert!(out.starts_with("HTTP/1.1 200 OK\r\n"), "{out}");
    assert!(out.contains("Connection: close\r\n"), "{out}");
    assert!(out.ends_with("POST /mcp?x=1 5 false 127.0.0.1"), "{out}");
}

#[test]
fn slow_and_half_sent_clients_never_stall_the_others() {
    let addr = start(Limits {
        deadline: Duration::from_secs(2),
        ..Limits::default()
    });
    // 64 connections that send half a request line, 20 that send headers and a part of a body.
    let mut held = Vec::new();
    for i in 0..84 {
        let mut s = TcpStream::connect(addr).expect("connect");
        let part: &[u8] = if i < 64 {
            b"GET /slow HTT"
        } else {
            b"POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Length: 1000\r\n\r\n{\"a\":"
        };
        s.write_all(part).expect("part");
        held.push(s);
    }
    // While they hold their connections, whole requests are answered.
    for _ in 0..5 {
        let out = exchange(addr, b"GET / HTTP/1.1\r\nHost: localhost\r\n\r\n");
        assert!(out.starts_with("HTTP/1.1 200"), "{out}");
    }
    // And the slow ones are told when their time is up.
    let mut s = held.pop().expect("one");
    s.set_read_timeout(Some(Duration::from_secs(30)))
        .expect("timeout");
    let mut out = String::new();
    let _ = s.read_to_string(&mut out);
    assert!(out.starts_with("HTTP/1.1 408"), "{out}");
}

#[test]
fn headers_over_the_limit_are_refused_unread() {
    let addr = start(Limits::default());
    let mut req = b"GET / HTTP/1.1\r\nHost: localhost\r\nX-Big: ".to_vec();
    req.extend(std::iter::repeat_n(b'a', 64 * 1024));
    req.extend(b"\r\n\r\n");
    let out = exchange(addr, &req);
    assert!(
        out.starts_with("HTTP/1.1 431"),
        "{}",
        &out[..out.len().min(200)]
    );
}

#[test]
fn a_body_over_the_limit_is_not_read_and_the_request_says_so() {
    let addr = start(Limits {
        body_bytes: 10,
        ..Limits::default()
    });
    let out = exchange(
        addr,
        b"POST / HTTP/1.1\r\nHost: localhost\r\nContent-Length: 99999999\r\n\r\n",
    );
    assert!(out.ends_with("POST / 0 true localhost"), "{out}");
}

#[test]
fn two_host_headers_or_none_are_not_one_host() {
    let addr = start(Limits::default());
    let two = exchange(
        addr,
        b"GET / HTTP/1.1\r\nHost: localhost\r\nHost: evil.example\r\n\r\n",
    );
    assert!(two.ends_with("2 hosts"), "{two}");
    let none = exchange(addr, b"GET / HTTP/1.1\r\n\r\n");
    assert!(none.ends_with("0 hosts"), "{none}");
    let empty = exchange(addr, b"GET / HTTP/1.1\r\nHost:\r\n\r\n");
    assert!(empty.ends_with("false "), "{empty}");
}

#[test]
fn malformed_requests_are_400_and_the_server_goes_on() {
    let addr = start(Limits::default());
    for bad in [
        &b"GARBAGE\r\n\r\n"[..],
        b"GET / HTTP/1.1\r\nno colon here\r\n\r\n",
        b"GET / HTTP/1.1\r\nContent-Length: x\r\n\r\n",
        b"GET / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
        b"GET / SPDY/9\r\n\r\n",
        b"GET / HTTP/1.1\r\nX: \xff\r\n\r\n",
    ] {
        let out = exchange(addr, bad);
        assert!(out.starts_with("HTTP/1.1 400"), "{out}");
    }
    let out = exchange(
        addr,
        b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n",
    );
    assert!(out.starts_with("HTTP/1.1 411"), "{out}");
    let out = exchange(addr, b"GET / HTTP/1.1\r\nHost: localhost\r\n\r\n");
    assert!(out.starts_with("HTTP/1.1 200"), "{out}");
}

#[test]
fn a_process_holding_every_slot_with_idle_connections_cannot_keep_a_client_out() {
    let addr = start(Limits {
        connections: 8,
        ..Limits::default()
    });
    // Every slot held, twice over, by connections that send nothing.
    let idle: Vec<TcpStream> = (0..16)
        .map(|_| TcpStream::connect(addr).expect("connect"))
        .collect();
    std::thread::sleep(Duration::from_millis(200));
    for _ in 0..5 {
        let out = exchange(addr, b"GET /a HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
        assert!(out.starts_with("HTTP/1.1 200 OK\r\n"), "{out}");
    }
    drop(idle);
}

/// A server answering every request with `size` bytes.
fn start_big(limits: Limits, size: usize) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let server = Server::new(listener, limits);
    let addr = server.addr().expect("addr");
    std::thread::spawn(move || {
        server.serve(|_| Response {
            status: 200,
            headers: Vec::new(),
            body: vec![b'x'; size],
        })
    });
    addr
}

#[test]
fn clients_that_do_not_read_hold_at_most_the_writing_budget() {
    const BODY: usize = 32 * 1024 * 1024;
    let addr = start_big(
        Limits {
            writing_bytes: BODY + BODY / 2,
            write_timeout: Duration::from_secs(30),
            ..Limits::default()
        },
        BODY,
    );
    // One client asks and never reads: its answer is held, being written.
    let mut stuck = TcpStream::connect(addr).expect("connect");
    stuck
        .write_all(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        .expect("send");
    // Another answer would pass the budget: 503, small, until the first is written or dropped.
    let mut busy = false;
    for _ in 0..50 {
        let mut s = TcpStream::connect(addr).expect("connect");
        s.set_read_timeout(Some(Duration::from_secs(30)))
            .expect("timeout");
        s.write_all(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            .expect("send");
        let mut head = [0u8; 12];
        s.read_exact(&mut head).expect("an answer");
        if &head == b"HTTP/1.1 503" {
            busy = true;
            break;
        }
        // Written in full to a reader: read it away.
        let _ = std::io::copy(&mut s, &mut std::io::sink());
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(busy, "a second answer was held beside the first");
    drop(stuck);
    // The budget comes back once the first is gone.
    let mut ok = false;
    for _ in 0..100 {
        let mut s = TcpStream::connect(addr).expect("connect");
        s.write_all(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            .expect("send");
        let mut all = Vec::new();
        let _ = s.read_to_end(&mut all);
        if all.starts_with(b"HTTP/1.1 200") && all.len() > BODY {
            ok = true;
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(ok);
}
