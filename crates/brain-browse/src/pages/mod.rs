//! The pages, by route. Every page is one GET with a stable URL:
//!
//! | route | page |
//! |---|---|
//! | `/` | overview: collections, kinds, tiers, attention |
//! | `/timeline?day=YYYY-MM-DD&days=N` | the N days (default 7, at most 31) up to `day`, and a year's heat strip |
//! | `/search?q=…&mode=…&collection=…&since=…&until=…&limit=…` | `ask`'s query language, hits with their explain breakdown |
//! | `/doc/<collection>/<path>` | a document: rendered body, frontmatter, relations, refs, supersession |
//! | `/session/<collection>/<path>?line=N` | a session turn by turn (the turn holding line N marked `#hit`) |
//! | `/raw/<collection>/<path>` | the file as plain text |
//! | `/entities`, `/entity/<id>` | entities by kind; an entity's page |
//! | `/static/style.css` | the stylesheet |

mod doc;
mod entity;
mod overview;
mod search;
mod timeline;

use serde::Serialize;

use crate::app::{App, Reply};
use crate::templates;

/// Why a page could not be shown: its status and a sentence.
#[derive(Debug)]
pub(crate) struct PageError {
    pub status: u16,
    pub title: &'static str,
    pub message: String,
}

impl PageError {
    pub(crate) fn not_found(message: impl Into<String>) -> PageError {
        PageError {
            status: 404,
            title: "Not found",
            message: message.into(),
        }
    }

    pub(crate) fn bad(message: impl Into<String>) -> PageError {
        PageError {
            status: 400,
            title: "Bad request",
            message: message.into(),
        }
    }

    pub(crate) fn internal(message: impl Into<String>) -> PageError {
        PageError {
            status: 500,
            title: "Something failed",
            message: message.into(),
        }
    }
}

pub(crate) type PageResult = Result<Reply, PageError>;

/// The page for a decoded path and query.
pub(crate) fn route(app: &mut App, segs: &[String], query: &[(String, String)]) -> Reply {
    let first = segs.first().map(String::as_str).unwrap_or("");
    let rest = segs.get(1..).unwrap_or_default();
    let out = match (first, rest.len()) {
        ("", _) => overview::page(app),
        ("timeline", 0) => timeline::page(app, query),
        ("search", 0) => search::page(app, query),
        ("doc", n) if n >= 2 => doc::page(app, rest),
        ("session", n) if n >= 2 => doc::session(app, rest, query),
        ("raw", n) if n >= 2 => doc::raw(app, rest),
        ("entities", 0) => entity::list(app, query),
        ("entity", 1) => entity::page(app, &rest[0]),
        ("static", 1) if rest[0] == "style.css" => Ok(Reply {
            status: 200,
            content_type: "text/css; charset=utf-8",
            body: templates::STYLE.as_bytes().to_vec(),
            headers: Vec::new(),
        }),
        ("favicon.ico", 0) => Ok(Reply::text(404, "")),
        _ => Err(PageError::not_found(format!(
            "there is no page at /{}",
            segs.join("/")
        ))),
    };
    out.unwrap_or_else(|e| error_page(app, &e))
}

/// The error page (plain text if even it cannot be rendered).
fn error_page(app: &App, e: &PageError) -> Reply {
    #[derive(Serialize)]
    struct Ctx<'a> {
        nav: &'a str,
        title: &'a str,
        message: &'a str,
    }
    match render(
        app,
        "error.html",
        &Ctx {
            nav: "",
            title: e.title,
            message: &e.message,
        },
    ) {
        Ok(html) => Reply::html(e.status, html),
        Err(_) => Reply::text(e.status, e.message.clone()),
    }
}

/// Render template `name` with `ctx`.
pub(crate) fn render<T: Serialize>(app: &App, name: &str, ctx: &T) -> Result<String, PageError> {
    app.templates
        .get_template(name)
        .and_then(|t| t.render(minijinja::Value::from_serialize(ctx)))
        .map_err(|e| PageError::internal(format!("template {name}: {e}")))
}

/// A page rendered with status 200.
pub(crate) fn ok<T: Serialize>(app: &App, name: &str, ctx: &T) -> PageResult {
    Ok(Reply::html(200, render(app, name, ctx)?))
}

/// A count as people read it: `1,234`.
pub(crate) fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// An RFC 3339 time as `YYYY-MM-DD HH:MM` in the local zone (the text as given when it does not
/// parse; empty stays empty).
pub(crate) fn local_time(rfc3339: &str) -> String {
    match rfc3339.parse::<jiff::Timestamp>() {
        Ok(t) => t
            .to_zoned(brain_rank::clock::local_tz())
            .strftime("%Y-%m-%d %H:%M")
            .to_string(),
        Err(_) => rfc3339.to_string(),
    }
}

/// "today", "3 days ago", … for an RFC 3339 time (empty when it does not parse).
pub(crate) fn age(rfc3339: &str, now: &jiff::Zoned) -> String {
    match rfc3339.parse::<jiff::Timestamp>() {
        Ok(t) => brain_fmt::age::age_label(brain_rank::age_days(
            t,
            now.timestamp(),
            &brain_rank::clock::local_tz(),
        )),
        Err(_) => String::new(),
    }
}

/// The link to a document: its session view when it is a session transcript, else its page.
pub fn doc_href(id: &str, role: &str) -> String {
    if role == "sessions" {
        crate::url::session(id)
    } else {
        crate::url::doc(id)
    }
}

/// The role of collection `name` in `config` (empty when it declares none or is unknown).
pub fn role_of(config: &brain_store::Config, name: &str) -> String {
    config
        .collection(name)
        .map(|c| c.role.clone())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_read_with_separators() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(1234567), "1,234,567");
    }
}
