//! A validated model answer → the distilled doc record that is written and indexed.
//!
//! The doc's file stem is the session's (so a stale artifact finds its session again), its date the
//! session's, its title the Goal; its meta keeps the model's frontmatter (session_id, project,
//! confidence, …) and is stamped with `distilled: true`, `distilled_at`, `prompt_version`,
//! `distilled_by` (the command label) and `session_doc` (the session doc's id).

use brain_doc::{Doc, Source, sha256_hex};
use brain_store::display_path;
use serde_json::Value;

use crate::prompt::{meta_str, stem};
use crate::validate::Artifact;

/// Frontmatter keys the doc record owns; the model's values for them are dropped.
const RESERVED: [&str; 6] = ["id", "title", "date", "collection", "path", "source"];
/// Keys stamped by `brain distill`; the model's values for them are replaced.
const STAMPED: [&str; 5] = [
    "distilled",
    "distilled_at",
    "prompt_version",
    "distilled_by",
    "session_doc",
];

/// How an artifact was made.
#[derive(Debug, Clone)]
pub struct Stamp<'a> {
    /// `v1-<12 hex>` of the template.
    pub prompt_version: &'a str,
    /// The command label (`--label`, default the command's first word).
    pub label: &'a str,
    /// RFC 3339 time of the run.
    pub distilled_at: &'a str,
}

/// The distilled doc for `session` (as read from `session_file` with `session_text`) from `artifact`.
pub fn to_doc(
    session: &Doc,
    session_file: &std::path::Path,
    session_text: &str,
    artifact: &Artifact,
    stamp: &Stamp<'_>,
) -> Doc {
    let name = session_file
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let stem = stem(&name);
    let title = if artifact.goal.is_empty() {
        session.title.clone()
    } else {
        artifact.goal.clone()
    };
    let source = Source {
        kind: "distilled".into(),
        agent: session.source.agent.clone(),
        file: display_path(session_file),
        lines: None,
        sha256: Some(sha256_hex(session_text.as_bytes())),
        parts: vec![],
    };
    let mut doc = Doc::new(stem, title, session.date.clone(), source);
    let sid = crate::prompt::session_id(session);
    doc.meta.insert("session_id".into(), Value::String(sid));
    let project = meta_str(session, "project");
    if !project.is_empty() {
        doc.meta.insert("project".into(), Value::String(project));
    }
    for (k, v) in &artifact.frontmatter {
        if !RESERVED.contains(&k.as_str())
            && !STAMPED.contains(&k.as_str())
            && !doc.meta.contains_key(k)
        {
            doc.meta.insert(k.clone(), v.clone());
        }
    }
    doc.meta.insert("distilled".into(), Value::Bool(true));
    doc.meta.insert(
        "distilled_at".into(),
        Value::String(stamp.distilled_at.into()),
    );
    doc.meta.insert(
        "prompt_version".into(),
        Value::String(stamp.prompt_version.into()),
    );
    doc.meta
        .insert("distilled_by".into(), Value::String(stamp.label.into()));
    doc.meta
        .insert("session_doc".into(), Value::String(session.id.clone()));
    doc.body = artifact.body.clone();
    doc
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_doc_keeps_the_session_identity_and_is_stamped() {
        let mut s = Doc::new(
            "brain/2026/04/s1.md",
            "t",
            "2026-04-02T10:00:00Z",
            Source {
                kind: "session".into(),
                agent: Some("claude".into()),
                file: "f".into(),
                lines: None,
                sha256: None,
                parts: vec![],
            },
        );
        s.meta
            .insert("session_id".into(), Value::String("s1".into()));
        s.meta.insert("project".into(), Value::String("~/p".into()));
        let a = crate::validate::validate(
            "---\nsession_id: s1\nproject: ~/other\nconfidence: High\ndistilled: false\ntitle: no\n---\n## Goal\nG.\n## What Happened\nH.\n## Technologies\nx\n## Concepts\ny\n## Tags\nz\n",
            "s1",
        )
        .expect("valid");
        let stamp = Stamp {
            prompt_version: "v1-abc",
            label: "llm",
            distilled_at: "2026-04-06T00:00:00Z",
        };
        let d = to_doc(
            &s,
            std::path::Path::new("/h/corpus/brain/2026/04/s1.md"),
            "text",
            &a,
            &stamp,
        );
        assert_eq!(
            (d.id.as_str(), d.path.as_str(), d.title.as_str()),
            ("s1", "s1.md", "G.")
        );
        assert_eq!(d.source.kind, "distilled");
        let keys: Vec<&str> = d.meta.keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            [
                "session_id",
                "project",
                "confidence",
                "distilled",
                "distilled_at",
                "prompt_version",
                "distilled_by",
                "session_doc"
            ]
        );
        assert_eq!(d.meta["project"], "~/p");
        assert_eq!(d.meta["distilled"], true);
        d.validate().expect("no reserved meta keys");
    }
}
