//! The knob registry (issue #24): every tunable of the strategy in one declared place — its key in
//! `search_strategy.yaml`, its type, range, the step a search starts with, the group it belongs to
//! and a one-line meaning. The file is checked against it (an unknown key or a value out of range
//! is an error naming the key, never ignored or clamped), `brain strategy show | diff` print it,
//! and `brain tune` searches within it. A new weight joins by a field of [`crate::Strategy`] and a
//! line here (a test holds every numeric leaf of the default strategy to a knob).

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// What the knobs are read from and written to: the strategy (`crate::Strategy`), kept generic so
/// this registry does not import the type it describes (the strategy checks its file here).
pub trait Tunable: Serialize + DeserializeOwned + Default {}

impl<T: Serialize + DeserializeOwned + Default> Tunable for T {}

/// What a knob holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A real number.
    Float,
    /// A whole number.
    Int,
    /// Text (a path).
    Text,
    /// The reranker's `[[up_to_rank, weight], …]` steps.
    Steps,
    /// On or off (`true` / `false`).
    Switch,
}

/// One tunable.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Knob {
    /// Dotted key (`lex.title`); `*` stands for any one key of a map (`memory.roles.*`).
    pub key: &'static str,
    pub kind: Kind,
    pub min: f64,
    pub max: f64,
    /// The first step a coordinate search tries (halved after every miss).
    pub step: f64,
    /// `lex`, `pool`, `fusion`, `hybrid`, `time`, `entity`, `memory`, `rerank`, `dedup`, `output`.
    pub group: &'static str,
    pub meaning: &'static str,
}

const fn k(
    key: &'static str,
    kind: Kind,
    (min, max, step): (f64, f64, f64),
    group: &'static str,
    meaning: &'static str,
) -> Knob {
    Knob {
        key,
        kind,
        min,
        max,
        step,
        group,
        meaning,
    }
}

use Kind::{Float, Int, Steps, Switch, Text};

