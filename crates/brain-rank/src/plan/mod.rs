//! Routing, as a pure function: a [`SearchRequest`] and the time become a [`Plan`] — the mode, the
//! filters and the ranked lists to run with their fusion weights. No index is opened here; whether
//! vectors can be searched is asked through a callback (two file checks, made only when routing
//! needs the answer), so every rule below is tested without a home.
//!
//! * A plain query in `auto` mode: a temporal phrase ("last week", "yesterday") becomes a date
//!   window and leaves the text (only filler left → the recency walk); then literal → `lex`,
//!   conceptual → `hybrid` when vectors exist, else `lex`.
//! * A plain query becomes the lex + vec pair of its text, both weighted as the original; lines
//!   added to it (`--hyde`, expansions) follow with weight 1.
//! * A query document in `auto` mode: `hybrid` when it has vector lines and vectors exist; without
//!   vectors its vector lines are skipped with a warning (or, with no lex line, `vec` fails later
//!   with the reason).
//! * Lines the mode cannot run are dropped (with a warning when the mode was asked for).

use jiff::Zoned;

pub mod tries;

use crate::entity;
use crate::error::RunError;
use crate::query::{Filters, Plain, Query, QueryError};
use crate::querydoc::SearchKind;
use crate::request::{Line, SearchRequest};
use crate::route::{self, Mode};
use crate::strategy::Strategy;
use crate::when::{self, When};

/// One ranked list to run.
#[derive(Debug, Clone)]
pub struct List {
    pub kind: SearchKind,
    pub text: String,
    /// The parsed query of a lexical list (from the request; parsed here only when routing changed
    /// the text).
    pub query: Option<Query>,
    /// Its weight in fusion.
    pub weight: f64,
    /// Its name in fusion signals: `lex`, `vec`, `hyde`, or a soft filter's own lexical list
    /// (`window`, `project`).
    pub name: &'static str,
    /// The share of its weight and top-rank bonuses the router left it (a plain query's vector
    /// list: [`crate::strategy::HybridWeights`]; 1 for every other list), and why.
    pub share: f64,
    pub route: Option<route::VectorRoute>,
}

/// What a request will run.
#[derive(Debug, Clone)]
pub struct Plan {
    /// The mode the request resolved to (never `Auto`).
    pub mode: Mode,
    /// Filters for every list (the request's, plus a temporal window).
    pub filters: Filters,
    /// The lists, in request order (empty for the recency walk).
    pub lists: Vec<List>,
    /// The original query's text after routing (what the reranker reads).
    pub original: String,
    /// What the user should know about the routing (a date window read, lines skipped).
    pub warnings: Vec<String>,
    /// What the query said about time (auto mode): a soft window, a part of the day, an ordering.
    pub when: Option<When>,
    /// Projects and agents the query names (auto mode): soft boosts.
    pub named: Vec<entity::Named>,
}

impl Plan {
    /// The lists as `kind: text (weight w)`, for `--explain`.
    pub fn describe(&self) -> Vec<String> {
        if self.mode == Mode::Recent {
            return vec!["recent: newest first".into()];
        }
        self.lists
            .iter()
            .map(|l| match &l.route {
                Some(r) => format!(
                    "{}: {} (weight {} = {} × {} {})",
                    l.kind.name(),
                    l.text,
                    round(l.weight),
                    round(l.weight / l.share.max(f64::MIN_POSITIVE)),
                    l.share,
                    match r {
                        route::VectorRoute::Named(w) => format!("named: {w}"),
                        r => r.name().to_string(),
                    }
                ),
                None => format!("{}: {} (weight {})", l.kind.name(), l.text, l.weight),
            })
            .collect()
    }
}

/// The projects and agents the index knows, and the entities the registry defines (what a query
/// may name).
#[derive(Debug, Clone, Default)]
pub struct Known {
    pub projects: Vec<String>,
    pub agents: Vec<String>,
    /// Entities with their aliases ([`brain_graph::Entities`], definitions only).
    pub entities: brain_graph::Entities,
}

/// An entity a query names by one of its names, and the other names it is searched by too.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expansion {
    /// The words of the query that named it.
    pub words: String,
    /// Its canonical name.
    pub name: String,
    /// Its other names (canonical name and aliases, not the words written), `@` dropped.
    pub others: Vec<String>,
}

