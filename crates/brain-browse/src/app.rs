//! What the pages and the server share: the application state a request is answered with
//! ([`App`]: the home's handles, templates, the token) and the answer ([`Reply`], with the
//! security headers every answer carries). Both `server` (the HTTP edge) and `pages` import it;
//! neither imports the other's way back (`pages` never imports `server`).

use brain_rank::handles::{Handles, Stamp, stamp};
use brain_store::Home;

use crate::templates;

/// The Content-Security-Policy of every answer: nothing but this server's own stylesheet; no
/// script, no frame, no form posting elsewhere, no foreign image.
const CSP: &str = "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; \
                   base-uri 'none'; frame-ancestors 'none'";

/// What the pages need: the home's handles (config and search engine, reloaded when their files
/// change), the templates, the token and the port.
pub struct App {
    pub(crate) handles: Handles,
    pub(crate) templates: minijinja::Environment<'static>,
    pub(crate) token: String,
    port: u16,
    /// The memory graph, with the registry files' stamp it was loaded at.
    graph: Option<(Stamp, std::rc::Rc<brain_graph::Graph>)>,
}

impl App {
    /// The application for `home`, answering to `token` on `port`.
    pub fn new(home: Home, token: String, port: u16) -> App {
        App {
            handles: Handles::new(home),
            templates: templates::environment(),
            token,
            port,
            graph: None,
        }
    }

    /// `brain.yaml` as it is now (reloaded when it changed), or the defaults when it does not
    /// parse (the overview says why).
    pub(crate) fn config(&mut self) -> brain_store::Config {
        match self.handles.config() {
            Ok(c) => c.clone(),
            Err(_) => brain_store::Config::defaults(self.handles.home()),
        }
    }

    /// The memory graph of the registry, loaded again only when the registry changed (it is the
    /// slowest thing a page reads: every document, link and entity). `None` before anything was
    /// indexed.
    pub(crate) fn graph(&mut self) -> Result<Option<std::rc::Rc<brain_graph::Graph>>, String> {
        let db = self.home().state_db();
        let mut wal = db.clone().into_os_string();
        wal.push("-wal");
        let now = stamp(&[db, wal.into()]);
        if let Some((s, g)) = &self.graph
            && *s == now
        {
            return Ok(Some(g.clone()));
        }
        let Some(reg) =
            brain_store::Registry::open_existing(self.home()).map_err(|e| e.to_string())?
        else {
            return Ok(None);
        };
        let g = std::rc::Rc::new(brain_graph::Graph::load(&reg).map_err(|e| e.to_string())?);
        self.graph = Some((now, g.clone()));
        Ok(Some(g))
    }

    /// The home.
    pub fn home(&self) -> &Home {
        self.handles.home()
    }

    /// The name of the cookie that carries the token (per port: cookies are shared by every port
    /// of a host).
    pub(crate) fn cookie_name(&self) -> String {
        format!("brain_browse_{}", self.port)
    }
}

/// An answer: status, content type, body, extra headers.
#[derive(Debug, Clone, PartialEq)]
pub struct Reply {
    pub status: u16,
    pub content_type: &'static str,
    pub body: Vec<u8>,
    pub headers: Vec<(String, String)>,
}

impl Reply {
    pub(crate) fn html(status: u16, body: String) -> Reply {
        Reply {
            status,
            content_type: "text/html; charset=utf-8",
            body: body.into_bytes(),
            headers: Vec::new(),
        }
    }

    pub(crate) fn text(status: u16, body: impl Into<String>) -> Reply {
        Reply {
            status,
            content_type: "text/plain; charset=utf-8",
            body: body.into().into_bytes(),
            headers: Vec::new(),
        }
    }

    pub(crate) fn redirect(location: String) -> Reply {
        Reply {
            status: 303,
            content_type: "text/plain; charset=utf-8",
            body: Vec::new(),
            headers: vec![("Location".into(), location)],
        }
    }

    /// The body as text (tests).
    pub fn body_text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    /// The value of header `name` (tests).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    pub(crate) fn response(self) -> brain_http::Response {
        let mut headers = vec![("Content-Type".to_string(), self.content_type.to_string())];
        headers.extend(
            security_headers()
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string())),
        );
        headers.extend(self.headers);
        brain_http::Response {
            status: self.status,
            headers,
            body: self.body,
        }
    }
}

/// The headers every answer carries: the CSP, no sniffing, no framing, no referrer (a page's URL
/// never leaves in a `Referer`), no caching of memory on disk.
pub fn security_headers() -> [(&'static str, &'static str); 5] {
    [
        ("Content-Security-Policy", CSP),
        ("X-Content-Type-Options", "nosniff"),
        ("X-Frame-Options", "DENY"),
        ("Referrer-Policy", "no-referrer"),
        ("Cache-Control", "no-store"),
    ]
}
