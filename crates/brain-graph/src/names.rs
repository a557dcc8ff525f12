//! Entities and the names they go by: strict resolution (seed 003) — a case-folded exact match of
//! a name, an alias, an `@handle` or a folder path; never fuzzy; a name two entities share is
//! reported as ambiguous, never guessed.
//!
//! What the registry holds ([`brain_store::EntityDef`]: the files that define entities) plus the
//! projects sessions were recorded in (`project` links): a project a PARA folder also defines by
//! the same name is one entity (the working directory becomes one of its names); any other is an
//! entity of its own, named by its folder.

use std::collections::{BTreeMap, BTreeSet};

use brain_doc::links::name_key;
use brain_store::{EntityDef, LinkRow, Registry, RegistryError};
use serde::Serialize;

/// One entity.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Entity {
    /// `<collection>/<folder>` (PARA), the defining document's id without `.md`, or
    /// `project:<working directory>` for a project known only from sessions.
    pub id: String,
    /// `person`, `project`, `company`, `concept`, `area`, …
    pub kind: String,
    /// Canonical name.
    pub name: String,
    /// Other names it goes by, as written (`@handles` included).
    pub aliases: Vec<String>,
    /// The document that defines it (`None`: known from sessions only).
    pub doc: Option<String>,
    /// Working directories of sessions recorded in it (projects).
    pub projects: Vec<String>,
    /// Under `archives/`, or `status: archived`.
    pub archived: bool,
}

impl Entity {
    /// Every name it is matched by, as written: the canonical name, the aliases, the working
    /// directories, and its id's path with every tail of it (`areas/people/sarah`, `people/sarah`,
    /// `sarah`).
    pub fn names(&self) -> Vec<String> {
        let mut out = vec![self.name.clone()];
        out.extend(self.aliases.iter().cloned());
        out.extend(self.projects.iter().cloned());
        let path = self.id.strip_prefix("project:").unwrap_or(&self.id);
        let mut tail = path;
        loop {
            out.push(tail.to_string());
            match tail.split_once('/') {
                Some((_, rest)) if !rest.is_empty() => tail = rest,
                _ => break,
            }
        }
        let mut seen = BTreeSet::new();
        out.retain(|n| !n.trim().is_empty() && seen.insert(name_key(n)));
        out
    }

    /// The names a person writes (name, aliases): what a query is matched against.
    pub fn spoken_names(&self) -> impl Iterator<Item = &String> {
        std::iter::once(&self.name).chain(self.aliases.iter())
    }
}

/// What a name resolves to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Lookup {
    One(usize),
    /// Several entities go by it: their indexes, in id order.
    Ambiguous(Vec<usize>),
    None,
}

/// Every entity, with the index of names.
#[derive(Debug, Clone, Default)]
pub struct Entities {
    pub list: Vec<Entity>,
    /// `name_key` → entities going by it.
    keys: BTreeMap<String, Vec<usize>>,
}

impl Entities {
    /// The entities of the registry: its definitions and the projects of its sessions (`links`:
    /// the `project` rows; pass an empty slice to leave session projects out).
    pub fn load(reg: &Registry, links: &[LinkRow]) -> Result<Entities, RegistryError> {
        Ok(Self::build(reg.entity_defs()?, links))
    }

    /// The defined entities a query may name, from the index's small file
    /// ([`brain_store::cached_entity_defs`]): no registry is opened.
    pub fn cached(home: &brain_store::Home) -> Entities {
        Self::build(brain_store::cached_entity_defs(home), &[])
    }

    /// [`Entities::load`] from rows already read.
    pub fn build(defs: Vec<EntityDef>, links: &[LinkRow]) -> Entities {
        let mut list: Vec<Entity> = Vec::new();
        for d in defs {
            // Two files defining one id (a summary.md and an entity: file of the same folder): the
            // first by document id is the entity; the other's aliases join it.
            if let Some(e) = list.iter_mut().find(|e| e.id == d.entity) {
                for a in d.aliases {
                    if !e.aliases.contains(&a) {
                        e.aliases.push(a);
                    }
                }
                continue;
            }
            list.push(Entity {
                id: d.entity,
                kind: d.kind,
                name: d.name,
                aliases: d.aliases,
                doc: Some(d.doc_id),
                projects: Vec::new(),
                archived: d.archived,
            });
        }
        let mut e = Entities {
            list,
            keys: BTreeMap::new(),
        };
        e.index();
        let projects: BTreeSet<&str> = links
            .iter()
            .filter(|l| l.kind == "project")
            .map(|l| l.target.as_str())
            .collect();
        for p in projects {
            let folder = p.trim_end_matches('/').rsplit('/').next().unwrap_or(p);
            let defined: Vec<usize> = e
                .keys
                .get(&name_key(folder))
                .into_iter()
                .flatten()
                .copied()
                .filter(|&i| e.list[i].kind == "project" && e.list[i].doc.is_some())
                .collect();
            if let [i] = defined[..] {
                e.list[i].projects.push(p.to_string());
            } else {
                e.list.push(Entity {
                    id: format!("project:{p}"),
                    kind: "project".into(),
                    name: folder.to_string(),
                    aliases: Vec::new(),
                    doc: None,
                    projects: vec![p.to_string()],
                    archived: false,
                });
            }
        }
        e.list.sort_by(|a, b| a.id.cmp(&b.id));
        e.index();
        e
    }