/// The entities `text` names (strict, [`brain_graph::named_in`]) as expansions.
fn expansions(known: &Known, text: &str) -> Vec<Expansion> {
    brain_graph::named_in(&known.entities, text)
        .into_iter()
        .map(|n| {
            let e = known.entities.get(n.entity);
            let said = brain_doc::links::name_key(&n.words);
            let mut others: Vec<String> = Vec::new();
            for name in e.spoken_names() {
                let bare = name.trim_start_matches('@').to_string();
                if brain_doc::links::name_key(name) != said && !others.contains(&bare) {
                    others.push(bare);
                }
            }
            Expansion {
                words: n.words,
                name: e.name.clone(),
                others,
            }
        })
        .collect()
}

/// Plan `req` at time `now`. `vectors` says whether a vector store and model are there; `known`
/// the projects and agents of the index (asked only in auto mode); `strategy` gives the fusion
/// weights of the original query's lists and of the soft filters' lists.
///
/// Five stages, each a function tested on its own: [`names`] (what a plain query names),
/// [`route_plain`] (time, filters alone, literal or conceptual: the plain query's lex + vec pair),
/// [`settle_mode`] (what the lines and the home allow), [`weigh`] (the lists and their fusion
/// weights, the vector list's share), [`soft_lists`] (a time window's, a named project's and an
/// entity's own lexical lists). Nothing here lexes the query again: routing's cuts are cuts of
/// the request's tokens ([`crate::query::Plain::without`]).
pub fn plan(
    req: &SearchRequest,
    now: &Zoned,
    vectors: &dyn Fn() -> bool,
    known: &dyn Fn() -> Known,
    strategy: &Strategy,
) -> Result<Plan, RunError> {
    let mut warnings = req.warnings.clone();
    let names = match &req.plain {
        Some(plain) if req.mode == Mode::Auto => {
            names(&plain.text, &req.filters, &known(), &mut warnings)
        }
        _ => Names::default(),
    };
    let routed = match &req.plain {
        Some(plain) => route_plain(plain, req, now, vectors, &mut warnings)?,
        None => Routed {
            mode: req.mode,
            lines: Vec::new(),
            original: req.original_text().to_string(),
            when: None,
        },
    };
    let Routed {
        mode,
        mut lines,
        original,
        when,
    } = routed;
    if mode == Mode::Recent {
        return Ok(Plan {
            mode,
            filters: req.filters.clone(),
            lists: Vec::new(),
            original,
            warnings,
            when,
            named: names.named,
        });
    }
    lines.extend(req.lines.iter().cloned());
    let mode = settle_mode(mode, &lines, vectors, &mut warnings);
    let mut lists = weigh(lines, mode, req, strategy, &mut warnings);
    if mode == Mode::Hybrid && req.plain.is_some() {
        // Asked for hybrid, a named project or agent is not boosted, but it still routes.
        let named = match names.named.first() {
            Some(n) => Some(n.value.clone()),
            None if req.mode == Mode::Hybrid => {
                let k = known();
                entity::find(&original, &k.projects, &k.agents)
                    .into_iter()
                    .next()
                    .map(|n| n.value)
            }
            None => None,
        };
        share_vector(&mut lists, &original, named.as_deref(), strategy);
    }
    if lists.is_empty() {
        return Err(QueryError::Empty.into());
    }
    soft_lists(&mut lists, when.as_ref(), &names, strategy);
    Ok(Plan {
        mode,
        filters: req.filters.clone(),
        lists,
        original,
        warnings,
        when,
        named: names.named,
    })
}

/// What a plain query names in auto mode: projects and agents (soft boosts; a hard filter of the
/// same kind wins) and entities by an alias (searched by their other names too).
#[derive(Debug, Clone, Default)]
pub struct Names {
    pub named: Vec<entity::Named>,
    pub aliases: Vec<Expansion>,
}

/// Stage 1: the projects, agents and entities `text` names, each read said in `warnings`.
pub fn names(text: &str, filters: &Filters, k: &Known, warnings: &mut Vec<String>) -> Names {
    let mut named = entity::find(text, &k.projects, &k.agents);
    let aliases = expansions(k, text);
    warnings.extend(aliases.iter().filter(|a| !a.others.is_empty()).map(|a| {
        format!(
            "read `{}` as {}: also searched as {} (soft: a list of its own, not a filter)",
            a.words,
            a.name,
            a.others.join(", ")
        )
    }));
    // A hard filter of the same kind wins: no boost on top of it.
    named.retain(|n| match n.kind {
        entity::Kind::Project => filters.projects.is_empty(),
        entity::Kind::Agent => filters.agents.is_empty(),
    });
    warnings.extend(named.iter().map(entity::Named::describe));
    Names { named, aliases }
}

