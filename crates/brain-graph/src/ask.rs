//! The questions every surface asks of the graph (`brain entity`, `brain related`, the MCP
//! `entity` and `related` tools), with one answer to a bad question each: which entity a name
//! means, where a walk starts, which relation kinds and depths there are.

use brain_doc::links::RelationKind;

use crate::graph::{Graph, Node, Target};
use crate::names::Lookup;

/// Deepest walk `related` takes.
pub const MAX_DEPTH: usize = 5;

/// Edge kinds besides the relation kinds: `mentions` (an `entities:` value, an `@handle`) and
/// `project` (a session's working directory).
pub const OTHER_KINDS: [&str; 2] = ["mentions", "project"];

/// A question the graph cannot answer as asked.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AskError {
    /// A name several entities go by (each described `Name (kind, id)`): exit 64, never a guess.
    #[error("`{name}` names {} entities: {}", candidates.len(), candidates.join("; "))]
    Ambiguous {
        name: String,
        candidates: Vec<String>,
    },
    /// No entity (or, for a walk, no document either) goes by it: exit 67.
    #[error("no {what} goes by `{name}`")]
    Unknown { what: &'static str, name: String },
    /// A relation kind that does not exist, or a depth out of range: exit 64.
    #[error("{0}")]
    Bad(String),
}

impl AskError {
    /// Whether it is the query's fault (64) rather than an empty answer (67).
    pub fn is_bad_query(&self) -> bool {
        !matches!(self, AskError::Unknown { .. })
    }
}

impl brain_doc::Classified for AskError {
    /// 64 for a bad question (ambiguous, unknown kind, depth), 67 for nothing there.
    fn code(&self) -> brain_doc::ErrorCode {
        if self.is_bad_query() {
            brain_doc::ErrorCode::BadQuery
        } else {
            brain_doc::ErrorCode::NoResults
        }
    }

    fn fix(&self) -> String {
        match self {
            AskError::Ambiguous { .. } => "name one of them by its full name or its id",
            AskError::Unknown { .. } => {
                "a document as `brain ask` prints it (collection/path, #docid), or a name of `brain entity list`"
            }
            AskError::Bad(_) => "see --help",
        }
        .into()
    }
}

fn ambiguous(g: &Graph, name: &str, ids: &[String]) -> AskError {
    AskError::Ambiguous {
        name: name.to_string(),
        candidates: ids
            .iter()
            .map(|id| match g.entities.list.iter().find(|e| e.id == *id) {
                Some(e) => format!("{} ({}, {})", e.name, e.kind, e.id),
                None => id.clone(),
            })
            .collect(),
    }
}

/// The entity `name` means.
pub fn entity(g: &Graph, name: &str) -> Result<usize, AskError> {
    // An entity's own id (`project:~/src/brain`, `life/areas/people/sarah`), as `entity list` and
    // the ambiguity error print it, names it exactly.
    if let Some(i) = g.entities.list.iter().position(|e| e.id == name.trim()) {
        return Ok(i);
    }
    match g.entities.lookup(name) {
        Lookup::One(i) => Ok(i),
        Lookup::Ambiguous(v) => {
            let ids: Vec<String> = v.iter().map(|&i| g.entities.get(i).id.clone()).collect();
            Err(ambiguous(g, name, &ids))
        }
        Lookup::None => Err(AskError::Unknown {
            what: "entity",
            name: name.to_string(),
        }),
    }
}

/// Where a walk from `what` (a document or an entity) starts.
pub fn start(g: &Graph, what: &str) -> Result<Node, AskError> {
    g.start(what).map_err(|t| match t {
        Target::Ambiguous(ids) => ambiguous(g, what, &ids),
        _ => AskError::Unknown {
            what: "document or entity",
            name: what.to_string(),
        },
    })
}

/// Every edge kind `related` follows.
pub fn kinds() -> Vec<&'static str> {
    let mut k: Vec<&str> = RelationKind::ALL.iter().map(|k| k.name()).collect();
    k.extend(OTHER_KINDS);
    k
}

/// `asked` as edge kinds (a relation kind in any spelling `RelationKind::parse` reads).
pub fn parse_kinds(asked: &[String]) -> Result<Vec<String>, AskError> {
    asked
        .iter()
        .map(|k| {
            let name = RelationKind::parse(k)
                .map_or_else(|| k.trim().to_lowercase(), |r| r.name().to_string());
            if kinds().contains(&name.as_str()) {
                Ok(name)
            } else {
                Err(AskError::Bad(format!(
                    "unknown relation kind `{k}` (one of {})",
                    kinds().join(", ")
                )))
            }
        })
        .collect()
}

/// `depth` if it is one a walk takes.
pub fn check_depth(depth: usize) -> Result<usize, AskError> {
    if (1..=MAX_DEPTH).contains(&depth) {
        Ok(depth)
    } else {
        Err(AskError::Bad(format!(
            "--depth {depth} is out of range (1 to {MAX_DEPTH})"
        )))
    }
}
