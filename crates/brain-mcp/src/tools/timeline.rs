//! `timeline` — what happened just before and after a moment ([`brain_ops::timeline`], the same as
//! `brain timeline`): given a hit's `brain://…:line`, a `#docid`, a session id or a time, the
//! documents around it across every agent and the browser's days, bounded by count and window.
//! Titles from low-trust collections are fenced.

use brain_doc::{ErrorRecord, Hit, fence};
use brain_ops::timeline::{self, DEFAULT_COUNT, DEFAULT_WINDOW_HOURS, MAX_COUNT, Options};
use serde::Deserialize;
use serde_json::{Value, json};

use super::{Ctx, Output, Tool, decode, descriptor, input_schema};

pub const TOOL: Tool = Tool {
    name: "timeline",
    describe,
    run,
    writes: false,
};

#[derive(Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct Args {
    /// brain://…:line, #docid, session id, or a time.
    #[schemars(length(min = 1))]
    anchor: String,
    /// Default 5.
    #[schemars(range(max = MAX_COUNT))]
    before: Option<usize>,
    /// Default 5.
    #[schemars(range(max = MAX_COUNT))]
    after: Option<usize>,
    /// Hours each side (default 48).
    #[schemars(range(min = 1, max = timeline::MAX_WINDOW_HOURS))]
    window_hours: Option<i64>,
}

fn describe() -> Value {
    let input = input_schema::<Args>();
    let hits = json!({"type": "array"});
    let output = json!({
        "type": "object",
        "properties": {"anchor": {"type": "object"}, "before": hits, "after": hits},
        "required": ["anchor", "before", "after"]
    });
    descriptor(
        "timeline",
        "What happened around a moment",
        "What happened just before and after a hit or a time, across agents and the browser, oldest first.",
        input,
        output,
    )
}

fn line(h: &Hit) -> String {
    let when = h.date.get(..16).unwrap_or(&h.date).replace('T', " ");
    let who = h.agent.as_deref().unwrap_or(&h.collection);
    let title = if h.untrusted {
        fence::inline(&h.title)
    } else {
        h.title.clone()
    };
    format!(
        "{when} [{who}] {title} — brain://{}/{}:{}",
        h.collection, h.path, h.line
    )
}

fn run(ctx: &mut Ctx<'_>, args: Value) -> Result<Output, ErrorRecord> {
    let a: Args = decode(args)?;
    let opts = Options {
        anchor: a.anchor,
        before: a.before.unwrap_or(DEFAULT_COUNT),
        after: a.after.unwrap_or(DEFAULT_COUNT),
        window_hours: a.window_hours.unwrap_or(DEFAULT_WINDOW_HOURS),
    };
    let now = ctx.now.clone();
    let engine = ctx.handles.engine()?;
    let t = timeline::timeline(engine, &opts, &now).map_err(|e| ErrorRecord::of(&e))?;
    let mut text: Vec<String> = t.before.iter().map(line).collect();
    text.push(match &t.anchor.doc {
        Some(h) => format!("→ {}", line(h)),
        None => format!("→ {} (the moment asked)", t.anchor.at),
    });
    text.extend(t.after.iter().map(line));
    let structured = super::structured(&t)?;
    Ok(Output {
        text: text.join("\n"),
        count: t.before.len() + t.after.len(),
        structured,
    })
}