/// A plain query routed: the mode it resolved to (`Recent`, `Lex`, `Hybrid`, or the mode asked),
/// its lex + vec pair, its text after routing, and what it said about time.
#[derive(Debug, Clone)]
pub struct Routed {
    pub mode: Mode,
    pub lines: Vec<Line>,
    pub original: String,
    pub when: Option<When>,
}

/// Stage 2: a plain query's routing. In auto mode words about time become a soft window, a part
/// of the day, an ordering (`--since/--until` from the user stay the only hard filters), cut out
/// of the query's tokens; only filler left, or filters alone, → the recency walk; then literal →
/// `lex`, conceptual → `hybrid` when `vectors()`. Question scaffolding ("what did we decide
/// about") leaves the lexical line in auto mode; the vector line keeps the whole question.
pub fn route_plain(
    plain: &Plain,
    req: &SearchRequest,
    now: &Zoned,
    vectors: &dyn Fn() -> bool,
    warnings: &mut Vec<String>,
) -> Result<Routed, RunError> {
    let auto = req.mode == Mode::Auto;
    let mut mode = req.mode;
    let mut when = None;
    let mut rest = None;
    if auto
        && req.filters.since.is_none()
        && req.filters.until.is_none()
        && let Some(w) = when::find(&plain.text, now)
    {
        warnings.push(w.describe());
        if route::only_filler(&w.rest) {
            mode = Mode::Recent;
        }
        rest = Some(plain.without(&w.cut, now)?);
        when = Some(w);
    }
    let cut = rest.is_some();
    let plain = rest.as_ref().unwrap_or(plain);
    // Filters alone ("project:billing", "agent:codex") are a recency walk in auto mode; the modes
    // that rank text have nothing to rank.
    if !cut && plain.query.only_filters() {
        match mode {
            Mode::Auto | Mode::Recent => mode = Mode::Recent,
            _ => return Err(QueryError::Empty.into()),
        }
    }
    if mode == Mode::Auto {
        mode = if route::is_literal(&plain.text) || !vectors() {
            Mode::Lex
        } else {
            Mode::Hybrid
        };
    }
    let mut lines = Vec::new();
    if mode != Mode::Recent {
        if cut {
            plain.query.check()?;
        }
        let scaffolding = if auto {
            route::scaffolding(&plain.text)
        } else {
            Vec::new()
        };
        let lex = if scaffolding.is_empty() {
            None
        } else {
            let mut l = plain.without(&scaffolding, now)?;
            l.query.check()?;
            l.query.asked = plain.query.terms.len() + plain.query.phrases.len();
            Some(l)
        };
        let lex = lex.as_ref().unwrap_or(plain);
        lines.push(Line {
            kind: SearchKind::Lex,
            text: lex.text.clone(),
            query: Some(lex.query.clone()),
        });
        lines.push(Line {
            kind: SearchKind::Vec,
            text: plain.query.positive_text(),
            query: None,
        });
    }
    Ok(Routed {
        mode,
        lines,
        original: plain.text.clone(),
        when,
    })
}

/// Stage 3: the mode the lines and the home allow. In auto mode a query document is `hybrid` when
/// it has vector lines and vectors exist; without vectors its vector lines are skipped with a
/// warning (or, with no lex line, `vec` fails later with the reason).
pub fn settle_mode(
    mode: Mode,
    lines: &[Line],
    vectors: &dyn Fn() -> bool,
    warnings: &mut Vec<String>,
) -> Mode {
    let has_vec = lines.iter().any(|l| l.kind.is_vector());
    let has_lex = lines.iter().any(|l| l.kind == SearchKind::Lex);
    match mode {
        Mode::Auto if has_vec && vectors() => Mode::Hybrid,
        Mode::Auto if has_vec && has_lex => {
            warnings.push(
                "vector sub-queries skipped: no vector index or model (run `vecindex --all`, `brain model fetch`)".into(),
            );
            Mode::Lex
        }
        Mode::Auto if has_vec => Mode::Vec, // the engine fails with the reason
        Mode::Auto => Mode::Lex,
        m => m,
    }
}