/// Every knob, in the order `brain strategy show` prints them (one line each: a table).
#[rustfmt::skip]
pub const KNOBS: &[Knob] = &[
    k("lex.title", Float, (0.0, 8.0, 0.5), "lex", "weight of a match in the title"),
    k("lex.headings", Float, (0.0, 8.0, 0.5), "lex", "weight of a match in the passage's heading path"),
    k("lex.path", Float, (0.0, 8.0, 0.25), "lex", "weight of a match in the file's path words"),
    k("lex.body", Float, (0.0, 8.0, 0.5), "lex", "weight of a match in the passage text"),
    k("lex.ident", Float, (0.0, 8.0, 0.5), "lex", "weight of a whole identifier, path or flag"),
    k("lex.all_terms", Float, (0.0, 8.0, 0.5), "lex", "boost of a passage that holds every query word (conjunction)"),
    k("lex.tie_breaker", Float, (0.0, 1.0, 0.25), "lex", "share of a word's other fields added to its best field (1: sum)"),
    k("pool.per_hit", Int, (1.0, 64.0, 2.0), "pool", "candidate passages fetched per wanted hit before folding into documents"),
    k("pool.min", Int, (1.0, 2000.0, 20.0), "pool", "fewest candidate passages fetched"),
    k("pool.widen", Int, (2.0, 16.0, 2.0), "pool", "how much a candidate list too narrow for enough documents grows per round"),
    k("pool.exact_form", Float, (0.0, 1.0, 0.05), "pool", "most a passage gains for the query's words as written, not only their stems"),
    k("pool.session_share", Float, (0.0, 1.0, 0.1), "pool", "sessions as units: the share of a further matching passage's score its document adds"),
    k("pool.session_passages", Int, (0.0, 8.0, 1.0), "pool", "sessions as units: how many further matching passages of a document count"),
    k("pool.session_cap", Float, (0.0, 2.0, 0.1), "pool", "sessions as units: the most further passages add, as a share of the best one's score"),
    k("fusion.k", Float, (1.0, 200.0, 20.0), "fusion", "RRF constant: a list adds weight / (k + rank)"),
    k("fusion.original_weight", Float, (0.0, 10.0, 0.5), "fusion", "weight of the original query's lists (others weigh 1)"),
    k("fusion.top_bonus", Float, (0.0, 0.5, 0.02), "fusion", "added for rank 1 in any list"),
    k("fusion.near_top_bonus", Float, (0.0, 0.5, 0.01), "fusion", "added for ranks 2-3 in any list"),
    k("fusion.depth", Int, (1.0, 1000.0, 10.0), "fusion", "candidates each list brings to fusion"),
    k("hybrid.literal", Float, (0.0, 2.0, 0.25), "hybrid", "share of the vector list's weight for a literal query"),
    k("hybrid.named", Float, (0.0, 2.0, 0.25), "hybrid", "share for a query with a name or a number"),
    k("hybrid.paraphrase", Float, (0.0, 2.0, 0.25), "hybrid", "share for plain words"),
    k("time.boost", Float, (0.0, 5.0, 0.25), "time", "score x (1 + boost x proximity) to a time window (its softness)"),
    k("time.window_list", Float, (0.0, 5.0, 0.25), "time", "fusion weight of a time window's own lexical list"),
    k("time.relevant", Float, (0.0, 1.0, 0.1), "time", "\"latest\": hits scoring at least this share of the best are ordered by time"),
    k("time.walk_depth", Int, (1.0, 100.0, 2.0), "time", "documents a time window's recency walk reads per hit wanted"),
    k("entity.boost", Float, (0.0, 5.0, 0.25), "entity", "score x (1 + boost) for a hit of a project or agent the query names"),
    k("entity.list", Float, (0.0, 5.0, 0.25), "entity", "fusion weight of a named project's list and of an entity's other names"),
    k("memory.importance", Float, (0.0, 0.5, 0.05), "memory", "importance 5 adds this, 1 takes it away"),
    k("memory.confidence", Float, (0.0, 0.5, 0.05), "memory", "confidence 0 takes this away"),
    k("memory.pinned", Float, (0.0, 0.5, 0.05), "memory", "a pinned record adds this"),
    k("memory.rehearsal", Float, (0.0, 0.5, 0.05), "memory", "a record read five times or more adds this"),
    k("memory.recency", Float, (0.0, 0.5, 0.05), "memory", "a memory record of today adds this, halving every half-life"),
    k("memory.recency_half_life_days", Float, (1.0, 3650.0, 15.0), "memory", "days in which the recency signal halves"),
    k("memory.cap", Float, (0.0, 1.0, 0.05), "memory", "most all memory signals together move a score, either way"),
    k("memory.archived", Float, (-0.5, 0.5, 0.05), "memory", "what a record under a para collection's archives/ adds (negative: demoted)"),
    k("memory.roles.*", Float, (-0.5, 0.5, 0.05), "memory", "what a hit of a collection of this role adds"),
    k("memory.collections.*", Float, (-0.5, 0.5, 0.05), "memory", "what a hit of this collection adds (wins over its role)"),
    k("rerank.depth", Int, (1.0, 200.0, 5.0), "rerank", "fused candidates the cross-encoder rescores"),
    k("rerank.max_tokens", Int, (16.0, 512.0, 32.0), "rerank", "longest query + passage input of the cross-encoder"),
    k("rerank.budget_ms", Int, (0.0, 60000.0, 100.0), "rerank", "milliseconds the reranker may take per query before the fused order answers"),
    k("rerank.model", Text, (0.0, 0.0, 0.0), "rerank", "the cross-encoder folder"),
    k("rerank.k", Float, (1.0, 100.0, 5.0), "rerank", "k of the rank fusion of the fused and the reranked order"),
    k("rerank.weight", Float, (0.0, 4.0, 0.1), "rerank", "the reranked order's weight in the rank fusion (the fused order's is 1)"),
    k("rerank.blend", Steps, (0.0, 1.0, 0.0), "rerank", "[up_to_rank, retrieval_weight] steps of QMD's score blend, used instead of the rank fusion when given"),
    k("rerank.conceptual", Switch, (0.0, 0.0, 0.0), "rerank", "rerank conceptual queries in auto mode without --rerank"),
    k("dedup.shingles", Float, (0.0, 1.0, 0.05), "dedup", "word 3-shingle Jaccard at which two records are one (context, ask --dedup)"),
    k("dedup.cosine", Float, (0.0, 1.0, 0.02), "dedup", "cosine of stored vectors at which two records are one"),
    k("freshness.status", Int, (0.0, 36500.0, 1.0), "freshness", "days after which a status record is flagged"),
    k("freshness.fact", Int, (0.0, 36500.0, 7.0), "freshness", "days after which a fact is flagged"),
    k("freshness.decision", Int, (0.0, 36500.0, 30.0), "freshness", "days after which a decision is flagged"),
    k("freshness.preference", Int, (0.0, 36500.0, 30.0), "freshness", "days after which a preference is flagged"),
    k("freshness.history", Int, (0.0, 36500.0, 1.0), "freshness", "days after which transcripts and pages count in the list's age line"),
    k("per_session", Int, (0.0, 1000.0, 1.0), "output", "documents of one session before every other session's (0: no limit)"),
    k("limit", Int, (1.0, 10000.0, 5.0), "output", "hits per query"),
    k("per_doc", Int, (1.0, 100.0, 1.0), "output", "passages per document"),
];

