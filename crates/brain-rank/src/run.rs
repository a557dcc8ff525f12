//! One query from command-line arguments to hits: what `rank` and `brain ask` both do.

use brain_doc::{ErrorCode, Hit};
use brain_store::Home;
use jiff::Zoned;

use crate::args::RankArgs;
use crate::strategy::{Strategy, StrategyError};
use crate::{QueryError, RankError, Ranker};

/// Why a query produced no answer.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error("bad query: {0}")]
    Query(#[from] QueryError),
    #[error(transparent)]
    Strategy(#[from] StrategyError),
    #[error(transparent)]
    Rank(#[from] RankError),
}

impl RunError {
    /// The exit-code class: bad query 64, missing index 65, bad strategy file 64, else internal.
    pub fn code(&self) -> ErrorCode {
        match self {
            RunError::Query(_) | RunError::Strategy(_) => ErrorCode::BadQuery,
            RunError::Rank(e) => e.code(),
        }
    }

    /// What to do about it.
    pub fn fix(&self) -> &'static str {
        match self {
            RunError::Query(_) => {
                "quote phrases with \"…\", use -word to exclude, field:value for collection/project/agent/since/until (docs/query.md)"
            }
            RunError::Strategy(_) => "fix or remove $BRAIN_HOME/search_strategy.yaml",
            RunError::Rank(e) => e.fix(),
        }
    }
}

/// Parse `text` with the flags of `args`, open the index of `home` and rank.
pub fn search(home: &Home, args: &RankArgs, text: &str, now: &Zoned) -> Result<Vec<Hit>, RunError> {
    let query = args.parse(text, now)?;
    let strategy = Strategy::load(&home.root().join(Strategy::FILE))?;
    let ranker = Ranker::open(home)?;
    Ok(ranker.rank(&query, &args.options(&strategy), now.timestamp())?)
}

/// The time queries are relative to: now, or `$BRAIN_NOW` (RFC 3339) when set — for reproducible
/// golden files and evaluations, where `since:7d` and age labels must not drift with the calendar.
pub fn now() -> Zoned {
    std::env::var("BRAIN_NOW")
        .ok()
        .and_then(|s| s.parse::<jiff::Timestamp>().ok())
        .map_or_else(Zoned::now, |t| t.to_zoned(jiff::tz::TimeZone::system()))
}
