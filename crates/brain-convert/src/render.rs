//! A converted document → its doc record (`source.type: document`) and markdown.

use std::path::Path;

use brain_doc::{Doc, Source};
use serde_json::Value;

use crate::{Converted, Kind};

/// How a document is rendered.
#[derive(Debug, Clone, Copy)]
pub struct RenderOptions {
    /// Secrets replaced, `<private>` spans and base64 blobs removed (the default).
    pub redact: bool,
}

/// What a file is, besides its text.
pub struct FileFacts<'a> {
    /// Where it lives, as the user named it (canonical when it exists).
    pub path: &'a Path,
    pub kind: Kind,
    /// sha256 of its bytes, hex.
    pub sha256: String,
    /// Its last change, Unix seconds (the date of a document that gives none).
    pub mtime_secs: i64,
}

/// The doc record of `doc`, read from the file `file`. `None` when the document asks to be left
/// out (`brain:do-not-index` anywhere in its text).
pub fn render(file: &FileFacts<'_>, mut doc: Converted, opts: RenderOptions) -> Option<Doc> {
    let marker = std::str::from_utf8(brain_redact::DO_NOT_INDEX).unwrap_or_default();
    if doc.sections.iter().any(|s| s.text.contains(marker)) {
        return None;
    }
    let mut counts = brain_redact::Counts::new();
    let mut clean = |t: &str| {
        if opts.redact {
            brain_redact::redact(&brain_redact::scrub(t), &mut counts)
        } else {
            t.to_string()
        }
    };
    for s in &mut doc.sections {
        s.text = clean(&s.text);
        let slugged = s
            .heading
            .as_deref()
            .is_some_and(|h| crate::slug(h) == s.anchor);
        s.heading = s.heading.as_deref().map(&mut clean);
        s.anchor = match (&s.heading, slugged) {
            (Some(h), true) => crate::slug(h),
            _ => clean(&s.anchor),
        };
    }
    for field in [&mut doc.title, &mut doc.url, &mut doc.author] {
        *field = field.as_deref().map(&mut clean);
    }
    let place = brain_store::project_path(&file.path.display().to_string());
    let stem = file
        .path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "document".into());
    let title = doc
        .title
        .clone()
        .or_else(|| match file.kind {
            // A PDF's sections are its pages: its first line is its title more often than not.
            Kind::Pdf => doc.sections.iter().find_map(|s| {
                let line = s.text.lines().map(str::trim).find(|l| !l.is_empty())?;
                Some(line.chars().take(120).collect())
            }),
            _ => doc.sections.iter().find_map(|s| s.heading.clone()),
        })
        .filter(|t: &String| !t.trim().is_empty())
        .unwrap_or_else(|| stem.clone());
    let date = doc
        .date
        .as_deref()
        .and_then(rfc3339)
        .unwrap_or_else(|| secs_rfc3339(file.mtime_secs));
    let id = format!(
        "doc__{}-{}",
        safe_stem(&stem),
        &brain_doc::sha256_hex(place.as_bytes())[..8]
    );
    let mut source = Source::new("document", place);
    source.agent = Some("doc2md".into());
    source.sha256 = Some(file.sha256.clone());
    let mut out = Doc::new(id, title, date, source);
    let meta = &mut out.meta;
    meta.insert("format".into(), file.kind.name().into());
    let optional = [
        ("url", doc.url.take()),
        ("author", doc.author.take()),
        ("encoding", doc.encoding.take()),
    ];
    for (key, value) in optional {
        if let Some(v) = value {
            meta.insert(key.into(), v.into());
        }
    }
    if let Some(pages) = doc.pages {
        meta.insert("pages".into(), pages.into());
    }
    if doc.truncated {
        meta.insert("truncated".into(), Value::Bool(true));
    }
    brain_redact::record(&counts, meta);
    out.body = body(&doc);
    Some(out)
}

