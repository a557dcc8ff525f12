//! Which `brain browse` runs for a home: `state/browse.json` (written when a server starts, mode
//! 0600 like the whole home) names its address, token and pid, so `brain ask --link` can print
//! links into it. A record whose process is gone is no server.

use serde::{Deserialize, Serialize};

use brain_store::Home;

/// The state file.
pub const FILE: &str = "browse.json";

/// A running server, as recorded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Running {
    /// Record version (1).
    pub schema: u32,
    /// Always `"browse"`.
    pub kind: String,
    /// `http://127.0.0.1:PORT`.
    pub base: String,
    pub token: String,
    pub pid: u32,
    /// When it started (RFC 3339, UTC).
    pub started: String,
}

impl Running {
    /// The URL of `path` (a page's path and query) on this server, with the token.
    pub fn link(&self, path: &str) -> String {
        let sep = if path.contains('?') { '&' } else { '?' };
        format!("{}{path}{sep}t={}", self.base, self.token)
    }

    /// The link of a search hit: its session's turn, or its document's page.
    pub fn hit_link(&self, config: &brain_store::Config, hit: &brain_doc::Hit) -> String {
        let id = format!("{}/{}", hit.collection, hit.path);
        let role = crate::pages::role_of(config, &hit.collection);
        let page = crate::pages::doc_href(&id, &role);
        if role == "sessions" {
            let with_line = crate::url::with_query(&page, &[("line", &hit.line.to_string())]);
            format!("{}#hit", self.link(&with_line))
        } else {
            self.link(&page)
        }
    }
}

/// Record `listener` as this home's running server (when the home exists).
pub fn record(home: &Home, listener: &crate::Listener) -> std::io::Result<()> {
    if !home.root().is_dir() {
        return Ok(());
    }
    let r = Running {
        schema: 1,
        kind: "browse".into(),
        base: format!("http://{}", listener.addr()),
        token: listener.token().to_string(),
        pid: std::process::id(),
        started: jiff::Timestamp::now()
            .strftime("%Y-%m-%dT%H:%M:%SZ")
            .to_string(),
    };
    let mut text = serde_json::to_vec_pretty(&r).map_err(std::io::Error::other)?;
    text.push(b'\n');
    brain_doc::atomic::write(&home.state_file(FILE), &text)
}

/// The server running for `home`, if its record names a live process.
pub fn running(home: &Home) -> Option<Running> {
    let text = std::fs::read_to_string(home.state_file(FILE)).ok()?;
    let r: Running = serde_json::from_str(&text).ok()?;
    (r.kind == "browse" && brain_ops::locks::alive(r.pid)).then_some(r)
}
