//! The ranking arguments `rank` and `brain ask` share (clap derive; the doc comments are the `--help`).

use std::path::PathBuf;
use std::time::Duration;

use brain_store::Home;
use jiff::Zoned;

use crate::error::RunError;
use crate::querydoc::{QueryDoc, SearchKind};
use crate::rank::RankOptions;
use crate::request::SearchRequest;
use crate::route::Mode;
use crate::strategy::Strategy;

/// What to search for and how many hits.
#[derive(Debug, Clone, clap::Args)]
pub struct RankArgs {
    /// The query: words (OR, documents with all of them first), "phrases", -excluded,
    /// collection:/project:/agent:/type:/tag:/since:/until: filters. Read from stdin when absent; a query whose
    /// first line is `lex:`, `vec:`, `hyde:` or `intent:` is a structured query document (one typed
    /// sub-query per line, QMD's format). Quote a query that starts with -word (`rank "lock -draft"`)
    /// or put it after `--`.
    #[arg(value_name = "QUERY")]
    pub query: Vec<String>,

    /// How to search: auto routes literal queries (paths, flags, identifiers, quoted or error text)
    /// to lex, other queries to hybrid when a vector index exists, and "yesterday"/"last week" to a
    /// date window (or the newest documents when nothing else is asked).
    #[arg(long, value_enum, default_value_t = Mode::Auto)]
    pub mode: Mode,

    /// Read a structured query document (lex:/vec:/hyde:/intent: lines) from FILE (`-` = stdin).
    #[arg(long, value_name = "FILE", conflicts_with = "query")]
    pub query_doc: Option<PathBuf>,

    /// A hypothetical answer to search with as well (HyDE): what you expect the document to say.
    #[arg(long, value_name = "TEXT")]
    pub hyde: Option<String>,

    /// Ask this shell command for more lex:/vec:/hyde: lines (query on stdin; answers cached in
    /// $BRAIN_HOME/cache/expand).
    #[arg(long, value_name = "CMD")]
    pub expand_cmd: Option<String>,

    /// Seconds the --expand-cmd command may take before the search goes on without it.
    #[arg(long, value_name = "SECS", default_value_t = crate::expand::DEFAULT_TIMEOUT.as_secs_f64())]
    pub expand_timeout: f64,

    /// Rescore the top candidates with the cross-encoder (`brain model fetch reranker` installs
    /// ms-marco-MiniLM-L-12-v2; a folder at $BRAIN_HOME/models/reranker or $BRAIN_RERANKER wins).
    #[arg(long)]
    pub rerank: bool,

    /// Drop hits whose match strength is below X (0–1, the same scale for every query: the share
    /// of the query's words a hit holds, or its cosine; below 0.3 is weak). Without it, weak hits
    /// to a short query with a word the memory never held ("zzqxv nonexistent") are "no
    /// results", exit 67; `--min-score 0` shows them.
    #[arg(long, value_name = "X", value_parser = unit_interval)]
    pub min_score: Option<f64>,

    /// Fuse ranked hit lists instead of searching: each FILE holds hit NDJSON in rank order (e.g.
    /// saved `rank --mode lex` and `rank --mode vec` outputs); reciprocal rank fusion as hybrid
    /// search does it. Repeat for each list.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["query", "query_doc"])]
    pub fuse: Vec<PathBuf>,

    /// Weights of the --fuse lists, comma-separated, in order [default: the first list
    /// fusion.original_weight (2), the others 1].
    #[arg(long, value_name = "W,W,…", value_delimiter = ',', requires = "fuse")]
    pub weights: Vec<f64>,

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

    /// Only documents dated since: 10m, 24h, 7d, 2w, 3mo, 1y, today, yesterday, YYYY-MM-DD, RFC 3339.
    #[arg(long, value_name = "WHEN")]
    pub since: Option<String>,

    /// Only documents dated until (a bare date includes the whole day).
    #[arg(long, value_name = "WHEN")]
    pub until: Option<String>,

    /// Only records of this memory type (fact, decision, preference, …; repeatable).
    #[arg(long = "type", value_name = "TYPE")]
    pub types: Vec<String>,

    /// Only records with this tag (repeatable: any of).
    #[arg(long = "tag", value_name = "TAG")]
    pub tags: Vec<String>,

    /// Only records in this decay tier: hot (created or read in the last 7 days), warm (8-30),
    /// cold (older); five reads make a record one tier warmer (repeatable: any of).
    #[arg(long = "tier", value_name = "TIER", value_parser = ["hot", "warm", "cold"])]
    pub tiers: Vec<String>,

