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

/// Largest file read for its text; a bigger one brings its snippet only.
const MAX_FILE_BYTES: u64 = 8 * 1024 * 1024;

/// A body longer than this is never counted whole: at 8 bytes a token (more than prose or code
/// take in cl100k) it could not fit [`ITEM_MAX_TOKENS`] anyway, and counting it would be wasted.
const WHOLE_BODY_BYTES: usize = ITEM_MAX_TOKENS * 8;

/// How to fill.
#[derive(Debug, Clone, Copy)]
pub struct Fill {
    pub dedup: bool,
    /// Unix seconds (tiers).
    pub now: i64,
}

/// Read hit `h` as an item of `section`, or `None` when its document is not servable. A record
/// of a low-trust collection is fenced whatever the hit says (the recency walk marks no trust).
pub(crate) fn item(config: &Config, h: &Hit, section: Section) -> Option<Item> {
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
        if body.len() <= WHOLE_BODY_BYTES && tokens::count(body) <= ITEM_MAX_TOKENS {
            (body.to_string(), facts.body_line, keys, true)
        } else {
            let start = h.line.max(facts.body_line);
            (passage(&raw, start), start, keys, false)
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

/// The lines of `raw` from 1-based line `start` on, until [`ITEM_MAX_TOKENS`] (a line that would
/// pass it ends the passage; a first line longer than that is cut at a character).
fn passage(raw: &str, start: u64) -> String {
    let mut out = String::new();
    let mut used = 0;
    for l in raw.lines().skip(start.saturating_sub(1) as usize) {
        let n = tokens::count(l) + 1;
        if used + n > ITEM_MAX_TOKENS {
            if out.is_empty() {
                let cut: String = l.chars().take(ITEM_MAX_TOKENS * 2).collect();
                out.push_str(&cut);
            }
            break;
        }
        used += n;
        out.push_str(l);
        out.push('\n');
    }
    out.trim_end().to_string()
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
pub fn fill(src: &Sources<'_>, guaranteed: Vec<Hit>, hits: Vec<Hit>, f: Fill, fit: &mut Fit) {
    let (config, vectors) = (src.config, src.vectors);
    let mut always: Vec<Item> = Vec::new();
    for h in &guaranteed_first(guaranteed) {
        match item(config, h, Section::Always) {
            Some(i) => always.push(i),
            None => fit.left_out.unreadable += 1,
        }
    }
    let taken: HashSet<String> = always.iter().map(|i| i.id.clone()).collect();
    let (mut rest, mut lowered) = related(src, hits, &taken, f.now, &mut fit.left_out);
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
    let ranked = threads(&rest, src.entities);
    let mut used = vec![false; rest.len()];
    for (_, name, members) in ranked {
        let todo: Vec<usize> = members.into_iter().filter(|&n| !used[n]).collect();
        if todo.len() < 2 {
            continue;
        }
        let need: usize = todo.iter().map(|&n| rest[n].tokens + 1).sum();
        if need + fit.heading_cost(Section::Thread) > fit.left() {
            continue;
        }
        for n in todo {
            let mut i = rest[n].clone();
            i.section = Section::Thread;
            i.thread = Some(name.clone());
            if fit.take(i) {
                used[n] = true;
            }
        }
    }
    for (n, i) in rest.into_iter().enumerate() {
        if !used[n] {
            fit.take_or_count(i);
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
    now: i64,
    left: &mut LeftOut,
) -> (Vec<Item>, Vec<Item>) {
    let (config, rehearsal) = (src.config, src.rehearsal);
    let mut rest: Vec<Item> = Vec::new();
    let mut lowered: Vec<Item> = Vec::new();
    for (rank, h) in per_document(hits)
        .into_iter()
        .filter(|h| !taken.contains(&format!("{}/{}", h.collection, h.path)))
        .enumerate()
    {
        let id = format!("{}/{}", h.collection, h.path);
        let created = brain_doc::file::parse_date(&h.date);
        let cold = Tier::of(created, &rehearsal.counts(&id), now) == Tier::Cold;
        match item(config, &h, Section::Related) {
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

/// The best matches of the search that keep their place in a block however cold they are.
pub const BEST_MATCHES: usize = 3;
