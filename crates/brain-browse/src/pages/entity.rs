//! `/entities` and `/entity/<id>`: the memory graph's entities (brain_graph) — people, projects and
//! the rest, by kind — and one entity's page: summary, names, facts with their status, related
//! records, timeline. `/entity/<name>` also takes any name, alias or @handle the entity goes by
//! (never a guess: a name two entities share lists both).

use serde::Serialize;

use super::{PageError, PageResult, local_time, ok, role_of};
use crate::app::App;
use crate::markdown::to_html;
use crate::url;

#[derive(Serialize)]
struct Row {
    name: String,
    href: String,
    aliases: String,
    archived: bool,
    id: String,
    /// What tells it from another entity of the same name (a project's folders).
    place: String,
}

#[derive(Serialize)]
struct Group {
    kind: String,
    entities: Vec<Row>,
}

#[derive(Serialize)]
struct ListCtx {
    nav: &'static str,
    groups: Vec<Group>,
    total: usize,
    kind: String,
}

fn graph(app: &mut App) -> Result<std::rc::Rc<brain_graph::Graph>, PageError> {
    app.graph()
        .map_err(PageError::internal)?
        .ok_or_else(|| PageError::not_found("nothing is indexed yet: run `lexindex --all`"))
}

pub(super) fn list(app: &mut App, query: &[(String, String)]) -> PageResult {
    let g = graph(app)?;
    let only = url::param(query, "kind").unwrap_or("").to_string();
    let mut groups: Vec<Group> = Vec::new();
    let mut all: Vec<&brain_graph::Entity> = g.entities.list.iter().collect();
    // People and projects first (seed 001's browsable structure), then the other kinds by name.
    let order = |k: &str| match k {
        "person" => 0,
        "project" => 1,
        _ => 2,
    };
    all.sort_by(|a, b| {
        (order(&a.kind), &a.kind, a.archived, a.name.to_lowercase()).cmp(&(
            order(&b.kind),
            &b.kind,
            b.archived,
            b.name.to_lowercase(),
        ))
    });
    // Names more than one entity of a kind carries (`codemie-code` in four folders).
    let mut seen: std::collections::HashMap<(String, String), usize> = Default::default();
    for e in &all {
        *seen
            .entry((e.kind.clone(), e.name.to_lowercase()))
            .or_default() += 1;
    }
    for e in all {
        if !only.is_empty() && e.kind != only {
            continue;
        }
        let shared = seen
            .get(&(e.kind.clone(), e.name.to_lowercase()))
            .is_some_and(|n| *n > 1);
        let place = match (shared, e.projects.is_empty(), &e.doc) {
            (false, _, _) => String::new(),
            (true, false, _) => e.projects.join(", "),
            (true, true, Some(doc)) => doc.clone(),
            (true, true, None) => e.id.clone(),
        };
        if groups.last().is_none_or(|g| g.kind != e.kind) {
            groups.push(Group {
                kind: e.kind.clone(),
                entities: Vec::new(),
            });
        }
        if let Some(last) = groups.last_mut() {
            last.entities.push(Row {
                name: e.name.clone(),
                href: url::entity(&e.id),
                aliases: e.aliases.join(", "),
                archived: e.archived,
                id: e.id.clone(),
                place,
            });
        }
    }
    let ctx = ListCtx {
        nav: "entities",
        total: groups.iter().map(|g| g.entities.len()).sum(),
        groups,
        kind: only,
    };
    ok(app, "entities.html", &ctx)
}

#[derive(Serialize)]
struct FactView {
    text: String,
    date: String,
    status: String,
    href: String,
    superseded_by: String,
}

#[derive(Serialize)]
struct LinkView {
    label: String,
    href: String,
    note: String,
    date: String,
}

#[derive(Serialize)]
struct EntityCtx {
    nav: &'static str,
    name: String,
    kind: String,
    id: String,
    archived: bool,
    names: Vec<String>,
    summary: String,
    doc_href: String,
    facts: Vec<FactView>,
    related: Vec<LinkView>,
    timeline: Vec<LinkView>,
    choices: Vec<LinkView>,
}

pub(super) fn page(app: &mut App, name: &str) -> PageResult {
    let g = graph(app)?;
    let config = app.config();
    let index = match g.entities.list.iter().position(|e| e.id == name) {
        Some(i) => i,
        None => match brain_graph::ask::entity(&g, name) {
            Ok(i) => i,
            Err(e) if e.is_bad_query() => {
                // Ambiguous: say which entities go by it.
                let ids = match g.entities.lookup(name) {
                    brain_graph::Lookup::Ambiguous(v) => v,
                    _ => Vec::new(),
                };
                let choices = ids
                    .iter()
                    .map(|&i| g.entities.get(i))
                    .map(|en| LinkView {
                        label: format!("{} ({})", en.name, en.kind),
                        href: url::entity(&en.id),
                        note: en.id.clone(),
                        date: String::new(),
                    })
                    .collect();
                let ctx = EntityCtx {
                    nav: "entities",
                    name: name.to_string(),
                    kind: String::new(),
                    id: String::new(),
                    archived: false,
                    names: Vec::new(),
                    summary: e.to_string(),
                    doc_href: String::new(),
                    facts: Vec::new(),
                    related: Vec::new(),
                    timeline: Vec::new(),
                    choices,
                };
                return Ok(crate::app::Reply::html(
                    400,
                    super::render(app, "entity.html", &ctx)?,
                ));
            }
            Err(e) => return Err(PageError::not_found(e.to_string())),
        },
    };
    let v = brain_graph::view::view(&g, &config, index);
    let doc_link = |id: &str| {
        let (c, _) = id.split_once('/').unwrap_or(("", ""));
        super::doc_href(id, &role_of(&config, c))
    };
    let ctx = EntityCtx {
        nav: "entities",
        name: v.entity.name.clone(),
        kind: v.entity.kind.clone(),
        id: v.entity.id.clone(),
        archived: v.entity.archived,
        names: v.names.clone(),
        summary: v.summary.as_deref().map(to_html).unwrap_or_default(),
        doc_href: v.entity.doc.as_deref().map(url::doc).unwrap_or_default(),
        facts: v
            .facts
            .iter()
            .map(|f| FactView {
                text: f.text.clone(),
                date: local_time(&f.date),
                status: f.status.clone(),
                href: url::doc(&f.id),
                superseded_by: f.superseded_by.clone().unwrap_or_default(),
            })
            .collect(),
        related: v
            .related
            .iter()
            .map(|r| LinkView {
                label: if r.title.is_empty() {
                    r.id.clone()
                } else {
                    r.title.clone()
                },
                href: if r.node == "entity" {
                    url::entity(&r.id)
                } else {
                    doc_link(&r.id)
                },
                note: r.relation.clone(),
                date: local_time(&r.date),
            })
            .collect(),
        timeline: v
            .timeline
            .iter()
            .map(|t| LinkView {
                label: if t.title.is_empty() {
                    t.id.clone()
                } else {
                    t.title.clone()
                },
                href: doc_link(&t.id),
                note: t.relation.clone(),
                date: local_time(&t.date),
            })
            .collect(),
        choices: Vec::new(),
    };
    ok(app, "entity.html", &ctx)
}
