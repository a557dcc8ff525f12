//! Editing a fact where it lives (`brain forget`): its `items.json` is the source of truth.

use std::path::{Path, PathBuf};

use serde_json::Value;

use brain_store::{Config, Home};

use super::items::fact_key;
use super::{EntitiesError, FOLDER, io};

/// Where the fact of record `rel` (inside the inbox) comes from: its `items.json` and its id, read
/// from the record's frontmatter; `None` when `rel` is not an entity-fact record.
pub fn origin(home: &Home, config: &Config, rel: &str) -> Option<(PathBuf, String)> {
    if !rel.starts_with(&format!("{FOLDER}/")) {
        return None;
    }
    let text = std::fs::read_to_string(home.inbox().join(rel)).ok()?;
    let facts = brain_doc::file::FileFacts::read(rel, &text, 0);
    let fm = &facts.frontmatter;
    let fact_id = fm.get("fact_id")?.as_str()?.to_string();
    let file = fm.get("source")?.get("file")?.as_str()?;
    let (collection, inner) = file.split_once('/')?;
    // Only an `items.json` inside a user collection's folder (never a path that climbs out).
    if !(inner == "items.json" || inner.ends_with("/items.json"))
        || inner
            .split('/')
            .any(|c| c.is_empty() || c == "." || c == "..")
    {
        return None;
    }
    let dir = config.collection_dir(collection)?.canonicalize().ok()?;
    let path = dir.join(inner).canonicalize().ok()?;
    path.starts_with(&dir).then_some((path, fact_id))
}

/// Change fact `fact_id` of the `items.json` at `path`: `Some(status)` sets its `status`, `None`
/// removes it from the file (`brain forget --purge`). The file is written atomically; `Ok(false)`
/// when it holds no such fact.
pub fn edit_fact(path: &Path, fact_id: &str, status: Option<&str>) -> Result<bool, EntitiesError> {
    let bytes = std::fs::read(path).map_err(io(path))?;
    let bad = |e: String| EntitiesError::Io {
        path: path.to_path_buf(),
        source: std::io::Error::new(std::io::ErrorKind::InvalidData, e),
    };
    let mut v: Value =
        serde_json::from_slice(bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&bytes))
            .map_err(|e| bad(e.to_string()))?;
    let items = match &mut v {
        Value::Array(a) => Some(a),
        Value::Object(o) => {
            let key = if o.contains_key("items") {
                "items"
            } else {
                "facts"
            };
            o.get_mut(key).and_then(Value::as_array_mut)
        }
        _ => None,
    }
    .ok_or_else(|| bad("not a list of facts".into()))?;
    let matches = |item: &Value| item.as_object().is_some_and(|o| fact_key(o) == fact_id);
    let Some(i) = items.iter().position(matches) else {
        return Ok(false);
    };
    match status {
        Some(s) => {
            if let Some(o) = items[i].as_object_mut() {
                o.insert("status".into(), Value::from(s));
            }
        }
        None => {
            items.remove(i);
        }
    }
    let mut out = serde_json::to_vec_pretty(&v).map_err(|e| bad(e.to_string()))?;
    out.push(b'\n');
    brain_doc::atomic::write(path, &out).map_err(io(path))?;
    Ok(true)
}
