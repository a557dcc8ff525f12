//! One session's files → one document (or the reason there is none).

use std::path::Path;

use brain_doc::{Doc, Source, SourcePart, sha256_hex};
use serde_json::Value;

use crate::discover::SessionFiles;
use crate::lines::LineIssue;
use crate::session::Agent;
use crate::{claude, codex, gemini, render};
use brain_redact as redact;

/// What became of one session.
#[derive(Debug)]
pub enum Status {
    /// A document.
    Doc(Box<Doc>),
    /// The file holds nothing a person or the model said.
    Empty,
    /// The file holds only `summary` lines.
    SummaryOnly,
    /// Not a transcript of any agent we read (e.g. Gemini's `logs.json`, a metrics file).
    NotASession,
    /// The session contains `brain:do-not-index`.
    DoNotIndex,
    /// A file could not be read.
    Unreadable(String),
}

impl Status {
    /// Why a session yields no document, for the warning that names its file (every such file is
    /// named: a silently dropped session is a lost one); `None` for a document and for an unreadable
    /// file, whose error is reported as it is.
    pub fn skipped_because(&self) -> Option<&'static str> {
        match self {
            Status::Empty => Some("empty: nothing a person or the model said"),
            Status::SummaryOnly => Some("only summary lines, no conversation"),
            Status::NotASession => {
                Some("not a transcript of Claude Code, Codex, Gemini, Cursor, OpenCode or Aider")
            }
            Status::DoNotIndex => Some("it contains brain:do-not-index"),
            Status::Doc(_) | Status::Unreadable(_) => None,
        }
    }
}

/// The result of converting one session.
#[derive(Debug)]
pub struct Outcome {
    /// What became of it.
    pub status: Status,
    /// Malformed lines, with the file they are in.
    pub issues: Vec<(String, LineIssue)>,
    /// Bytes read.
    pub bytes: u64,
    /// sha256 over all the session's files, for incremental runs.
    pub fingerprint: String,
}

/// Convert a session read from files.
pub fn convert(files: &SessionFiles, redact_secrets: bool) -> Outcome {
    if crate::cursor::transcript::is_transcript(&files.main) {
        return cursor_transcript(files, redact_secrets);
    }
    let main = match std::fs::read(&files.main) {
        Ok(b) => b,
        Err(e) => return unreadable(&files.main, e),
    };
    let main_sha = sha256_hex(&main);
    let mut fp = main_sha.clone();
    let mut bytes = main.len() as u64;
    let mut subs = Vec::new();
    for (path, meta) in &files.subagents {
        match std::fs::read(path) {
            Ok(b) => {
                bytes += b.len() as u64;
                let sha = sha256_hex(&b);
                fp.push_str(&sha);
                let meta = meta.as_ref().and_then(|m| std::fs::read(m).ok());
                subs.push(Sub {
                    path: path.as_path(),
                    bytes: b,
                    meta,
                    sha256: sha,
                });
            }
            Err(e) => return unreadable(path, e),
        }
    }
    let fingerprint = if subs.is_empty() {
        fp
    } else {
        sha256_hex(fp.as_bytes())
    };
    let stem = stem_of(&files.main);
    let mut out = convert_bytes(
        &main,
        &main_sha,
        &files.main.display().to_string(),
        Some(&stem),
        &subs,
        redact_secrets,
    );
    out.bytes = bytes;
    out.fingerprint = fingerprint;
    out
}

/// A Cursor agent transcript (and its subagents) as a document.
fn cursor_transcript(files: &SessionFiles, redact_secrets: bool) -> Outcome {
    let subs: Vec<std::path::PathBuf> = files.subagents.iter().map(|(p, _)| p.clone()).collect();
    let mut said = Vec::new();
    let read = crate::cursor::transcript::read(&files.main, &subs, &mut said);
    let bytes = std::iter::once(&files.main)
        .chain(subs.iter())
        .filter_map(|p| std::fs::metadata(p).ok())
        .map(|m| m.len())
        .sum();
    let issues = issues_of(said);
    match read {
        Err(e) => Outcome {
            status: Status::Unreadable(e),
            issues,
            bytes,
            fingerprint: String::new(),
        },
        Ok(c) => from_conversation(c, Agent::Cursor, &files.main, issues, bytes, redact_secrets),
    }
}

