//! Filling a budget (seed 002's order): guaranteed records first, then whole threads that fit, then
//! the best remaining records, cold ones (past the task's best matches) last; near-duplicates left
//! out; every choice ordered so the same inputs give the same bytes.

use std::collections::{BTreeMap, HashSet};

use brain_doc::Hit;
use brain_store::Config;
use brain_store::access::{Rehearsal, Tier};
use serde_json::Value;

use crate::fit::Fit;
use crate::item::{Item, LeftOut, Section};
use crate::tokens;

/// Most tokens one record brings: a longer document brings the passage the search found, cut at a
/// line (our choice, 2026-11-25: a 20,000-token block then holds at least 30 records).
pub const ITEM_MAX_TOKENS: usize = 600;

/// The words of `task` a cut session's lines are matched by: lower case, at least four letters,
/// no question words nor fillers; each once, at most [`MAX_TASK_TERMS`] (the first in sorted order).
pub fn task_terms(task: &str) -> Vec<String> {
    const FILLERS: [&str; 16] = [
        "after", "also", "before", "each", "instead", "into", "other", "over", "than", "that",
        "then", "there", "these", "this", "those", "with",
    ];
    let mut t: Vec<String> = brain_rank::route::words(task)
        .1
        .into_iter()
        .filter(|w| w.chars().count() >= 4)
        .filter(|w| {
            brain_rank::route::QUESTION_WORDS
                .binary_search(&w.as_str())
                .is_err()
        })
        .filter(|w| !FILLERS.contains(&w.as_str()))
        .collect();
    t.sort();
    t.dedup();
    // A task of a thousand words is bounded: every line of a cut session is tried against each.
    t.truncate(MAX_TASK_TERMS);
    t
}

/// Most task words a line is matched against ([`task_terms`]).
pub const MAX_TASK_TERMS: usize = 32;

/// Fewest tokens a record is cut to however small the budget: below it a passage is a line or two.
pub const ITEM_MIN_TOKENS: usize = 120;

/// A small budget holds at least this many records' passages ([`item_cap`]).
pub const ITEMS_PER_BUDGET: usize = 4;

/// Most tokens one record brings in a block of `budget` tokens: a quarter of the budget, from
/// [`ITEM_MIN_TOKENS`] to [`ITEM_MAX_TOKENS`] — so a 1,000-token block carries the passages of
/// several records, not one record's 600 tokens (evidence in context, issue 56, on bench/recall's
/// judged evidence at 1,000 / 2,000 tokens, the user's words at half of each record: a quarter
/// 0.58 / 0.68, a third 0.65 / 0.68 — but a third leaves a small block three records, too few for
/// questions that span sessions).
pub fn item_cap(budget: usize) -> usize {
    (budget / ITEMS_PER_BUDGET).clamp(ITEM_MIN_TOKENS, ITEM_MAX_TOKENS)
}

/// Largest file read for its text; a bigger one brings its snippet only.
const MAX_FILE_BYTES: u64 = 8 * 1024 * 1024;

/// A body longer than this many bytes per token of the cap is never counted whole: at 8 bytes a
/// token (more than prose or code take in cl100k) it could not fit anyway, and counting it would
/// be wasted.
const BYTES_PER_TOKEN_AT_MOST: usize = 8;

/// How to fill.
#[derive(Debug, Clone, Copy)]
pub struct Fill<'a> {
    pub dedup: bool,
    /// Unix seconds (tiers).
    pub now: i64,
    /// Most tokens one record brings ([`item_cap`] of the budget).
    pub cap: usize,
    /// The task's words a cut session's lines are matched by ([`task_terms`]).
    pub terms: &'a [String],
}

