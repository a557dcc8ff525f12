//! Reading an `items.json`: which files, which items, and what record each fact becomes.

use std::collections::BTreeSet;
use std::path::PathBuf;

use serde_json::{Map, Value};

use brain_store::access::Counts;
use brain_store::{Config, Trust};

/// Largest `items.json` read (a file of facts, not a database); a bigger one is named and skipped.
pub const MAX_FILE_BYTES: u64 = 16 * 1024 * 1024;

/// Longest fact kept, in bytes (cut at a character boundary, said in a warning).
pub const MAX_FACT_BYTES: usize = 64 * 1024;
/// Categories that are memory types of their own (freshness warnings differ by type).
const TYPES: [&str; 8] = [
    "fact",
    "decision",
    "preference",
    "status",
    "event",
    "person",
    "project",
    "note",
];
/// One `items.json` of a collection.
pub(super) struct Source {
    pub(super) collection: String,
    /// Path inside the collection, `/`-separated.
    pub(super) rel: String,
    pub(super) path: PathBuf,
}

impl Source {
    /// `collection/rel`: what a record's `source.file` and the registry baseline name.
    pub(super) fn name(&self) -> String {
        format!("{}/{}", self.collection, self.rel)
    }

    /// The entity: the folder holding the file (`areas/people/sarah`), `_` at the root.
    pub(super) fn entity(&self) -> String {
        match self.rel.rsplit_once('/') {
            Some((dir, _)) => dir.to_string(),
            None => "_".into(),
        }
    }
}

/// The `items.json` files of the user collections of `config` (the pipeline's own are never
/// read); medium-trust ones are named and skipped.
pub(super) fn sources(config: &Config, warn: &dyn Fn(String)) -> Vec<Source> {
    let glob = globset::Glob::new("**/items.json")
        .map(|g| g.compile_matcher())
        .unwrap_or_else(|e| unreachable!("a fixed glob compiles: {e}"));
    let builtin: BTreeSet<&str> = brain_store::BUILTIN.iter().map(|b| b.0).collect();
    let mut out = Vec::new();
    for c in config
        .collections
        .iter()
        .filter(|c| !builtin.contains(c.name.as_str()))
    {
        let found = brain_store::walk::files(&config.resolve(&c.path), &glob, c.follow_links, warn);
        if c.trust != Trust::High {
            for (rel, _) in &found {
                warn(format!(
                    "{}/{rel}: collection `{}` is not high-trust: its facts are not made records",
                    c.name, c.name
                ));
            }
            continue;
        }
        out.extend(found.into_iter().map(|(rel, path)| Source {
            collection: c.name.clone(),
            rel,
            path,
        }));
    }
    out
}
/// A name safe as a file name: `[A-Za-z0-9._-]`, at most 80 bytes, not hidden; else (or when
/// empty) the safe part plus a hash of the whole.
fn file_stem(id: &str) -> String {
    let safe: String = id
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
        .take(80)
        .collect();
    let safe = safe.trim_start_matches('.');
    if !safe.is_empty() && safe == id {
        return safe.to_string();
    }
    let hash = brain_doc::sha256_hex(id.as_bytes());
    if safe.is_empty() {
        format!("h-{}", &hash[..12])
    } else {
        format!("{safe}-{}", &hash[..8])
    }
}

/// The id a fact goes by (one rule for reading and editing): its `id` (a string, or a number
/// written out), or a hash of it when it holds a secret; a hash of the fact's text without one.
pub(super) fn fact_key(item: &Map<String, Value>) -> String {
    let id = match item.get("id") {
        Some(Value::String(s)) => Some(s.trim().to_string()),
        Some(Value::Number(n)) => Some(n.to_string()),
        _ => None,
    }
    .filter(|s| !s.is_empty());
    match id {
        Some(id) => id_key(&id),
        None => {
            let fact = item.get("fact").and_then(Value::as_str).unwrap_or_default();
            format!("h-{}", &brain_doc::sha256_hex(fact.trim().as_bytes())[..12])
        }
    }
}

/// An id as a fact key: itself, or a hash when it holds a secret (never written as it is).
fn id_key(id: &str) -> String {
    if brain_redact::find_secrets(id).is_empty() {
        id.to_string()
    } else {
        format!("h-{}", &brain_doc::sha256_hex(id.as_bytes())[..12])
    }
}

/// A string field of `item`, trimmed, redacted.
fn text(item: &Map<String, Value>, key: &str, red: &mut brain_redact::Counts) -> Option<String> {
    item.get(key)
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| brain_redact::redact(s, red))
}