/// What a reader said about lines it skipped (`file:line: why`), as line issues.
fn issues_of(said: Vec<String>) -> Vec<(String, LineIssue)> {
    said.into_iter()
        .map(|w| {
            let mut parts = w.splitn(3, ':');
            let (file, line, reason) = (parts.next(), parts.next(), parts.next());
            match (file, line.and_then(|l| l.parse::<u64>().ok()), reason) {
                (Some(f), Some(l), Some(r)) => (
                    f.to_string(),
                    LineIssue {
                        line: l,
                        reason: r.trim().to_string(),
                    },
                ),
                _ => (String::new(), LineIssue { line: 0, reason: w }),
            }
        })
        .collect()
}

/// A conversation read by a reader of Cursor's formats as an outcome.
fn from_conversation(
    c: Option<crate::many::Conversation>,
    agent: Agent,
    file: &Path,
    issues: Vec<(String, LineIssue)>,
    bytes: u64,
    redact_secrets: bool,
) -> Outcome {
    let (status, fingerprint) = match c {
        None => (Status::Empty, String::new()),
        Some(c) => match crate::many::to_doc(agent, file, &c, redact_secrets) {
            Some(doc) => (Status::Doc(Box::new(doc)), c.fingerprint),
            None => (Status::DoNotIndex, c.fingerprint),
        },
    };
    Outcome {
        status,
        issues,
        bytes,
        fingerprint,
    }
}

/// A subagent transcript read alongside its session.
pub struct Sub<'a> {
    /// Its path.
    pub path: &'a Path,
    /// Its bytes.
    pub bytes: Vec<u8>,
    /// Its `.meta.json`, if any.
    pub meta: Option<Vec<u8>>,
    /// sha256 of `bytes`.
    pub sha256: String,
}

