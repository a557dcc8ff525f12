//! The HTTP side: binding the loopback socket, the checks every request passes before a page is
//! looked at (loopback `Host` and `Origin`, the method, a well-formed target, the token), and the
//! headers every answer carries.

use std::io;
use std::net::SocketAddr;
use std::panic::{AssertUnwindSafe, catch_unwind};

use brain_doc::ErrorCode;
use brain_doc::loopback::{is_loopback_host, is_loopback_origin};
use brain_store::Home;

use crate::app::{App, Reply};
use crate::{pages, url};

/// The default port (`--port 0`: any free one).
pub const DEFAULT_PORT: u16 = 8182;

/// Why the server could not start.
#[derive(Debug, thiserror::Error)]
pub enum BrowseError {
    #[error("cannot listen on 127.0.0.1:{port}: {source}")]
    Bind { port: u16, source: io::Error },
    #[error("cannot make the access token: {0}")]
    Token(io::Error),
}

impl brain_doc::Classified for BrowseError {
    /// `locked` when another process holds the port, else `internal`.
    fn code(&self) -> ErrorCode {
        match self {
            BrowseError::Bind { source, .. } if source.kind() == io::ErrorKind::AddrInUse => {
                ErrorCode::Locked
            }
            _ => ErrorCode::Internal,
        }
    }

    /// What to do about it.
    fn fix(&self) -> String {
        let fix: &str = {
            match self {
                BrowseError::Bind { .. } => {
                    "another process listens on that port: stop it, or pick another with --port (0: any free port)"
                }
                BrowseError::Token(_) => {
                    "the system's random source (/dev/urandom) must be readable"
                }
            }
        };
        fix.into()
    }
}

/// 128 random bits as 32 hex digits, from the system's random source.
fn new_token() -> io::Result<String> {
    use std::io::Read;
    let mut bytes = [0u8; 16];
    std::fs::File::open("/dev/urandom")?.read_exact(&mut bytes)?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// Equal, in time that does not depend on where they differ.
fn same(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |acc, (x, y)| acc | (x ^ y))
            == 0
}

/// A bound, not yet serving, server.
pub struct Listener {
    inner: brain_http::Server,
    addr: SocketAddr,
    token: String,
}

/// Bind `127.0.0.1:port` (0: a free port the system picks) and make the run's token.
pub fn bind(port: u16) -> Result<Listener, BrowseError> {
    let err = |source| BrowseError::Bind { port, source };
    let (socket, addr) = brain_doc::loopback::bind(port).map_err(err)?;
    let inner = brain_http::Server::new(socket, brain_http::Limits::default());
    let token = new_token().map_err(BrowseError::Token)?;
    Ok(Listener { inner, addr, token })
}

impl Listener {
    /// The bound address (the real port when 0 was asked for).
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The run's token.
    pub fn token(&self) -> &str {
        &self.token
    }

    /// The URL to open: the overview, with the token.
    pub fn url(&self) -> String {
        format!("http://{}/?t={}", self.addr, self.token)
    }

    /// The URL of a page (`path` with its own query, if any), with the token.
    pub fn url_of(&self, path: &str) -> String {
        let sep = if path.contains('?') { '&' } else { '?' };
        format!("http://{}{path}{sep}t={}", self.addr, self.token)
    }

    /// Serve `home` until the process ends (or accepting fails). Requests are answered one at a
    /// time, each read whole first within [`brain_http::Limits`] (a slow client stalls no one);
    /// a page that panics is a 500, never the end of the server.
    pub fn run(self, home: Home) -> io::Result<()> {
        let mut app = App::new(home, self.token.clone(), self.addr.port());
        self.inner.serve(|req| answer(&mut app, req).response())
    }
}

