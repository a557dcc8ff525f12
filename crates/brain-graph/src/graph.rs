//! The graph: documents and entities as nodes, what documents say as typed edges, each target
//! resolved once at load.
//!
//! A target resolves, in order, to: a document id (`notes/x.md`, `brain://notes/x.md`); a path in
//! the saying document's collection, as written or relative to its folder, with or without `.md`;
//! an entity's name ([`crate::names`]); a document whose path ends with it, when exactly one does
//! (`[[db-choice]]` → `notes/decisions/db-choice.md`, as wiki links are written). Anything else
//! is dangling (kept, listed by `brain related` and `entity suggest`). A document that defines an
//! entity *is* that entity's node: what its `summary.md` links to, the entity links to.

use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};

use brain_doc::links::RelationKind;
use brain_store::{DocEntry, LinkRow, Registry, RegistryError};
use serde::Serialize;

use crate::names::{Entities, Lookup};

/// A node: a document (by id) or an entity (by index into [`Entities::list`]).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Node {
    Doc(String),
    Entity(usize),
}

/// Where a target led.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    Node(Node),
    /// Several entities go by that name (their ids).
    Ambiguous(Vec<String>),
    Dangling,
}

/// One resolved edge: `from` says it relates to `to` as `kind`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edge {
    pub from: Node,
    pub to: Node,
    /// A relation kind's name, or `mentions` (an `entities:` value, an `@handle`), or `project`.
    pub kind: String,
    /// The document that says it, and the line.
    pub doc: String,
    pub line: i64,
}

/// The edge kind of a link row's kind: the relation kinds as they are; `entity`, `handle` →
/// `mentions`; `project` → `project`.
fn edge_kind(row_kind: &str) -> &str {
    match row_kind {
        "entity" | "handle" => "mentions",
        k => k,
    }
}

/// The loaded graph.
pub struct Graph {
    pub entities: Entities,
    /// Every registered document, by id.
    pub docs: BTreeMap<String, DocEntry>,
    pub edges: Vec<Edge>,
    /// Link rows whose target resolved to nothing (or to several entities), as written.
    pub dangling: Vec<(LinkRow, Target)>,
    /// The entity each defining document stands for.
    defining: HashMap<String, usize>,
    /// Records by their own name (frontmatter `id:`, lower case): what a relation, `supersedes`
    /// or `brain related` may call them.
    names: HashMap<String, Vec<String>>,
}

impl Graph {
    /// Load every document, link and entity of the registry and resolve the links.
    pub fn load(reg: &Registry) -> Result<Graph, RegistryError> {
        let links = reg.links()?;
        let entities = Entities::load(reg, &links)?;
        let docs: BTreeMap<String, DocEntry> = reg
            .entries(None)?
            .into_iter()
            .map(|e| (e.id.clone(), e))
            .collect();
        Ok(Self::build(entities, docs, links))
    }

