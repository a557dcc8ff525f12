//! `/search`: `brain ask` in a form — the same query language (`"phrases"`, `-negation`,
//! `collection:`, `project:`, `since:` …, typed `lex:`/`vec:`/`hyde:` lines), mode, collection,
//! time window and limit as fields — and each hit with its snippet, age, collection, session and,
//! on demand, the breakdown of its score (`brain explain`'s signals). A session hit links to the
//! turn that holds its passage.

use serde::Serialize;

use super::{PageResult, age, doc_href, local_time, ok, role_of};
use crate::app::{App, Reply};
use crate::url;
use brain_rank::route::Mode;

/// Hits shown when the form does not say.
const DEFAULT_LIMIT: usize = 20;
/// The most hits one page shows.
const MAX_LIMIT: usize = 100;
/// The longest query read (the engine's own bound is larger; a page needs no more).
const MAX_QUERY: usize = 4096;

#[derive(Serialize)]
struct Signal {
    name: String,
    value: String,
}

#[derive(Serialize)]
struct HitView {
    rank: u32,
    /// The match strength as the CLI shows it (`good 0.72`; the same scale everywhere).
    strength: String,
    title: String,
    href: String,
    doc_href: String,
    collection: String,
    path: String,
    docid: String,
    date: String,
    age: String,
    snippet: String,
    session: String,
    project: String,
    agent: String,
    memory: String,
    untrusted: bool,
    signals: Vec<Signal>,
}

