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
    let engine = Engine::open_for(home, args)?;
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

/// Whether an answer's near-duplicates are collapsed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Collapse {
    Off,
    /// `brain ask`'s default: collapsed, nothing said of how.
    Quiet,
    /// Asked for (`--dedup`): collapsed, and without a vector store the answer says it compared
    /// words only ([`crate::dedup::WORDS_ONLY`]).
    Said,
}

/// `brain ask`'s answer (and `rank`'s, without `collapse`) with `engine`: the request built once
/// from `text` and `args` (defaults from the engine's strategy), searched, and with `collapse`
/// near-duplicates folded into the best of them, the list still `limit` documents long — when a
/// full list lost some, the same resolved request runs once more, deeper (only then: most answers
/// hold no near-duplicate). An expansion that failed is a warning of the answer.
pub fn answer(
    engine: &Engine,
    args: &RankArgs,
    text: &str,
    now: &Zoned,
    collapse: Collapse,
) -> Result<Answer, RunError> {
    let mut warnings = Vec::new();
    let req = args.request(engine.home(), text, now, engine.strategy(), &mut warnings)?;
    let mut ans = engine.search(&req, now)?;
    if collapse != Collapse::Off {
        let _t = brain_doc::timings::span("dedup");
        let want = req.limit;
        let full = distinct_docs(&ans.hits) >= want;
        let (mut hits, mut dropped) = collapsed(engine, std::mem::take(&mut ans.hits), want);
        if dropped > 0 && full {
            let mut deeper = req.clone();
            deeper.limit = want.saturating_mul(DEDUP_DEPTH).min(want + DEDUP_EXTRA_MAX);
            (hits, dropped) = collapsed(engine, engine.search(&deeper, now)?.hits, want);
        }
        ans.hits = hits;
        if collapse == Collapse::Said && !engine.has_stored_vectors() {
            ans.warnings.push(crate::dedup::WORDS_ONLY.to_string());
        }
        if dropped > 0 {
            ans.warnings.push(format!(
                "{dropped} near-duplicate hit(s) collapsed into the one above them"
            ));
        }
    }
    warnings.append(&mut ans.warnings);
    ans.warnings = warnings;
    Ok(ans)
}

/// A deduplicated answer that lost documents searches again this many times -n deep …
const DEDUP_DEPTH: usize = 3;
/// … but at most this many documents more (a `-n 500` does not search 1,500 deep).
const DEDUP_EXTRA_MAX: usize = 40;

/// The number of documents `hits` holds (`--per-doc` passages count once).
fn distinct_docs(hits: &[brain_doc::Hit]) -> usize {
    let mut seen = std::collections::HashSet::new();
    hits.iter().filter(|h| seen.insert(h.uri.as_str())).count()
}

/// `hits` without the near-duplicates of a better document, cut to `want` documents, ranks
/// numbered again; and how many went. Documents are compared by their best passage (title,
/// snippet, its stored vector: a paraphrase is a duplicate too, no model loaded); the other
/// passages `--per-doc` asked for stay with their document.
fn collapsed(
    engine: &Engine,
    mut hits: Vec<brain_doc::Hit>,
    want: usize,
) -> (Vec<brain_doc::Hit>, usize) {
    let store = brain_vec::store::Store::open(&engine.home().vectors()).ok();
    let vectors = |wanted: &[(String, Option<u64>)]| match &store {
        Some(s) => crate::dedup::stored_vectors(s, wanted),
        None => vec![None; wanted.len()],
    };
    let mut seen = std::collections::HashSet::new();
    let firsts: Vec<brain_doc::Hit> = hits
        .iter()
        .filter(|h| seen.insert(h.uri.clone()))
        .cloned()
        .collect();
    let (kept, dropped) = crate::dedup::dedup_hits(firsts, &vectors, engine.dedup_thresholds());
    let kept: std::collections::HashSet<String> = kept.into_iter().map(|h| h.uri).collect();
    hits.retain(|h| kept.contains(&h.uri));
    crate::fusion::truncate_docs(&mut hits, want);
    for (i, h) in hits.iter_mut().enumerate() {
        h.rank = i as u32 + 1;
    }
    (hits, dropped)
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
    Ok(hits)
}