/// The groups a search over `mode` tries by default: what changes a ranking there and can be
/// measured on a judged set without a reranker.
pub fn default_groups(mode: crate::route::Mode) -> &'static [&'static str] {
    use crate::route::Mode;
    match mode {
        Mode::Lex => &["lex", "pool"],
        Mode::Vec | Mode::Hybrid => &["lex", "pool", "fusion", "hybrid"],
        Mode::Auto | Mode::Recent => &[
            "lex", "pool", "fusion", "hybrid", "time", "entity", "memory",
        ],
    }
}

/// The knob declared for `key` (exactly, or by a `*` pattern).
pub fn find(key: &str) -> Option<&'static Knob> {
    KNOBS.iter().find(|k| matches(k.key, key))
}

fn matches(pattern: &str, key: &str) -> bool {
    match pattern.strip_suffix(".*") {
        Some(prefix) => key
            .strip_prefix(prefix)
            .and_then(|r| r.strip_prefix('.'))
            .is_some_and(|rest| !rest.is_empty() && !rest.contains('.')),
        None => pattern == key,
    }
}

/// Why a strategy (a file, or a proposal) does not hold.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum KnobError {
    #[error("unknown key `{0}` (`brain strategy show` lists every key)")]
    Unknown(String),
    #[error("`{key}: {value}` is out of range ({min} to {max})")]
    OutOfRange {
        key: String,
        value: String,
        min: f64,
        max: f64,
    },
    #[error("`{key}: {value}`: expected {expected}")]
    BadValue {
        key: String,
        value: String,
        expected: &'static str,
    },
}

impl brain_doc::Classified for KnobError {
    /// A key or value the knob registry refuses is the user's to fix: a bad query (64).
    fn code(&self) -> brain_doc::ErrorCode {
        brain_doc::ErrorCode::BadQuery
    }

    fn fix(&self) -> String {
        "`brain strategy show` lists every key with its range".into()
    }
}

/// Check one value of knob `knob` given for `key`.
fn check_value(knob: &Knob, key: &str, v: &Value) -> Result<(), KnobError> {
    let bad = |expected| KnobError::BadValue {
        key: key.to_string(),
        value: v.to_string(),
        expected,
    };
    let in_range = |x: f64| {
        if x.is_finite() && x >= knob.min && x <= knob.max {
            Ok(())
        } else {
            Err(KnobError::OutOfRange {
                key: key.to_string(),
                value: v.to_string(),
                min: knob.min,
                max: knob.max,
            })
        }
    };
    match knob.kind {
        Kind::Float => in_range(v.as_f64().ok_or_else(|| bad("a number"))?),
        Kind::Int => {
            let n = v.as_u64().ok_or_else(|| bad("a whole number"))?;
            in_range(n as f64)
        }
        Kind::Text => v.as_str().map(|_| ()).ok_or_else(|| bad("text")),
        Kind::Switch => v.as_bool().map(|_| ()).ok_or_else(|| bad("true or false")),
        Kind::Steps => {
            // Empty: no steps (the reranker's rank fusion answers instead).
            let steps = v
                .as_array()
                .ok_or_else(|| bad("a list of [up_to_rank, weight] pairs"))?;
            for s in steps {
                match s.as_array().map(Vec::as_slice) {
                    Some([r, w]) if r.as_u64().is_some() => {
                        in_range(w.as_f64().ok_or_else(|| bad("a weight from 0 to 1"))?)?
                    }
                    _ => return Err(bad("a list of [up_to_rank, weight] pairs")),
                }
            }
            Ok(())
        }
    }
}

