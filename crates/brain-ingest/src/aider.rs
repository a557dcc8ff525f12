//! Aider (issue #26): `.aider.chat.history.md` in each repository, appended to by every run. One
//! session per `# aider chat started at YYYY-MM-DD HH:MM:SS` header (text before the first header
//! is the tail of an older file: not a session). Inside: `#### ` lines are the user's, `> ` lines
//! aider's own output (the model, files added, commits — kept as notes; `Commit abc1234 …` and
//! `Added x to the chat` become refs) with the unquoted lines that continue them (aider quotes a
//! message's first line only) and every line before the first `####`, the rest the model's answer
//! (whose fenced blocks are read whole: a SEARCH/REPLACE block's `>>>>>>> REPLACE` is code). The project is the folder the
//! history file is in; times are the header's (local time, written as UTC: aider records no zone).
//! Session ids are the header's time and a hash of the file's place: stable across runs, distinct
//! across repositories. Documents are `aider__<id>`.

use std::path::Path;

use serde_json::Value;

use crate::many::{Conversation, Read};
use crate::session::Role;
use crate::tools::ToolLine;

/// The header that starts a session.
pub const HEADER: &str = "# aider chat started at ";

/// Whether `bytes` (the start of a file) look like an Aider history.
pub fn sniff(bytes: &[u8]) -> bool {
    bytes.starts_with(HEADER.as_bytes())
        || memchr::memmem::find(bytes, format!("\n{HEADER}").as_bytes()).is_some()
}

/// The sessions of a history's text: `(header's time, body)`, one per header at a line's start.
fn sessions(text: &str) -> Vec<(String, &str)> {
    let mut starts: Vec<usize> = memchr::memmem::find_iter(text.as_bytes(), HEADER.as_bytes())
        .filter(|&i| i == 0 || text.as_bytes()[i - 1] == b'\n')
        .collect();
    starts.push(text.len());
    starts
        .windows(2)
        .map(|w| {
            let part = &text[w[0] + HEADER.len()..w[1]];
            let (stamp, body) = part.split_once('\n').unwrap_or((part, ""));
            (stamp.trim().to_string(), body)
        })
        .collect()
}

#[derive(Default)]
struct Builder {
    session: crate::session::Session,
    role: Option<Role>,
    buf: String,
    output: String,
    /// A `####` line was seen: plain lines before the first are aider's output, not an answer.
    seen_user: bool,
    /// The last line was output (`> …`, or a line continuing it): aider quotes only the first
    /// line of a multi-line message, so a line straight after it continues it.
    in_output: bool,
    /// Inside a fenced block of the answer.
    in_fence: bool,
}

impl Builder {
    fn flush(&mut self) {
        if let Some(r) = self.role.take() {
            let text = std::mem::take(&mut self.buf);
            self.session.push_turn(r, &text);
        }
        self.buf.clear();
        if !self.output.trim().is_empty() {
            let out = std::mem::take(&mut self.output);
            self.session.push_turn(Role::Note, &out);
        }
        self.output.clear();
    }