    /// [`Graph::load`] from rows already read.
    pub fn build(
        entities: Entities,
        docs: BTreeMap<String, DocEntry>,
        links: Vec<LinkRow>,
    ) -> Graph {
        let defining: HashMap<String, usize> = entities
            .list
            .iter()
            .enumerate()
            .filter_map(|(i, e)| e.doc.clone().map(|d| (d, i)))
            .collect();
        let mut tails: HashMap<String, Vec<&str>> = HashMap::new();
        for id in docs.keys() {
            let path = id.split_once('/').map_or(id.as_str(), |(_, p)| p);
            let mut tail = path;
            loop {
                for k in [tail, tail.strip_suffix(".md").unwrap_or(tail)] {
                    let v = tails.entry(k.to_lowercase()).or_default();
                    if !v.contains(&id.as_str()) {
                        v.push(id);
                    }
                }
                match tail.split_once('/') {
                    Some((_, rest)) if !rest.is_empty() => tail = rest,
                    _ => break,
                }
            }
        }
        let mut names: HashMap<String, Vec<String>> = HashMap::new();
        for l in links.iter().filter(|l| l.kind == brain_store::NAME) {
            let v = names.entry(l.target.to_lowercase()).or_default();
            if !v.contains(&l.doc_id) {
                v.push(l.doc_id.clone());
            }
        }
        let mut g = Graph {
            entities,
            docs: BTreeMap::new(),
            edges: Vec::new(),
            dangling: Vec::new(),
            defining,
            names,
        };
        let resolve = |g: &Graph, from: &str, target: &str| -> Target {
            g.resolve_with(&docs, &tails, from, target)
        };
        let mut edges = Vec::new();
        let mut dangling = Vec::new();
        for l in links {
            if l.kind == brain_store::NAME {
                continue;
            }
            let from = g.node_of(&l.doc_id);
            let target = if l.kind == "project" {
                match g.entities.lookup(&l.target) {
                    Lookup::One(i) => Target::Node(Node::Entity(i)),
                    _ => Target::Dangling,
                }
            } else {
                resolve(&g, &l.doc_id, &l.target)
            };
            match target {
                Target::Node(to) if to != from => edges.push(Edge {
                    from,
                    to,
                    kind: edge_kind(&l.kind).to_string(),
                    doc: l.doc_id.clone(),
                    line: l.line,
                }),
                Target::Node(_) => {}
                other => dangling.push((l, other)),
            }
        }
        g.docs = docs;
        g.edges = edges;
        g.dangling = dangling;
        g
    }

    /// The node of document `id`: its entity when it defines one.
    pub fn node_of(&self, id: &str) -> Node {
        match self.defining.get(id) {
            Some(&e) => Node::Entity(e),
            None => Node::Doc(id.to_string()),
        }
    }

    fn resolve_with(
        &self,
        docs: &BTreeMap<String, DocEntry>,
        tails: &HashMap<String, Vec<&str>>,
        from: &str,
        target: &str,
    ) -> Target {
        let t = target.trim();
        let t = t.strip_prefix("brain://").unwrap_or(t);
        let t = t.strip_prefix("./").unwrap_or(t);
        let as_doc = |id: &str| -> Option<Target> {
            [id.to_string(), format!("{id}.md")]
                .into_iter()
                .find(|c| docs.contains_key(c))
                .map(|c| Target::Node(self.node_of(&c)))
        };
        if let Some(hit) = as_doc(t) {
            return hit;
        }
        if let Some((collection, path)) = from.split_once('/') {
            if let Some(hit) = as_doc(&format!("{collection}/{t}")) {
                return hit;
            }
            let dir = path.rsplit_once('/').map_or("", |(d, _)| d);
            if let Some(p) = join(dir, t)
                && let Some(hit) = as_doc(&format!("{collection}/{p}"))
            {
                return hit;
            }
        }
        if let Some(found) = self.named(t) {
            return found;
        }
        match self.entities.lookup(t) {
            Lookup::One(i) => return Target::Node(Node::Entity(i)),
            Lookup::Ambiguous(v) => {
                return Target::Ambiguous(
                    v.into_iter()
                        .map(|i| self.entities.get(i).id.clone())
                        .collect(),
                );
            }
            Lookup::None => {}
        }
        match tails.get(&t.to_lowercase()).map(Vec::as_slice) {
            Some([one]) => Target::Node(self.node_of(one)),
            _ => Target::Dangling,
        }
    }

    /// The record named `name` by its frontmatter `id:` (any case): one, several, or none.
    fn named(&self, name: &str) -> Option<Target> {
        match self.names.get(&name.to_lowercase()).map(Vec::as_slice) {
            None | Some([]) => None,
            Some([one]) => Some(Target::Node(self.node_of(one))),
            Some(many) => Some(Target::Ambiguous(many.to_vec())),
        }
    }

