//! A PDF → its text page by page (`pdf-extract` over `lopdf`), title, author and date.
//!
//! The parser panics on many damaged files, can loop, and allocates what a file asks for, so a
//! caller that must survive any file parses in a child process ([`isolated`]): the child limits
//! its own address space and CPU time ([`work`]), the parent kills it at the deadline, and a
//! panic, a crash or a kill is a reason for that one file, never the caller's end.

use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use pdf_extract::{Document, Object, PlainTextOutput};

use crate::{ConvertError, Converted, Limits, Section};

/// The flag a program that calls [`isolated`] answers by running [`work`] on the file after it
/// (doc2md's hidden `--pdf-worker FILE`).
pub const WORKER_FLAG: &str = "--pdf-worker";

/// Read the PDF in `bytes` in this process. A page pdf-extract cannot read (it panics on fonts
/// it does not know) is read by lopdf's simpler text extraction; a page neither reads is empty.
pub fn read(bytes: &[u8]) -> Result<Converted, ConvertError> {
    let bad =
        |e: &dyn std::fmt::Display| ConvertError::Unreadable(format!("not a readable PDF: {e}"));
    let mut doc = quietly(|| Document::load_mem(bytes))
        .ok_or_else(|| bad(&"the file's structure is damaged"))?
        .map_err(|e| bad(&e))?;
    if doc.is_encrypted() && doc.decrypt("").is_err() {
        return Err(ConvertError::Unreadable(
            "encrypted: the PDF needs a password to open".into(),
        ));
    }
    let pages = doc.get_pages().len() as u32;
    let mut out = Converted {
        pages: Some(pages),
        ..Converted::default()
    };
    info(&doc, &mut out);
    for n in 1..=pages {
        let text = quietly(|| {
            let mut text = String::new();
            let mut sink = PlainTextOutput::new(&mut text);
            pdf_extract::output_doc_page(&doc, &mut sink, n).ok()?;
            Some(text)
        })
        .flatten()
        .or_else(|| quietly(|| doc.extract_text(&[n]).ok()).flatten())
        .unwrap_or_default();
        out.sections.push(Section {
            anchor: format!("page-{n}"),
            heading: Some(format!("Page {n}")),
            level: 2,
            text: tidy(&text),
        });
    }
    Ok(out)
}

/// `f`'s value, or `None` when it panics (the parsers' way of giving up on damaged input); the
/// panic's message is not printed.
fn quietly<T>(f: impl FnOnce() -> T) -> Option<T> {
    static SILENCE: std::sync::Once = std::sync::Once::new();
    SILENCE.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !QUIET.with(std::cell::Cell::get) {
                default(info);
            }
        }));
    });
    QUIET.with(|q| q.set(true));
    let out = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).ok();
    QUIET.with(|q| q.set(false));
    out
}

