//! What a document says about other things (seed 003): typed relations to other records, the
//! entities it is about, and — for an entity's own file — the entity it defines. The one reader of
//! `relations:`, `entities:`, `aliases:` and `[[wiki links]]`; the index stores what it reads in the
//! registry, and `brain_graph` resolves the targets.
//!
//! ```yaml
//! relations:                      # a map of kind → target(s) …
//!   supports: notes/db-choice.md
//!   contradicts: [notes/old-plan.md, "[[Billing v1]]"]
//! relations:                      # … or a list of one-key maps or {kind, to} maps
//!   - refines: notes/api.md
//!   - {kind: derives_from, to: notes/meeting-0301.md}
//! entities: [Sarah Chen, "@schen", billing-api]
//! entity: {kind: person, name: Sarah Chen, aliases: [Sarah, "@schen"]}   # this file defines one
//! aliases: [Sarah, "@schen"]      # so does Obsidian's own field alone (a kind from `type:`)
//! entity: areas/people/sarah      # a string: the entity a record is about (a mention)
//! ```
//!
//! A target is written as a document (`notes/x.md`, `brain://notes/x.md`, a file name), a
//! `[[wiki link]]` or an entity's name. Nothing here guesses: an unknown relation kind is a warning
//! naming it, and a value that is not text is one too.

use serde_json::{Map, Value};

use crate::blocks::{Class, Lines};

/// The kinds of typed relations (seed 003's `thought_relations.kind`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RelationKind {
    DerivesFrom,
    Supersedes,
    Supports,
    Contradicts,
    Refines,
    Related,
}

impl RelationKind {
    /// Every kind, in the order the docs list them.
    pub const ALL: [RelationKind; 6] = [
        RelationKind::DerivesFrom,
        RelationKind::Supersedes,
        RelationKind::Supports,
        RelationKind::Contradicts,
        RelationKind::Refines,
        RelationKind::Related,
    ];

    /// The name as written in frontmatter and stored in the registry.
    pub fn name(self) -> &'static str {
        match self {
            RelationKind::DerivesFrom => "derives_from",
            RelationKind::Supersedes => "supersedes",
            RelationKind::Supports => "supports",
            RelationKind::Contradicts => "contradicts",
            RelationKind::Refines => "refines",
            RelationKind::Related => "related",
        }
    }

    /// How the relation reads from its target's side (`A supports B`: B is `supported by` A).
    pub fn inverse_name(self) -> &'static str {
        match self {
            RelationKind::DerivesFrom => "source of",
            RelationKind::Supersedes => "superseded by",
            RelationKind::Supports => "supported by",
            RelationKind::Contradicts => "contradicted by",
            RelationKind::Refines => "refined by",
            RelationKind::Related => "related",
        }
    }

    /// A kind from its name: case, `-` and spaces do not matter (`derives-from`, `Derives From`).
    pub fn parse(s: &str) -> Option<RelationKind> {
        let n: String = s
            .trim()
            .chars()
            .map(|c| match c {
                '-' | ' ' => '_',
                c => c.to_ascii_lowercase(),
            })
            .collect();
        RelationKind::ALL.into_iter().find(|k| k.name() == n)
    }
}

/// Most links of one kind a document keeps (a generated file with thousands of `[[…]]` names its
/// first ones).
pub const MAX_LINKS: usize = 200;

/// Longest target kept, in bytes.
const MAX_TARGET: usize = 300;

/// Kinds of entities the PARA layout and `entity:` name; any other word is kept as written.
pub const ENTITY_KINDS: [&str; 8] = [
    "person", "project", "company", "concept", "area", "resource", "place", "tool",
];

/// A typed relation as a document writes it: its kind, the target as written, the line (1-based,
/// in the file) it is on — the frontmatter's relations are on line 1.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Relation {
    pub kind: RelationKind,
    pub target: String,
    pub line: u64,
}

/// An entity a file defines (`entity:` in its frontmatter, or a PARA folder's `summary.md`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct EntityFields {
    /// `person`, `project`, … (`None`: the layout decides).
    pub kind: Option<String>,
    /// The canonical name (`None`: the title or the folder decides).
    pub name: Option<String>,
    /// Other names, `@handles` included, as written.
    pub aliases: Vec<String>,
}

