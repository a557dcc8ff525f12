//! `/timeline`: what the memory holds day by day — sessions with their project and title, browser
//! days, daily notes, inbox days — `days` days (default 7) up to `day` (default: the newest day
//! with anything), paginated by those windows, under a heat strip of the year up to `day`. Dates
//! are the documents' own (`date`, as written), the same days `brain recent`'s registry holds.

use std::collections::BTreeMap;

use jiff::ToSpan;
use jiff::civil::Date;
use serde::Serialize;

use super::{PageError, PageResult, doc_href, ok, role_of, thousands};
use crate::app::App;
use crate::url;

/// Days shown when the URL does not say.
const DEFAULT_DAYS: i64 = 7;
/// The most days one page shows.
const MAX_DAYS: i64 = 31;
/// Items listed per day (the rest are counted).
const PER_DAY: usize = 60;
/// Weeks in the heat strip.
const WEEKS: i64 = 53;

#[derive(Serialize)]
struct Item {
    time: String,
    collection: String,
    role: String,
    title: String,
    href: String,
    project: String,
    agent: String,
    kind: String,
}

#[derive(Serialize)]
struct Day {
    date: String,
    weekday: String,
    count: usize,
    items: Vec<Item>,
    more: usize,
}

#[derive(Serialize)]
struct Cell {
    date: String,
    count: u64,
    level: u8,
    href: String,
    current: bool,
}

#[derive(Serialize)]
struct Ctx {
    nav: &'static str,
    day: String,
    first: String,
    days: Vec<Day>,
    shown: i64,
    total: String,
    older: String,
    newer: String,
    weeks: Vec<Vec<Cell>>,
    collection: String,
    collections: Vec<String>,
}

pub(super) fn page(app: &mut App, query: &[(String, String)]) -> PageResult {
    let home = app.home().clone();
    let config = app.config();
    let collection = url::param(query, "collection").unwrap_or("").to_string();
    if !collection.is_empty() && config.collection(&collection).is_none() {
        return Err(PageError::bad(format!("no collection `{collection}`")));
    }
    let shown = match url::param(query, "days") {
        Some(d) => d
            .parse::<i64>()
            .ok()
            .filter(|n| (1..=MAX_DAYS).contains(n))
            .ok_or_else(|| PageError::bad(format!("days must be 1 to {MAX_DAYS}")))?,
        None => DEFAULT_DAYS,
    };
    let reg = brain_store::Registry::open_existing(&home)
        .map_err(|e| PageError::internal(e.to_string()))?;
    let counts: Vec<(String, String, u64)> = match &reg {
        Some(r) => r
            .day_counts()
            .map_err(|e| PageError::internal(e.to_string()))?,
        None => Vec::new(),
    };
    let mut per_day: BTreeMap<String, u64> = BTreeMap::new();
    for (d, c, n) in &counts {
        if collection.is_empty() || *c == collection {
            *per_day.entry(d.clone()).or_default() += n;
        }
    }
    let today = brain_rank::clock::now().date();
    let day = match url::param(query, "day") {
        Some(d) => d
            .parse::<Date>()
            .map_err(|_| PageError::bad(format!("`{d}` is not a date (YYYY-MM-DD)")))?,
        // The newest day with anything, not after today.
        None => per_day
            .keys()
            .rev()
            .filter_map(|d| d.parse::<Date>().ok())
            .find(|d| *d <= today)
            .unwrap_or(today),
    };
    let first = day
        .checked_sub((shown - 1).days())
        .map_err(|_| PageError::bad("that date is out of range"))?;
    let days = days_of(&config, reg.as_ref(), &collection, first, day)?;
    let link = |d: Date| {
        url::with_query(
            "/timeline",
            &[
                ("day", &d.to_string()),
                (
                    "days",
                    &if shown == DEFAULT_DAYS {
                        String::new()
                    } else {
                        shown.to_string()
                    },
                ),
                ("collection", &collection),
            ],
        )
    };
    let older = first.checked_sub(1.day()).map(&link).unwrap_or_default();
    let newer = match day.checked_add(shown.days()) {
        Ok(n) if day < today => link(n.min(today)),
        _ => String::new(),
    };
    let weeks = heat(&per_day, day, &link);
    let ctx = Ctx {
        nav: "timeline",
        day: day.to_string(),
        first: first.to_string(),
        total: thousands(days.iter().map(|d| d.count as u64).sum()),
        days,
        shown,
        older,
        newer,
        weeks,
        collection,
        collections: config.collections.iter().map(|c| c.name.clone()).collect(),
    };
    ok(app, "timeline.html", &ctx)
}

