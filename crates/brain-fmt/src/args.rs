//! The rendering arguments `fmt` and `brain ask` share (clap derive; doc comments are the `--help`).

use crate::{Format, Options};

/// When to colour the terminal output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum ColorChoice {
    /// On a terminal, unless NO_COLOR is set.
    #[default]
    Auto,
    Always,
    Never,
}

/// How to print the hits.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct FmtArgs {
    /// One JSON envelope (query, took_ms, count, hits, warnings); an empty result is explicit.
    #[arg(long, group = "format")]
    pub json: bool,

    /// Only the files, one per line, for xargs.
    #[arg(long, group = "format")]
    pub files: bool,

    /// A markdown list.
    #[arg(long, group = "format")]
    pub md: bool,

    /// CSV with a header row.
    #[arg(long, group = "format")]
    pub csv: bool,

    /// Colour the terminal output.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto, value_name = "WHEN")]
    pub color: ColorChoice,

    /// Count session transcripts, browser days and notes older than this many days in one warning
    /// line for the list (facts, decisions, statuses and preferences are flagged on their own line
    /// past their own age: `freshness:` in search_strategy.yaml). 0 = never.
    /// [default: `freshness.history` of search_strategy.yaml, 0]
    #[arg(long, value_name = "DAYS")]
    pub stale_after: Option<i64>,

    /// Show every score signal under each hit (bm25, vec, rrf, ranks per list, rerank).
    #[arg(long)]
    pub explain: bool,
}

impl FmtArgs {
    /// The chosen format.
    pub fn format(&self) -> Format {
        match (self.json, self.files, self.md, self.csv) {
            (true, ..) => Format::Json,
            (_, true, ..) => Format::Files,
            (_, _, true, _) => Format::Markdown,
            (.., true) => Format::Csv,
            _ => Format::Terminal,
        }
    }

    /// Render options; `stdout_is_terminal` and `no_color` (NO_COLOR set and non-empty) decide colour
    /// and hyperlinks under `--color auto`.
    pub fn options(
        &self,
        query: Option<String>,
        stdout_is_terminal: bool,
        no_color: bool,
    ) -> Options {
        let color = match self.color {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => stdout_is_terminal && !no_color,
        };
        Options {
            format: self.format(),
            color,
            hyperlinks: stdout_is_terminal && self.color != ColorChoice::Never,
            freshness: brain_doc::memory::Freshness {
                history: self
                    .stale_after
                    .unwrap_or(brain_doc::memory::Freshness::default().history),
                ..Default::default()
            },
            query,
            explain: self.explain,
            time: None,
        }
    }
}
