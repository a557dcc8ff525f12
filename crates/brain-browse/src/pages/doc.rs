//! `/doc/…`, `/session/…`, `/raw/…`: one document. Every path goes through the collection walk's
//! `servable` check (a plain relative path inside a declared collection, matching its glob, not
//! hidden, not leaving it through a link): anything else is "not found", whatever the spelling.

use serde::Serialize;
use serde_json::Value;

use super::{PageError, PageResult, doc_href, local_time, ok, role_of};
use crate::app::{App, Reply};
use crate::markdown::to_html;
use crate::url;

/// The largest file shown (a bigger one is cut, and says so).
const MAX_BYTES: usize = 4 * 1024 * 1024;
/// The most records of a supersession chain listed.
const MAX_CHAIN: usize = 50;

/// The file of `rest` (`<collection>/<path…>`), its id, and its text (cut at [`MAX_BYTES`]).
struct Opened {
    id: String,
    collection: String,
    rel: String,
    text: String,
    cut: bool,
    mtime: i64,
}

fn open(app: &mut App, rest: &[String]) -> Result<(Opened, brain_store::Config), PageError> {
    let config = app.config();
    let collection = rest[0].clone();
    let rel = rest[1..].join("/");
    let id = format!("{collection}/{rel}");
    let file = brain_store::walk::servable(&config, &collection, &rel)
        .map_err(|e| PageError::not_found(format!("{id}: {e}")))?;
    // A PDF, a saved page, a DOCX: the markdown doc2md made of it.
    let file = brain_store::documents::markdown_file(&config, &collection, &rel, file)
        .map_err(|e| PageError::not_found(format!("{id}: {e}")))?;
    let bytes = std::fs::read(&file).map_err(|e| PageError::not_found(format!("{id}: {e}")))?;
    let mtime = std::fs::metadata(&file)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_secs() as i64);
    let cut = bytes.len() > MAX_BYTES;
    let text = brain_doc::bytes::lossy(&bytes[..bytes.len().min(MAX_BYTES)]);
    Ok((
        Opened {
            id,
            collection,
            rel,
            text,
            cut,
            mtime,
        },
        config,
    ))
}

/// `/raw/…`: the file as plain text (never interpreted by the browser: `nosniff`).
pub(super) fn raw(app: &mut App, rest: &[String]) -> PageResult {
    let (o, _) = open(app, rest)?;
    Ok(Reply::text(200, o.text))
}

#[derive(Serialize)]
struct Field {
    key: String,
    value: String,
}

#[derive(Serialize)]
struct Link {
    label: String,
    href: String,
    note: String,
}

#[derive(Serialize)]
struct DocCtx {
    nav: &'static str,
    id: String,
    title: String,
    date: String,
    collection: String,
    role: String,
    raw_href: String,
    session_href: String,
    doc_href: String,
    cut: bool,
    body: String,
    fields: Vec<Field>,
    relations: Vec<Link>,
    refs: Vec<String>,
    supersedes: Vec<Link>,
    superseded_by: Vec<Link>,
    key: String,
    chain: Vec<Link>,
    sessions: Vec<Link>,
}

/// A frontmatter value as one line of text.
fn text_of(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Array(a) if a.iter().all(Value::is_string) => a
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join(", "),
        other => other.to_string(),
    }
}

/// The ids a frontmatter value names (a string, or a list of them).
fn ids_of(v: Option<&Value>) -> Vec<String> {
    match v {
        Some(Value::String(s)) if !s.trim().is_empty() => vec![s.trim().to_string()],
        Some(Value::Array(a)) => a
            .iter()
            .filter_map(Value::as_str)
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .collect(),
        _ => Vec::new(),
    }
}

/// A link to a document named by an id as written (`collection/path`, a bare path, `#docid`).
fn link_to(id: &str, note: &str) -> Link {
    let target = id.trim_start_matches("brain://");
    Link {
        label: id.to_string(),
        href: if target.contains('/') {
            url::doc(target)
        } else {
            url::with_query("/search", &[("q", target)])
        },
        note: note.to_string(),
    }
}