/// What the server needs of one HTTP request.
#[derive(Debug, Clone, Default)]
pub struct Request<'a> {
    pub method: &'a str,
    /// The request target (path and query).
    pub target: &'a str,
    pub host: Option<&'a str>,
    /// Every `Origin` header (browsers send one on some requests).
    pub origins: Vec<&'a str>,
    /// Every `Cookie` header.
    pub cookies: Vec<&'a str>,
}

// The server's log: the user running `brain browse` is told of a refused request.
#[allow(clippy::print_stderr)]
fn answer(app: &mut App, req: &brain_http::Request) -> Reply {
    let host = match req.host() {
        Ok(h) => h,
        Err(n) => {
            eprintln!("brain browse: refused a request naming {n} hosts");
            return Reply::text(403, format!("a request naming {n} hosts is not answered"));
        }
    };
    let method = req.method.clone();
    let request = Request {
        method: &method,
        target: &req.target,
        host,
        origins: req.header_all("Origin"),
        cookies: req.header_all("Cookie"),
    };
    let reply = catch_unwind(AssertUnwindSafe(|| respond(app, &request)))
        .unwrap_or_else(|_| Reply::text(500, "brain browse: this page failed; see the terminal"));
    if reply.status == 403 && !request.host.is_some_and(is_loopback_host) {
        eprintln!(
            "brain browse: refused a request for Host {:?}, Origin {:?}: not loopback",
            request.host, request.origins
        );
    }
    if reply.status >= 500 {
        eprintln!(
            "brain browse: {} {}: {}",
            method, request.target, reply.status
        );
    }
    if method == "HEAD" {
        return Reply {
            body: Vec::new(),
            ..reply
        };
    }
    reply
}

/// The answer to one request, in this order: loopback `Host` (required) and `Origin` (when sent),
/// `GET`/`HEAD` only, a well-formed target, the token, then the page.
pub fn respond(app: &mut App, req: &Request<'_>) -> Reply {
    match req.host {
        Some(h) if is_loopback_host(h) => {}
        Some(h) => return Reply::text(403, format!("Host `{h}` is not this machine")),
        None => return Reply::text(403, "a request without a Host header is not answered"),
    }
    if let Some(o) = req.origins.iter().find(|o| !is_loopback_origin(o)) {
        return Reply::text(403, format!("Origin `{o}` is not a loopback origin"));
    }
    if req.method != "GET" && req.method != "HEAD" {
        let mut r = Reply::text(405, "brain browse is read-only: GET and HEAD only");
        r.headers.push(("Allow".into(), "GET, HEAD".into()));
        return r;
    }
    let (path, query) = req.target.split_once('?').unwrap_or((req.target, ""));
    let path = path.split('#').next().unwrap_or_default();
    let segs = match url::segments(path) {
        Ok(s) => s,
        Err(e) => return Reply::text(400, e.0),
    };
    let pairs = url::query(query);
    let cookie = app.cookie_name();
    let carried = req
        .cookies
        .iter()
        .flat_map(|c| c.split(';'))
        .filter_map(|c| c.trim().split_once('='))
        .any(|(k, v)| k == cookie && same(v, &app.token));
    if let Some(t) = url::param(&pairs, "t") {
        if !same(t, &app.token) {
            return forbidden();
        }
        // The token moves into a cookie, and the address bar keeps a clean, shareable URL.
        let rest: Vec<(&str, &str)> = pairs
            .iter()
            .filter(|(k, _)| k != "t")
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        let mut r = Reply::redirect(url::with_query(path, &rest));
        r.headers.push((
            "Set-Cookie".into(),
            format!("{cookie}={}; Path=/; HttpOnly; SameSite=Strict", app.token),
        ));
        return r;
    }
    if !carried {
        return forbidden();
    }
    pages::route(app, &segs, &pairs)
}