    fn index(&mut self) {
        self.keys.clear();
        for (i, en) in self.list.iter().enumerate() {
            for n in en.names() {
                let v = self.keys.entry(name_key(&n)).or_default();
                if !v.contains(&i) {
                    v.push(i);
                }
            }
        }
    }

    /// The entity `name` names (any of [`Entity::names`], case and spacing aside).
    pub fn lookup(&self, name: &str) -> Lookup {
        match self.keys.get(&name_key(name)).map(Vec::as_slice) {
            Some([i]) => Lookup::One(*i),
            Some(many) if !many.is_empty() => Lookup::Ambiguous(many.to_vec()),
            _ => Lookup::None,
        }
    }

    /// Entity `i`.
    pub fn get(&self, i: usize) -> &Entity {
        &self.list[i]
    }

    /// Names several entities go by, each with the ids of those entities: what `doctor` reports.
    pub fn ambiguous(&self) -> Vec<(String, Vec<String>)> {
        self.keys
            .iter()
            .filter(|(_, v)| v.len() > 1)
            .map(|(k, v)| {
                (
                    k.clone(),
                    v.iter().map(|&i| self.list[i].id.clone()).collect(),
                )
            })
            .collect()
    }
}

/// An entity a query names, and the words that named it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Named {
    pub entity: usize,
    pub words: String,
}

/// Most words a name spans in a query.
const MAX_NAME_WORDS: usize = 4;

/// The defined entities (not projects known only from sessions: those are the ranker's own
/// project names) that `query` names by a name or an alias — a run of 1 to 4 whole words, or an
/// `@handle` — case-folded exact; ambiguous names are left out. In query order, each entity once.
pub fn named_in(entities: &Entities, query: &str) -> Vec<Named> {
    let words: Vec<&str> = query
        .split(|c: char| c.is_whitespace() || matches!(c, ',' | ';' | '?' | '!' | '"' | '(' | ')'))
        .map(|w| w.trim_matches(|c: char| matches!(c, '.' | ':' | '\'')))
        .filter(|w| !w.is_empty())
        .collect();
    let mut out: Vec<Named> = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let mut matched = 0;
        for n in (1..=MAX_NAME_WORDS.min(words.len() - i)).rev() {
            let run = words[i..i + n].join(" ");
            let key = name_key(&run);
            let Some(v) = entities.keys.get(&key) else {
                continue;
            };
            let [e] = v[..] else {
                continue;
            };
            let en = &entities.list[e];
            if en.doc.is_none() || !en.spoken_names().any(|s| name_key(s) == key) {
                continue;
            }
            if !out.iter().any(|x| x.entity == e) {
                out.push(Named {
                    entity: e,
                    words: run,
                });
            }
            matched = n;
            break;
        }
        i += matched.max(1);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn def(entity: &str, kind: &str, name: &str, aliases: &[&str]) -> EntityDef {
        EntityDef {
            doc_id: format!("{entity}/summary.md"),
            entity: entity.into(),
            kind: kind.into(),
            name: name.into(),
            aliases: aliases.iter().map(|s| s.to_string()).collect(),
            archived: false,
        }
    }

    fn project(p: &str) -> LinkRow {
        LinkRow {
            doc_id: "brain/s.md".into(),
            kind: "project".into(),
            target: p.into(),
            line: 1,
        }
    }

    #[test]
    fn names_resolve_strictly_and_shared_names_are_ambiguous() {
        let e = Entities::build(
            vec![
                def(
                    "life/areas/people/sarah-chen",
                    "person",
                    "Sarah Chen",
                    &["Sarah", "@schen"],
                ),
                def(
                    "life/areas/people/sarah-lee",
                    "person",
                    "Sarah Lee",
                    &["Sarah"],
                ),
                def("life/projects/billing", "project", "Billing", &[]),
            ],
            &[
                project("/home/u/code/billing"),
                project("/home/u/code/atlas"),
            ],
        );
        let one = |n: &str| match e.lookup(n) {
            Lookup::One(i) => e.get(i).id.clone(),
            other => format!("{other:?}"),
        };
        assert_eq!(one("sarah  CHEN"), "life/areas/people/sarah-chen");
        assert_eq!(one("@SChen"), "life/areas/people/sarah-chen");
        assert_eq!(one("people/sarah-chen"), "life/areas/people/sarah-chen");
        assert!(matches!(e.lookup("sarah"), Lookup::Ambiguous(v) if v.len() == 2));
        assert_eq!(e.lookup("S. Chen"), Lookup::None);
        assert_eq!(e.lookup("schen"), Lookup::None);
        // A session project of a defined project's name is that project.
        assert_eq!(one("/home/u/code/billing"), "life/projects/billing");
        assert_eq!(one("atlas"), "project:/home/u/code/atlas");
        assert_eq!(e.ambiguous().len(), 1);
    }

    #[test]
    fn a_query_names_entities_by_whole_words() {
        let e = Entities::build(
            vec![
                def(
                    "life/areas/people/sarah-chen",
                    "person",
                    "Sarah Chen",
                    &["@schen"],
                ),
                def("life/areas/people/ana", "person", "Ana Lima", &["Ana"]),
            ],
            &[project("/code/atlas")],
        );
        let got: Vec<String> = named_in(&e, "what did sarah chen and @schen say, and banana? ana.")
            .iter()
            .map(|n| format!("{}={}", e.get(n.entity).name, n.words))
            .collect();
        assert_eq!(got, ["Sarah Chen=sarah chen", "Ana Lima=ana"]);
        assert!(named_in(&e, "the atlas deploy").is_empty());
    }
}