/// Read hit `h` as an item of `section`, at most `cap` tokens of it, or `None` when its document
/// is not servable. A record of a low-trust collection is fenced whatever the hit says (the
/// recency walk marks no trust).
pub(crate) fn item(
    config: &Config,
    h: &Hit,
    section: Section,
    cap: usize,
    terms: &[String],
) -> Option<Item> {
    let file = brain_store::walk::servable(config, &h.collection, &h.path).ok()?;
    let meta = std::fs::metadata(&file).ok()?;
    let mut contradicts = None;
    let mut title = h.title.clone();
    let (text, line, keys, whole) = if meta.len() > MAX_FILE_BYTES {
        (h.snippet.clone(), h.line, Vec::new(), false)
    } else {
        let raw = std::fs::read(&file).ok()?;
        let raw = brain_doc::bytes::text(&raw).0;
        let facts = brain_doc::file::FileFacts::read(&h.path, &raw, 0);
        title = brain_doc::title::shown(&h.title, facts.body);
        let keys = thread_keys(&facts.frontmatter, h);
        if facts.frontmatter.contains_key("relations") {
            contradicts = brain_doc::links::read(&facts.frontmatter, "", 0)
                .relations
                .into_iter()
                .find(|r| r.kind == brain_doc::links::RelationKind::Contradicts)
                .map(|r| r.target);
        }
        let body = facts.body.trim();
        if body.len() <= cap * BYTES_PER_TOKEN_AT_MOST && tokens::count(body) <= cap {
            (body.to_string(), facts.body_line, keys, true)
        } else {
            let start = h.line.max(facts.body_line);
            (
                excerpt(&raw, facts.body, facts.body_line, start, cap, terms),
                start,
                keys,
                false,
            )
        }
    };
    Some(Item {
        section,
        thread: None,
        id: format!("{}/{}", h.collection, h.path),
        uri: h.uri.clone(),
        line,
        title,
        date: h.date.clone(),
        age: brain_fmt::age::age_label(h.age_days),
        age_days: h.age_days,
        confidence: h.memory.as_ref().map(|m| m.confidence),
        untrusted: h.untrusted || config.is_low_trust(&h.collection),
        cold: false,
        contradicts,
        score: if section == Section::Always {
            0.0
        } else {
            h.score
        },
        whole,
        tokens: 0,
        text,
        keys,
    })
}

/// The lines of `raw` from 1-based line `start` on, until `cap` tokens (a line that would pass it
/// ends the passage; a first line longer than that is cut at a character); the passage and the
/// line after its last.
fn passage(raw: &str, start: u64, cap: usize) -> (String, u64) {
    let mut out = String::new();
    let mut used = 0;
    let mut end = start;
    for l in raw.lines().skip(start.saturating_sub(1) as usize) {
        let n = tokens::count(l) + 1;
        if used + n > cap {
            if out.is_empty() {
                let cut: String = l.chars().take(cap * 2).collect();
                out.push_str(&cut);
                end += 1;
            }
            break;
        }
        used += n;
        out.push_str(l);
        out.push('\n');
        end += 1;
    }
    (out.trim_end().to_string(), end)
}

/// Most of a cut record's tokens its user's own words may take ([`excerpt`]): a half (measured
/// beside a third, records at a quarter of the budget: evidence in context 0.58 against 0.52 at
/// 1,000 tokens, 0.68 against 0.65 at 2,000).
const ASKS_SHARE: usize = 2;

/// Most tokens one user turn brings to an excerpt (its first real line, shortened).
const ASK_TOKENS: usize = 60;