/// Convert a session from bytes (`main_sha` is the sha256 of `main`); `name` names the source in
/// messages and provenance; `stem` is the file stem (`None` for a stream), which with the session id
/// decides the document id ([`Agent::doc_id`]). Sniffed once ([`detect`]: the table of
/// [`FORMATS`]), parsed once (a Gemini document's parsed value goes to its parser), converted.
pub fn convert_bytes(
    main: &[u8],
    main_sha: &str,
    name: &str,
    stem: Option<&str>,
    subs: &[Sub<'_>],
    redact_secrets: bool,
) -> Outcome {
    let decoded = crate::lines::decode(main);
    let main: &[u8] = &decoded;
    let outcome = |status, issues| Outcome {
        status,
        issues,
        bytes: main.len() as u64,
        fingerprint: String::new(),
    };
    if memchr::memmem::find(main, redact::DO_NOT_INDEX).is_some()
        || subs
            .iter()
            .any(|s| memchr::memmem::find(&s.bytes, redact::DO_NOT_INDEX).is_some())
    {
        return outcome(Status::DoNotIndex, Vec::new());
    }
    if main.iter().all(u8::is_ascii_whitespace) && subs.is_empty() {
        return outcome(Status::Empty, Vec::new());
    }
    let mut issues = Vec::new();
    let (agent, mut session) = match parse_main(detect(main), main, name, subs, &mut issues) {
        Parsed::Session(agent, session) => (agent, *session),
        Parsed::Not(status) => return outcome(status, issues),
        Parsed::Cursor => {
            return cursor_bytes(main, main_sha, name, subs, redact_secrets);
        }
    };
    add_subagents(&mut session, subs, &mut issues);
    if session.is_empty() {
        return outcome(Status::Empty, issues);
    }
    let doc = to_doc(session, agent, name, stem, main_sha, subs, redact_secrets);
    outcome(Status::Doc(Box::new(doc)), issues)
}

/// What the main file parsed into.
enum Parsed {
    Session(Agent, Box<crate::session::Session>),
    /// No session: why.
    Not(Status),
    /// A Cursor agent transcript: its own reader converts it whole.
    Cursor,
}

/// Parse the main file as what detection says it is (its issues added to `issues`).
fn parse_main(
    detected: Detected,
    main: &[u8],
    name: &str,
    subs: &[Sub<'_>],
    issues: &mut Vec<(String, LineIssue)>,
) -> Parsed {
    match detected {
        Detected::Cursor => Parsed::Cursor,
        Detected::Gemini(doc) => match gemini::parse_value(&doc) {
            Ok(s) => Parsed::Session(Agent::Gemini, Box::new(s)),
            Err(_) => Parsed::Not(Status::NotASession),
        },
        Detected::GeminiTruncated(salvaged) => match gemini::parse_value(&salvaged.doc) {
            Ok(s) => {
                // One issue for the cut, not one per line after it.
                let line = 1 + main[..salvaged.cut_at.min(main.len())]
                    .iter()
                    .filter(|b| **b == b'\n')
                    .count() as u64;
                issues.push((
                    name.to_string(),
                    LineIssue {
                        line,
                        reason: format!(
                            "truncated: the session document ends early; kept the {} complete messages before the cut",
                            salvaged.kept
                        ),
                    },
                ));
                Parsed::Session(Agent::Gemini, Box::new(s))
            }
            Err(_) => Parsed::Not(Status::NotASession),
        },
        Detected::Codex => {
            let (s, iss) = codex::parse(main);
            issues.extend(iss.into_iter().map(|i| (name.to_string(), i)));
            Parsed::Session(Agent::Codex, Box::new(s))
        }
        Detected::Claude => {
            let parsed = claude::parse(main);
            issues.extend(parsed.issues.into_iter().map(|i| (name.to_string(), i)));
            if parsed.summary_only && subs.is_empty() {
                return Parsed::Not(if parsed.summaries > 0 {
                    Status::SummaryOnly
                } else {
                    Status::NotASession
                });
            }
            Parsed::Session(Agent::Claude, Box::new(parsed.session))
        }
        Detected::NotJson => Parsed::Not(Status::NotASession),
    }
}

/// A Cursor agent transcript given as bytes (outside its `agent-transcripts/` folder).
fn cursor_bytes(
    main: &[u8],
    main_sha: &str,
    name: &str,
    subs: &[Sub<'_>],
    redact_secrets: bool,
) -> Outcome {
    let mut said = Vec::new();
    let subs: Vec<(String, Vec<u8>)> = subs
        .iter()
        .map(|s| (s.path.display().to_string(), s.bytes.clone()))
        .collect();
    let mtime = std::fs::metadata(name).and_then(|m| m.modified()).ok();
    let c = crate::cursor::transcript::parse(name, main, &subs, false, mtime, &mut said);
    let mut o = from_conversation(
        c,
        Agent::Cursor,
        Path::new(name),
        issues_of(said),
        main.len() as u64,
        redact_secrets,
    );
    if o.fingerprint.is_empty() {
        o.fingerprint = main_sha.to_string();
    }
    o
}

/// The subagent transcripts read alongside the session, added to it; warm-up probes (a subagent
/// asked "Warmup" as a session starts) are housekeeping and dropped.
fn add_subagents(
    session: &mut crate::session::Session,
    subs: &[Sub<'_>],
    issues: &mut Vec<(String, LineIssue)>,
) {
    for s in subs {
        let id = stem_of(s.path).trim_start_matches("agent-").to_string();
        let (kind, desc) = s
            .meta
            .as_deref()
            .map(claude::subagent_meta)
            .unwrap_or((None, None));
        let bytes = crate::lines::decode(&s.bytes);
        let (sub, models, iss, span) = claude::parse_subagent(&bytes, id, kind, desc);
        // A session of subagents only (the parent transcript absent) runs as long as they do.
        if session.turns.is_empty() {
            for ts in span.iter().flatten() {
                session.saw_time(ts);
            }
        }
        issues.extend(iss.into_iter().map(|i| (s.path.display().to_string(), i)));
        for m in models {
            session.add_model(&m);
        }
        session.subagents.push(sub);
    }
    session
        .subagents
        .retain(|a| a.prompt.trim() != render::WARMUP);
}

/// The document of a parsed session: its provenance, redacted (the counts recorded), its id.
fn to_doc(
    mut session: crate::session::Session,
    agent: Agent,
    name: &str,
    stem: Option<&str>,
    main_sha: &str,
    subs: &[Sub<'_>],
    redact_secrets: bool,
) -> Doc {
    let recorded = (!session.session_id.is_empty()).then(|| session.session_id.clone());
    if session.session_id.is_empty() {
        session.session_id = stem.unwrap_or("stdin").to_string();
    }
    let source = Source {
        kind: "session".into(),
        agent: Some(agent.as_str().into()),
        file: render::place_of(name),
        lines: Some([1, session.lines.max(1)]),
        sha256: Some(main_sha.to_string()),
        parts: subs
            .iter()
            .map(|s| SourcePart {
                file: render::place_of(&s.path.display().to_string()),
                sha256: Some(s.sha256.clone()),
            })
            .collect(),
    };
    let counts = session.redact(redact_secrets);
    // Subagent transcripts whose parent is absent are the parent session's document (named by its
    // id, so the parent's own transcript, once read, takes the same document over).
    let orphan = stem.is_some_and(|s| s.starts_with("agent-")) && session.turns.is_empty();
    let stem = if orphan && recorded.is_some() {
        recorded.as_deref()
    } else {
        stem
    };
    let id = agent.doc_id(stem, recorded.as_deref(), &source.file);
    let mut doc = render::to_doc(&session, agent, id, source);
    brain_redact::record(&counts, &mut doc.meta);
    doc
}

/// What a file is, as far as sniffing tells.
enum Detected {
    /// A Cursor agent transcript given outside its `agent-transcripts/` folder.
    Cursor,
    Claude,
    Codex,
    /// A Gemini session document, parsed (its parser takes the value).
    Gemini(Value),
    /// A Gemini session document cut short, rebuilt from what is complete.
    GeminiTruncated(Box<gemini::Salvaged>),
    NotJson,
}

/// The table of sources: what the first JSON object of a file says it is, tried in order (the
/// JSONL formats, after Gemini's whole document); an object none claims is a Claude Code line.
const FORMATS: [(fn(&Value) -> bool, Format); 3] = [
    (gemini::sniff, Format::Gemini),
    (codex::sniff, Format::Codex),
    (crate::cursor::transcript::sniff, Format::Cursor),
];

#[derive(Clone, Copy, PartialEq, Eq)]
enum Format {
    Gemini,
    Codex,
    Cursor,
    Claude,
}

/// The format the table (or the part of it given) gives a parsed object.
fn format_of(v: &Value, table: &[(fn(&Value) -> bool, Format)]) -> Format {
    table
        .iter()
        .find(|(sniff, _)| sniff(v))
        .map_or(Format::Claude, |(_, f)| *f)
}

/// A JSONL format as detected (Gemini is a whole document, never a line).
fn line_format(f: Format) -> Detected {
    match f {
        Format::Codex => Detected::Codex,
        Format::Cursor => Detected::Cursor,
        Format::Gemini | Format::Claude => Detected::Claude,
    }
}

fn detect(bytes: &[u8]) -> Detected {
    let start = bytes.iter().position(|b| !b.is_ascii_whitespace());
    let Some(start) = start else {
        return Detected::NotJson;
    };
    // A whole-document JSON object spanning lines (Gemini) vs JSON Lines.
    let first_line_end = memchr::memchr(b'\n', &bytes[start..]).map_or(bytes.len(), |i| start + i);
    match serde_json::from_slice::<Value>(&bytes[start..first_line_end]) {
        Ok(v) => match format_of(&v, &FORMATS) {
            Format::Gemini => Detected::Gemini(v),
            f => line_format(f),
        },
        Err(_) if bytes[start] == b'{' || bytes[start] == b'[' => {
            match serde_json::from_slice::<Value>(&bytes[start..]) {
                Ok(v) if gemini::sniff(&v) => Detected::Gemini(v),
                Ok(_) => Detected::NotJson,
                Err(e) if e.is_eof() => match gemini::salvage(bytes) {
                    Some(s) => Detected::GeminiTruncated(Box::new(s)),
                    None => first_object_line(bytes),
                },
                Err(_) => first_object_line(bytes),
            }
        }
        // A garbage, NUL or huge non-JSON first line (a half-written header, a paste) must not
        // decide alone: a JSONL transcript has objects on the lines after it.
        Err(_) => first_object_line(bytes),
    }
}

/// A JSONL file whose first line is malformed: decide by the first line of the first
/// [`SNIFF_LINES`] that parses as a JSON object; none → not JSON.
fn first_object_line(bytes: &[u8]) -> Detected {
    for (_, raw) in crate::lines::split(bytes).take(SNIFF_LINES) {
        if let Ok(v @ Value::Object(_)) = serde_json::from_slice::<Value>(raw) {
            // A line of JSON Lines: the table past Gemini's whole document.
            return line_format(format_of(&v, &FORMATS[1..]));
        }
    }
    Detected::NotJson
}

/// Lines read to decide what a file with a malformed first line is.
const SNIFF_LINES: usize = 20;

/// The file stem used for ids: `rollout-….jsonl` → `rollout-…`, `session-….json` → `session-…`.
pub fn stem_of(p: &Path) -> String {
    p.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "session".into())
}

fn unreadable(p: &Path, e: std::io::Error) -> Outcome {
    Outcome {
        status: Status::Unreadable(format!("{}: {e}", p.display())),
        issues: Vec::new(),
        bytes: 0,
        fingerprint: String::new(),
    }
}