/// One fact read from its file.
pub(super) struct Fact {
    /// The id as the file gives it (or the hash name), redacted.
    pub(super) fact_id: String,
    pub(super) stem: String,
    pub(super) fm: Map<String, Value>,
    pub(super) body: String,
    pub(super) superseded_by: Option<String>,
    pub(super) counts: Option<Counts>,
}

/// The items of one file: its facts, with warnings for what was skipped.
pub(super) fn read_facts(
    src: &Source,
    warn: &dyn Fn(String),
    files: &mut u64,
    skipped: &mut u64,
) -> Vec<Fact> {
    let label = src.name();
    let Some(items) = read_items(src, &label, warn) else {
        return Vec::new();
    };
    *files += 1;
    let entity = src.entity();
    let mut seen: BTreeSet<String> = BTreeSet::new();
    let mut out = Vec::new();
    for (n, item) in items.iter().enumerate() {
        let at = format!("{label}: item {}", n + 1);
        match fact_of(item, &at, &seen, warn) {
            Ok((fact, fact_id, stem, mut red)) => {
                seen.insert(stem.clone());
                let mut fm = frontmatter(item, &fact, &fact_id, &entity, &label, &mut red);
                drop_unread_fields(&mut fm, &at, warn);
                brain_redact::record(&red, &mut fm);
                out.push(Fact {
                    fact_id,
                    stem,
                    fm,
                    body: fact,
                    superseded_by: superseded_by(item),
                    counts: counts(item),
                });
            }
            Err(why) => {
                warn(format!("{at}: {why}"));
                *skipped += 1;
            }
        }
    }
    out
}

/// The items of the file: a list, or the list of its `items` (or `facts`); `None` (said) for a
/// file too big, unreadable, not JSON or of another shape.
fn read_items(src: &Source, label: &str, warn: &dyn Fn(String)) -> Option<Vec<Value>> {
    let size = std::fs::metadata(&src.path).map_or(0, |m| m.len());
    if size > MAX_FILE_BYTES {
        warn(format!(
            "{label}: {size} bytes, past the {MAX_FILE_BYTES} a file of facts may hold: skipped"
        ));
        return None;
    }
    let parsed = std::fs::read(&src.path)
        .map_err(|e| e.to_string())
        .and_then(|b| {
            let b = b.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&b).to_vec();
            serde_json::from_slice::<Value>(&b).map_err(|e| format!("not JSON: {e}"))
        });
    match parsed {
        Ok(Value::Array(a)) => Some(a),
        Ok(Value::Object(mut o)) => match o.remove("items").or_else(|| o.remove("facts")) {
            Some(Value::Array(a)) => Some(a),
            _ => {
                warn(format!(
                    "{label}: expected a list of facts (or {{\"items\": […]}}): skipped"
                ));
                None
            }
        },
        Ok(_) => {
            warn(format!("{label}: expected a list of facts: skipped"));
            None
        }
        Err(e) => {
            warn(format!("{label}: {e}: skipped"));
            None
        }
    }
}

/// An item's fact (redacted, cut to [`MAX_FACT_BYTES`] with a warning), its id and file stem, and
/// the redactions so far; or why the item is skipped (not an object, no fact, an id `seen`).
fn fact_of(
    item: &Value,
    at: &str,
    seen: &BTreeSet<String>,
    warn: &dyn Fn(String),
) -> Result<(String, String, String, brain_redact::Counts), String> {
    let item = item.as_object().ok_or("not an object: skipped")?;
    let mut red = brain_redact::Counts::new();
    let mut fact = text(item, "fact", &mut red).ok_or("no `fact` text: skipped")?;
    if fact.len() > MAX_FACT_BYTES {
        let mut cut = MAX_FACT_BYTES;
        while !fact.is_char_boundary(cut) {
            cut -= 1;
        }
        fact.truncate(cut);
        warn(format!("{at}: fact cut to {MAX_FACT_BYTES} bytes"));
    }
    let fact_id = fact_key(item);
    let stem = file_stem(&fact_id);
    if seen.contains(&stem) {
        return Err(format!("id `{fact_id}` repeats an earlier item: skipped"));
    }
    Ok((fact, fact_id, stem, red))
}