/// What a record too long to come whole brings: the passage the search found, from line `start`
/// of `raw`. A session's passage comes with what its user said around it — the first real line of
/// each user turn outside the passage: the session's first request (what it is about), then the
/// nearest to the passage, within half of `cap` — in the session's order: the user's own words
/// carry what was asked, decided and turned down (issue 56: on bench/recall's judged evidence, the
/// answer was a user turn near the matched passage, not in it, for most decision and rejection
/// questions). `body` starts at line `body_line` of `raw`.
fn excerpt(
    raw: &str,
    body: &str,
    body_line: u64,
    start: u64,
    cap: usize,
    terms: &[String],
) -> String {
    let turns = crate::sections::user_turns(body);
    if turns.is_empty() {
        return passage(raw, start, cap).0;
    }
    let asks_cap = cap / ASKS_SHARE;
    let (text, end) = passage(raw, start, cap - asks_cap);
    // Each turn outside the passage by its first real line, with its line in `raw`.
    let mut asks: Vec<(u64, String)> = turns
        .iter()
        .filter_map(|(line, t)| {
            let at = body_line + *line as u64 - 1;
            if (start..end).contains(&at) {
                return None;
            }
            let real = t.lines().map(str::trim).find(|l| {
                !brain_doc::title::is_housekeeping(l) && l.chars().any(char::is_alphanumeric)
            })?;
            Some((
                at,
                format!("**User**: {}", crate::sections::shorten(real, ASK_TOKENS)),
            ))
        })
        .collect();
    // The line elsewhere that holds most of the task's words (an answer the passage did not hold).
    let asked: HashSet<u64> = asks.iter().map(|(at, _)| *at).collect();
    let matching = matching_line(body, body_line, (start, end), &asked, terms);
    let matching_at = matching.as_ref().map(|(at, _)| *at);
    asks.extend(matching);
    // The session's first request first (what it is about), then the nearest to the passage.
    let first = asks.first().map(|(at, _)| *at);
    asks.sort_by_key(|(at, _)| {
        if Some(*at) == first || Some(*at) == matching_at {
            0
        } else if *at < start {
            start - at
        } else {
            at - end + 1
        }
    });
    let mut used = 0;
    let mut kept: Vec<(u64, String)> = Vec::new();
    for (at, line) in asks {
        let n = tokens::count(&line) + 1;
        if used + n > asks_cap {
            continue;
        }
        used += n;
        kept.push((at, line));
    }
    kept.sort_by_key(|(at, _)| *at);
    let mut out = String::new();
    for (_, line) in kept.iter().filter(|(at, _)| *at < start) {
        out.push_str(line);
        out.push_str("\n\n");
    }
    out.push_str(&text);
    for (_, line) in kept.iter().filter(|(at, _)| *at >= end) {
        out.push_str("\n\n");
        out.push_str(line);
    }
    out
}

/// Fewest of the task's words a line outside the passage must hold to be brought
/// ([`matching_line`]).
const MATCHING_LINE_TERMS: usize = 3;

/// The line of `body` (at `body_line` of the file) outside `passage` (its first line and the line
/// after its last) and not among `asked` that holds the most of `terms`, at least
/// [`MATCHING_LINE_TERMS`] (the first of equals), shortened; with its line in the file. On
/// bench/recall's judged evidence (1,000 / 2,000 / 4,000 tokens): 0.6129 / 0.6774 / 0.7097 without
/// it, 0.6452 / 0.7097 / 0.7742 with one such line (two: 0.7419 at 4,000; lines of 2 words: 0.5484
/// at 1,000; of 4: no gain).
fn matching_line(
    body: &str,
    body_line: u64,
    passage: (u64, u64),
    asked: &HashSet<u64>,
    terms: &[String],
) -> Option<(u64, String)> {
    let mut best: Option<(usize, u64, &str)> = None;
    for (i, l) in body.lines().enumerate() {
        let at = body_line + i as u64;
        if (passage.0..passage.1).contains(&at) || asked.contains(&at) || l.trim().is_empty() {
            continue;
        }
        let low = l.to_lowercase();
        let n = terms.iter().filter(|t| low.contains(t.as_str())).count();
        if n >= MATCHING_LINE_TERMS && best.is_none_or(|b| n > b.0) {
            best = Some((n, at, l));
        }
    }
    best.map(|(_, at, l)| (at, crate::sections::shorten(l.trim(), ASK_TOKENS)))
}

/// The threads a record belongs to: its memory `key`, its `threads:` values, its `entities:` and
/// its project (seed 002's threads, from what the records already say).
fn thread_keys(fm: &serde_json::Map<String, Value>, h: &Hit) -> Vec<String> {
    let mut keys = Vec::new();
    let list = |v: Option<&Value>| -> Vec<String> {
        match v {
            Some(Value::String(s)) => vec![s.trim().to_lowercase()],
            Some(Value::Array(a)) => a
                .iter()
                .filter_map(Value::as_str)
                .map(|s| s.trim().to_lowercase())
                .collect(),
            _ => Vec::new(),
        }
        .into_iter()
        .filter(|s| !s.is_empty())
        .collect()
    };
    keys.extend(list(fm.get("key")).into_iter().map(|k| format!("key:{k}")));
    keys.extend(
        list(fm.get("threads"))
            .into_iter()
            .map(|k| format!("thread:{k}")),
    );
    keys.extend(
        list(fm.get("entities"))
            .into_iter()
            .map(|k| format!("entity:{k}")),
    );
    if let Some(p) = h.project.as_deref().filter(|p| !p.is_empty()) {
        keys.push(format!("project:{p}"));
    }
    keys.sort();
    keys.dedup();
    keys
}

