//! The extraction a model does: a versioned prompt (the session's distilled artifact and its text),
//! and the answer checked whole — one JSON object `{"records": [...]}`; an answer that is not that,
//! holds more than [`MAX_RECORDS`] records or a record that does not check is malformed, and
//! nothing of it is written.

use serde::Deserialize;
use serde_json::Value;

use super::record::{
    self, Extracted, MAX_RECORDS, MAX_REF, MAX_REFS, MAX_STATEMENT, TYPES, normalize_key,
};

/// The extraction prompt. `{session_id}`, `{date}`, `{project}`, `{artifact}` and `{session}` are
/// filled in; its version is the hash of this text ([`version`]).
pub const PROMPT: &str = r#"You extract durable memory records from an AI coding-agent session.
Return ONE JSON object and nothing else:
{"records": [{"type": "...", "key": "...", "statement": "...", "occurred_at": "...", "refs": ["..."], "error": "...", "confidence": 0.0, "line": 0}]}

- type: one of decision, fact, preference, rejected.
  decision = a choice made; fact = something found true about the project; preference = how the
  user wants things done; rejected = an approach proposed or tried and dropped (say why).
  Leave out failed commands and tool calls the user declined: they are read from the session
  itself.
- key: the subject, short and stable across sessions (e.g. "db.engine", "retry-policy",
  "bundler"), so a later session about the same subject uses the same key.
- statement: one sentence, self-contained.
- occurred_at: the date it happened (YYYY-MM-DD); the session's date if unsure.
- refs: files, commits, URLs it concerns (may be empty).
- confidence: 0 to 1. line: the line of the session it comes from (0 if unsure).
- Only what the session EXPLICITLY says. At most 20 records. No secrets.

Session {session_id} of {date} in project {project}.

Its summary:
{artifact}

The session:
{session}
"#;

/// `x1-<12 hex>`: the prompt's version, stamped on every record it made.
pub fn version() -> String {
    format!("x1-{}", &brain_doc::sha256_hex(PROMPT.as_bytes())[..12])
}

/// The prompt for one session.
pub fn prompt(
    session_id: &str,
    date: &str,
    project: &str,
    artifact: &str,
    session: &str,
) -> String {
    PROMPT
        .replace("{session_id}", session_id)
        .replace("{date}", date)
        .replace("{project}", project)
        .replace("{artifact}", artifact)
        .replace("{session}", session)
}

/// Largest answer read; past it the answer is malformed (no extraction is that long).
pub const MAX_ANSWER_BYTES: usize = 256 * 1024;

/// Why an answer was refused.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Malformed {
    #[error("the answer is {0} bytes (at most {MAX_ANSWER_BYTES})")]
    TooLong(usize),
    #[error("the answer holds no JSON object")]
    NoJson,
    #[error("the answer is not {{\"records\": [...]}}: {0}")]
    Shape(String),
    #[error("the answer has {0} records (at most {MAX_RECORDS})")]
    TooMany(usize),
    #[error("record {index}: {reason}")]
    Record { index: usize, reason: String },
}

#[derive(Deserialize)]
struct Answer {
    records: Vec<Value>,
}

#[derive(Deserialize)]
struct Raw {
    #[serde(rename = "type")]
    kind: String,
    key: String,
    statement: String,
    #[serde(default)]
    occurred_at: Option<String>,
    #[serde(default)]
    refs: Vec<String>,
    #[serde(default)]
    error: Option<String>,
    #[serde(default)]
    confidence: Option<f64>,
    #[serde(default)]
    line: Option<u64>,
}

