//! Memory fields (seeds 001–003, DESIGN "Memory model"): frontmatter any markdown document may carry
//! to say what kind of record it is, how much it matters, how sure it is, when it happened, when it
//! stops being true, which subject it is about and what it replaces. The one reader of those fields:
//! the index, `brain remember` and the doctor all go through [`Memory::read`].
//!
//! | field | value | meaning |
//! |---|---|---|
//! | `type` | word (`fact`, `decision`, `preference`, `event`, `person`, `project`, `note`, …) | the kind of record (filter `type:`) |
//! | `importance` | 1–5 (5 = always include); 6–100 read on seed 002's 0–100 scale | worth surfacing |
//! | `confidence` | 0–1, or `high` / `medium` / `low` (0.9 / 0.6 / 0.3: what distilled artifacts write) | believed true |
//! | `occurred_at` | date or RFC 3339 | when it happened (vs `date`, when captured) |
//! | `expires_at` / `ttl` | date / `7d`, `12h`, `2w`, `3mo`, `1y` after `occurred_at` (else `date`) | stops being true |
//! | `key` | text | the subject a fact is about: a later active record of the same key supersedes it |
//! | `supersedes` | id or list of ids (`collection/path`, `#docid`) | records this one replaces |
//! | `status` | `active` \| `superseded` \| `archived` | `archived`: hidden, kept (`brain forget`) |
//! | `pinned` | true/false | always include in context |
//!
//! A value that does not parse is a warning naming the field, and the field is ignored: a bad value
//! never fails an index run.

use serde_json::{Map, Value};

use crate::file::{meta_string, parse_date};

/// Where a record stands in its lifecycle, as written in its frontmatter (whether a later record
/// supersedes it is decided by the index, across records).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Status {
    #[default]
    Active,
    Superseded,
    Archived,
}

impl Status {
    pub fn name(self) -> &'static str {
        match self {
            Status::Active => "active",
            Status::Superseded => "superseded",
            Status::Archived => "archived",
        }
    }

    fn parse(s: &str) -> Option<Status> {
        match s.trim().to_ascii_lowercase().as_str() {
            "active" | "current" => Some(Status::Active),
            "superseded" => Some(Status::Superseded),
            "archived" => Some(Status::Archived),
            _ => None,
        }
    }
}

/// The memory fields of one record; `None` / empty where the record does not say.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Memory {
    /// `type`, lower-case.
    pub kind: Option<String>,
    /// 1–5.
    pub importance: Option<u8>,
    /// 0–1.
    pub confidence: Option<f64>,
    /// Unix seconds.
    pub occurred_at: Option<i64>,
    /// Unix seconds (from `expires_at`, or `ttl` after `occurred_at` or the capture date).
    pub expires_at: Option<i64>,
    /// The subject, trimmed and lower-cased (`DB.Engine ` and `db.engine` are one key).
    pub key: Option<String>,
    /// Ids of the records this one replaces, as written.
    pub supersedes: Vec<String>,
    pub status: Status,
    pub pinned: bool,
}

/// Importance when a record does not say (the middle of 1–5, as seed 003's `coalesce(importance, 3)`).
pub const DEFAULT_IMPORTANCE: u8 = 3;

/// Longest `type` or `key` kept (they are index terms).
const MAX_WORD: usize = 200;