thread_local! {
    static QUIET: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// A page's text as pdf-extract lays it out, without its runs of blank lines and trailing
/// spaces.
fn tidy(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut blank = 0;
    for line in text.lines().map(str::trim_end) {
        if line.trim().is_empty() {
            blank += 1;
            continue;
        }
        if !out.is_empty() {
            out.push_str(if blank > 0 { "\n\n" } else { "\n" });
        }
        blank = 0;
        out.extend(line.chars().filter(|c| !c.is_control() || *c == '\t'));
    }
    out
}

/// The document information dictionary: Title, Author, CreationDate (else ModDate).
fn info(doc: &Document, out: &mut Converted) {
    let Some(dict) = doc
        .trailer
        .get(b"Info")
        .ok()
        .and_then(|o| match o {
            Object::Reference(id) => doc.get_object(*id).ok(),
            other => Some(other),
        })
        .and_then(|o| o.as_dict().ok())
    else {
        return;
    };
    let field = |key: &[u8]| match dict.get(key) {
        Ok(Object::String(bytes, _)) => Some(text_string(bytes)).filter(|s| !s.trim().is_empty()),
        _ => None,
    };
    out.title = field(b"Title").map(|t| crate::squash(&t));
    out.author = field(b"Author").map(|t| crate::squash(&t));
    out.date = field(b"CreationDate")
        .or_else(|| field(b"ModDate"))
        .and_then(|d| pdf_date(&d));
}

/// A PDF text string: UTF-16BE after its mark, else PDFDocEncoding (Latin-1 for what matters).
fn text_string(bytes: &[u8]) -> String {
    match bytes.strip_prefix(&[0xFE, 0xFF]) {
        Some(utf16) => {
            let units: Vec<u16> = utf16
                .chunks_exact(2)
                .map(|c| u16::from_be_bytes([c[0], c[1]]))
                .collect();
            String::from_utf16_lossy(&units)
        }
        None => bytes.iter().map(|&b| char::from(b)).collect(),
    }
}

/// `D:YYYYMMDDHHmmSS+HH'mm'` (every part after the year optional) → RFC 3339.
fn pdf_date(d: &str) -> Option<String> {
    let d = d.trim().strip_prefix("D:").unwrap_or(d.trim());
    let digits: String = d.chars().take_while(char::is_ascii_digit).collect();
    if digits.len() < 4 {
        return None;
    }
    let part = |at: usize, default: &str| digits.get(at..at + 2).unwrap_or(default).to_string();
    let zone = &d[digits.len()..];
    let offset = match zone.chars().next() {
        Some(sign @ ('+' | '-')) => {
            let z: String = zone[1..].chars().filter(char::is_ascii_digit).collect();
            let hh = z.get(0..2).unwrap_or("00");
            let mm = z.get(2..4).unwrap_or("00");
            format!("{sign}{hh}:{mm}")
        }
        _ => "Z".into(),
    };
    let text = format!(
        "{}-{}-{}T{}:{}:{}{offset}",
        &digits[0..4],
        part(4, "01"),
        part(6, "01"),
        part(8, "00"),
        part(10, "00"),
        part(12, "00"),
    );
    text.parse::<jiff::Timestamp>().ok().map(|_| text)
}

/// The child's side: limit this process (address space, CPU seconds), read the PDF at `path`
/// and write it as JSON to `out`.
pub fn work(path: &Path, limits: &Limits, out: &mut dyn Write) -> Result<(), ConvertError> {
    limit_self(limits);
    let bytes = crate::read_bounded(path, limits.max_file_bytes)?;
    let mut doc = read(&bytes)?;
    crate::cut(&mut doc, limits.max_text_bytes);
    serde_json::to_writer(&mut *out, &doc)
        .map_err(|e| ConvertError::Output(std::io::Error::other(e)))?;
    out.flush().map_err(ConvertError::Output)
}

fn limit_self(limits: &Limits) {
    use rustix::process::{Resource, Rlimit, setrlimit};
    let set = |r: Resource, v: u64| {
        // A limit the system refuses leaves the parent's deadline as the bound.
        let _ = setrlimit(
            r,
            Rlimit {
                current: Some(v),
                maximum: Some(v),
            },
        );
    };
    set(Resource::As, limits.pdf_memory_bytes);
    set(Resource::Cpu, limits.pdf_seconds + 1);
}

/// Read the PDF at `path` in a child: `exe WORKER_FLAG path` (the calling program answers the
/// flag with [`work`]). The child is killed at `limits.pdf_seconds`; its JSON is read up to a cap.
pub fn isolated(exe: &Path, path: &Path, limits: &Limits) -> Result<Converted, ConvertError> {
    let mut child = Command::new(exe)
        .arg(WORKER_FLAG)
        .arg(path)
        .args(limit_args(limits))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| {
            ConvertError::Output(std::io::Error::other(format!(
                "starting {}: {e}",
                exe.display()
            )))
        })?;
    let cap = limits.max_text_bytes as u64 * 2 + (1 << 20);
    let reader = |r: Option<Box<dyn Read + Send>>, cap: u64| {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            if let Some(r) = r {
                let _ = r.take(cap).read_to_end(&mut buf);
            }
            buf
        })
    };
    let stdout = reader(child.stdout.take().map(|s| Box::new(s) as _), cap);
    let stderr = reader(child.stderr.take().map(|s| Box::new(s) as _), 64 << 10);
    let deadline = Instant::now() + Duration::from_secs(limits.pdf_seconds);
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if Instant::now() >= deadline => {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            Err(e) => return Err(ConvertError::Output(e)),
        }
    };
    let out = stdout.join().unwrap_or_default();
    let err = stderr.join().unwrap_or_default();
    let Some(status) = status else {
        return Err(ConvertError::Timeout(limits.pdf_seconds));
    };
    if !status.success() {
        return Err(child_failure(status, &err));
    }
    serde_json::from_slice(&out).map_err(|e| {
        ConvertError::Unreadable(format!("the PDF reader's answer does not read: {e}"))
    })
}

