//! One query from command-line arguments to hits: what `rank` and `brain ask` both do (the CLI front
//! door; MCP, `brain eval`, `brain tune`, `brain context` and `brain browse` build their requests
//! with the same builder, [`Engine::request`]).

use brain_store::Home;
use jiff::Zoned;

use crate::args::RankArgs;
use crate::engine::{Answer, Engine};
use crate::error::RunError;

/// Build the request of `text` with the flags of `args`, open the engine of `home` and search. An
/// expansion that failed is a warning of the answer. For one-shot processes: the engine is not torn
/// down (see below) — a long-lived caller opens an [`Engine`] once and calls [`Engine::search`].
pub fn search(home: &Home, args: &RankArgs, text: &str, now: &Zoned) -> Result<Answer, RunError> {
    let engine = Engine::open_team(home, args.engine.as_deref(), args.own)?;
    let ans = answer(&engine, args, text, now, Collapse::Off);
    leave(engine);
    ans
}

/// A one-shot process (`brain ask`, `rank`) leaves its engine to the exit: tearing it down (the
/// tokenizer's tables, the model's tensors, the index readers) took 11–12 ms of a 70 ms fresh
/// hybrid query, and the OS reclaims it all at once. A server keeps one Engine for its life.
pub fn leave(engine: Engine) {
    std::mem::forget(engine);
}

pub use crate::dedup::Collapse;

/// `brain ask`'s answer (and `rank`'s, without `collapse`) with `engine`: the request built once
/// from `text` and `args` (defaults from the engine's strategy), with `collapse` folding
/// near-duplicates into the best of them ([`Engine::search`] refills the list when a full one
/// lost some), searched. An expansion that failed is a warning of the answer.
pub fn answer(
    engine: &Engine,
    args: &RankArgs,
    text: &str,
    now: &Zoned,
    collapse: Collapse,
) -> Result<Answer, RunError> {
    let mut warnings = Vec::new();
    let mut req = args.request(engine.home(), text, now, engine.strategy(), &mut warnings)?;
    req.collapse = collapse;
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
    // Saved lists name no model: cosines are read on the default scale.
    crate::strength::apply(&mut hits, brain_vec::catalog::DEFAULT_COSINE);
    hits.retain(|h| crate::strength::clears(h, args.min_score.unwrap_or(0.0)));
    crate::fusion::truncate_docs(&mut hits, opts.limit);
    crate::strength::follow_rank(&mut hits);
    hits.retain(|h| crate::strength::clears(h, args.min_score.unwrap_or(0.0)));
    Ok(hits)
}