/// Everything [`read`] finds in one document.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Links {
    /// Typed relations (`relations:`), then `related` for each `[[wiki link]]` of the body.
    pub relations: Vec<Relation>,
    /// Entities the document is about (`entities:`), as written.
    pub entities: Vec<String>,
    /// `@handles` in the body's prose (outside code), as written without the `@`, with the line
    /// of their first use.
    pub handles: Vec<(String, u64)>,
    /// The entity this file defines, when its frontmatter says so (`entity:`, or `aliases:`).
    pub entity: Option<EntityFields>,
    /// The record's own name (frontmatter `id:`, seed 003): what relations, `supersedes`, `brain
    /// get` and `brain related` may call it by. One line, at most [`MAX_NAME`] bytes.
    pub name: Option<String>,
    /// Values that could not be read (`relations: unknown kind `blocks``).
    pub warnings: Vec<String>,
}

/// A string or a list of strings; anything else is a warning for `field`.
fn strings(v: &Value, field: &str, warnings: &mut Vec<String>) -> Vec<String> {
    let one = |v: &Value, warnings: &mut Vec<String>| match v {
        Value::String(s) => Some(s.trim().to_string()),
        Value::Number(n) => Some(n.to_string()),
        other => {
            warnings.push(format!("`{field}`: {other} is not text: ignored"));
            None
        }
    };
    let mut out: Vec<String> = match v {
        Value::Array(a) => a.iter().filter_map(|v| one(v, warnings)).collect(),
        Value::Null => Vec::new(),
        v => one(v, warnings).into_iter().collect(),
    };
    out.retain(|s| !s.is_empty() && s.len() <= MAX_TARGET && !s.contains('\n'));
    out.truncate(MAX_LINKS);
    out
}

/// The target of a `[[wiki link]]` (`[[people/sarah|Sarah]]` → `people/sarah`, `[[Plan#Goals]]` →
/// `Plan`), or the text as it is.
pub fn wiki_target(s: &str) -> String {
    let s = s.trim();
    let s = s
        .strip_prefix("[[")
        .and_then(|s| s.strip_suffix("]]"))
        .unwrap_or(s);
    let s = s.split('|').next().unwrap_or(s);
    let s = s.split('#').next().unwrap_or(s);
    s.trim().to_string()
}

fn relations_of(v: &Value, out: &mut Vec<Relation>, warnings: &mut Vec<String>) {
    let mut add = |kind: &str, targets: &Value, warnings: &mut Vec<String>| {
        let Some(k) = RelationKind::parse(kind) else {
            warnings.push(format!(
                "`relations`: unknown kind `{kind}` (one of {}): ignored",
                RelationKind::ALL.map(RelationKind::name).join(", ")
            ));
            return;
        };
        for t in strings(targets, "relations", warnings) {
            let target = wiki_target(&t);
            if !target.is_empty() && out.len() < MAX_LINKS {
                out.push(Relation {
                    kind: k,
                    target,
                    line: 1,
                });
            }
        }
    };
    match v {
        Value::Object(m) => {
            for (k, t) in m {
                add(k, t, warnings);
            }
        }
        Value::Array(items) => {
            for item in items {
                match item.as_object() {
                    Some(m) if m.contains_key("kind") => {
                        let kind = m.get("kind").and_then(Value::as_str).unwrap_or_default();
                        match m.get("to").or_else(|| m.get("target")) {
                            Some(t) => add(kind, t, warnings),
                            None => warnings
                                .push(format!("`relations`: `{kind}` without `to:`: ignored")),
                        }
                    }
                    Some(m) => {
                        for (k, t) in m {
                            add(k, t, warnings);
                        }
                    }
                    None => warnings.push(format!(
                        "`relations`: {item} is not `kind: target`: ignored"
                    )),
                }
            }
        }
        Value::Null => {}
        other => warnings.push(format!(
            "`relations`: {other} is not a map or a list: ignored"
        )),
    }
}

fn entity_of(fm: &Map<String, Value>, warnings: &mut Vec<String>) -> Option<EntityFields> {
    let mut e = match fm.get("entity") {
        Some(Value::Object(m)) => EntityFields {
            kind: m.get("kind").and_then(Value::as_str).map(kind_word),
            name: m
                .get("name")
                .and_then(Value::as_str)
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty()),
            aliases: m
                .get("aliases")
                .map(|v| strings(v, "entity.aliases", warnings))
                .unwrap_or_default(),
        },
        Some(Value::Bool(true)) => EntityFields::default(),
        // `entity: areas/people/sarah` names the entity a record is about (an items.json fact's
        // record says so): a mention, read by [`read`], not a definition.
        None | Some(Value::Null | Value::Bool(false) | Value::String(_)) => {
            // `aliases:` alone makes a file an entity (Obsidian's own field).
            let aliases = fm.get("aliases")?;
            EntityFields {
                aliases: strings(aliases, "aliases", warnings),
                ..EntityFields::default()
            }
        }
        Some(other) => {
            warnings.push(format!("`entity`: {other} is not a map or a kind: ignored"));
            return None;
        }
    };
    if let Some(a) = fm.get("aliases").filter(|_| {
        fm.get("entity")
            .is_some_and(|v| v.is_object() || v == &Value::Bool(true))
    }) {
        e.aliases.extend(strings(a, "aliases", warnings));
    }
    for h in ["handle", "handles"] {
        if let Some(v) = fm.get(h) {
            e.aliases.extend(
                strings(v, h, warnings)
                    .into_iter()
                    .map(|s| format!("@{}", s.trim_start_matches('@'))),
            );
        }
    }
    e.aliases.dedup();
    Some(e)
}