/// The sections as markdown: a heading per section (`{#id}` after it when its anchor is not the
/// heading's slug), its text after a blank line.
fn body(doc: &Converted) -> String {
    let mut out = String::new();
    for s in &doc.sections {
        if let Some(h) = &s.heading {
            out.push_str(&"#".repeat(s.level.clamp(1, 6) as usize));
            out.push(' ');
            out.push_str(h);
            if s.anchor != crate::slug(h) && !s.anchor.is_empty() {
                out.push_str(&format!(" {{#{}}}", s.anchor));
            }
            out.push_str("\n\n");
        }
        if !s.text.is_empty() {
            out.push_str(&s.text);
            out.push_str("\n\n");
        }
    }
    if doc.truncated {
        out.push_str("*(the rest of the document is past doc2md's text limit and was left out)*\n");
    }
    let trimmed = out.trim_end().len();
    out.truncate(trimmed);
    out.push('\n');
    out
}

/// A stem safe in an id and a file name: letters, digits, `-`, `_`, `.`; at most 60 characters.
fn safe_stem(stem: &str) -> String {
    let s: String = stem
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '-'
            }
        })
        .take(60)
        .collect();
    let s = s.trim_matches(['-', '.']).to_string();
    if s.is_empty() { "document".into() } else { s }
}

/// A date as documents write them (RFC 3339, a civil date or date-time) → RFC 3339.
fn rfc3339(text: &str) -> Option<String> {
    let t = text.trim();
    if let Ok(ts) = t.parse::<jiff::Timestamp>() {
        return Some(ts.to_string());
    }
    if let Ok(dt) = t.parse::<jiff::civil::DateTime>() {
        return dt
            .to_zoned(jiff::tz::TimeZone::UTC)
            .ok()
            .map(|z| z.timestamp().to_string());
    }
    t.get(..10)
        .and_then(|d| d.parse::<jiff::civil::Date>().ok())
        .and_then(|d| d.to_zoned(jiff::tz::TimeZone::UTC).ok())
        .map(|z| z.timestamp().to_string())
}

fn secs_rfc3339(secs: i64) -> String {
    jiff::Timestamp::from_second(secs)
        .unwrap_or(jiff::Timestamp::UNIX_EPOCH)
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Section;

    fn facts(path: &Path) -> FileFacts<'_> {
        FileFacts {
            path,
            kind: Kind::Html,
            sha256: "ab".repeat(32),
            mtime_secs: 1_700_000_000,
        }
    }

    #[test]
    fn a_record_with_its_facts_anchors_and_secrets_redacted() {
        let doc = Converted {
            title: Some("Deploy notes".into()),
            date: Some("2024-05-01".into()),
            url: Some(
                "https://example.org/p?token=ghp_abcdefghijklmnopqrstuvwxyz0123456789".into(),
            ),
            sections: vec![
                Section {
                    text: "intro".into(),
                    ..Section::default()
                },
                Section {
                    anchor: "top".into(),
                    heading: Some("Keys".into()),
                    level: 2,
                    text: "use AKIAIOSFODNN7EXAMPLE here".into(),
                },
            ],
            ..Converted::default()
        };
        let path = Path::new("/nowhere/deploy notes.html");
        let rec = render(&facts(path), doc, RenderOptions { redact: true }).expect("rendered");
        assert!(rec.id.starts_with("doc__deploy-notes-"), "{}", rec.id);
        assert_eq!(rec.title, "Deploy notes");
        assert_eq!(rec.date, "2024-05-01T00:00:00Z");
        assert_eq!(rec.source.kind, "document");
        assert_eq!(rec.meta["format"], "html");
        assert_eq!(
            rec.body,
            "intro\n\n## Keys {#top}\n\nuse [REDACTED:aws_access_key] here\n"
        );
        assert!(!rec.meta["url"].as_str().unwrap_or("").contains("ghp_"));
        assert_eq!(rec.meta["redactions"], 2);
    }

    #[test]
    fn do_not_index_leaves_the_document_out() {
        let doc = Converted {
            sections: vec![Section {
                text: "x brain:do-not-index y".into(),
                ..Section::default()
            }],
            ..Converted::default()
        };
        assert!(
            render(
                &facts(Path::new("a.txt")),
                doc,
                RenderOptions { redact: true }
            )
            .is_none()
        );
    }
}
