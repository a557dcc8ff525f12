//! What an indexed document adds to the memory graph: its links as registry rows, and the entity it
//! defines (a PARA folder's `summary.md` in a `para` collection, or a file with `entity:` /
//! `aliases:`). Targets are stored as written; `brain_graph` resolves them when asked, so a link
//! written before its target existed resolves once it does.
//!
//! A target or alias that holds a secret (`brain_redact`) is left out with a warning: the
//! registry is a copy the user did not write.

use brain_doc::links::{ENTITY_KINDS, RelationKind, kind_word};
use brain_store::para::{self, ROLE_PARA};
use brain_store::{DocLinks, EntityDef, LinkRow};

use crate::document::Prepared;

/// Kinds of rows besides the relation kinds.
pub const ENTITY: &str = "entity";
pub const HANDLE: &str = "handle";
pub const PROJECT: &str = "project";

fn has_secret(s: &str) -> bool {
    !brain_redact::find_secrets(s).is_empty()
}

/// The registry rows of `p`, a document of a collection of role `role`; warnings for what was
/// left out go to `warnings`.
pub fn doc_links(p: &Prepared, role: &str, warnings: &mut Vec<String>) -> DocLinks {
    let mut links: Vec<LinkRow> = Vec::new();
    let mut push = |kind: &str, target: &str, line: u64, warnings: &mut Vec<String>| {
        if has_secret(target) {
            warnings.push(format!(
                "a `{kind}` target holds what looks like a secret: left out of the graph"
            ));
            return;
        }
        if links.iter().any(|l| l.kind == kind && l.target == target) {
            return;
        }
        links.push(LinkRow {
            doc_id: p.id.clone(),
            kind: kind.to_string(),
            target: target.to_string(),
            line: line as i64,
        });
    };
    for r in &p.links.relations {
        push(r.kind.name(), &r.target, r.line, warnings);
    }
    for s in &p.memory.supersedes {
        push(RelationKind::Supersedes.name(), s, 1, warnings);
    }
    for e in &p.links.entities {
        push(ENTITY, e, 1, warnings);
    }
    // A transcript's `@` is a decorator, a file mention or a scope as often as a person.
    if p.kind != "session" && p.kind != "browser" {
        for (h, line) in &p.links.handles {
            push(HANDLE, &format!("@{h}"), *line, warnings);
        }
    }
    if let Some(project) = &p.project {
        push(PROJECT, project, 1, warnings);
    }
    // A record's own name (never its id: Prepared drops that, it names nothing new).
    if let Some(name) = &p.links.name {
        push(brain_store::NAME, name, 1, warnings);
    }
    DocLinks {
        id: p.id.clone(),
        links,
        entity: entity_def(p, role, warnings),
    }
}

/// The entity `p` defines, if any.
fn entity_def(p: &Prepared, role: &str, warnings: &mut Vec<String>) -> Option<EntityDef> {
    let para_entity = (role == ROLE_PARA)
        .then(|| para::entity_of(&p.path))
        .flatten();
    let fields = p.links.entity.clone();
    if para_entity.is_none() && fields.is_none() {
        return None;
    }
    let fields = fields.unwrap_or_default();
    let title = Some(p.title.trim())
        .filter(|t| !t.is_empty() && *t != "summary")
        .map(str::to_string);
    let memory_kind = p
        .memory
        .kind
        .as_deref()
        .map(kind_word)
        .filter(|k| ENTITY_KINDS.contains(&k.as_str()));
    let (entity, kind, name, archived) = match &para_entity {
        Some(e) => (
            format!("{}/{}", p.collection, e.folder),
            fields.kind.clone().unwrap_or_else(|| e.kind.clone()),
            fields
                .name
                .clone()
                .or(title)
                .unwrap_or_else(|| e.slug.clone()),
            e.archived,
        ),
        None => (
            p.id.strip_suffix(".md").unwrap_or(&p.id).to_string(),
            fields
                .kind
                .clone()
                .or(memory_kind)
                .unwrap_or_else(|| "concept".into()),
            fields.name.clone().or(title).unwrap_or_else(|| {
                p.path
                    .rsplit('/')
                    .next()
                    .unwrap_or(&p.path)
                    .trim_end_matches(".md")
                    .to_string()
            }),
            false,
        ),
    };
    if has_secret(&name) {
        warnings.push("an entity name holds what looks like a secret: not an entity".into());
        return None;
    }
    let mut aliases: Vec<String> = Vec::new();
    for a in fields.aliases {
        if has_secret(&a) {
            warnings.push("an alias holds what looks like a secret: left out".into());
        } else if !aliases.contains(&a) {
            aliases.push(a);
        }
    }
    Some(EntityDef {
        doc_id: p.id.clone(),
        entity,
        kind,
        name,
        aliases,
        archived: archived || p.memory.status == brain_doc::memory::Status::Archived,
    })
}
