//! What `brain entity NAME` shows (seed 001's entity page): the entity's summary (its defining
//! file's text), its facts — the records of its `items.json`, current and superseded — its names,
//! the records related to it, and a timeline of them all.

use brain_doc::file::FileFacts;
use brain_doc::memory::{Memory, Status};
use brain_store::Config;
use serde::Serialize;

use crate::graph::{Graph, Node, ReachedRecord};
use crate::names::Entity;

/// Longest summary shown, in bytes (cut at a line).
pub const MAX_SUMMARY_BYTES: usize = 4000;
/// Most related records listed.
pub const MAX_RELATED: usize = 100;

/// One fact of an entity.
#[derive(Debug, Clone, Serialize)]
pub struct Fact {
    /// The fact's record id.
    pub id: String,
    pub text: String,
    pub date: String,
    /// `current`, `superseded` or `archived`.
    pub status: String,
    /// The record that superseded it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub superseded_by: Option<String>,
}

/// One line of the timeline.
#[derive(Debug, Clone, Serialize)]
pub struct TimelineItem {
    pub date: String,
    pub id: String,
    pub title: String,
    /// `fact`, or how the record relates to the entity.
    pub relation: String,
}

/// The entity page.
#[derive(Debug, Clone, Serialize)]
pub struct EntityView {
    pub entity: Entity,
    /// Every name it is matched by.
    pub names: Vec<String>,
    /// The defining file's text without its frontmatter and title.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    /// Current facts first, then superseded ones, each newest first.
    pub facts: Vec<Fact>,
    /// Records one step away (mentions, relations, sessions of the project).
    pub related: Vec<ReachedRecord>,
    /// Facts and related records by date, newest first.
    pub timeline: Vec<TimelineItem>,
}

fn read(config: &Config, id: &str) -> Option<String> {
    let (collection, rel) = id.split_once('/')?;
    let file = brain_store::walk::servable(config, collection, rel).ok()?;
    let meta = std::fs::metadata(&file).ok()?;
    if meta.len() > 4 * 1024 * 1024 {
        return None;
    }
    std::fs::read(&file)
        .ok()
        .map(|b| brain_doc::bytes::lossy(&b))
}

fn cut(text: &str, max: usize) -> String {
    let mut out = String::new();
    for l in text.lines() {
        if out.len() + l.len() + 1 > max {
            out.push_str("…\n");
            break;
        }
        out.push_str(l);
        out.push('\n');
    }
    out.trim_end().to_string()
}

/// The page of entity `i` of `g`.
pub fn view(g: &Graph, config: &Config, i: usize) -> EntityView {
    let e = g.entities.get(i).clone();
    let summary = e.doc.as_deref().and_then(|d| read(config, d)).map(|raw| {
        let f = FileFacts::read(e.doc.as_deref().unwrap_or_default(), &raw, 0);
        cut(f.body.trim(), MAX_SUMMARY_BYTES)
    });
    let prefix = format!("{}/", brain_store::para::facts_dir(&e.id));
    let mut facts: Vec<(Fact, Vec<String>)> = g
        .docs
        .values()
        .filter(|d| d.path.starts_with(&prefix))
        .map(|d| {
            let raw = read(config, &d.id).unwrap_or_default();
            let f = FileFacts::read(&d.path, &raw, 0);
            let (m, _) = Memory::read(&f.frontmatter, f.date_secs);
            let status = match m.status {
                Status::Archived => "archived",
                Status::Superseded => "superseded",
                Status::Active => "current",
            };
            (
                Fact {
                    id: d.id.clone(),
                    text: cut(f.body.trim(), 2000),
                    date: d.date.clone(),
                    status: status.into(),
                    superseded_by: None,
                },
                m.supersedes,
            )
        })
        .collect();
    // A fact another fact supersedes is superseded (brain_graph::facts writes it that way).
    let by: Vec<(String, Vec<String>)> = facts
        .iter()
        .map(|(f, s)| (f.id.clone(), s.clone()))
        .collect();
    for (f, _) in &mut facts {
        if let Some((succ, _)) = by.iter().find(|(_, s)| s.contains(&f.id)) {
            f.superseded_by = Some(succ.clone());
            if f.status == "current" {
                f.status = "superseded".into();
            }
        }
    }
    let mut facts: Vec<Fact> = facts.into_iter().map(|(f, _)| f).collect();
    facts.sort_by(|a, b| {
        (a.status != "current")
            .cmp(&(b.status != "current"))
            .then_with(|| b.date.cmp(&a.date))
            .then_with(|| a.id.cmp(&b.id))
    });
    let fact_ids: Vec<&str> = facts.iter().map(|f| f.id.as_str()).collect();
    let related: Vec<ReachedRecord> = g
        .related(&Node::Entity(i), &[], 1)
        .iter()
        .map(|r| g.record(r))
        .filter(|r| !fact_ids.contains(&r.id.as_str()))
        .take(MAX_RELATED)
        .collect();
    let mut timeline: Vec<TimelineItem> = facts
        .iter()
        .map(|f| TimelineItem {
            date: f.date.clone(),
            id: f.id.clone(),
            title: f.text.lines().next().unwrap_or_default().to_string(),
            relation: if f.status == "current" {
                "fact".into()
            } else {
                format!("fact ({})", f.status)
            },
        })
        .chain(
            related
                .iter()
                .filter(|r| r.node == "doc")
                .map(|r| TimelineItem {
                    date: r.date.clone(),
                    id: r.id.clone(),
                    title: r.title.clone(),
                    relation: r.relation.clone(),
                }),
        )
        .collect();
    timeline.sort_by(|a, b| b.date.cmp(&a.date).then_with(|| a.id.cmp(&b.id)));
    EntityView {
        names: e.names(),
        entity: e,
        summary,
        facts,
        related,
        timeline,
    }
}