pub use brain_rank::dedup::Vectors;

/// What [`Vectors`] is asked for `items`.
fn wanted(items: &[&Item]) -> Vec<(String, Option<u64>)> {
    items
        .iter()
        .map(|i| (i.id.clone(), (!i.whole).then_some(i.line)))
        .collect()
}

/// The best hit per document, in the order given.
fn per_document(hits: Vec<Hit>) -> Vec<Hit> {
    let mut seen = HashSet::new();
    hits.into_iter()
        .filter(|h| seen.insert(format!("{}/{}", h.collection, h.path)))
        .collect()
}

/// What a fill reads besides the hits.
pub struct Sources<'a> {
    pub config: &'a Config,
    pub rehearsal: &'a Rehearsal,
    /// Entities and their aliases: records naming one entity by different names share a thread.
    pub entities: &'a brain_graph::Entities,
    pub vectors: Vectors<'a>,
    /// When two records are one (the strategy's `dedup`).
    pub dedup: crate::dedup::Thresholds,
}

/// A thread key `entity:<name>` as its entity's id when the name resolves to one (`entity:Sarah
/// Chen` and `entity:@schen` are one thread); other keys as they are.
fn canonical(key: String, entities: &brain_graph::Entities) -> String {
    match key.strip_prefix("entity:").map(|n| entities.lookup(n)) {
        Some(brain_graph::Lookup::One(i)) => format!("entity:{}", entities.get(i).id),
        _ => key,
    }
}

/// Fill the block (see the module docs) through `fit`. `guaranteed` newest first, `hits` best
/// first.
pub fn fill(src: &Sources<'_>, guaranteed: Vec<Hit>, hits: Vec<Hit>, f: Fill<'_>, fit: &mut Fit) {
    let (config, vectors) = (src.config, src.vectors);
    let mut always: Vec<Item> = Vec::new();
    for h in &guaranteed_first(guaranteed) {
        match item(config, h, Section::Always, f.cap, f.terms) {
            Some(i) => always.push(i),
            None => fit.left_out.unreadable += 1,
        }
    }
    let taken: HashSet<String> = always.iter().map(|i| i.id.clone()).collect();
    let (mut rest, mut lowered) = related(src, hits, &taken, f, &mut fit.left_out);
    // Near-duplicates: of a guaranteed record, or of a better record.
    if f.dedup {
        let all: Vec<&Item> = always.iter().chain(&rest).chain(&lowered).collect();
        let texts: Vec<&str> = all.iter().map(|i| i.text.as_str()).collect();
        let vecs = vectors(&wanted(&all));
        let dup = crate::dedup::duplicates_with(&texts, &vecs, src.dedup);
        fit.left_out.duplicates = dup.iter().filter(|d| d.is_some()).count();
        let mut keep = dup.iter().map(Option::is_none);
        always.retain(|_| keep.next().unwrap_or(true));
        rest.retain(|_| keep.next().unwrap_or(true));
        lowered.retain(|_| keep.next().unwrap_or(true));
    }
    for i in always
        .iter_mut()
        .chain(rest.iter_mut())
        .chain(lowered.iter_mut())
    {
        Fit::price(i);
    }
    for i in always {
        fit.take_or_count(i);
    }
    // In the order of the search: a record that belongs to a thread brings the whole thread where
    // it fits (its best-scored thread first), else comes alone — a thread of weaker matches never
    // takes the place of a better record.
    let ranked = threads(&rest, src.entities);
    let mut used = vec![false; rest.len()];
    for n in 0..rest.len() {
        if used[n] {
            continue;
        }
        for (_, name, members) in ranked.iter().filter(|t| t.2.contains(&n)) {
            let todo: Vec<usize> = members.iter().copied().filter(|&m| !used[m]).collect();
            if todo.len() < 2 {
                continue;
            }
            let need: usize = todo.iter().map(|&m| rest[m].tokens + 1).sum();
            if need + fit.heading_cost(Section::Thread) > fit.left() {
                continue;
            }
            for m in todo {
                let mut i = rest[m].clone();
                i.section = Section::Thread;
                i.thread = Some(name.clone());
                if fit.take(i) {
                    used[m] = true;
                }
            }
            break;
        }
        if !used[n] {
            used[n] = true;
            fit.take_or_count(rest[n].clone());
        }
    }
    for i in lowered {
        if !fit.take(i) {
            fit.left_out.cold += 1;
        }
    }
}