pub(super) fn page(app: &mut App, rest: &[String]) -> PageResult {
    let (o, config) = open(app, rest)?;
    let facts = brain_doc::file::FileFacts::read(&o.rel, &o.text, o.mtime);
    let role = role_of(&config, &o.collection);
    let fields: Vec<Field> = facts
        .frontmatter
        .iter()
        .map(|(k, v)| Field {
            key: k.clone(),
            value: text_of(v),
        })
        .collect();
    let refs: Vec<String> = match facts.frontmatter.get("refs") {
        Some(Value::Array(a)) => a
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect(),
        _ => Vec::new(),
    };
    let supersedes: Vec<Link> = ids_of(facts.frontmatter.get("supersedes"))
        .iter()
        .map(|i| link_to(i, ""))
        .collect();
    let Lineage {
        superseded_by,
        chain,
        key,
        sessions,
    } = lineage(app, &config, &o.id, facts.session.as_deref());
    let relations = relations(app, &o.id);
    let session_view = role == "sessions" || o.text.contains("\n## Conversation");
    let ctx = DocCtx {
        nav: "",
        title: facts.title.clone(),
        date: local_time(&facts.date),
        raw_href: url::raw(&o.id),
        session_href: if session_view {
            url::session(&o.id)
        } else {
            String::new()
        },
        doc_href: url::doc(&o.id),
        cut: o.cut,
        body: to_html(brain_doc::file::after_title_heading(
            facts.body,
            &facts.title,
        )),
        id: o.id.clone(),
        collection: o.collection.clone(),
        role,
        fields,
        relations,
        refs,
        supersedes,
        superseded_by,
        key,
        chain,
        sessions,
    };
    ok(app, "doc.html", &ctx)
}

/// Where a record stands among others: what replaced it (and what replaced that), every record
/// of its key with its state now, the other documents of its session.
#[derive(Default)]
struct Lineage {
    superseded_by: Vec<Link>,
    chain: Vec<Link>,
    key: String,
    sessions: Vec<Link>,
}

fn lineage(
    app: &mut App,
    config: &brain_store::Config,
    id: &str,
    session: Option<&str>,
) -> Lineage {
    let mut l = Lineage::default();
    if let Ok(engine) = app.handles.engine()
        && let Ok(ranker) = engine.ranker()
    {
        let searcher = ranker.searcher();
        let first = |id: &str| {
            searcher
                .document(id)
                .ok()
                .and_then(|p| p.into_iter().next())
        };
        let me = first(id);
        // Forward: what replaced it, and what replaced that (bounded, cycles stopped).
        let mut seen = std::collections::HashSet::from([id.to_string()]);
        let mut next = me.as_ref().and_then(|p| p.memory.superseded_by.clone());
        while let Some(by) = next.take() {
            if !seen.insert(by.clone()) || seen.len() > MAX_CHAIN {
                break;
            }
            l.superseded_by.push(link_to(&by, ""));
            next = first(&by).and_then(|p| p.memory.superseded_by);
        }
        // Every record of its key, oldest first, with its state now.
        if let Some(k) = me.as_ref().and_then(|p| p.memory.key.clone()) {
            for p in searcher
                .keyed(&k)
                .unwrap_or_default()
                .into_iter()
                .take(MAX_CHAIN)
            {
                let (c, _) = p.id.split_once('/').unwrap_or(("", ""));
                let state = if p.memory.superseded.is_some() {
                    "superseded"
                } else {
                    "current"
                };
                l.chain.push(Link {
                    href: doc_href(&p.id, &role_of(config, c)),
                    label: if p.id == id {
                        format!("{} (this one)", p.title)
                    } else {
                        p.title.clone()
                    },
                    note: format!(
                        "{state} · {}",
                        p.date.map(brain_doc::file::format_secs).unwrap_or_default()
                    ),
                });
            }
            l.key = k;
        }
        if let Some(sid) = session.filter(|s| !s.is_empty()) {
            for other in searcher.session_documents(sid).unwrap_or_default() {
                if other != id {
                    let (c, _) = other.split_once('/').unwrap_or(("", ""));
                    l.sessions.push(Link {
                        href: doc_href(&other, &role_of(config, c)),
                        label: other.clone(),
                        note: format!("session {sid}"),
                    });
                }
            }
        }
    }
    l
}