/// Check a strategy as written (a parsed `search_strategy.yaml`): every key a knob (or a group of
/// knobs), every value of its type and in its range.
pub fn check(v: &Value) -> Result<(), KnobError> {
    fn walk(prefix: &str, v: &Value) -> Result<(), KnobError> {
        let Some(map) = v.as_object() else {
            return match find(prefix) {
                Some(k) => check_value(k, prefix, v),
                None => Err(KnobError::Unknown(prefix.to_string())),
            };
        };
        for (key, value) in map {
            let path = if prefix.is_empty() {
                key.clone()
            } else {
                format!("{prefix}.{key}")
            };
            match find(&path) {
                Some(k) => check_value(k, &path, value)?,
                None if is_group(&path) => walk(&path, value)?,
                None => return Err(KnobError::Unknown(path)),
            }
        }
        Ok(())
    }
    if v.is_null() {
        return Ok(());
    }
    if !v.is_object() {
        return Err(KnobError::BadValue {
            key: "search_strategy.yaml".into(),
            value: v.to_string(),
            expected: "a map of keys",
        });
    }
    walk("", v)
}

/// Whether `path` is a group of knobs (a prefix of some knob's key).
fn is_group(path: &str) -> bool {
    KNOBS
        .iter()
        .any(|k| k.key.starts_with(path) && k.key[path.len()..].starts_with('.'))
}

/// The value of `key` in `s`.
pub fn get<S: Tunable>(s: &S, key: &str) -> Option<Value> {
    let v = serde_json::to_value(s).ok()?;
    v.pointer(&pointer(key)).cloned()
}

/// `s` with `key` set to `value`, checked against the registry first.
pub fn set<S: Tunable>(s: &S, key: &str, value: Value) -> Result<S, KnobError> {
    let knob = find(key).ok_or_else(|| KnobError::Unknown(key.to_string()))?;
    let value = match (knob.kind, value.as_f64()) {
        // A whole number given as 4.0 (a search's arithmetic) is that number.
        (Kind::Int, Some(x)) if x.fract() == 0.0 && x >= 0.0 => Value::from(x as u64),
        _ => value,
    };
    check_value(knob, key, &value)?;
    let mut v = serde_json::to_value(s).map_err(|_| KnobError::Unknown(key.to_string()))?;
    let (parent, leaf) = key.rsplit_once('.').unwrap_or(("", key));
    let holder = if parent.is_empty() {
        Some(&mut v)
    } else {
        v.pointer_mut(&pointer(parent))
    };
    match holder.and_then(Value::as_object_mut) {
        Some(m) => {
            m.insert(leaf.to_string(), value);
        }
        None => return Err(KnobError::Unknown(key.to_string())),
    }
    serde_json::from_value(v).map_err(|e| KnobError::BadValue {
        key: key.to_string(),
        value: e.to_string(),
        expected: "a value the strategy reads",
    })
}

fn pointer(key: &str) -> String {
    format!("/{}", key.replace('.', "/"))
}

/// Every leaf of `s` as `(key, value)`, in [`KNOBS`] order (map knobs: one per key present).
pub fn leaves<S: Tunable>(s: &S) -> Vec<(String, Value)> {
    let v = serde_json::to_value(s).unwrap_or(Value::Null);
    let mut out = Vec::new();
    for k in KNOBS {
        match k.key.strip_suffix(".*") {
            Some(map) => {
                if let Some(Value::Object(m)) = v.pointer(&pointer(map)) {
                    for (name, x) in m {
                        out.push((format!("{map}.{name}"), x.clone()));
                    }
                }
            }
            None => {
                if let Some(x) = v.pointer(&pointer(k.key)) {
                    out.push((k.key.to_string(), x.clone()));
                }
            }
        }
    }
    out
}

/// The knobs whose value in `s` differs from the default, with both values (`None`: not in the
/// defaults, a map key of the user's).
pub fn diff<S: Tunable>(s: &S) -> Vec<(String, Option<Value>, Value)> {
    let defaults: std::collections::BTreeMap<String, Value> =
        leaves(&S::default()).into_iter().collect();
    let mut out: Vec<(String, Option<Value>, Value)> = leaves(s)
        .into_iter()
        .filter(|(key, v)| defaults.get(key) != Some(v))
        .map(|(key, v)| (key.clone(), defaults.get(&key).cloned(), v))
        .collect();
    // A map key of the defaults the user removed.
    let mine: std::collections::BTreeSet<String> = leaves(s).into_iter().map(|(k, _)| k).collect();
    for (key, v) in &defaults {
        if !mine.contains(key) {
            out.push((key.clone(), Some(v.clone()), Value::Null));
        }
    }
    out
}

