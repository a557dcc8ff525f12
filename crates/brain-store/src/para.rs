//! Roles that change what brain does with a collection (issue #23, seed 001), and the PARA layout
//! of a `para` collection: which folder is an entity, of which kind, archived or not. One owner for
//! indexing (which `summary.md` defines an entity), ranking (archives demoted) and `brain entity
//! suggest --apply` (where a new entity's files go).
//!
//! ```text
//! projects/<slug>/summary.md             project
//! areas/people/<slug>/summary.md         person
//! areas/companies/<slug>/summary.md      company
//! areas/<group>/<slug>/summary.md        area   (any other group)
//! areas/<slug>/summary.md                area
//! resources/<slug>/summary.md            concept
//! archives/<any of the above>            the same kind, archived
//! ```
//! Each folder holds `summary.md` (the entity: name, aliases, a summary) and `items.json` (its
//! atomic facts, made records by `brain_graph::facts`).

/// Agents' session transcripts (`jsonl2md` → `partition`): the collection an agent's session id
/// names a document of.
pub const ROLE_SESSIONS: &str = "sessions";
/// Browser history, a document per day (`chrome2md`): its visits carry their times.
pub const ROLE_BROWSER: &str = "browser";
/// Distilled summaries of sessions and the records extracted from them.
pub const ROLE_DISTILLED: &str = "distilled";
/// `MEMORY.md`, `ME.md`: every document is guaranteed context in `brain context`.
pub const ROLE_MEMORY: &str = "memory";
/// Daily notes `memory/YYYY-MM-DD.md`: dated by their name, one passage per block.
pub const ROLE_DAILY: &str = "daily";
/// PARA folders (projects, areas, resources, archives): entities, archives demoted.
pub const ROLE_PARA: &str = "para";

/// The file of a PARA folder that defines its entity.
pub const SUMMARY: &str = "summary.md";

/// The folder of the inbox holding the records made of entities' `items.json` facts
/// (`brain_graph::facts` writes them, `brain entity` reads them).
pub const FACTS_FOLDER: &str = "entities";

/// Where the fact records of entity `entity_id` (`<collection>/<folder>`) live inside the inbox:
/// `entities/<collection>/<folder>`.
pub fn facts_dir(entity_id: &str) -> String {
    format!("{FACTS_FOLDER}/{entity_id}")
}

/// A PARA folder that is an entity.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParaEntity {
    /// The folder inside the collection (`areas/people/sarah-chen`).
    pub folder: String,
    /// The last component (`sarah-chen`).
    pub slug: String,
    /// `project`, `person`, `company`, `area`, `concept`.
    pub kind: String,
    /// Under `archives/`.
    pub archived: bool,
}

/// The entity whose `summary.md` is at `rel` (a path inside a `para` collection), or `None`.
pub fn entity_of(rel: &str) -> Option<ParaEntity> {
    let folder = rel.strip_suffix(SUMMARY)?.strip_suffix('/')?;
    let parts: Vec<&str> = folder.split('/').collect();
    let (archived, rest) = match parts.split_first() {
        Some((&"archives", rest)) => (true, rest),
        _ => (false, &parts[..]),
    };
    let kind = match rest {
        ["projects", _] => "project",
        ["areas", "people", _] => "person",
        ["areas", "companies", _] => "company",
        ["areas", _, _] | ["areas", _] => "area",
        ["resources", _] => "concept",
        // `archives/<slug>`: an archived thing of no known kind.
        [_] if archived => "concept",
        _ => return None,
    };
    let slug = parts.last()?.to_string();
    if slug.is_empty() || slug.starts_with('.') {
        return None;
    }
    Some(ParaEntity {
        folder: folder.to_string(),
        slug,
        kind: kind.to_string(),
        archived,
    })
}

/// Whether `rel` (inside a `para` collection) is archived: under `archives/`.
pub fn is_archived(rel: &str) -> bool {
    rel.starts_with("archives/")
}

/// The folder a new entity of `kind` named by `slug` gets (`person` → `areas/people/<slug>`).
pub fn folder_for(kind: &str, slug: &str) -> String {
    match kind {
        "project" => format!("projects/{slug}"),
        "person" => format!("areas/people/{slug}"),
        "company" => format!("areas/companies/{slug}"),
        "area" => format!("areas/{slug}"),
        _ => format!("resources/{slug}"),
    }
}

/// A name as a folder name: lower-case ASCII letters and digits, runs of anything else one `-`,
/// at most 60 bytes (`Sarah Chen` → `sarah-chen`, `@schen` → `schen`); `None` when nothing is left.
pub fn slug(name: &str) -> Option<String> {
    let mut s = String::new();
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            s.push(c.to_ascii_lowercase());
        } else if !s.is_empty() && !s.ends_with('-') {
            s.push('-');
        }
        if s.len() >= 60 {
            break;
        }
    }
    let s = s.trim_end_matches('-').to_string();
    (!s.is_empty()).then_some(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn para_folders_are_entities_of_their_kind() {
        let k = |p: &str| entity_of(p).map(|e| (e.kind, e.slug, e.archived));
        assert_eq!(
            k("areas/people/sarah-chen/summary.md"),
            Some(("person".into(), "sarah-chen".into(), false))
        );
        assert_eq!(
            k("archives/projects/old/summary.md"),
            Some(("project".into(), "old".into(), true))
        );
        assert_eq!(
            k("projects/x/summary.md").map(|e| e.0),
            Some("project".into())
        );
        assert_eq!(
            k("resources/rust/summary.md").map(|e| e.0),
            Some("concept".into())
        );
        assert_eq!(
            k("areas/health/summary.md").map(|e| e.0),
            Some("area".into())
        );
        assert_eq!(k("summary.md"), None);
        assert_eq!(k("projects/x/notes.md"), None);
        assert_eq!(k("projects/x/y/summary.md"), None);
        assert_eq!(k("elsewhere/x/summary.md"), None);
        assert_eq!(folder_for("person", "ana"), "areas/people/ana");
        assert_eq!(slug("Sarah  Chen!"), Some("sarah-chen".into()));
        assert_eq!(slug("@schen"), Some("schen".into()));
        assert_eq!(slug("../.."), None);
    }
}