/// The record's frontmatter of an item: title, type, dates, status, the memory fields it carries,
/// tags, entities, its fact id and source (strings redacted).
fn frontmatter(
    item: &Value,
    fact: &str,
    fact_id: &str,
    entity: &str,
    label: &str,
    red: &mut brain_redact::Counts,
) -> Map<String, Value> {
    let empty = Map::new();
    let item = item.as_object().unwrap_or(&empty);
    let mut fm = Map::new();
    let title: String = fact
        .lines()
        .next()
        .unwrap_or_default()
        .chars()
        .take(100)
        .collect();
    fm.insert("title".into(), Value::from(title.trim()));
    let category = text(item, "category", red).map(|c| c.to_lowercase());
    let kind = category
        .as_deref()
        .filter(|c| TYPES.contains(c))
        .unwrap_or("fact");
    fm.insert("type".into(), Value::from(kind));
    if let Some(t) = text(item, "timestamp", red) {
        if brain_doc::file::parse_date(&t).is_some() {
            fm.insert("date".into(), Value::from(t.clone()));
        }
        fm.insert("occurred_at".into(), Value::from(t));
    }
    if let Some(s) = text(item, "status", red) {
        fm.insert("status".into(), Value::from(s.to_lowercase()));
    }
    // Memory fields of the record's own vocabulary pass through (checked later).
    for field in [
        "importance",
        "confidence",
        "pinned",
        "key",
        "expires_at",
        "ttl",
    ] {
        if let Some(v) = item.get(field).filter(|v| !v.is_null()) {
            let v = match v {
                Value::String(s) => Value::from(brain_redact::redact(s, red)),
                other => other.clone(),
            };
            fm.insert(field.into(), v);
        }
    }
    if let Some(c) = &category {
        fm.insert("tags".into(), Value::from(vec![c.clone()]));
    }
    let mut entities = vec![entity.to_string()];
    if let Some(Value::Array(related)) = item.get("relatedEntities") {
        for r in related.iter().filter_map(Value::as_str).map(str::trim) {
            let r = brain_redact::redact(r, red);
            if !r.is_empty() && !entities.contains(&r) {
                entities.push(r);
            }
        }
    }
    fm.insert("entities".into(), Value::from(entities));
    fm.insert("entity".into(), Value::from(entity));
    fm.insert("fact_id".into(), Value::from(fact_id));
    let mut source = Map::new();
    source.insert("type".into(), Value::from("entity"));
    source.insert("file".into(), Value::from(label));
    fm.insert("source".into(), Value::Object(source));
    fm
}

/// The fact that supersedes this one, by its key.
fn superseded_by(item: &Value) -> Option<String> {
    item.get("supersededBy")
        .and_then(|v| match v {
            Value::String(s) => Some(s.trim().to_string()),
            Value::Number(n) => Some(n.to_string()),
            _ => None,
        })
        .filter(|s| !s.is_empty())
        .map(|s| id_key(&s))
}

/// The reads the file counted (`accessCount`, `lastAccessed`), when it counts any.
fn counts(item: &Value) -> Option<Counts> {
    let reads = item.get("accessCount").and_then(Value::as_u64);
    let last = item
        .get("lastAccessed")
        .and_then(Value::as_str)
        .and_then(brain_doc::file::parse_date);
    (reads.is_some() || last.is_some()).then(|| Counts {
        reads: reads.unwrap_or(0),
        listed: 0,
        last_read: last,
    })
}

/// A field that does not read is named here, at its item, and left out of the record.
fn drop_unread_fields(fm: &mut Map<String, Value>, at: &str, warn: &dyn Fn(String)) {
    let fields: Vec<String> = fm.keys().cloned().collect();
    for field in fields {
        let Some(v) = fm.get(&field) else { continue };
        let alone: Map<String, Value> = [(field.clone(), v.clone())].into_iter().collect();
        let (_, warnings) = brain_doc::memory::Memory::read(&alone, None);
        if !warnings.is_empty() {
            for w in warnings {
                warn(format!("{at}: {w}"));
            }
            fm.remove(&field);
        }
    }
}
#[cfg(test)]
mod tests {
    use super::file_stem;

    #[test]
    fn file_stems_are_safe_and_distinct() {
        assert_eq!(file_stem("sarah-001"), "sarah-001");
        for hostile in ["../../etc/passwd", ".hidden", "a/b", "", "ключ", "x\0y"] {
            let s = file_stem(hostile);
            assert!(
                !s.is_empty()
                    && !s.starts_with('.')
                    && s.chars()
                        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-')),
                "{hostile:?} → {s:?}"
            );
        }
        assert_ne!(file_stem("a/b"), file_stem("a?b"));
        assert!(file_stem(&"x".repeat(500)).len() <= 90);
    }
}