/// The YAML of `s` holding only what differs from the defaults (what `brain tune` writes, so a
/// knob it did not move follows the defaults of later versions).
pub fn minimal_yaml<S: Tunable>(s: &S) -> String {
    let mut root = serde_json::Map::new();
    for (key, _, value) in diff(s) {
        if value.is_null() {
            continue;
        }
        let mut node = &mut root;
        let parts: Vec<&str> = key.split('.').collect();
        for p in &parts[..parts.len() - 1] {
            let next = node
                .entry(p.to_string())
                .or_insert_with(|| Value::Object(serde_json::Map::new()));
            if !next.is_object() {
                *next = Value::Object(serde_json::Map::new());
            }
            node = match next.as_object_mut() {
                Some(m) => m,
                None => return String::new(),
            };
        }
        node.insert(parts[parts.len() - 1].to_string(), value);
    }
    if root.is_empty() {
        return "# search_strategy.yaml: every knob at its default (`brain strategy show`)\n"
            .into();
    }
    serde_norway::to_string(&root).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::strategy::Strategy;

    #[test]
    fn every_leaf_of_the_default_strategy_is_a_knob() {
        let v = serde_json::to_value(Strategy::default()).expect("json");
        fn walk(prefix: &str, v: &Value, out: &mut Vec<String>) {
            match v.as_object() {
                Some(m) if find(prefix).is_none() => {
                    for (k, x) in m {
                        let p = if prefix.is_empty() {
                            k.clone()
                        } else {
                            format!("{prefix}.{k}")
                        };
                        walk(&p, x, out);
                    }
                }
                _ => out.push(prefix.to_string()),
            }
        }
        let mut keys = Vec::new();
        walk("", &v, &mut keys);
        for key in keys {
            let knob = find(&key).unwrap_or_else(|| panic!("`{key}` has no knob"));
            let value = get(&Strategy::default(), &key).expect("value");
            check_value(knob, &key, &value).unwrap_or_else(|e| panic!("default {e}"));
        }
        assert!(check(&v).is_ok());
    }

    #[test]
    fn unknown_keys_and_values_out_of_range_are_named_never_clamped() {
        let y = |s: &str| -> Value { serde_norway::from_str(s).expect("yaml") };
        assert_eq!(
            check(&y("lex: {titel: 2}")),
            Err(KnobError::Unknown("lex.titel".into()))
        );
        assert_eq!(
            check(&y("lexx: {title: 2}")),
            Err(KnobError::Unknown("lexx".into()))
        );
        assert!(
            matches!(check(&y("lex: {title: 12}")), Err(KnobError::OutOfRange { key, .. }) if key == "lex.title")
        );
        // A NaN (no JSON number) is refused too, naming the key.
        assert!(
            matches!(check(&y("lex: {title: .nan}")), Err(KnobError::BadValue { key, .. }) if key == "lex.title")
        );
        assert!(matches!(
            check(&y("lex: {title: -1}")),
            Err(KnobError::OutOfRange { .. })
        ));
        assert!(matches!(
            check(&y("limit: -3")),
            Err(KnobError::BadValue { .. })
        ));
        assert!(matches!(
            check(&y("lex: {title: high}")),
            Err(KnobError::BadValue { .. })
        ));
        assert!(check(&y("memory: {roles: {notes: 0.1}}")).is_ok());
        assert!(check(&y("memory: {roles: {notes: 0.9}}")).is_err());
        assert!(check(&y("rerank: {blend: [[3, 0.75], [10, 2.0]]}")).is_err());
        assert!(check(&y("lex: {title: 2}\nfusion: {k: 30}")).is_ok());
    }

    #[test]
    fn set_checks_and_a_minimal_file_holds_only_what_moved() {
        let s = set(&Strategy::default(), "lex.title", Value::from(2.5)).expect("set");
        assert_eq!(s.lex.title, 2.5);
        let s = set(&s, "pool.per_hit", Value::from(6.0)).expect("int as float");
        assert_eq!(s.pool.per_hit, 6);
        assert!(set(&s, "lex.title", Value::from(99.0)).is_err());
        assert!(set(&s, "lex.nope", Value::from(1.0)).is_err());
        let yaml = minimal_yaml(&s);
        assert_eq!(yaml, "lex:\n  title: 2.5\npool:\n  per_hit: 6\n");
        let d = diff(&s);
        assert_eq!(d.len(), 2);
    }
}
