//! Checking what the model returned before anything is written.
//!
//! A valid artifact (seed 004, "What Distillation Produces") is YAML frontmatter carrying the session's
//! `session_id`, then `## ` sections: [`REQUIRED`] all present, the rest only from [`OPTIONAL`], none
//! twice, each non-empty, and the whole within [`MAX_CHARS`]. A model that wraps its answer in a
//! ```` ```markdown ```` fence is forgiven; one that invents a section is not.

use brain_doc::blocks::{Class, Lines, fence_closes, fence_open};
use brain_doc::markdown;
use serde_json::{Map, Value};

/// Sections every artifact has (seed 004's artifact shape).
pub const REQUIRED: [&str; 5] = ["Goal", "What Happened", "Technologies", "Concepts", "Tags"];

/// Sections the prompt tells the model to omit when empty (seed 004: "Omit entire section if no
/// decisions were made", "Omit if none -- do NOT invent rejections").
pub const OPTIONAL: [&str; 2] = ["Key Decisions", "What Was Rejected"];

/// Seed 004's artifacts are "~30-line"; ten times the 8,000-character input budget is not a summary.
/// Our bound: twice the input budget.
pub const MAX_CHARS: usize = 16_000;

/// A validated artifact: its frontmatter and its body (sections only).
#[derive(Debug, Clone, PartialEq)]
pub struct Artifact {
    /// The model's frontmatter (session_id, date, project, confidence, …).
    pub frontmatter: Map<String, Value>,
    /// The markdown body, starting at the first section.
    pub body: String,
    /// The text of `## Goal`, one line.
    pub goal: String,
}

/// Why an artifact was refused.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Invalid {
    #[error("empty output")]
    Empty,
    #[error("output is {0} characters (at most {MAX_CHARS})")]
    TooLong(usize),
    #[error("no YAML frontmatter (the artifact must start with `---`)")]
    NoFrontmatter,
    #[error("frontmatter: {0}")]
    Frontmatter(String),
    #[error("frontmatter has no session_id")]
    NoSessionId,
    #[error("session_id is `{got}`, expected `{want}`")]
    WrongSession { got: String, want: String },
    #[error("text before the first section: {0:?}")]
    Preamble(String),
    #[error("required section `## {0}` is missing")]
    Missing(&'static str),
    #[error("section `## {0}` is not part of the artifact shape")]
    Invented(String),
    #[error("section `## {0}` appears twice")]
    Duplicate(String),
    #[error("section `## {0}` is empty")]
    EmptySection(String),
}

/// Validate the model's `output` for session `session_id`.
pub fn validate(output: &str, session_id: &str) -> Result<Artifact, Invalid> {
    let text = unfence(output.trim());
    if text.is_empty() {
        return Err(Invalid::Empty);
    }
    let n = text.chars().count();
    if n > MAX_CHARS {
        return Err(Invalid::TooLong(n));
    }
    let text = format!("{text}\n");
    let (fm, body) = markdown::split(&text).map_err(|e| Invalid::Frontmatter(e.to_string()))?;
    let frontmatter = fm.ok_or(Invalid::NoFrontmatter)?;
    let got = match frontmatter.get("session_id") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Null) | None => return Err(Invalid::NoSessionId),
        Some(other) => other.to_string(),
    };
    if got != session_id {
        return Err(Invalid::WrongSession {
            got,
            want: session_id.to_string(),
        });
    }
    let body = body.trim_start();
    let sections = sections(body)?;
    for (name, text) in &sections {
        if !REQUIRED.contains(&name.as_str()) && !OPTIONAL.contains(&name.as_str()) {
            return Err(Invalid::Invented(name.clone()));
        }
        if sections.iter().filter(|(n, _)| n == name).count() > 1 {
            return Err(Invalid::Duplicate(name.clone()));
        }
        if text.trim().is_empty() {
            return Err(Invalid::EmptySection(name.clone()));
        }
    }
    for r in REQUIRED {
        if !sections.iter().any(|(n, _)| n == r) {
            return Err(Invalid::Missing(r));
        }
    }
    let goal = sections
        .iter()
        .find(|(n, _)| n == "Goal")
        .and_then(|(_, t)| t.lines().map(str::trim).find(|l| !l.is_empty()))
        .unwrap_or_default()
        .to_string();
    Ok(Artifact {
        frontmatter,
        body: body.to_string(),
        goal,
    })
}

