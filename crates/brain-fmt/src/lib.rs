//! Renderers of hit streams, for `fmt` and `brain ask`.
//!
//! | format | for | what |
//! |---|---|---|
//! | [`Format::Terminal`] | people | numbered hits: title, `uri:line`, `#docid`, age label, snippet; colour and OSC 8 hyperlinks on a terminal (`NO_COLOR` respected); a freshness warning on old hits |
//! | [`Format::Json`] | scripts, agents | one envelope: `query`, `took_ms`, `count`, `hits`, `warnings` — an explicit empty result when nothing matched |
//! | [`Format::Files`] | `xargs` | each hit's file (or URI) once, in rank order |
//! | [`Format::Markdown`] | notes, agent context | a numbered list with links and quoted snippets |
//! | [`Format::Csv`] | spreadsheets | one row per hit, with a header |
//!
//! Age labels ("today", "yesterday", "N days ago") and the freshness threshold are in [`age`].
//!
//! The memory block (`<memory-context>`: `brain context`, the briefing, `fmt --context`) — its
//! record, markdown, token counts and budget fitting — is [`block`].
//!
//! A hit from a low-trust collection (`untrusted`) reaches an agent fenced
//! ([`brain_doc::fence`]): in JSON its title and snippet are wrapped in `<untrusted>…</untrusted>`,
//! in markdown its snippet is a fenced block; the terminal labels it `untrusted`.

pub mod age;
mod ansi;
pub mod args;
pub mod block;
mod csv_out;
mod envelope;
mod files;
mod markdown;
mod terminal;

use std::io::{self, Write};

use brain_doc::Hit;

pub use age::{age_label, history_warning, stale_warning};
pub use ansi::Paint;
pub use envelope::Envelope;

/// Output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Format {
    #[default]
    Terminal,
    Json,
    Files,
    Markdown,
    Csv,
}

/// How to render.
#[derive(Debug, Clone, Default)]
pub struct Options {
    pub format: Format,
    /// ANSI colour (terminal format only).
    pub color: bool,
    /// OSC 8 hyperlinks to the files (terminal format only).
    pub hyperlinks: bool,
    /// When a hit's age changes the answer, by kind (per-hit warnings), and past how many days the
    /// rest count in the list's one line ([`age::history_warning`]).
    pub freshness: brain_doc::memory::Freshness,
    /// The query, for the JSON envelope and headings.
    pub query: Option<String>,
    /// Show each hit's score signals (terminal and markdown formats; JSON and NDJSON always carry them).
    pub explain: bool,
    /// How the query's words about time were read, for the JSON envelope (`brain ask`).
    pub time: Option<brain_doc::TimeWindow>,
}

/// `h` as an agent may read it: a low-trust hit's title and snippet fenced inline.
pub fn fenced(h: &Hit) -> Hit {
    let mut h = h.clone();
    if h.untrusted {
        h.title = brain_doc::fence::inline(&h.title);
        h.snippet = brain_doc::fence::inline(&h.snippet);
    }
    h
}

/// Render `hits` to `out`. `took_ms` and `warnings` go into the JSON envelope (the other formats show
/// freshness warnings inline and leave other warnings to stderr).
pub fn render(
    hits: &[Hit],
    opts: &Options,
    took_ms: u64,
    warnings: &[String],
    out: &mut dyn Write,
) -> io::Result<()> {
    match opts.format {
        Format::Terminal => terminal::render(hits, opts, out),
        Format::Json => envelope::render(hits, opts, took_ms, warnings, out),
        Format::Files => files::render(hits, out),
        Format::Markdown => markdown::render(hits, opts, out),
        Format::Csv => csv_out::render(hits, out),
    }
}