/// The flags that hand `limits` to the child.
pub fn limit_args(limits: &Limits) -> Vec<String> {
    vec![
        format!("--max-bytes={}", limits.max_file_bytes),
        format!("--timeout={}", limits.pdf_seconds),
        format!("--max-memory={}", limits.pdf_memory_bytes),
    ]
}

/// Why the child ended without an answer, in its own words when it left any.
fn child_failure(status: std::process::ExitStatus, stderr: &[u8]) -> ConvertError {
    use std::os::unix::process::ExitStatusExt;
    let said = String::from_utf8_lossy(stderr);
    if let Some(signal) = status.signal() {
        return match signal {
            // SIGXCPU: the child's own CPU limit.
            24 => ConvertError::Timeout(0),
            _ => ConvertError::Unreadable(format!(
                "the PDF reader stopped on signal {signal} (out of memory or a crash on a damaged file)"
            )),
        };
    }
    // The child's own refusal: `doc2md: error: <reason>` (brain_cli's form).
    if let Some(reason) = said.lines().find_map(|l| l.strip_prefix("doc2md: error: ")) {
        let reason: String = reason.trim().chars().take(300).collect();
        return ConvertError::Unreadable(brain_redact::redact(
            &reason,
            &mut brain_redact::Counts::new(),
        ));
    }
    let panic = said
        .lines()
        .skip_while(|l| !l.contains("panicked"))
        .nth(1)
        .map(str::trim)
        .filter(|m| !m.is_empty());
    ConvertError::Unreadable(match panic {
        // The parser's message may quote the document's bytes: cut, and redacted like its text.
        Some(msg) => {
            let msg: String = msg.chars().take(200).collect();
            let msg = brain_redact::redact(&msg, &mut brain_redact::Counts::new());
            format!("damaged PDF (the reader gave up: {msg})")
        }
        None => format!(
            "damaged PDF (the reader exited {})",
            status.code().unwrap_or(-1)
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pdf_dates_and_text_strings() {
        assert_eq!(
            pdf_date("D:20240301093000+01'00'").as_deref(),
            Some("2024-03-01T09:30:00+01:00")
        );
        assert_eq!(pdf_date("D:2024").as_deref(), Some("2024-01-01T00:00:00Z"));
        assert_eq!(pdf_date("D:20241399").as_deref(), None);
        assert_eq!(pdf_date("yesterday"), None);
        assert_eq!(text_string(b"\xfe\xff\x00h\x00\xe9"), "hé");
        assert_eq!(text_string(b"caf\xe9"), "café");
    }

    #[test]
    fn a_damaged_file_is_a_reason_not_a_panic() {
        for bytes in [
            &b""[..],
            b"%PDF-1.4\n",
            b"%PDF-1.4\n1 0 obj << /Type /Catalog",
        ] {
            assert!(read(bytes).is_err());
        }
    }
}