    fn line(&mut self, line: &str) {
        if self.in_fence {
            // Inside a fenced block of the answer, `> ` and `####` are the code's own.
            self.in_fence = !line.trim_start().starts_with("```");
            self.buf.push_str(line.trim_end());
            self.buf.push('\n');
            return;
        }
        let continues = self.in_output && !line.trim().is_empty();
        self.in_output = false;
        // Aider quotes its own output as `> …` (a SEARCH/REPLACE block's `>>>>>>> REPLACE` is not).
        let quoted = line
            .strip_prefix("> ")
            .or((line.trim_end() == ">").then_some(""));
        if let Some(u) = line.strip_prefix("####") {
            self.seen_user = true;
            if self.role != Some(Role::User) {
                self.flush();
                self.role = Some(Role::User);
            }
            self.buf
                .push_str(u.strip_prefix(' ').unwrap_or(u).trim_end());
            self.buf.push('\n');
        } else if let Some(o) = quoted {
            let o = o.trim_end();
            if self.role.is_some() {
                self.flush();
            }
            self.aider_says(o);
            self.output.push_str(o);
            self.output.push('\n');
            self.in_output = true;
        } else if continues || (!self.seen_user && self.role.is_none()) {
            self.output.push_str(line.trim_end());
            self.output.push('\n');
            self.in_output = continues || !line.trim().is_empty();
        } else {
            if self.role != Some(Role::Assistant) {
                if self.role.is_none() && line.trim().is_empty() {
                    return;
                }
                if self.role.is_some() || !self.output.is_empty() {
                    self.flush();
                }
                self.role = Some(Role::Assistant);
            }
            self.in_fence = line.trim_start().starts_with("```");
            self.buf.push_str(line.trim_end());
            self.buf.push('\n');
        }
    }

    /// What aider's own lines say about the session: its model, files, commits.
    fn aider_says(&mut self, o: &str) {
        if let Some(m) = o
            .strip_prefix("Models: ")
            .or_else(|| o.strip_prefix("Model: "))
        {
            let m = m.split([' ', ',']).next().unwrap_or("");
            self.session.add_model(m);
        } else if let Some(v) = o.strip_prefix("Aider v") {
            self.session.agent_version = Some(v.trim().to_string());
        } else if let Some(rest) = o.strip_prefix("Commit ") {
            let sha = rest.split_whitespace().next().unwrap_or("");
            if sha.len() >= 7 && sha.bytes().all(|b| b.is_ascii_hexdigit()) {
                self.session.tools.push(ToolLine {
                    summary: format!("git commit: {}", crate::tools::clip(rest, 160)),
                    error: None,
                    ended: brain_doc::command::Outcome::Failed,
                    refs: vec![format!("commit:{sha}")],
                });
            }
        } else if let Some(f) = o
            .strip_prefix("Added ")
            .and_then(|r| r.strip_suffix(" to the chat."))
        {
            self.session.tools.push(ToolLine {
                summary: format!("Add to chat: {f}"),
                error: None,
                ended: brain_doc::command::Outcome::Failed,
                refs: vec![crate::refs::path_ref(f)],
            });
        } else if let Some(f) = o.strip_prefix("Applied edit to ") {
            self.session.tools.push(ToolLine {
                summary: format!("Edit: {f}"),
                error: None,
                ended: brain_doc::command::Outcome::Failed,
                refs: vec![crate::refs::path_ref(f)],
            });
        }
    }
}

/// `2024-08-05 19:33:32` → `2024-08-05T19:33:32.000Z`.
fn header_time(s: &str) -> Option<String> {
    let t: jiff::civil::DateTime = s.trim().parse().ok()?;
    let z = t.to_zoned(jiff::tz::TimeZone::UTC).ok()?;
    Some(format!("{:.3}", z.timestamp()))
}

/// The sessions of an Aider history file.
pub fn read(path: &Path) -> Result<Read, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let place = crate::render::place_of(&path.display().to_string());
    let project = std::fs::canonicalize(path)
        .ok()
        .and_then(|p| p.parent().map(|d| d.display().to_string()));
    Ok(parse(&bytes, &place, project))
}