#[derive(Serialize)]
struct Ctx {
    nav: &'static str,
    q: String,
    mode: String,
    modes: [&'static str; 5],
    collection: String,
    collections: Vec<String>,
    since: String,
    until: String,
    limit: usize,
    searched: bool,
    error: String,
    warnings: Vec<String>,
    plan: Vec<String>,
    ran: String,
    hits: Vec<HitView>,
}

fn mode_of(name: &str) -> Option<Mode> {
    [Mode::Auto, Mode::Lex, Mode::Vec, Mode::Hybrid, Mode::Recent]
        .into_iter()
        .find(|m| m.name() == name)
}

pub(super) fn page(app: &mut App, query: &[(String, String)]) -> PageResult {
    let q = url::param(query, "q").unwrap_or("").to_string();
    let mode_name = url::param(query, "mode").unwrap_or("auto").to_string();
    let collection = url::param(query, "collection").unwrap_or("").to_string();
    let since = url::param(query, "since").unwrap_or("").to_string();
    let until = url::param(query, "until").unwrap_or("").to_string();
    let limit = url::param(query, "limit")
        .and_then(|l| l.parse::<usize>().ok())
        .unwrap_or(DEFAULT_LIMIT)
        .clamp(1, MAX_LIMIT);
    let config = app.config();
    let mut ctx = Ctx {
        nav: "search",
        modes: ["auto", "lex", "vec", "hybrid", "recent"],
        collections: config.collections.iter().map(|c| c.name.clone()).collect(),
        searched: !q.is_empty() || !collection.is_empty() || !since.is_empty(),
        q,
        mode: mode_name,
        collection,
        since,
        until,
        limit,
        error: String::new(),
        warnings: Vec::new(),
        plan: Vec::new(),
        ran: String::new(),
        hits: Vec::new(),
    };
    if !ctx.searched {
        return ok(app, "search.html", &ctx);
    }
    let status = match run(app, &config, &mut ctx) {
        Ok(()) => 200,
        Err(e) => {
            ctx.error = e;
            400
        }
    };
    Ok(Reply::html(
        status,
        super::render(app, "search.html", &ctx)?,
    ))
}

/// Run the search the form describes into `ctx`; a query the engine refuses is its message.
fn run(app: &mut App, config: &brain_store::Config, ctx: &mut Ctx) -> Result<(), String> {
    if ctx.q.len() > MAX_QUERY {
        return Err(format!(
            "the query is {} bytes; at most {MAX_QUERY} are read",
            ctx.q.len()
        ));
    }
    let mode = mode_of(&ctx.mode).ok_or_else(|| format!("no mode `{}`", ctx.mode))?;
    let now = brain_rank::clock::now();
    let collections: Vec<String> = if ctx.collection.is_empty() {
        Vec::new()
    } else {
        vec![ctx.collection.clone()]
    };
    // A collection or a window alone lists it, newest first.
    let text = match (ctx.q.is_empty(), ctx.collection.is_empty()) {
        (false, _) => ctx.q.clone(),
        (true, false) => format!("collection:{}", ctx.collection),
        (true, true) => format!("since:{}", ctx.since),
    };
    let engine = app.handles.engine().map_err(|e| e.message)?;
    let req = engine
        .request(&now)
        .text(&text)
        .and_then(|b| {
            b.since(
                Some(&ctx.since)
                    .filter(|s| !s.is_empty())
                    .map(String::as_str),
            )
        })
        .and_then(|b| {
            b.until(
                Some(&ctx.until)
                    .filter(|s| !s.is_empty())
                    .map(String::as_str),
            )
        })
        .map_err(|e| e.to_string())?
        .scope(&collections, &[], &[])
        .mode(mode)
        .limit_or_strategy(Some(ctx.limit), None)
        // Near-duplicates collapsed, as `brain ask` does by default: the page lists what the
        // CLI does.
        .collapse(brain_rank::run::Collapse::Quiet)
        .build();
    let started = std::time::Instant::now();
    let answer = engine.search(&req, &now).map_err(|e| e.to_string())?;
    ctx.ran = format!(
        "{} hits in {} ms{}",
        answer.hits.len(),
        started.elapsed().as_millis(),
        answer
            .mode
            .map(|m| format!(", mode {}", m.name()))
            .unwrap_or_default()
    );
    ctx.warnings = answer.warnings.clone();
    ctx.plan = answer.plan.clone();
    ctx.hits = answer
        .hits
        .into_iter()
        .map(|h| hit_view(config, h, &now))
        .collect();
    Ok(())
}

/// One hit as the page shows it: its link (a session's at the hit's line), its record fields,
/// its signals.
fn hit_view(config: &brain_store::Config, h: brain_doc::Hit, now: &jiff::Zoned) -> HitView {
    let id = format!("{}/{}", h.collection, h.path);
    let role = role_of(config, &h.collection);
    let page = doc_href(&id, &role);
    let href = if role == "sessions" {
        format!(
            "{}#hit",
            url::with_query(&page, &[("line", &h.line.to_string())])
        )
    } else {
        page.clone()
    };
    let memory = h
        .memory
        .as_ref()
        .map(|m| {
            let mut parts = vec![m.kind.clone().unwrap_or_else(|| "record".into())];
            parts.push(format!("importance {}", m.importance));
            if m.pinned {
                parts.push("pinned".into());
            }
            if m.state != "current" && !m.state.is_empty() {
                parts.push(m.state.clone());
            }
            parts.join(" · ")
        })
        .unwrap_or_default();
    HitView {
        rank: h.rank,
        strength: brain_doc::strength_text(&h).unwrap_or_default(),
        title: if h.title.is_empty() {
            h.path.clone()
        } else {
            h.title.clone()
        },
        href,
        doc_href: crate::url::doc(&id),
        collection: h.collection.clone(),
        path: h.path.clone(),
        docid: h.docid.clone(),
        age: age(&h.date, now),
        date: local_time(&h.date),
        snippet: h.snippet.clone(),
        session: h.session_id.clone().unwrap_or_default(),
        project: h.project.clone().unwrap_or_default(),
        agent: h.agent.clone().unwrap_or_default(),
        memory,
        untrusted: h.untrusted,
        signals: h
            .signals
            .iter()
            .map(|(k, v)| Signal {
                name: k.clone(),
                value: match v {
                    serde_json::Value::Number(n) => n
                        .as_f64()
                        .map(|f| format!("{f:.4}"))
                        .unwrap_or_else(|| n.to_string()),
                    other => other.to_string(),
                },
            })
            .collect(),
    }
}
