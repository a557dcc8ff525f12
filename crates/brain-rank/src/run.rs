//! One query from command-line arguments to hits: what `rank` and `brain ask` both do.

use brain_doc::ErrorCode;
use brain_store::Home;
use jiff::Zoned;

use crate::args::RankArgs;
use crate::engine::Engine;
use crate::querydoc::QueryDocError;
use crate::strategy::StrategyError;
use crate::{QueryError, RankError};

/// Why a query produced no answer.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error("bad query: {0}")]
    Query(#[from] QueryError),
    #[error("bad query document: {0}")]
    QueryDoc(#[from] QueryDocError),
    #[error("{0}")]
    BadInput(String),
    #[error(transparent)]
    Strategy(#[from] StrategyError),
    #[error(transparent)]
    Rank(#[from] RankError),
    /// A part the search needs is missing or failed: lexical index, vector store, model, backend.
    #[error("{}", .0.message)]
    Unavailable(Unavailable),
}

/// A failure kept by value (an engine reports it on every call that needs the missing part).
#[derive(Debug, Clone, PartialEq)]
pub struct Unavailable {
    pub code: ErrorCode,
    pub message: String,
    pub fix: String,
}

impl RunError {
    /// The exit-code class: bad query 64, missing index or model 65, timeout 66, else internal.
    pub fn code(&self) -> ErrorCode {
        match self {
            RunError::Query(_)
            | RunError::QueryDoc(_)
            | RunError::BadInput(_)
            | RunError::Strategy(_) => ErrorCode::BadQuery,
            RunError::Rank(e) => e.code(),
            RunError::Unavailable(u) => u.code,
        }
    }

    /// What to do about it.
    pub fn fix(&self) -> String {
        match self {
            RunError::Query(_) => {
                "quote phrases with \"…\", use -word to exclude, field:value for collection/project/agent/since/until (docs/query.md)".into()
            }
            RunError::QueryDoc(_) => {
                "start every line with lex:, vec:, hyde: or intent: (docs/query.md)".into()
            }
            RunError::Strategy(_) => "fix or remove $BRAIN_HOME/search_strategy.yaml".into(),
            RunError::BadInput(_) => String::new(),
            RunError::Rank(e) => e.fix().into(),
            RunError::Unavailable(u) => u.fix.clone(),
        }
    }
}

/// Build the request of `text` with the flags of `args`, open the engine of `home` and search. An
/// expansion that failed is a warning of the answer.
pub fn search(
    home: &Home,
    args: &RankArgs,
    text: &str,
    now: &Zoned,
) -> Result<crate::engine::Answer, RunError> {
    let engine = Engine::open(home)?;
    let mut warnings = Vec::new();
    let req = args.request(home, text, now, engine.strategy(), &mut warnings)?;
    let mut ans = engine.search(&req, now)?;
    warnings.append(&mut ans.warnings);
    ans.warnings = warnings;
    Ok(ans)
}

/// `rank --fuse`: read each file as a hit list in rank order and fuse them (see
/// [`crate::fusion::fuse_hits`]). A list whose hits carry a `bm25` signal is lexical, else a vector
/// list. Malformed lines go to `warn` and are skipped.
pub fn fuse_files(
    home: &Home,
    args: &RankArgs,
    warn: &dyn Fn(String),
) -> Result<Vec<brain_doc::Hit>, RunError> {
    let strategy = crate::Strategy::load(&home.root().join(crate::Strategy::FILE))?;
    let opts = args.options(&strategy);
    let mut lists = Vec::new();
    for (i, path) in args.fuse.iter().enumerate() {
        let file = std::fs::File::open(path)
            .map_err(|e| RunError::BadInput(format!("--fuse {}: {e}", path.display())))?;
        let mut hits: Vec<brain_doc::Hit> = Vec::new();
        let reader = brain_doc::ndjson::Reader::new(
            std::io::BufReader::new(file),
            path.display().to_string(),
        );
        for item in reader {
            match item {
                Ok(Ok(h)) => hits.push(h),
                Ok(Err(e)) => warn(e.to_string()),
                Err(e) => {
                    return Err(RunError::BadInput(format!(
                        "--fuse {}: {e}",
                        path.display()
                    )));
                }
            }
        }
        let kind = if hits.iter().any(|h| h.signals.contains_key("bm25")) {
            "lex"
        } else {
            "vec"
        };
        let weight = args.weights.get(i).copied().unwrap_or(if i == 0 {
            strategy.fusion.original_weight
        } else {
            1.0
        });
        let texts = vec![String::new(); hits.len()];
        lists.push(crate::fusion::HitList::new(kind, weight, hits, texts));
    }
    let mut hits = crate::fusion::fuse_hits(&lists, &strategy.fusion, opts.per_doc);
    hits.retain(|h| h.score >= args.min_score);
    crate::fusion::truncate_docs(&mut hits, opts.limit);
    Ok(hits)
}

/// The time queries are relative to: now, or `$BRAIN_NOW` (RFC 3339) when set — for reproducible
/// golden files and evaluations, where `since:7d` and age labels must not drift with the calendar.
pub fn now() -> Zoned {
    std::env::var("BRAIN_NOW")
        .ok()
        .and_then(|s| s.parse::<jiff::Timestamp>().ok())
        .unwrap_or_else(jiff::Timestamp::now)
        .to_zoned(local_tz())
}

/// The system time zone. Without `$TZ` it is read straight from `/etc/localtime` (named after the
/// link's target): jiff's `TimeZone::system()` first lists the whole zoneinfo directory (~1,800
/// entries), ~6 % of a fresh `brain ask`. Anything unusual falls back to `TimeZone::system()`.
pub fn local_tz() -> jiff::tz::TimeZone {
    static TZ: std::sync::OnceLock<jiff::tz::TimeZone> = std::sync::OnceLock::new();
    TZ.get_or_init(|| {
        let local = std::path::Path::new("/etc/localtime");
        if std::env::var_os("TZ").is_none()
            && let Ok(bytes) = std::fs::read(local)
        {
            let name = std::fs::read_link(local)
                .ok()
                .and_then(|p| {
                    let p = p.to_string_lossy().into_owned();
                    p.find("zoneinfo/")
                        .map(|i| p[i + "zoneinfo/".len()..].to_string())
                })
                .unwrap_or_else(|| "Local".into());
            if let Ok(tz) = jiff::tz::TimeZone::tzif(&name, &bytes) {
                return tz;
            }
        }
        jiff::tz::TimeZone::system()
    })
    .clone()
}