    /// A node as people read it: a document's id, an entity's name and kind.
    pub fn label(&self, n: &Node) -> String {
        match n {
            Node::Doc(id) => id.clone(),
            Node::Entity(i) => {
                let e = self.entities.get(*i);
                format!("{} ({})", e.name, e.kind)
            }
        }
    }

    /// What `brain related` walks from: a document (`collection/path`, `brain://…`, `#docid`) or
    /// an entity name.
    pub fn start(&self, what: &str) -> Result<Node, Target> {
        let t = what.trim();
        let t = t.strip_prefix("brain://").unwrap_or(t);
        if t.starts_with('#') && t.len() == 7 {
            let want = t.to_lowercase();
            let found: Vec<&String> = self
                .docs
                .keys()
                .filter(|id| brain_doc::docid(id) == want)
                .collect();
            if let [id] = found[..] {
                return Ok(self.node_of(id));
            }
        }
        if let Some(id) = [t.to_string(), format!("{t}.md")]
            .into_iter()
            .find(|c| self.docs.contains_key(c))
        {
            return Ok(self.node_of(&id));
        }
        match self.named(t) {
            Some(Target::Node(n)) => return Ok(n),
            Some(other) => return Err(other),
            None => {}
        }
        match self.entities.lookup(t) {
            Lookup::One(i) => Ok(Node::Entity(i)),
            Lookup::Ambiguous(v) => Err(Target::Ambiguous(
                v.into_iter()
                    .map(|i| self.entities.get(i).id.clone())
                    .collect(),
            )),
            Lookup::None => Err(Target::Dangling),
        }
    }

    /// Nodes reachable from `start` in at most `depth` steps over edges of `kinds` (all when
    /// empty), either direction; each node once, at its shortest depth, with the edge that first
    /// reached it. Ordered by depth, then kind, then node — the same graph gives the same list.
    pub fn related(&self, start: &Node, kinds: &[String], depth: usize) -> Vec<Reached> {
        let allowed = |k: &str| kinds.is_empty() || kinds.iter().any(|x| x == k);
        let mut adj: HashMap<&Node, Vec<(usize, bool)>> = HashMap::new();
        for (i, e) in self.edges.iter().enumerate() {
            if allowed(&e.kind) {
                adj.entry(&e.from).or_default().push((i, true));
                adj.entry(&e.to).or_default().push((i, false));
            }
        }
        let mut seen: BTreeSet<&Node> = BTreeSet::from([start]);
        let mut out: Vec<Reached> = Vec::new();
        let mut frontier: VecDeque<&Node> = VecDeque::from([start]);
        for d in 1..=depth {
            let mut level: Vec<Reached> = Vec::new();
            let mut next: Vec<&Node> = Vec::new();
            let mut now: Vec<&Node> = frontier.drain(..).collect();
            now.sort();
            for n in now {
                let mut around: Vec<(usize, bool)> = adj.get(n).cloned().unwrap_or_default();
                around.sort_by(|a, b| {
                    let (ea, eb) = (&self.edges[a.0], &self.edges[b.0]);
                    ea.kind.cmp(&eb.kind).then(a.0.cmp(&b.0))
                });
                for (i, out_going) in around {
                    let e = &self.edges[i];
                    let other = if out_going { &e.to } else { &e.from };
                    if seen.insert(other) {
                        level.push(Reached {
                            node: other.clone(),
                            depth: d,
                            kind: e.kind.clone(),
                            outgoing: out_going,
                            via: n.clone(),
                            said_by: e.doc.clone(),
                            line: e.line,
                        });
                        next.push(other);
                    }
                }
            }
            level.sort_by(|a, b| a.kind.cmp(&b.kind).then_with(|| a.node.cmp(&b.node)));
            out.extend(level);
            frontier.extend(next);
            if frontier.is_empty() {
                break;
            }
        }
        out
    }

