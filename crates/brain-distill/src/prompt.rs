//! Session doc → prompt record (what `distill-prompt` prints and `brain distill` sends).

use brain_doc::Doc;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::budget::{self, Cut};
use crate::template::{Fields, Template};

/// One prompt, as `distill-prompt` writes it (one JSON object per line).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PromptRecord {
    /// The session doc's id.
    pub id: String,
    /// The session id the artifact must carry (`meta.session_id`, else the doc id).
    pub session_id: String,
    /// The template version (`v1-<12 hex>`), stamped into the artifact.
    pub prompt_version: String,
    /// The full prompt text: the template with the (cut) session body filled in.
    pub prompt: String,
    /// What the budget cut removed, when it cut anything.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cut: Option<Cut>,
}

/// Why a session doc cannot be distilled.
#[derive(Debug, thiserror::Error)]
pub enum PromptError {
    #[error("doc `{id}` is a `{kind}` document, not a session")]
    NotASession { id: String, kind: String },
    #[error("doc `{id}` has an empty body")]
    Empty { id: String },
}

/// The session id of a session doc: `meta.session_id`, else its id's file stem.
pub fn session_id(doc: &Doc) -> String {
    match doc.meta.get("session_id") {
        Some(Value::String(s)) if !s.is_empty() => s.clone(),
        _ => stem(&doc.id).to_string(),
    }
}

/// `brain/2026/04/abc.md` → `abc`.
pub fn stem(id: &str) -> &str {
    let name = id.rsplit('/').next().unwrap_or(id);
    name.strip_suffix(".md").unwrap_or(name)
}

/// A meta field as text (`project`), empty when absent.
pub fn meta_str(doc: &Doc, key: &str) -> String {
    match doc.meta.get(key) {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Null) | None => String::new(),
        Some(other) => other.to_string(),
    }
}

/// Build the prompt for `doc` with `template`, the body cut to `budget` characters.
pub fn build(doc: &Doc, template: &Template, budget: usize) -> Result<PromptRecord, PromptError> {
    if doc.source.kind != "session" {
        return Err(PromptError::NotASession {
            id: doc.id.clone(),
            kind: doc.source.kind.clone(),
        });
    }
    if doc.body.trim().is_empty() {
        return Err(PromptError::Empty { id: doc.id.clone() });
    }
    let sid = session_id(doc);
    let (session, cut) = budget::cut(&doc.body, budget);
    let project = meta_str(doc, "project");
    let date = doc.date.get(..10).unwrap_or(&doc.date);
    let prompt = template.render(&Fields {
        session_id: &sid,
        date,
        project: &project,
        title: &doc.title,
        session: &session,
    });
    Ok(PromptRecord {
        id: doc.id.clone(),
        session_id: sid,
        prompt_version: template.version().to_string(),
        prompt,
        cut,
    })
}