/// The days from `last` back to `first`, newest first, each with its documents (of `collection`
/// when one is named; at most [`PER_DAY`] shown).
fn days_of(
    config: &brain_store::Config,
    reg: Option<&brain_store::Registry>,
    collection: &str,
    first: Date,
    last: Date,
) -> Result<Vec<Day>, PageError> {
    let entries = match reg {
        Some(r) => r
            .entries_on_days(&first.to_string(), &last.to_string())
            .map_err(|e| PageError::internal(e.to_string()))?,
        None => Vec::new(),
    };
    let mut by_day: BTreeMap<String, Vec<brain_store::DocEntry>> = BTreeMap::new();
    for e in entries {
        if !collection.is_empty() && e.collection != collection {
            continue;
        }
        by_day
            .entry(e.date.get(..10).unwrap_or("").to_string())
            .or_default()
            .push(e);
    }
    let mut days = Vec::new();
    let mut d = last;
    while d >= first {
        let key = d.to_string();
        let list = by_day.remove(&key).unwrap_or_default();
        let count = list.len();
        let items: Vec<Item> = list.iter().take(PER_DAY).map(|e| item(config, e)).collect();
        days.push(Day {
            weekday: d.strftime("%A").to_string(),
            date: key,
            count,
            more: count.saturating_sub(PER_DAY),
            items,
        });
        match d.checked_sub(1.day()) {
            Ok(prev) => d = prev,
            Err(_) => break,
        }
    }
    Ok(days)
}

/// One document of a day, with what its frontmatter says of its project, agent and kind.
fn item(config: &brain_store::Config, e: &brain_store::DocEntry) -> Item {
    let role = role_of(config, &e.collection);
    let (mut project, mut agent, mut kind) = (String::new(), String::new(), String::new());
    if let Ok(text) = std::fs::read_to_string(&e.file) {
        let facts = brain_doc::file::FileFacts::read(&e.path, &text, 0);
        project = facts.project.unwrap_or_default();
        agent = facts.agent.unwrap_or_default();
        kind = facts.kind;
    }
    Item {
        time: e.date.get(11..16).unwrap_or("").to_string(),
        href: doc_href(&e.id, &role),
        title: if e.title.is_empty() {
            e.path.clone()
        } else {
            e.title.clone()
        },
        collection: e.collection.clone(),
        role,
        project,
        agent,
        kind,
    }
}

/// The heat strip: [`WEEKS`] columns of seven days, Monday first, ending with the week of `day`;
/// each cell's level 0–4 by its count against the busiest day shown.
fn heat(
    per_day: &BTreeMap<String, u64>,
    day: Date,
    link: &dyn Fn(Date) -> String,
) -> Vec<Vec<Cell>> {
    let monday = day
        .checked_sub(i64::from(day.weekday().to_monday_zero_offset()).days())
        .unwrap_or(day);
    let start = monday
        .checked_sub(((WEEKS - 1) * 7).days())
        .unwrap_or(monday);
    let end = monday.checked_add(6.days()).unwrap_or(monday);
    let max = per_day
        .range(start.to_string()..=end.to_string())
        .map(|(_, n)| *n)
        .max()
        .unwrap_or(0);
    let mut weeks = Vec::new();
    let mut d = start;
    for _ in 0..WEEKS {
        let mut week = Vec::new();
        for _ in 0..7 {
            let key = d.to_string();
            let count = per_day.get(&key).copied().unwrap_or(0);
            let level = match (count, max) {
                (0, _) | (_, 0) => 0,
                (c, m) => (1 + (3 * (c - 1)) / m.max(1)).min(4) as u8,
            };
            week.push(Cell {
                href: link(d),
                current: d == day,
                date: key,
                count,
                level,
            });
            d = d.checked_add(1.day()).unwrap_or(d);
        }
        weeks.push(week);
    }
    weeks
}
