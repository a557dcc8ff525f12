//! The ranking arguments `rank` and `brain ask` share (clap derive; the doc comments are the `--help`).

use jiff::Zoned;

use crate::query::{Edge, Query, QueryError, parse_time};
use crate::rank::RankOptions;
use crate::strategy::Strategy;

/// What to search for and how many hits.
#[derive(Debug, Clone, clap::Args)]
pub struct RankArgs {
    /// The query: words (OR, documents with all of them first), "phrases", -excluded,
    /// collection:/project:/agent:/since:/until: filters. Read from stdin when absent. Quote a query
    /// that starts with -word (`rank "lock -draft"`) or put it after `--`.
    #[arg(value_name = "QUERY")]
    pub query: Vec<String>,

    /// Number of documents to return.
    #[arg(short = 'n', long, value_name = "N")]
    pub limit: Option<usize>,

    /// Passages per document (a long transcript can answer with several).
    #[arg(long, value_name = "N")]
    pub per_doc: Option<usize>,

    /// Only this collection (repeatable).
    #[arg(short = 'c', long = "collection", value_name = "NAME")]
    pub collections: Vec<String>,

    /// Only this project (`meta.project`; repeatable).
    #[arg(long = "project", value_name = "NAME")]
    pub projects: Vec<String>,

    /// Only this agent (claude, codex, gemini, chrome, …; repeatable).
    #[arg(long = "agent", value_name = "NAME")]
    pub agents: Vec<String>,

    /// Only documents dated since: 24h, 7d, 2w, 3mo, 1y, today, yesterday, YYYY-MM-DD, RFC 3339.
    #[arg(long, value_name = "WHEN")]
    pub since: Option<String>,

    /// Only documents dated until (a bare date includes the whole day).
    #[arg(long, value_name = "WHEN")]
    pub until: Option<String>,
}

impl RankArgs {
    /// The query text: the arguments joined, or `stdin_text` when there are none.
    pub fn text(
        &self,
        stdin_text: impl FnOnce() -> std::io::Result<String>,
    ) -> std::io::Result<String> {
        if self.query.is_empty() {
            stdin_text()
        } else {
            Ok(self.query.join(" "))
        }
    }

    /// Parse `text` and merge the flag filters into it.
    pub fn parse(&self, text: &str, now: &Zoned) -> Result<Query, QueryError> {
        let mut q = Query::parse(text, now)?;
        let f = &mut q.filters;
        f.collections.extend(self.collections.iter().cloned());
        f.projects.extend(self.projects.iter().cloned());
        f.agents.extend(self.agents.iter().cloned());
        if let Some(s) = &self.since {
            f.since = Some(parse_time(s, now, Edge::Start)?);
        }
        if let Some(s) = &self.until {
            f.until = Some(parse_time(s, now, Edge::End)?);
        }
        Ok(q)
    }

    /// The ranking options: flags over the strategy file's values.
    pub fn options(&self, strategy: &Strategy) -> RankOptions {
        RankOptions {
            limit: self.limit.unwrap_or(strategy.limit).max(1),
            per_doc: self.per_doc.unwrap_or(strategy.per_doc).max(1),
            boosts: strategy.boosts(),
            snippets: true,
        }
    }
}
