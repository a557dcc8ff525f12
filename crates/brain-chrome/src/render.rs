//! A day as a doc record: frontmatter (meta) and the markdown body.
//!
//! ```markdown
//! # Browser history 2026-11-20 (Chrome, Default)
//!
//! ## Searches
//!
//! - 09:12 Google: rust bm25 tantivy
//!
//! ## Visits
//!
//! - 09:13 docs.rs — [tantivy - Rust](<https://docs.rs/tantivy>) ×3
//! - 09:20 example.com — <https://example.com/untitled>
//!
//! ## Topics
//!
//! - Rust search engines — bm25, tantivy (4 visits)
//! ```
//!
//! Titles and search terms come from the web, so the characters that would make them links, HTML or
//! code spans are escaped, and line breaks are flattened.

use brain_doc::{Doc, Source, SourcePart};
use serde_json::Value;

use crate::clock::Clock;
use crate::days::Day;
use crate::profiles::Profile;

/// How many domains `top_domains` lists. Source: our judgment (2026-11): five fit a result-list line.
pub const TOP_DOMAINS: usize = 5;

/// Longest title or search kept in the body, in characters. Source: Chromium truncates tab titles
/// at 1024 (kMaxTitleChars); 300 is enough for any real title and bounds hostile ones.
const MAX_TEXT_CHARS: usize = 300;

/// The document id of a profile's day: `chrome__<profile-slug>__<YYYY-MM-DD>`.
pub fn doc_id(profile: &Profile, day: &Day) -> String {
    format!("chrome__{}__{}", profile.slug(), day.date)
}

/// Build the doc record of `day`. `source` is the History file as shown (`~/…`), `parts` its copied
/// side files, `version` the History schema version.
pub fn doc(
    profile: &Profile,
    day: &Day,
    clock: &Clock,
    source: &str,
    parts: &[String],
    version: Option<i64>,
) -> Doc {
    let title = format!(
        "Browser history {} ({}, {})",
        day.date,
        profile.browser.display(),
        profile.name
    );
    let src = Source {
        kind: "browser".into(),
        agent: Some(profile.browser.id().into()),
        file: source.to_string(),
        lines: None,
        sha256: None,
        parts: parts
            .iter()
            .map(|p| SourcePart {
                file: p.clone(),
                sha256: None,
            })
            .collect(),
    };
    let mut d = Doc::new(
        doc_id(profile, day),
        title.clone(),
        clock.midnight_rfc3339(day.date),
        src,
    );
    let domains = day.domains();
    let m = &mut d.meta;
    m.insert("day".into(), Value::String(day.date.to_string()));
    m.insert("browser".into(), Value::String(profile.browser.id().into()));
    m.insert("profile".into(), Value::String(profile.name.clone()));
    m.insert("visits".into(), Value::from(day.visits));
    m.insert("pages".into(), Value::from(day.pages.len()));
    m.insert("domains".into(), Value::from(domains.len()));
    let top: Vec<Value> = domains
        .iter()
        .take(TOP_DOMAINS)
        .map(|(d, _)| Value::String(d.clone()))
        .collect();
    m.insert("top_domains".into(), Value::Array(top));
    m.insert("searches".into(), Value::from(day.searches.len()));
    m.insert("topics".into(), Value::from(day.topics.len()));
    if let Some(v) = version {
        m.insert("history_version".into(), Value::from(v));
    }
    // Titles, URLs and searches carry tokens (`?access_token=`, `user:pass@`, webhooks): the
    // same rules as every other producer.
    let mut counts = brain_redact::Counts::new();
    d.body = brain_redact::redact(&body(&title, day, clock), &mut counts);
    brain_redact::record(&counts, &mut d.meta);
    d
}

fn body(title: &str, day: &Day, clock: &Clock) -> String {
    let mut b = format!("# {title}\n");
    if !day.searches.is_empty() {
        b.push_str("\n## Searches\n\n");
        for s in &day.searches {
            b.push_str(&format!(
                "- {} {}: {}\n",
                clock.hhmm(s.time),
                escape(&s.engine),
                escape(&s.terms)
            ));
        }
    }
    if !day.pages.is_empty() {
        b.push_str("\n## Visits\n\n");
        for p in &day.pages {
            let title = escape(&p.title);
            let url = link_safe(&p.url);
            let link = if title.is_empty() {
                format!("<{url}>")
            } else {
                format!("[{title}](<{url}>)")
            };
            let count = if p.count > 1 {
                format!(" ×{}", p.count)
            } else {
                String::new()
            };
            b.push_str(&format!(
                "- {} {} — {link}{count}\n",
                clock.hhmm(p.first),
                p.domain
            ));
        }
    }
    if !day.topics.is_empty() {
        b.push_str("\n## Topics\n\n");
        for t in &day.topics {
            let kw = if t.keywords.is_empty() {
                String::new()
            } else {
                format!(
                    " — {}",
                    escape(
                        &t.keywords
                            .iter()
                            .take(8)
                            .cloned()
                            .collect::<Vec<_>>()
                            .join(", ")
                    )
                )
            };
            let n = if t.visits == 1 {
                "1 visit".to_string()
            } else {
                format!("{} visits", t.visits)
            };
            b.push_str(&format!("- {}{kw} ({n})\n", escape(&t.label)));
        }
    }
    b
}

/// A URL that cannot break out of `<…>`: Chromium's canonical URLs never hold these characters, but a
/// hand-made database might.
fn link_safe(url: &str) -> std::borrow::Cow<'_, str> {
    if url.contains([' ', '<', '>', '\n']) {
        url.replace(' ', "%20")
            .replace('<', "%3C")
            .replace('>', "%3E")
            .replace('\n', "")
            .into()
    } else {
        url.into()
    }
}

/// One line of untrusted text, safe inside a list item and a link label.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for (n, c) in s
        .split_whitespace()
        .flat_map(|w| " ".chars().chain(w.chars()))
        .skip(1)
        .enumerate()
    {
        if n >= MAX_TEXT_CHARS {
            out.push('…');
            break;
        }
        if matches!(c, '[' | ']' | '<' | '>' | '`' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn untrusted_text_is_flattened_and_escaped() {
        assert_eq!(
            escape("  a\n[b](c) <script>  "),
            "a \\[b\\](c) \\<script\\>"
        );
        assert_eq!(escape("日本語 タイトル"), "日本語 タイトル");
        assert_eq!(escape(&"x".repeat(400)).chars().count(), MAX_TEXT_CHARS + 1);
    }
}