/// The guaranteed records in the order a block carries them: pinned first, then importance 5,
/// then the memory files (ME.md, MEMORY.md); newest first within each; each document once.
pub fn guaranteed_first(guaranteed: Vec<Hit>) -> Vec<Hit> {
    let mut g = per_document(guaranteed);
    g.sort_by_key(|h| {
        let m = h.memory.as_ref();
        (
            !m.is_some_and(|m| m.pinned),
            m.is_none_or(|m| m.importance < 5),
        )
    });
    g
}

/// The hits not already taken, as items in search order, split in two: cold lowers a record's
/// place, never removes one of the best matches (issue 40) — the first [`BEST_MATCHES`] keep their
/// place whatever their age; another cold hit goes to the second list, which waits behind every
/// warmer record, forms no thread, and is left out (as `cold`) only when the budget is spent.
fn related(
    src: &Sources<'_>,
    hits: Vec<Hit>,
    taken: &HashSet<String>,
    f: Fill<'_>,
    left: &mut LeftOut,
) -> (Vec<Item>, Vec<Item>) {
    let (now, cap) = (f.now, f.cap);
    let (config, rehearsal) = (src.config, src.rehearsal);
    let mut rest: Vec<Item> = Vec::new();
    let mut lowered: Vec<Item> = Vec::new();
    let hits = per_document(hits);
    let floor = weak_floor(hits.iter().map(|h| h.score));
    let (hits, weak): (Vec<Hit>, Vec<Hit>) = hits.into_iter().partition(|h| h.score >= floor);
    left.weak += weak.len();
    for (rank, h) in hits
        .into_iter()
        .filter(|h| !taken.contains(&format!("{}/{}", h.collection, h.path)))
        .enumerate()
    {
        let id = format!("{}/{}", h.collection, h.path);
        let created = brain_doc::file::parse_date(&h.date);
        let cold = Tier::of(created, &rehearsal.counts(&id), now) == Tier::Cold;
        match item(config, &h, Section::Related, cap, f.terms) {
            Some(mut i) => {
                i.cold = cold;
                if cold && rank >= BEST_MATCHES {
                    lowered.push(i);
                } else {
                    rest.push(i);
                }
            }
            None => left.unreadable += 1,
        }
    }
    (rest, lowered)
}

/// Threads: records sharing a key (entity names resolved to one entity), each scored by its best
/// relevance plus 0.1 × recency (halving every 30 days), best first; a thread of one is none.
fn threads(rest: &[Item], entities: &brain_graph::Entities) -> Vec<(f64, String, Vec<usize>)> {
    let mut threads: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (n, i) in rest.iter().enumerate() {
        let mut keys: Vec<String> = i
            .keys
            .iter()
            .map(|k| canonical(k.clone(), entities))
            .collect();
        keys.sort();
        keys.dedup();
        for k in keys {
            threads.entry(k).or_default().push(n);
        }
    }
    let mut ranked: Vec<(f64, String, Vec<usize>)> = threads
        .into_iter()
        .filter(|(_, m)| m.len() > 1)
        .map(|(name, m)| {
            let best = m.iter().map(|&n| rest[n].score).fold(0.0, f64::max);
            let newest = m
                .iter()
                .map(|&n| rest[n].age_days.max(0))
                .min()
                .unwrap_or(0);
            let recency = 0.5f64.powf(newest as f64 / 30.0);
            (best + 0.1 * recency, name, m)
        })
        .collect();
    ranked.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    ranked
}