/// How the document relates to others, one step away (typed relations, mentions, entities).
fn relations(app: &mut App, id: &str) -> Vec<Link> {
    let Ok(Some(g)) = app.graph() else {
        return Vec::new();
    };
    let start = brain_graph::Node::Doc(id.to_string());
    g.related(&start, &[], 1)
        .iter()
        .map(|r| {
            let rec = g.record(r);
            let href = match &r.node {
                brain_graph::Node::Entity(_) => url::entity(&rec.id),
                brain_graph::Node::Doc(d) => url::doc(d),
            };
            Link {
                label: if rec.title.is_empty() {
                    rec.id.clone()
                } else {
                    rec.title.clone()
                },
                href,
                note: rec.relation,
            }
        })
        .collect()
}

#[derive(Serialize, Default)]
struct Turn {
    n: usize,
    role: String,
    line: u64,
    html: String,
    hit: bool,
}

#[derive(Serialize, Default)]
struct Section {
    title: String,
    html: String,
    hit: bool,
    /// `## Subagents`: one part per `###` heading.
    parts: Vec<Section>,
}

#[derive(Serialize)]
struct SessionCtx {
    nav: &'static str,
    id: String,
    title: String,
    date: String,
    doc_href: String,
    raw_href: String,
    fields: Vec<Field>,
    turns: Vec<Turn>,
    sections: Vec<Section>,
    hit_line: u64,
    cut: bool,
}

/// `/session/…?line=N`: the conversation turn by turn (anchors `#t1`, `#t2`, …; the turn holding
/// file line N marked and anchored `#hit`), then tools, reasoning, subagents (nested).
pub(super) fn session(app: &mut App, rest: &[String], query: &[(String, String)]) -> PageResult {
    let (o, _) = open(app, rest)?;
    let facts = brain_doc::file::FileFacts::read(&o.rel, &o.text, o.mtime);
    let hit_line: u64 = url::param(query, "line")
        .and_then(|l| l.parse().ok())
        .unwrap_or(0);
    let (turns, sections) = split_session(facts.body, facts.body_line, hit_line);
    let keep = [
        "session_id",
        "project",
        "branch",
        "agent",
        "models",
        "turns",
        "tool_calls",
        "ended",
    ];
    let fields = keep
        .iter()
        .filter_map(|k| {
            facts.frontmatter.get(*k).map(|v| Field {
                key: k.to_string(),
                value: text_of(v),
            })
        })
        .collect();
    let ctx = SessionCtx {
        nav: "",
        title: facts.title.clone(),
        date: local_time(&facts.date),
        doc_href: url::doc(&o.id),
        raw_href: url::raw(&o.id),
        id: o.id,
        fields,
        turns,
        sections,
        hit_line,
        cut: o.cut,
    };
    ok(app, "session.html", &ctx)
}

/// The state of [`split_session`]: what is read so far, and the section being read.
#[derive(Default)]
struct Splitter {
    turns: Vec<Turn>,
    sections: Vec<Section>,
    /// The `##` heading being read, and its line.
    section: String,
    section_line: u64,
    /// Its text so far (the open turn's, in the conversation).
    buf: String,
    /// `### ` parts of the subagents section: (heading, text).
    parts: Vec<(String, String)>,
    hit_line: u64,
}

impl Splitter {
    fn push(&mut self, line: &str) {
        self.buf.push_str(line);
        self.buf.push('\n');
    }