/// The sessions of a history's `bytes`, read from `place` (its ids carry a hash of it), in the
/// repository `project`.
pub fn parse(bytes: &[u8], place: &str, project: Option<String>) -> Read {
    let text = brain_doc::bytes::lossy(&crate::lines::decode(bytes));
    let place_hash = &brain_doc::sha256_hex(place.as_bytes())[..8];
    let mut out = Read::default();
    let mut seen: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for (stamp, body) in sessions(&text) {
        let mut b = Builder::default();
        for line in body.lines() {
            b.line(line);
        }
        b.flush();
        let said = b.session.turns.iter().any(|t| t.role != Role::Note);
        if !said {
            out.empty += 1;
            continue;
        }
        let n = seen.entry(stamp.clone()).or_default();
        *n += 1;
        let base = stamp.replace([' ', ':'], "-");
        let id = if *n == 1 {
            format!("{base}-{place_hash}")
        } else {
            format!("{base}-{n}-{place_hash}")
        };
        let mut s = b.session;
        if let Some(t) = header_time(&stamp) {
            s.saw_time(&t);
        }
        s.session_id = id.clone();
        s.project = project.clone();
        out.conversations.push(Conversation {
            id,
            fingerprint: brain_doc::sha256_hex(format!("{stamp}\n{body}").as_bytes()),
            session: s,
            meta: vec![("store".into(), Value::from("aider-history"))],
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_history_is_a_session_per_header_with_users_output_and_answers() {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = dir.path().join(".aider.chat.history.md");
        std::fs::write(
            &p,
            "tail of an older run\n\n# aider chat started at 2024-08-05 19:33:02\n\n> Aider v0.47.2\n> Models: claude-3-5-sonnet with diff edit format\n\n# aider chat started at 2024-08-05 19:33:32\n\n> Added aider/utils.py to the chat.\n\n#### Use the Spinner\n\nCertainly! Here is the change.\n\n> Applied edit to aider/utils.py\n> Commit d0ffbf1 fix: use Spinner\n",
        )
        .expect("write");
        let r = read(&p).expect("read");
        assert_eq!(r.empty, 1, "a session of aider's output alone says nothing");
        assert_eq!(r.conversations.len(), 1);
        let s = &r.conversations[0].session;
        let roles: Vec<Role> = s.turns.iter().map(|t| t.role).collect();
        assert_eq!(roles, [Role::Note, Role::User, Role::Assistant, Role::Note]);
        assert_eq!(s.turns[1].text, "Use the Spinner");
        assert_eq!(s.started.as_deref(), Some("2024-08-05T19:33:32.000Z"));
        let refs: Vec<&String> = s.tools.iter().flat_map(|t| t.refs.iter()).collect();
        assert!(refs.contains(&&"commit:d0ffbf1".to_string()), "{refs:?}");
        assert!(r.conversations[0].id.starts_with("2024-08-05-19-33-32-"));
        assert!(sniff(b"x\n# aider chat started at 2024"));
    }

    #[test]
    fn fenced_code_continued_output_and_quoted_headers_are_read_as_aider_wrote_them() {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = dir.path().join(".aider.chat.history.md");
        std::fs::write(
            &p,
            "# aider chat started at 2024-08-05 20:40:10\n\n> Repo-map: using 1024 tokens\n> Here are summaries\nDo not propose changes\n\nLICENSE.txt\n\n\
             # aider chat started at 2024-08-05 20:41:00\n\n#### fix it\n\n```python\n<<<<<<< SEARCH\n> not output\n#### not a user\n>>>>>>> REPLACE\n```\n\nDone. See `# aider chat started at` in the docs.\n\n> Tokens: 5 sent\nmore output\n",
        )
        .expect("write");
        let r = read(&p).expect("read");
        assert_eq!(
            r.empty, 1,
            "output and its unquoted lines before any user: nothing said"
        );
        assert_eq!(r.conversations.len(), 1, "a header mid-line starts nothing");
        let s = &r.conversations[0].session;
        let roles: Vec<Role> = s.turns.iter().map(|t| t.role).collect();
        assert_eq!(roles, [Role::User, Role::Assistant, Role::Note]);
        assert!(
            s.turns[1]
                .text
                .contains("> not output\n#### not a user\n>>>>>>> REPLACE\n```")
        );
        assert!(
            s.turns[1].text.ends_with("in the docs."),
            "{}",
            s.turns[1].text
        );
        assert_eq!(s.turns[2].text, "Tokens: 5 sent\nmore output");
        assert!(!sniff(b"see # aider chat started at 2024"));
    }
}