/// An entity kind as stored: lower case, trimmed, `people` read as `person`.
pub fn kind_word(s: &str) -> String {
    let k = s.trim().to_lowercase();
    match k.as_str() {
        "people" | "persons" => "person".into(),
        "projects" => "project".into(),
        "companies" | "organization" | "organisation" | "org" => "company".into(),
        "concepts" => "concept".into(),
        _ => k,
    }
}

/// Longest record name (`id:`) kept, in bytes.
pub const MAX_NAME: usize = 200;

/// Read the links of a document: its frontmatter `fm` and its `body`, which starts at 1-based line
/// `body_line` of the file.
pub fn read(fm: &Map<String, Value>, body: &str, body_line: u64) -> Links {
    let mut l = Links::default();
    if let Some(v) = fm.get("relations") {
        relations_of(v, &mut l.relations, &mut l.warnings);
    }
    if let Some(v) = fm.get("entities") {
        l.entities = strings(v, "entities", &mut l.warnings)
            .into_iter()
            .map(|s| wiki_target(&s))
            .filter(|s| !s.is_empty())
            .collect();
    }
    if let Some(Value::String(about)) = fm.get("entity") {
        let about = wiki_target(about);
        if !about.is_empty() && !l.entities.contains(&about) {
            l.entities.push(about);
        }
    }
    l.entity = entity_of(fm, &mut l.warnings);
    l.name = match fm.get("id") {
        None => None,
        Some(Value::String(s))
            if !s.trim().is_empty() && s.trim().len() <= MAX_NAME && !s.contains('\n') =>
        {
            Some(s.trim().to_string())
        }
        Some(Value::Number(n)) => Some(n.to_string()),
        Some(other) => {
            l.warnings.push(format!(
                "`id`: {other} is not a one-line name of at most {MAX_NAME} bytes: ignored"
            ));
            None
        }
    };
    let (wiki, handles) = scan_body(body, body_line);
    for (target, line) in wiki {
        if l.relations.len() >= MAX_LINKS * 2 {
            break;
        }
        if !l
            .relations
            .iter()
            .any(|r| r.kind == RelationKind::Related && r.target == target)
        {
            l.relations.push(Relation {
                kind: RelationKind::Related,
                target,
                line,
            });
        }
    }
    l.handles = handles;
    l
}

/// The `[[wiki link]]` targets and `@handles` of a body's prose, each with the line of its first
/// use: code fences and inline code are skipped, at most [`MAX_LINKS`] of each.
#[allow(clippy::type_complexity)]
pub fn scan_body(body: &str, body_line: u64) -> (Vec<(String, u64)>, Vec<(String, u64)>) {
    let mut wiki: Vec<(String, u64)> = Vec::new();
    let mut handles: Vec<(String, u64)> = Vec::new();
    for (i, (raw, _, class)) in Lines::new(body).enumerate() {
        if class.is_code() || class == Class::Blank {
            continue;
        }
        let line = body_line + i as u64;
        let prose = without_inline_code(raw);
        let mut rest = prose.as_str();
        while let Some(start) = rest.find("[[") {
            let after = &rest[start + 2..];
            let Some(end) = after.find("]]") else {
                break;
            };
            let inner = &after[..end];
            let t = wiki_target(inner);
            if !t.is_empty()
                && !inner.contains('[')
                && t.len() <= MAX_TARGET
                && wiki.len() < MAX_LINKS
                && !wiki.iter().any(|(w, _)| *w == t)
            {
                wiki.push((t, line));
            }
            rest = &after[end + 2..];
        }
        for h in handles_in(&prose) {
            if handles.len() < MAX_LINKS && !handles.iter().any(|(x, _)| *x == h) {
                handles.push((h, line));
            }
        }
    }
    (wiki, handles)
}

/// `line` with its `inline code` spans blanked.
fn without_inline_code(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut in_code = false;
    for c in line.chars() {
        if c == '`' {
            in_code = !in_code;
            out.push(' ');
        } else if in_code {
            out.push(' ');
        } else {
            out.push(c);
        }
    }
    out
}