/// The records of an `answer` for a session of `date` whose source has `lines` lines: all of them,
/// checked and redacted, or why the answer is malformed.
pub fn parse(answer: &str, date: &str, lines: u64) -> Result<Vec<Extracted>, Malformed> {
    if answer.len() > MAX_ANSWER_BYTES {
        return Err(Malformed::TooLong(answer.len()));
    }
    // Models wrap JSON in a fence or a sentence: the outermost object is the answer.
    let (Some(start), Some(end)) = (answer.find('{'), answer.rfind('}')) else {
        return Err(Malformed::NoJson);
    };
    if end < start {
        return Err(Malformed::NoJson);
    }
    let a: Answer =
        serde_json::from_str(&answer[start..=end]).map_err(|e| Malformed::Shape(e.to_string()))?;
    if a.records.len() > MAX_RECORDS {
        return Err(Malformed::TooMany(a.records.len()));
    }
    let mut counts = brain_redact::Counts::new();
    let mut out = Vec::with_capacity(a.records.len());
    for (index, v) in a.records.into_iter().enumerate() {
        let bad = |reason: String| Malformed::Record { index, reason };
        let r: Raw = serde_json::from_value(v).map_err(|e| bad(e.to_string()))?;
        let kind = r.kind.trim().to_ascii_lowercase();
        if !TYPES.contains(&kind.as_str()) {
            return Err(bad(format!(
                "type `{}` is not one of {}",
                r.kind.chars().take(40).collect::<String>(),
                TYPES.join(", ")
            )));
        }
        let key = normalize_key(&brain_redact::redact(&r.key, &mut counts))
            .ok_or_else(|| bad("the key is empty".into()))?;
        let statement = record::clean(&r.statement, MAX_STATEMENT, &mut counts);
        if statement.is_empty() {
            return Err(bad("the statement is empty".into()));
        }
        if r.refs.len() > MAX_REFS {
            return Err(bad(format!("{} refs (at most {MAX_REFS})", r.refs.len())));
        }
        let refs: Vec<String> = r
            .refs
            .iter()
            .map(|x| record::clean(x, MAX_REF, &mut counts))
            .filter(|x| !x.is_empty())
            .collect();
        let occurred_at = match r.occurred_at.as_deref().map(str::trim) {
            Some(d) if brain_doc::file::parse_date(d).is_some() => d.to_string(),
            _ => date.to_string(),
        };
        let confidence = r
            .confidence
            .filter(|c| c.is_finite())
            .map_or(0.7, |c| c.clamp(0.0, 1.0));
        let line = r.line.filter(|l| (1..=lines).contains(l)).unwrap_or(1);
        out.push(Extracted {
            kind,
            key,
            statement,
            occurred_at,
            refs,
            error: r
                .error
                .map(|e| record::clean(&e, 300, &mut counts))
                .filter(|e| !e.is_empty()),
            confidence,
            line,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_are_checked_whole() {
        let ok = "Sure:\n```json\n{\"records\": [{\"type\": \"Decision\", \"key\": \"../DB Engine\", \"statement\": \"Use SQLite.\\nNot Postgres. ghp_abcdefghijklmnopqrstuvwxyz0123456789\", \"line\": 9999, \"confidence\": 7}]}\n```";
        let r = parse(ok, "2026-01-02", 40).expect("parses");
        assert_eq!(r[0].kind, "decision");
        assert_eq!(r[0].key, "db-engine");
        assert!(!r[0].statement.contains("ghp_") && !r[0].statement.contains('\n'));
        assert_eq!((r[0].line, r[0].confidence), (1, 1.0));
        assert_eq!(r[0].occurred_at, "2026-01-02");
        assert_eq!(parse("no json", "d", 1), Err(Malformed::NoJson));
        assert!(matches!(
            parse("{\"records\": 3}", "d", 1),
            Err(Malformed::Shape(_))
        ));
        assert!(matches!(
            parse(
                "{\"records\": [{\"type\": \"rumour\", \"key\": \"k\", \"statement\": \"s\"}]}",
                "d",
                1
            ),
            Err(Malformed::Record { index: 0, .. })
        ));
        let many = format!(
            "{{\"records\": [{}]}}",
            vec!["{\"type\":\"fact\",\"key\":\"k\",\"statement\":\"s\"}"; 10_000].join(",")
        );
        assert!(matches!(
            parse(&many, "d", 1),
            Err(Malformed::TooLong(_) | Malformed::TooMany(_))
        ));
    }
}