    /// Show superseded, expired and archived records too, marked as such (nothing is deleted:
    /// they are only hidden by default).
    #[arg(long)]
    pub include_superseded: bool,

    /// What was current at WHEN (a date, RFC 3339, or 3mo/1y ago): records superseded or expired
    /// since come back, records that happened later are left out.
    #[arg(long, value_name = "WHEN", conflicts_with = "include_superseded")]
    pub as_of: Option<String>,

    /// Search a team engine instead of this home's indexes: its URL, or a name in brain.yaml's
    /// team.engines (docs/team.md). The same query language; brain's fusion and signals.
    #[arg(long, value_name = "URL|NAME")]
    pub engine: Option<String>,

    /// With --engine: only documents this home sent (its author), not the whole team's.
    #[arg(long, requires = "engine")]
    pub own: bool,

    /// Answer as if it were now WHEN (RFC 3339, or YYYY-MM-DD read as noon local time): what
    /// "yesterday", "last week" and `since:7d` count back from [default: $BRAIN_NOW, else the clock].
    #[arg(long, value_name = "WHEN")]
    pub now: Option<String>,
}

/// A number from 0 to 1 (`--min-score`): anything else, NaN included, is a usage error (exit 64).
fn unit_interval(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(x) if (0.0..=1.0).contains(&x) => Ok(x),
        _ => Err(format!("`{s}` is not a number from 0 to 1")),
    }
}

impl RankArgs {
    /// The query text: the arguments joined, or what `read_stdin` reads when there are none. Bytes
    /// that are not UTF-8 are a bad query (exit 64), not an internal error.
    pub fn text(
        &self,
        read_stdin: impl FnOnce() -> std::io::Result<Vec<u8>>,
    ) -> Result<String, RunError> {
        if !self.query.is_empty() {
            return Ok(self.query.join(" "));
        }
        let bytes = read_stdin().map_err(RunError::Stdin)?;
        brain_doc::bytes::query(&bytes)
            .map(str::to_string)
            .map_err(|at| RunError::BadInput(format!("the query on stdin is not UTF-8 ({at})")))
    }

    /// The whole request: the query text (or --query-doc) parsed once, flags and expansions applied,
    /// through the one request builder. Warnings (an expansion that failed, an expansion line that
    /// does not parse) are appended to `warnings`.
    pub fn request(
        &self,
        home: &Home,
        text: &str,
        now: &Zoned,
        strategy: &Strategy,
        warnings: &mut Vec<String>,
    ) -> Result<SearchRequest, RunError> {
        let builder = SearchRequest::builder(now, strategy);
        let mut b = match &self.query_doc {
            Some(p) if p.as_os_str() == "-" => builder.document(QueryDoc::parse(text)?)?,
            Some(p) => {
                let t = std::fs::read_to_string(p)
                    .map_err(|e| RunError::BadInput(format!("--query-doc {}: {e}", p.display())))?;
                builder.document(QueryDoc::parse(&t)?)?
            }
            None => builder.text(text)?,
        }
        .scope(&self.collections, &self.projects, &self.agents)
        .kinds(&self.types, &self.tags)
        .tiers(&self.tiers)?
        .lifecycle(self.include_superseded, self.as_of.as_deref())?
        .since(self.since.as_deref())?
        .until(self.until.as_deref())?
        .limit_or_strategy(self.limit, self.per_doc)
        .mode(self.mode)
        .rerank(self.rerank)
        .min_score(self.min_score);
        if let Some(h) = self.hyde.as_deref().filter(|h| !h.trim().is_empty()) {
            b = b.line(SearchKind::Hyde, h)?;
        }
        if let Some(cmd) = &self.expand_cmd {
            let timeout = Duration::from_secs_f64(self.expand_timeout.max(0.1));
            let original = b.original_text().to_string();
            let intent = b.intent_text().map(str::to_string);
            match crate::expand::expand(home, cmd, &original, intent.as_deref(), timeout) {
                Ok(lines) => {
                    for l in lines {
                        // Expansion may only add recall: a line that does not parse is skipped.
                        if let Err(e) = b.add_line(l.kind, &l.text) {
                            warnings.push(format!("expansion line `{}` skipped: {e}", l.text));
                        }
                    }
                }
                Err(w) => warnings.push(w),
            }
        }
        Ok(b.build())
    }

    /// The ranking options: flags over the strategy file's values.
    pub fn options(&self, strategy: &Strategy) -> RankOptions {
        RankOptions {
            limit: self.limit.unwrap_or(strategy.limit).max(1),
            per_doc: self.per_doc.unwrap_or(strategy.per_doc).max(1),
            boosts: strategy.boosts(),
            snippets: true,
            pool: strategy.pool,
        }
    }
}
