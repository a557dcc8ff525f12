//! The distillation prompt: a built-in template (seed 004, "The Distillation Prompt") or the user's own
//! (`--template FILE`), versioned by the hash of its text.
//!
//! Placeholders: `{session_id}`, `{date}`, `{project}`, `{title}` and `{session}` (the session body,
//! cut to the budget). Unknown `{…}` text is left as it is.

use std::path::{Path, PathBuf};

use brain_doc::sha256_hex;

/// The built-in template. Its rules and section list are seed 004's `DISTILL_PROMPT`; the section
/// list is what [`crate::validate`] accepts.
pub const BUILTIN: &str = "You are a technical knowledge distiller.
Given an AI coding-agent conversation, extract a structured knowledge artifact.
Output this exact structure and nothing else:
---
session_id: {session_id}
date: {date}
project: {project}
confidence: High | Medium | Low
---
## Goal
[One sentence. If purely exploratory with no clear goal, say so.]
## What Happened
[3-5 sentences. Past tense. Include outcome.]
## Key Decisions
[2-5 bullet points. Omit entire section if no decisions were made.]
## What Was Rejected
[0-3 bullet points. Omit if none -- do NOT invent rejections.]
## Technologies
[Comma-separated names of tools, languages, libraries and services used.]
## Concepts
[Comma-separated technical concepts involved.]
## Tags
[Comma-separated search tags.]

Rules:
- Only extract what is EXPLICITLY stated. Never invent.
- Keep Goal to one sentence maximum.
- If session is a narrow sub-agent task, describe that task accurately.
- Use only the sections above, in that order.

Conversation (session {session_id}, {title}):

{session}
";

/// Why a template could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum TemplateError {
    #[error("template {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(
        "template {path}: it has no `{{session}}` placeholder, so the model would never see the session"
    )]
    NoSession { path: PathBuf },
}

impl brain_doc::Classified for TemplateError {
    /// A template that cannot be read or has no session placeholder is the user's to fix (64).
    fn code(&self) -> brain_doc::ErrorCode {
        brain_doc::ErrorCode::BadQuery
    }
}

/// A prompt template and its version.
#[derive(Debug, Clone)]
pub struct Template {
    text: String,
    version: String,
}

/// The values substituted into a template.
#[derive(Debug, Clone, Default)]
pub struct Fields<'a> {
    pub session_id: &'a str,
    pub date: &'a str,
    pub project: &'a str,
    pub title: &'a str,
    pub session: &'a str,
}

impl Template {
    /// The built-in template.
    pub fn builtin() -> Template {
        Template::from_text(BUILTIN.to_string())
    }

    /// A template from its text.
    pub fn from_text(text: String) -> Template {
        let version = version_of(&text);
        Template { text, version }
    }

    /// The template in `path`, or the built-in one for `None`.
    pub fn load(path: Option<&Path>) -> Result<Template, TemplateError> {
        let Some(path) = path else {
            return Ok(Template::builtin());
        };
        let text = std::fs::read_to_string(path).map_err(|source| TemplateError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        if !text.contains("{session}") {
            return Err(TemplateError::NoSession {
                path: path.to_path_buf(),
            });
        }
        Ok(Template::from_text(text))
    }

    /// `v1-` + the first 12 hex digits of the sha256 of the template text (seed 004's
    /// `v1-d68727f6c6f4` shape). A changed template makes every artifact written with another version
    /// stale.
    pub fn version(&self) -> &str {
        &self.version
    }

    /// The template text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The prompt for one session: every placeholder replaced in a single pass (a `{…}` inside a
    /// substituted value is never expanded again).
    pub fn render(&self, f: &Fields<'_>) -> String {
        let mut out = String::with_capacity(self.text.len() + f.session.len());
        let mut rest = self.text.as_str();
        while let Some(open) = rest.find('{') {
            out.push_str(&rest[..open]);
            let after = &rest[open..];
            let hit = [
                ("{session_id}", f.session_id),
                ("{date}", f.date),
                ("{project}", f.project),
                ("{title}", f.title),
                ("{session}", f.session),
            ]
            .into_iter()
            .find(|(k, _)| after.starts_with(k));
            match hit {
                Some((k, v)) => {
                    out.push_str(v);
                    rest = &after[k.len()..];
                }
                None => {
                    out.push('{');
                    rest = &after[1..];
                }
            }
        }
        out.push_str(rest);
        out
    }
}

fn version_of(text: &str) -> String {
    let hash = sha256_hex(text.as_bytes());
    format!("v1-{}", &hash[..12])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_are_filled_once_and_unknown_braces_kept() {
        let t = Template::from_text("id={session_id} {x} body:\n{session}".into());
        let p = t.render(&Fields {
            session_id: "s1",
            session: "a {session_id} b",
            ..Fields::default()
        });
        assert_eq!(p, "id=s1 {x} body:\na {session_id} b");
    }

    #[test]
    fn the_version_follows_the_text() {
        let a = Template::builtin();
        assert_eq!(a.version(), Template::builtin().version());
        assert!(
            a.version().starts_with("v1-") && a.version().len() == 15,
            "{}",
            a.version()
        );
        assert_ne!(
            a.version(),
            Template::from_text(format!("{BUILTIN} ")).version()
        );
    }

    #[test]
    fn a_template_without_the_session_placeholder_is_refused() {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = dir.path().join("t.txt");
        std::fs::write(&p, "no body here").expect("write");
        assert!(matches!(
            Template::load(Some(&p)),
            Err(TemplateError::NoSession { .. })
        ));
    }
}