fn forbidden() -> Reply {
    Reply::text(
        403,
        "This is brain's memory browser. Open the URL `brain browse` printed: it carries this run's \
         access token.",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn app() -> (tempfile::TempDir, App) {
        let dir = tempfile::tempdir().expect("tempdir");
        let app = App::new(Home::at(dir.path()), "a".repeat(32), 8182);
        (dir, app)
    }

    fn get<'a>(target: &'a str, cookie: Option<&'a str>) -> Request<'a> {
        Request {
            method: "GET",
            target,
            host: Some("127.0.0.1:8182"),
            origins: Vec::new(),
            cookies: cookie.into_iter().collect(),
        }
    }

    const COOKIE: &str = "brain_browse_8182=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";

    #[test]
    fn the_token_is_required_on_every_request_and_moves_into_a_cookie() {
        let (_d, mut app) = app();
        assert_eq!(respond(&mut app, &get("/", None)).status, 403);
        assert_eq!(
            respond(&mut app, &get("/static/style.css", None)).status,
            403
        );
        assert_eq!(respond(&mut app, &get("/?t=wrong", None)).status, 403);
        let wrong_cookie = "brain_browse_8182=bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";
        assert_eq!(respond(&mut app, &get("/", Some(wrong_cookie))).status, 403);
        // Another port's cookie is not this server's.
        let other = "brain_browse_9000=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
        assert_eq!(respond(&mut app, &get("/", Some(other))).status, 403);
        let r = respond(
            &mut app,
            &get("/search?q=x&t=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", None),
        );
        assert_eq!(r.status, 303);
        assert_eq!(r.header("Location"), Some("/search?q=x"));
        let set = r.header("Set-Cookie").expect("cookie");
        assert!(
            set.starts_with(COOKIE) && set.contains("HttpOnly") && set.contains("SameSite=Strict")
        );
        assert_eq!(respond(&mut app, &get("/", Some(COOKIE))).status, 200);
        assert_eq!(
            respond(
                &mut app,
                &get(
                    "/",
                    Some("x=1; brain_browse_8182=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa")
                )
            )
            .status,
            200
        );
    }

    #[test]
    fn foreign_hosts_and_origins_and_writes_are_refused_before_the_token() {
        let (_d, mut app) = app();
        for host in [
            "evil.example",
            "evil.example:8182",
            "127.0.0.1.evil.example",
            "10.0.0.1",
        ] {
            let mut r = get("/", Some(COOKIE));
            r.host = Some(host);
            assert_eq!(respond(&mut app, &r).status, 403, "{host}");
        }
        let mut r = get("/", Some(COOKIE));
        r.host = None;
        assert_eq!(respond(&mut app, &r).status, 403);
        let mut r = get("/", Some(COOKIE));
        r.origins = vec!["https://evil.example"];
        assert_eq!(respond(&mut app, &r).status, 403);
        for m in ["POST", "PUT", "DELETE", "PATCH"] {
            let mut r = get("/", Some(COOKIE));
            r.method = m;
            assert_eq!(respond(&mut app, &r).status, 405, "{m}");
        }
        for host in ["localhost:8182", "[::1]:8182", "127.0.0.1"] {
            let mut r = get("/", Some(COOKIE));
            r.host = Some(host);
            assert_eq!(respond(&mut app, &r).status, 200, "{host}");
        }
    }

    #[test]
    fn targets_that_climb_or_smuggle_are_bad_requests() {
        let (_d, mut app) = app();
        for t in [
            "/doc/notes/../../etc/passwd",
            "/doc/notes/%2e%2e/%2e%2e/etc/passwd",
            "/raw/notes/..%2F..%2Fetc%2Fpasswd",
            "/raw/notes/%00",
            "/doc//etc/passwd",
        ] {
            assert_eq!(respond(&mut app, &get(t, Some(COOKIE))).status, 400, "{t}");
        }
    }

    #[test]
    fn tokens_are_random_and_compared_whole() {
        let a = new_token().expect("token");
        let b = new_token().expect("token");
        assert_eq!(a.len(), 32);
        assert_ne!(a, b);
        assert!(same("abc", "abc") && !same("abc", "abd") && !same("abc", "ab"));
    }
}