    /// Pairs of records that say they contradict each other (`contradicts`), each pair once, with
    /// the document and line that says it.
    pub fn contradictions(&self) -> Vec<&Edge> {
        let mut seen = BTreeSet::new();
        self.edges
            .iter()
            .filter(|e| e.kind == RelationKind::Contradicts.name())
            .filter(|e| {
                let (a, b) = if e.from <= e.to {
                    (&e.from, &e.to)
                } else {
                    (&e.to, &e.from)
                };
                seen.insert((a.clone(), b.clone()))
            })
            .collect()
    }
}

/// A node reached by [`Graph::related`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reached {
    pub node: Node,
    pub depth: usize,
    /// The kind of the edge that reached it.
    pub kind: String,
    /// Whether the edge goes from `via` to `node` (`via supports node`), else back.
    pub outgoing: bool,
    /// The node it was reached from.
    pub via: Node,
    /// The document that says so, and the line.
    pub said_by: String,
    pub line: i64,
}

impl Reached {
    /// The relation as read from `via`: `supports`, or `supported by` when the edge points back.
    pub fn reads(&self) -> String {
        if self.outgoing {
            return self.kind.clone();
        }
        match RelationKind::parse(&self.kind) {
            Some(k) => k.inverse_name().to_string(),
            None if self.kind == "mentions" => "mentioned by".into(),
            None if self.kind == "project" => "session of".into(),
            None => format!("{} (back)", self.kind),
        }
    }
}

/// `rel` joined to folder `dir` (both `/`-separated, inside a collection), `..` and `.` applied;
/// `None` when it climbs out of the collection.
fn join(dir: &str, rel: &str) -> Option<String> {
    let mut parts: Vec<&str> = dir.split('/').filter(|p| !p.is_empty()).collect();
    for p in rel.split('/') {
        match p {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            p => parts.push(p),
        }
    }
    Some(parts.join("/"))
}

/// A relation for JSON output.
#[derive(Debug, Clone, Serialize)]
pub struct ReachedRecord {
    pub depth: usize,
    /// How the node relates to the one it was reached from (`supports`, `contradicted by`, …).
    pub relation: String,
    /// The edge's kind as stored.
    pub kind: String,
    /// `doc` or `entity`.
    pub node: String,
    /// A document id, or an entity id.
    pub id: String,
    pub title: String,
    pub date: String,
    /// The node it was reached from (a document id or an entity id).
    pub from: String,
    /// Where it is said: `<doc id>:<line>`.
    pub said_at: String,
}

impl Graph {
    /// `r` as a record.
    pub fn record(&self, r: &Reached) -> ReachedRecord {
        let (node, id, title, date) = self.describe(&r.node);
        ReachedRecord {
            depth: r.depth,
            relation: r.reads(),
            kind: r.kind.clone(),
            node,
            id,
            title,
            date,
            from: self.describe(&r.via).1,
            said_at: format!("{}:{}", r.said_by, r.line),
        }
    }

    /// A node as the head of a listing: `id — title` (an entity: `id — name`).
    pub fn heading(&self, n: &Node) -> String {
        let (_, id, title, _) = self.describe(n);
        if title.is_empty() || title == id {
            id
        } else {
            format!("{id} — {title}")
        }
    }

    /// (`doc`|`entity`, id, title or name, date).
    pub fn describe(&self, n: &Node) -> (String, String, String, String) {
        match n {
            Node::Doc(id) => {
                let (title, date) = self
                    .docs
                    .get(id)
                    .map(|d| (d.title.clone(), d.date.clone()))
                    .unwrap_or_default();
                ("doc".into(), id.clone(), title, date)
            }
            Node::Entity(i) => {
                let e = self.entities.get(*i);
                let date = e
                    .doc
                    .as_ref()
                    .and_then(|d| self.docs.get(d))
                    .map(|d| d.date.clone())
                    .unwrap_or_default();
                ("entity".into(), e.id.clone(), e.name.clone(), date)
            }
        }
    }
}

#[cfg(test)]
mod tests;