    /// Close the open turn.
    fn close_turn(&mut self) {
        if let Some(t) = self.turns.last_mut() {
            t.html = to_html(&self.buf);
        }
        self.buf.clear();
    }

    /// Close the section being read at line `end` (exclusive).
    fn close(&mut self, end: u64) {
        if self.section == "Conversation" {
            return self.close_turn();
        }
        if !self.section.is_empty() {
            let parts = self
                .parts
                .drain(..)
                .map(|(title, text)| Section {
                    title,
                    html: to_html(&text),
                    hit: false,
                    parts: Vec::new(),
                })
                .collect();
            self.sections.push(Section {
                title: self.section.clone(),
                html: to_html(&self.buf),
                hit: (self.section_line..end).contains(&self.hit_line),
                parts,
            });
        }
        self.buf.clear();
    }
}

/// The body of a session split into its conversation's turns and its other `##` sections.
/// `first_line` is the file line of the body's first line; the turn or section holding
/// `hit_line` is marked.
fn split_session(body: &str, first_line: u64, hit_line: u64) -> (Vec<Turn>, Vec<Section>) {
    use brain_doc::blocks::{Class, Lines, is_turn};
    let mut sp = Splitter {
        section_line: first_line,
        hit_line,
        ..Splitter::default()
    };
    let mut lines = Lines::new(body);
    let mut no = first_line;
    for line in body.lines() {
        let class = lines.classify(line);
        if let Class::Heading { level: 2, text } = class {
            sp.close(no);
            sp.section = text.trim().to_string();
            sp.section_line = no;
        } else if sp.section == "Conversation" && class == Class::Text && is_turn(line) {
            sp.close_turn();
            // `**Role**: text` (is_turn checked the shape).
            let rest = &line[2..];
            let end = rest.find("**").unwrap_or(0);
            sp.turns.push(Turn {
                n: sp.turns.len() + 1,
                role: rest[..end].to_string(),
                line: no,
                ..Turn::default()
            });
            sp.push(rest[end + 2..].trim_start_matches(':').trim_start());
        } else if sp.section == "Subagents"
            && let Class::Heading { level: 3, text } = class
        {
            sp.parts.push((text.trim().to_string(), String::new()));
        } else if sp.section == "Subagents"
            && let Some(p) = sp.parts.last_mut()
        {
            p.1.push_str(line);
            p.1.push('\n');
        } else {
            sp.push(line);
        }
        no += 1;
    }
    sp.close(no);
    // The turn holding the hit: the last that starts at or before it, if the hit is in the
    // conversation at all.
    if hit_line > 0
        && !sp.sections.iter().any(|s| s.hit)
        && let Some(t) = sp.turns.iter_mut().rev().find(|t| t.line <= hit_line)
    {
        t.hit = true;
    }
    (sp.turns, sp.sections)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_body_splits_into_turns_and_sections_and_the_hit_is_found() {
        let body = "## Conversation\n\n**User**: why <b>bold</b>?\n\n**Assistant**: because\n\n```text\n**User**: not a turn\n```\n\n## Tools Used\n\n- Bash: ls\n\n## Subagents\n\n### Explore: find it\n\nfound\n";
        let (turns, sections) = split_session(body, 10, 15);
        assert_eq!(turns.len(), 2);
        assert_eq!((turns[0].role.as_str(), turns[0].line), ("User", 12));
        assert!(
            turns[0].html.contains("why &lt;b&gt;bold&lt;/b&gt;?"),
            "{}",
            turns[0].html
        );
        assert!(
            turns[1].html.contains("**User**: not a turn"),
            "{}",
            turns[1].html
        );
        assert!(turns[1].hit && !turns[0].hit);
        assert_eq!(sections.len(), 2);
        assert_eq!(sections[0].title, "Tools Used");
        assert_eq!(sections[1].parts[0].title, "Explore: find it");
    }
}