/// Stage 4: the lines `mode` can run as lists with their fusion weights: the original's lists
/// weigh `fusion.original_weight` (the first sub-query, or both halves of a plain query's pair),
/// the others 1. Lines the mode cannot run are dropped, with a warning when the mode was asked for.
pub fn weigh(
    lines: Vec<Line>,
    mode: Mode,
    req: &SearchRequest,
    strategy: &Strategy,
    warnings: &mut Vec<String>,
) -> Vec<List> {
    let keep = |k: SearchKind| match mode {
        Mode::Lex => k == SearchKind::Lex,
        Mode::Vec => k.is_vector(),
        _ => true,
    };
    let dropped = lines.iter().filter(|l| !keep(l.kind)).count();
    // In auto mode the reason was given by settle_mode.
    if dropped > 0 && req.plain.is_none() && req.mode != Mode::Auto {
        warnings.push(format!(
            "{dropped} sub-quer{} skipped in {} mode",
            if dropped == 1 { "y" } else { "ies" },
            mode.name()
        ));
    }
    let originals = if req.plain.is_some() { 2 } else { 1 };
    lines
        .into_iter()
        .enumerate()
        .filter(|(_, l)| keep(l.kind) && !l.text.trim().is_empty())
        .map(|(i, l)| List {
            kind: l.kind,
            text: l.text,
            query: l.query,
            weight: if i < originals {
                strategy.fusion.original_weight
            } else {
                1.0
            },
            name: l.kind.name(),
            share: 1.0,
            route: None,
        })
        .collect()
}

/// A plain query's vector list weighs by what the query is: names, numbers and literal tokens
/// are BM25's; paraphrase is the embedding's as much ([`route::vector_route`]).
pub fn share_vector(lists: &mut [List], original: &str, named: Option<&str>, strategy: &Strategy) {
    let r = route::vector_route(original, named);
    let share = strategy.hybrid.share(&r);
    if let Some(v) = lists.iter_mut().find(|l| l.kind == SearchKind::Vec) {
        v.weight *= share;
        v.share = share;
        v.route = Some(r);
    }
}

/// Stage 5: soft filters get their own lexical list, a copy of the first with the filter added:
/// sessions of the time window or of a named project that the unfiltered list ranked too low to
/// fetch; an entity named by one of its names is searched by its others too (seed 003's aliases).
pub fn soft_lists(lists: &mut Vec<List>, when: Option<&When>, names: &Names, strategy: &Strategy) {
    let Some((text, q)) = lists
        .iter()
        .find(|l| l.kind == SearchKind::Lex)
        .and_then(|l| Some((l.text.clone(), l.query.clone()?)))
    else {
        return;
    };
    let soft = |text: String, query: Query, weight: f64, name: &'static str| List {
        kind: SearchKind::Lex,
        text,
        query: Some(query),
        weight,
        name,
        share: 1.0,
        route: None,
    };
    if let Some((since, until)) = when.and_then(When::widened) {
        let mut w = q.clone();
        w.filters.since = Some(since);
        w.filters.until = Some(until);
        lists.push(soft(
            format!("{text} [window]"),
            w,
            strategy.time.window_list,
            "window",
        ));
    }
    let others: Vec<&String> = names.aliases.iter().flat_map(|a| a.others.iter()).collect();
    if !others.is_empty() {
        let mut e = q.clone();
        for name in &others {
            for w in name.split_whitespace() {
                if e.terms.len() < crate::query::MAX_TERMS
                    && !e.terms.iter().any(|t| t.eq_ignore_ascii_case(w))
                {
                    e.terms.push(w.to_string());
                }
            }
        }
        let label = others
            .iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join(", ");
        lists.push(soft(
            format!("{text} [entity {label}]"),
            e,
            strategy.entity.list,
            "entity",
        ));
    }
    let projects: Vec<String> = names
        .named
        .iter()
        .filter(|n| n.kind == entity::Kind::Project)
        .map(|n| n.value.clone())
        .collect();
    if !projects.is_empty() {
        let mut p = q;
        p.filters.projects = projects;
        let label = format!("{text} [project {}]", p.filters.projects.join(", "));
        lists.push(soft(label, p, strategy.entity.list, "project"));
    }
}

/// `x` to four decimals, for explain.
fn round(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0
}

#[cfg(test)]
mod tests;