impl Memory {
    /// The memory fields of frontmatter `fm`, whose capture date is `captured` (Unix seconds); the
    /// warnings name each field that was given but could not be read.
    pub fn read(fm: &Map<String, Value>, captured: Option<i64>) -> (Memory, Vec<String>) {
        let mut m = Memory::default();
        let mut warnings = Vec::new();
        let mut bad = |field: &str, v: &Value, want: &str| {
            let shown: String = v.to_string().chars().take(60).collect();
            warnings.push(format!("`{field}: {shown}` ignored: expected {want}"));
        };
        if let Some(v) = fm.get("type") {
            match word(v) {
                Some(t) => m.kind = Some(t.to_lowercase()),
                None => bad("type", v, "a word such as fact, decision or preference"),
            }
        }
        if let Some(v) = fm.get("importance") {
            match importance(v) {
                Some(i) => m.importance = Some(i),
                None => bad("importance", v, "1-5 (or 0-100)"),
            }
        }
        if let Some(v) = fm.get("confidence") {
            match confidence(v) {
                Some(c) => m.confidence = Some(c),
                None => bad(
                    "confidence",
                    v,
                    "a number from 0 to 1, or high / medium / low",
                ),
            }
        }
        if let Some(v) = fm.get("occurred_at") {
            match meta_string(v).and_then(|s| parse_date(&s)) {
                Some(t) => m.occurred_at = Some(t),
                None => bad("occurred_at", v, "a date (2026-03-01) or RFC 3339 time"),
            }
        }
        if let Some(v) = fm.get("expires_at") {
            match meta_string(v).and_then(|s| parse_date(&s)) {
                Some(t) => m.expires_at = Some(t),
                None => bad("expires_at", v, "a date (2026-03-01) or RFC 3339 time"),
            }
        } else if let Some(v) = fm.get("ttl") {
            let from = m.occurred_at.or(captured);
            match (meta_string(v).and_then(|s| ttl_secs(&s)), from) {
                (Some(ttl), Some(from)) => m.expires_at = Some(from.saturating_add(ttl)),
                (Some(_), None) => bad(
                    "ttl",
                    v,
                    "a record with a date or occurred_at to count from",
                ),
                (None, _) => bad("ttl", v, "a span such as 12h, 7d, 2w, 3mo, 1y"),
            }
        }
        if let Some(v) = fm.get("key") {
            match word(v) {
                Some(k) => m.key = Some(k.to_lowercase()),
                None => bad("key", v, "the subject as text, e.g. db.engine"),
            }
        }
        if let Some(v) = fm.get("supersedes") {
            let ids: Option<Vec<String>> = match v {
                Value::Array(items) => items.iter().map(meta_string).collect(),
                other => meta_string(other).map(|s| vec![s]),
            };
            match ids {
                Some(ids) => m.supersedes = ids,
                None => bad("supersedes", v, "an id or a list of ids"),
            }
        }
        if let Some(v) = fm.get("status") {
            match meta_string(v).and_then(|s| Status::parse(&s)) {
                Some(s) => m.status = s,
                None => bad("status", v, "active, superseded or archived"),
            }
        }
        if let Some(v) = fm.get("pinned") {
            match v {
                Value::Bool(b) => m.pinned = *b,
                _ => bad("pinned", v, "true or false"),
            }
        }
        (m, warnings)
    }

    /// Importance, 1–5 ([`DEFAULT_IMPORTANCE`] when the record does not say).
    pub fn importance_or_default(&self) -> u8 {
        self.importance.unwrap_or(DEFAULT_IMPORTANCE)
    }
}

/// After how many days a record is old enough that its age changes the answer, by what it is
/// (`freshness:` in `search_strategy.yaml`; our choice, 2026-11-25). A status goes stale in a day, a
/// fact or a decision in a month or a quarter, a preference in half a year; everything else — a
/// session transcript, a browser day, a plain note — says what happened then: on a personal
/// history nearly every hit is older than a day, so its age is not a warning unless asked for
/// (`history` days, 0 = never, the default since issue 38; `--stale-after N` sets it for a list).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Freshness {
    pub status: i64,
    pub fact: i64,
    pub decision: i64,
    pub preference: i64,
    /// Days past which the rest (transcripts, browser days, notes) count in the list's one line;
    /// 0 never counts them.
    pub history: i64,
}

impl Default for Freshness {
    fn default() -> Self {
        Freshness {
            status: 1,
            fact: 30,
            decision: 90,
            preference: 180,
            history: 0,
        }
    }
}

impl Freshness {
    /// The days after which a record of `kind` is flagged on its own line; `None` for the kinds
    /// that record what happened (their age is summed up once per list).
    pub fn days_for(&self, kind: &str) -> Option<i64> {
        match kind {
            "status" => Some(self.status),
            "fact" => Some(self.fact),
            "decision" => Some(self.decision),
            "preference" => Some(self.preference),
            _ => None,
        }
    }
}