/// `(name, text)` of every `## ` section, in order.
fn sections(body: &str) -> Result<Vec<(String, String)>, Invalid> {
    let mut out: Vec<(String, String)> = Vec::new();
    for (_, line, class) in Lines::new(body) {
        match class {
            Class::Heading { level: 2, text } => out.push((text.to_string(), String::new())),
            _ => match out.last_mut() {
                Some((_, text)) => {
                    text.push_str(line);
                    text.push('\n');
                }
                None if line.trim().is_empty() => {}
                None => return Err(Invalid::Preamble(line.chars().take(60).collect())),
            },
        }
    }
    Ok(out)
}

/// The inside of a whole-output code fence (the first line opens it, the last closes it), else the
/// text itself.
fn unfence(text: &str) -> &str {
    let Some((first, rest)) = text.split_once('\n') else {
        return text;
    };
    let Some((marker, len, _)) = fence_open(first) else {
        return text;
    };
    let rest = rest.trim_end();
    if fence_closes(rest, marker, len) {
        return "";
    }
    match rest.rsplit_once('\n') {
        Some((inner, last)) if fence_closes(last, marker, len) => inner.trim(),
        _ => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = "---\nsession_id: s1\ndate: 2026-04-02\nconfidence: High\n---\n## Goal\nFix the delay.\n\n## What Happened\nFound it.\n## Key Decisions\n- Disabled IDE integration\n## Technologies\ngemini\n## Concepts\nstartup\n## Tags\ncli\n";

    #[test]
    fn a_good_artifact_passes_and_keeps_its_frontmatter() {
        let a = validate(GOOD, "s1").expect("valid");
        assert_eq!(a.goal, "Fix the delay.");
        assert_eq!(
            a.frontmatter.get("confidence"),
            Some(&Value::String("High".into()))
        );
        assert!(a.body.starts_with("## Goal\n"));
        let fenced = format!("```markdown\n{GOOD}```\n");
        assert_eq!(validate(&fenced, "s1").expect("fenced"), a);
    }

    #[test]
    fn every_defect_is_named() {
        assert_eq!(validate("", "s1"), Err(Invalid::Empty));
        assert_eq!(validate("## Goal\nx\n", "s1"), Err(Invalid::NoFrontmatter));
        assert!(matches!(
            validate(GOOD, "s2"),
            Err(Invalid::WrongSession { .. })
        ));
        assert_eq!(
            validate(&GOOD.replace("## Tags\ncli\n", ""), "s1"),
            Err(Invalid::Missing("Tags"))
        );
        assert_eq!(
            validate(&format!("{GOOD}## Next Steps\nmore\n"), "s1"),
            Err(Invalid::Invented("Next Steps".into()))
        );
        assert_eq!(
            validate(&format!("{GOOD}## Tags\nagain\n"), "s1"),
            Err(Invalid::Duplicate("Tags".into()))
        );
        assert_eq!(
            validate(&GOOD.replace("gemini\n", ""), "s1"),
            Err(Invalid::EmptySection("Technologies".into()))
        );
        assert!(matches!(
            validate(
                &GOOD.replace("---\n## Goal", "---\nSure! Here it is.\n## Goal"),
                "s1"
            ),
            Err(Invalid::Preamble(_))
        ));
        assert!(matches!(
            validate(&format!("{GOOD}{}", "x".repeat(MAX_CHARS)), "s1"),
            Err(Invalid::TooLong(_))
        ));
        assert!(matches!(
            validate("---\n: [\n---\n## Goal\nx\n", "s1"),
            Err(Invalid::Frontmatter(_))
        ));
    }
}
