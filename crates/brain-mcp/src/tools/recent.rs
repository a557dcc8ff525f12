//! `recent` — the `brain recent` walk ([`brain_rank::recent::walk`]): what became visible across
//! collections since a time, newest first, with per-collection counts. An empty window is an empty
//! result, not an error: the agent asked for data and "nothing new" is data. Titles from low-trust
//! collections are fenced as in `query`. The walk logs its own `recent` telemetry row (`surface: mcp`).

use brain_doc::{ErrorCode, ErrorRecord};
use brain_rank::query::{Edge, parse_time};
use brain_rank::recent::{DEFAULT_LIMIT, RecentItem, RecentOptions, RecentReport, walk};
use brain_store::telemetry::Surface;
use serde::Deserialize;
use serde_json::{Value, json};

use super::{Ctx, Output, Tool, decode, descriptor, input_schema};
use brain_doc::fence;

pub const TOOL: Tool = Tool {
    name: "recent",
    describe,
    run,
    writes: false,
};

/// Most items one call lists (all are counted): a few hundred short lines, well under the byte caps of
/// `get`.
const MAX_LIMIT: u64 = 200;

/// The window when `since` is not given: the last day, as `brain recent`.
const DEFAULT_SINCE: &str = "24h";

#[derive(Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct Args {
    /// 24h (default), 7d, 3mo, yesterday, YYYY-MM-DD, RFC 3339.
    #[schemars(length(min = 1))]
    since: Option<String>,
    /// Only these collections (default: all).
    collections: Option<Vec<String>>,
    /// Items listed (default 50); all are counted.
    #[schemars(range(min = 1, max = MAX_LIMIT))]
    limit: Option<usize>,
}

fn describe() -> Value {
    let input = input_schema::<Args>();
    let item = json!({
        "type": "object",
        "properties": {
            "collection": {"type": "string"}, "uri": {"type": "string"}, "path": {"type": "string"},
            "title": {"type": "string"}, "date": {"type": "string"}, "visible_at": {"type": "string"},
            "age": {"type": "string"}, "indexed": {"type": "boolean"}, "untrusted": {"type": "boolean"}
        },
        "required": ["collection", "uri", "path", "title", "date", "visible_at", "age", "indexed", "untrusted"]
    });
    let total = json!({
        "type": "object",
        "properties": {"collection": {"type": "string"}, "count": {"type": "integer"}, "share": {"type": "number"}},
        "required": ["collection", "count", "share"]
    });
    let output = json!({
        "type": "object",
        "properties": {
            "schema": {"type": "integer"}, "kind": {"type": "string", "enum": ["recent"]},
            "since": {"type": "string"}, "walk_ms": {"type": "integer"},
            "n_total": {"type": "integer", "description": "Items in the window (all, not only those listed)."},
            "pending": {"type": "integer", "description": "Of those, not in the lexical index yet."},
            "collections": {"type": "array", "items": total},
            "items": {"type": "array", "items": item}
        },
        "required": ["schema", "kind", "since", "walk_ms", "n_total", "pending", "collections", "items"]
    });
    descriptor(
        "recent",
        "Recent activity",
        "What became visible since a time, newest first: sessions, notes, inbox entries, browser days. For \"what did I work on\" or a stand-up.",
        input,
        output,
    )
}

fn run(ctx: &mut Ctx<'_>, args: Value) -> Result<Output, ErrorRecord> {
    let a: Args = decode(args)?;
    let since_spec = a.since.as_deref().unwrap_or(DEFAULT_SINCE);
    let since = parse_time(since_spec, &ctx.now, Edge::Start).map_err(|e| {
        ErrorRecord::new(
            ErrorCode::BadQuery,
            format!("`since`: {e}"),
            "e.g. {\"since\": \"7d\"} or {\"since\": \"2026-04-01\"}",
        )
    })?;
    let collections = a.collections.unwrap_or_default();
    super::check_collections(ctx.handles.config()?, &collections)?;
    let opts = RecentOptions {
        since,
        collections,
        limit: a.limit.unwrap_or(DEFAULT_LIMIT),
        now: ctx.now.clone(),
        surface: Some(Surface::Mcp),
    };
    ctx.logged = true;
    let report = walk(ctx.handles.home(), &opts).map_err(|e| ErrorRecord::of(&e))?;
    let config = ctx.handles.config()?;
    let low: Vec<bool> = report
        .items
        .iter()
        .map(|i| config.is_low_trust(&i.collection))
        .collect();
    let mut structured = super::structured(&report)?;
    if let Some(items) = structured.get_mut("items").and_then(Value::as_array_mut) {
        for (item, &low) in items.iter_mut().zip(&low) {
            if low && let Some(t) = item.get("title").and_then(Value::as_str) {
                item["title"] = fence::inline(t).into();
            }
            item["untrusted"] = low.into();
        }
    }
    Ok(Output {
        text: text(&report, &low),
        count: report.n_total,
        structured,
    })
}

/// The walk as the model reads it: one entry per item (low-trust ones fenced), then the totals.
fn text(r: &RecentReport, low: &[bool]) -> String {
    if r.n_total == 0 {
        return format!(
            "Nothing became visible since {}. Try a longer `since` (7d, 30d).\n",
            r.since
        );
    }
    let pending = if r.pending > 0 {
        format!(" ({} not indexed yet)", r.pending)
    } else {
        String::new()
    };
    let s = if r.n_total == 1 { "" } else { "s" };
    let mut out = format!(
        "{} document{s} became visible since {}{pending}, newest first:\n",
        r.n_total, r.since
    );
    for (i, &low) in r.items.iter().zip(low) {
        out.push('\n');
        out.push_str(&entry(i, low));
    }
    if r.items.len() < r.n_total {
        out.push_str(&format!(
            "\n… {} more (raise `limit` to list them)\n",
            r.n_total - r.items.len()
        ));
    }
    let mix: Vec<String> = r
        .collections
        .iter()
        .filter(|c| c.count > 0)
        .map(|c| format!("{} {} ({:.0}%)", c.collection, c.count, c.share * 100.0))
        .collect();
    out.push_str(&format!("\n{} in all: {}\n", r.n_total, mix.join(" · ")));
    out
}

/// `age  [collection]  title` over `uri  visible_at`; a low-trust title goes into a fence below.
fn entry(i: &RecentItem, low: bool) -> String {
    let pending = if i.indexed { "" } else { "  (not indexed yet)" };
    let (title, fenced) = if low {
        (String::new(), fence::block(&i.title, &i.uri))
    } else {
        (format!("  {}", i.title), String::new())
    };
    format!(
        "{}  [{}]{title}{pending}\n   {}  {}\n{fenced}",
        i.age, i.collection, i.uri, i.visible_at
    )
}