/// A one-line text of at most [`MAX_WORD`] characters.
fn word(v: &Value) -> Option<String> {
    meta_string(v).filter(|s| s.chars().count() <= MAX_WORD && !s.contains(['\n', '\r']))
}

/// 1–5 as is; 6–100 on seed 002's 0–100 scale (100 = always include → 5): `ceil(v / 20)`.
/// Confidence as a number from 0 to 1, or the words distilled artifacts write (`High`, `Medium`,
/// `Low`, any case: 0.9, 0.6, 0.3).
fn confidence(v: &Value) -> Option<f64> {
    if let Some(c) = v.as_f64() {
        return (0.0..=1.0).contains(&c).then_some(c);
    }
    match v.as_str()?.trim().to_ascii_lowercase().as_str() {
        "high" => Some(0.9),
        "medium" => Some(0.6),
        "low" => Some(0.3),
        _ => None,
    }
}

fn importance(v: &Value) -> Option<u8> {
    let n = v.as_f64().or_else(|| meta_string(v)?.parse().ok())?;
    if n.fract() != 0.0 || !(0.0..=100.0).contains(&n) {
        return None;
    }
    let n = n as u8;
    Some(match n {
        0 => 1,
        1..=5 => n,
        _ => n.div_ceil(20).clamp(1, 5),
    })
}

/// A span such as `12h`, `7d`, `2w`, `3mo`, `1y` in seconds (a month is 30 days, a year 365).
pub fn ttl_secs(s: &str) -> Option<i64> {
    let s = s.trim().to_ascii_lowercase();
    let split = s.find(|c: char| !c.is_ascii_digit())?;
    let (num, unit) = s.split_at(split);
    let n: i64 = num.parse().ok()?;
    let unit_secs = match unit.trim() {
        "h" | "hour" | "hours" => 3_600,
        "d" | "day" | "days" => 86_400,
        "w" | "week" | "weeks" => 7 * 86_400,
        "mo" | "month" | "months" => 30 * 86_400,
        "y" | "year" | "years" => 365 * 86_400,
        _ => return None,
    };
    n.checked_mul(unit_secs)
}

/// Longest memory key after normalizing, in bytes.
pub const MAX_KEY: usize = 80;

/// `raw` as a key: lower case, letters and digits kept, `.` kept between words, anything else one
/// `-`; at most [`MAX_KEY`] bytes. `None` when nothing is left. A key never becomes a path as it
/// is: `../../etc` is `etc`.
pub fn normalize_key(raw: &str) -> Option<String> {
    let mut out = String::new();
    for c in raw.trim().chars().flat_map(char::to_lowercase) {
        let c = if c.is_alphanumeric() {
            c
        } else if c == '.' {
            '.'
        } else {
            '-'
        };
        let last = out.chars().last();
        if !c.is_alphanumeric() && (out.is_empty() || matches!(last, Some('-' | '.'))) {
            continue;
        }
        out.push(c);
    }
    let mut out = out.trim_end_matches(['-', '.']).to_string();
    while out.len() > MAX_KEY {
        out.pop();
    }
    let out = out.trim_end_matches(['-', '.']).to_string();
    (!out.is_empty()).then_some(out)
}