/// `@handle`s of a line of prose: `@` at the start or after a space or `(`, then a letter and up to
/// 38 more of `[A-Za-z0-9_.-]`, not followed by `/` (an npm scope, `@types/node`) or part of an
/// e-mail address. A trailing `.` is punctuation.
fn handles_in(line: &str) -> Vec<String> {
    let b = line.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'@' && (i == 0 || matches!(b[i - 1], b' ' | b'\t' | b'(' | b'>' | b'-')) {
            let start = i + 1;
            let mut j = start;
            while j < b.len()
                && j - start < 39
                && (b[j].is_ascii_alphanumeric() || matches!(b[j], b'_' | b'.' | b'-'))
            {
                j += 1;
            }
            let mut end = j;
            while end > start && matches!(b[end - 1], b'.' | b'-') {
                end -= 1;
            }
            let ok = end > start + 1
                && b[start].is_ascii_alphabetic()
                && b.get(j) != Some(&b'/')
                && b.get(j) != Some(&b'@');
            if ok {
                out.push(line[start..end].to_string());
            }
            i = j.max(i + 1);
        } else {
            i += 1;
        }
    }
    out
}

/// The key a name is matched by (strict, seed 003): trimmed, case-folded, inner white space made
/// one space. Never anything fuzzier: `Sarah Chen` and `sarah  chen` are one key, `S. Chen` another.
pub fn name_key(s: &str) -> String {
    s.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fm(yaml: &str) -> Map<String, Value> {
        serde_norway::from_str(yaml).expect("yaml")
    }

    #[test]
    fn relations_read_as_a_map_a_list_and_wiki_links() {
        let l = read(
            &fm(
                "relations:\n  supports: notes/a.md\n  contradicts: [notes/b.md, \"[[Billing v1|v1]]\"]\n",
            ),
            "",
            5,
        );
        let got: Vec<(&str, &str)> = l
            .relations
            .iter()
            .map(|r| (r.kind.name(), r.target.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                ("supports", "notes/a.md"),
                ("contradicts", "notes/b.md"),
                ("contradicts", "Billing v1")
            ]
        );
        let l = read(
            &fm(
                "relations:\n  - refines: x.md\n  - {kind: Derives-From, to: y.md}\n  - blocks: z.md\n  - 7\n",
            ),
            "See [[people/sarah|Sarah]] and [[Plan#Goals]].\n```\n[[not a link]]\n```\n`[[code]]` [[Plan]]\n",
            3,
        );
        let got: Vec<(&str, &str, u64)> = l
            .relations
            .iter()
            .map(|r| (r.kind.name(), r.target.as_str(), r.line))
            .collect();
        assert_eq!(
            got,
            [
                ("refines", "x.md", 1),
                ("derives_from", "y.md", 1),
                ("related", "people/sarah", 3),
                ("related", "Plan", 3)
            ]
        );
        assert_eq!(l.warnings.len(), 2, "{:?}", l.warnings);
        assert!(l.warnings[0].contains("unknown kind `blocks`"));
    }

    #[test]
    fn entities_and_definitions() {
        let l = read(
            &fm(
                "entities: [Sarah Chen, \"[[projects/billing]]\", 42, {a: b}]\naliases: [Sarah, \"@schen\"]\nhandle: schen2\n",
            ),
            "",
            1,
        );
        assert_eq!(l.entities, ["Sarah Chen", "projects/billing", "42"]);
        let e = l.entity.expect("aliases make an entity");
        assert_eq!(e.aliases, ["Sarah", "@schen", "@schen2"]);
        assert_eq!(l.warnings.len(), 1);
        let l = read(
            &fm("entity: {kind: People, name: Ana Lima, aliases: [ana]}\n"),
            "",
            1,
        );
        let e = l.entity.expect("entity");
        assert_eq!(e.kind.as_deref(), Some("person"));
        assert_eq!(e.name.as_deref(), Some("Ana Lima"));
        assert!(read(&fm("title: x\n"), "", 1).entity.is_none());
    }

    #[test]
    fn handles_are_words_after_an_at_sign_not_emails_or_scopes() {
        let (_, h) = scan_body(
            "ping @schen and (@ana.lima.) about it\nmail bob@example.com, npm @types/node\n`@code`\n",
            1,
        );
        assert_eq!(h, [("schen".to_string(), 1), ("ana.lima".to_string(), 1)]);
    }

    #[test]
    fn names_match_by_case_and_space_only() {
        assert_eq!(name_key("  Sarah   CHEN "), "sarah chen");
        assert_ne!(name_key("S. Chen"), name_key("Sarah Chen"));
        assert_eq!(
            RelationKind::parse("Derives From"),
            Some(RelationKind::DerivesFrom)
        );
        assert_eq!(RelationKind::parse("blocks"), None);
    }
}
