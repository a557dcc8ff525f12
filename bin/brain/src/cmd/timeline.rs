//! `brain timeline ANCHOR` — what happened just before and after a moment, across every agent,
//! note and browser day (brain_ops::timeline). Exit 67 when nothing is around it.

use std::io::Write;

use brain_cli::{Exit, Failure, Stdout};
use brain_doc::{ErrorCode, Hit};
use brain_ops::timeline::{self, DEFAULT_COUNT, DEFAULT_WINDOW_HOURS, Options};
use brain_store::Home;

#[derive(clap::Args)]
pub struct Args {
    /// A time (2026-03-04, RFC 3339, yesterday, 3d) or a document: brain://collection/path[:line]
    /// from a hit, #docid, a record's name, an agent's session id.
    #[arg(required = true)]
    anchor: Vec<String>,
    /// Documents before the moment.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_COUNT)]
    before: usize,
    /// Documents after the moment.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_COUNT)]
    after: usize,
    /// Hours on each side.
    #[arg(long, value_name = "HOURS", default_value_t = DEFAULT_WINDOW_HOURS)]
    window: i64,
    /// The timeline as one JSON record (anchor, before, after: hit records).
    #[arg(long)]
    json: bool,
    /// As if it were now WHEN (relative anchors count from it) [default: $BRAIN_NOW, else the clock].
    #[arg(long, value_name = "WHEN")]
    now: Option<String>,
}

pub fn run(home: &Home, a: Args) -> anyhow::Result<Exit> {
    let now = brain_rank::clock::at(a.now.as_deref()).map_err(Failure::from)?;
    let engine = brain_rank::Engine::open(home).map_err(Failure::from)?;
    let opts = Options {
        anchor: a.anchor.join(" "),
        before: a.before,
        after: a.after,
        window_hours: a.window,
    };
    let t = timeline::timeline(&engine, &opts, &now).map_err(Failure::from)?;
    let mut out = Stdout::new();
    if a.json {
        brain_doc::ndjson::write_line(&mut out, &t)?;
    } else {
        let line = |out: &mut Stdout, mark: &str, h: &Hit| -> std::io::Result<()> {
            let when = h.date.get(..16).unwrap_or(&h.date).replace('T', " ");
            let who = h.agent.as_deref().unwrap_or(&h.collection);
            let title = if h.untrusted {
                brain_doc::fence::inline(&h.title)
            } else {
                h.title.clone()
            };
            writeln!(out, "{mark} {when}  [{who}]  {title}")?;
            writeln!(out, "     brain://{}/{}:{}", h.collection, h.path, h.line)
        };
        for h in &t.before {
            line(&mut out, "  ", h)?;
        }
        match &t.anchor.doc {
            Some(h) => line(&mut out, "→", h)?,
            None => writeln!(out, "→ {}  (the moment asked)", t.anchor.at)?,
        }
        for h in &t.after {
            line(&mut out, "  ", h)?;
        }
    }
    out.flush()?;
    if t.before.is_empty() && t.after.is_empty() {
        eprintln!(
            "brain timeline: nothing within {} hours of {}",
            t.window_hours, t.anchor.at
        );
        return Ok(Exit::Code(ErrorCode::NoResults));
    }
    Ok(Exit::Success)
}