/// The key a record of `project` is written with (`api:db.engine`: the project folder's name
/// and the subject), so two projects' `db.engine` never replace each other; the subject alone
/// without a project. The one rule the extraction writes by and the pre-tool hook looks up by.
pub fn project_key(project: Option<&str>, key: &str) -> String {
    match project
        .and_then(|p| p.rsplit(['/', '\\']).find(|s| !s.is_empty()))
        .and_then(normalize_key)
    {
        Some(p) => format!("{p}:{key}"),
        None => key.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fm(yaml: &str) -> Map<String, Value> {
        let v: Value = serde_norway::from_str(yaml).expect("yaml");
        v.as_object().cloned().expect("map")
    }

    #[test]
    fn distilled_confidence_words_read_as_numbers() {
        for (word, want) in [("High", 0.9), ("medium", 0.6), ("LOW", 0.3)] {
            let (m, w) = Memory::read(&fm(&format!("confidence: {word}\n")), None);
            assert!(w.is_empty(), "{w:?}");
            assert_eq!(m.confidence, Some(want));
        }
        let (m, w) = Memory::read(&fm("confidence: sure\n"), None);
        assert_eq!((m.confidence, w.len()), (None, 1));
    }

    #[test]
    fn every_field_is_read() {
        let (m, w) = Memory::read(
            &fm(
                "type: Fact\nimportance: 4\nconfidence: 0.8\noccurred_at: 2026-01-10\nexpires_at: 2026-02-01\nkey: ' DB.Engine '\nsupersedes: [notes/a.md, '#a1b2c3']\nstatus: active\npinned: true\n",
            ),
            None,
        );
        assert!(w.is_empty(), "{w:?}");
        assert_eq!(m.kind.as_deref(), Some("fact"));
        assert_eq!((m.importance, m.confidence), (Some(4), Some(0.8)));
        assert_eq!(m.occurred_at, parse_date("2026-01-10"));
        assert_eq!(m.expires_at, parse_date("2026-02-01"));
        assert_eq!(m.key.as_deref(), Some("db.engine"));
        assert_eq!(m.supersedes, ["notes/a.md", "#a1b2c3"]);
        assert_eq!((m.status, m.pinned), (Status::Active, true));
    }

    #[test]
    fn importance_reads_both_scales_and_ttl_counts_from_when_it_happened() {
        let imp = |v: &str| {
            Memory::read(&fm(&format!("importance: {v}\n")), None)
                .0
                .importance
        };
        assert_eq!(imp("1"), Some(1));
        assert_eq!(imp("5"), Some(5));
        assert_eq!(imp("0"), Some(1));
        assert_eq!(imp("100"), Some(5));
        assert_eq!(imp("41"), Some(3));
        assert_eq!(imp("20"), Some(1));
        assert_eq!(imp("'4'"), Some(4));
        let day = 86_400;
        let (m, _) = Memory::read(&fm("occurred_at: 2026-03-01\nttl: 7d\n"), Some(0));
        assert_eq!(m.expires_at, parse_date("2026-03-01").map(|t| t + 7 * day));
        let (m, _) = Memory::read(&fm("ttl: 12h\n"), Some(1_000));
        assert_eq!(m.expires_at, Some(1_000 + 12 * 3_600));
        // expires_at wins over ttl.
        let (m, _) = Memory::read(&fm("expires_at: 2026-01-01\nttl: 1d\n"), Some(0));
        assert_eq!(m.expires_at, parse_date("2026-01-01"));
    }

    #[test]
    fn a_bad_value_is_a_warning_naming_the_field_and_is_ignored() {
        let (m, w) = Memory::read(
            &fm(
                "importance: 7.5\nconfidence: 2\noccurred_at: someday\nttl: forever\nstatus: maybe\npinned: yes\nsupersedes: {a: 1}\ntype: [a, b]\nkey: \"x\\ny\"\n",
            ),
            Some(0),
        );
        assert_eq!(m, Memory::default());
        for field in [
            "importance",
            "confidence",
            "occurred_at",
            "ttl",
            "status",
            "pinned",
            "supersedes",
            "type",
            "key",
        ] {
            assert!(
                w.iter().any(|x| x.starts_with(&format!("`{field}:"))),
                "{field}: {w:?}"
            );
        }
        // Huge numbers and spans never overflow.
        let (m, w) = Memory::read(
            &fm("importance: 1e300\nttl: 99999999999999999999d\n"),
            Some(0),
        );
        assert_eq!((m.importance, m.expires_at), (None, None));
        assert_eq!(w.len(), 2);
        assert_eq!(ttl_secs("9223372036854775807y"), None);
        let (m, _) = Memory::read(&fm("ttl: 1y\n"), Some(i64::MAX - 5));
        assert_eq!(m.expires_at, Some(i64::MAX));
    }

    #[test]
    fn no_memory_fields_is_the_default() {
        let (m, w) = Memory::read(&fm("title: x\ndate: 2026-01-01\n"), Some(0));
        assert_eq!((m, w.len()), (Memory::default(), 0));
        assert_eq!(Memory::default().importance_or_default(), 3);
    }
}