/// A hit scoring below this share of the best hit's score brings nothing to a block (counted in
/// `left_out.weak`): the budget does not go to what barely matches the task. Measured by evidence
/// in context on bench/recall (auto with bge, 1,000 / 2,000 / 4,000 tokens; the share of the
/// blocks' record tokens from judged documents): no floor 0.6452 / 0.7097 / 0.7742 (0.32 / 0.25 /
/// 0.14); **0.2** 0.6452 / 0.7097 / 0.8065 (0.33 / 0.26 / 0.16); 0.3 the same evidence (0.35 /
/// 0.27 / 0.16) but it dropped the fixture vault's "billing release failed" note (0.28 of the best)
/// for "release the billing service"; 0.4 … / 0.7742; 0.5 … / 0.7419 (0.51 / 0.50 / 0.49). At 0.2,
/// lexically and in auto without vectors only 4,000 tokens moves: 0.7097 → 0.7419, 0.7419 → 0.7742.
pub const WEAK_SHARE: f64 = 0.2;

/// The score below which a hit is weak: [`WEAK_SHARE`] of the best positive score; none when no
/// score is positive (hits given on stdin may carry any scale), so nothing is weak then.
fn weak_floor(scores: impl Iterator<Item = f64>) -> f64 {
    let best = scores.fold(f64::NEG_INFINITY, f64::max);
    if best > 0.0 {
        WEAK_SHARE * best
    } else {
        f64::NEG_INFINITY
    }
}

/// The best matches of the search that keep their place in a block however cold they are.
pub const BEST_MATCHES: usize = 3;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_weak_floor_is_a_share_of_the_best_positive_score() {
        let floor = |scores: &[f64]| weak_floor(scores.iter().copied());
        assert_eq!(floor(&[1.0, 0.5, 0.1]), 0.2);
        // Hits given on stdin with no positive score: nothing is weak.
        assert_eq!(floor(&[-1.0, -3.0]), f64::NEG_INFINITY);
        assert_eq!(floor(&[0.0, 0.0]), f64::NEG_INFINITY);
        assert_eq!(floor(&[]), f64::NEG_INFINITY);
        assert_eq!(floor(&[f64::NAN, 2.0]), 0.4);
    }

    #[test]
    fn task_terms_keep_the_words_that_name_something_and_are_bounded() {
        assert_eq!(
            task_terms("why not just parse history.jsonl for /clear commands instead?"),
            ["clear", "commands", "history.jsonl", "parse"]
        );
        let long: String = (0..1000).map(|i| format!("word{i} ")).collect();
        assert_eq!(task_terms(&long).len(), MAX_TASK_TERMS);
        assert!(task_terms("what did we do").is_empty());
    }

    #[test]
    fn a_cut_session_brings_the_line_that_holds_the_task_elsewhere() {
        let body = "## Conversation\n\n**User**: plan the sync\n\n**Assistant**: options:\n1. Parse history.jsonl for /clear - Rejected: too brittle\n2. Watch files\n\n**User**: ok\n\nfiller\nfiller\nthe matched passage\n";
        let terms = task_terms("why not parse history.jsonl for clear commands");
        let asked = HashSet::new();
        let m = matching_line(body, 1, (13, 14), &asked, &terms);
        assert_eq!(
            m,
            Some((
                6,
                "1. Parse history.jsonl for /clear - Rejected: too brittle".to_string()
            ))
        );
        // Inside the passage, asked already, or fewer than three of the words: none.
        assert_eq!(matching_line(body, 1, (5, 8), &asked, &terms), None);
        assert_eq!(matching_line(body, 1, (13, 14), &[6].into(), &terms), None);
        assert_eq!(
            matching_line(body, 1, (13, 14), &asked, &task_terms("parse it")),
            None
        );
        let text = excerpt(body, body, 1, 13, 200, &terms);
        assert!(text.starts_with("**User**: plan the sync"), "{text}");
        assert!(text.contains("Rejected: too brittle"), "{text}");
        assert!(text.contains("the matched passage"), "{text}");
    }
}
