//! Documents beyond markdown → markdown documents: `doc2md`'s library (issue 57).
//!
//! A file is sniffed by its first bytes, then its name ([`Kind::of`]), and read by one reader per
//! kind, each bounded in time and memory whatever the file holds:
//!
//! - **PDF** (`pdf`): `pdf-extract` over `lopdf`, page by page, in a child process of its own with
//!   a memory limit and a deadline ([`pdf::isolated`]): the parser panics, loops or allocates
//!   without bound on damaged files, and none of that may reach the caller.
//! - **HTML** (`html`): html5ever's tokenizer, streaming (no tree, so 100,000 nested tags cost what
//!   100,000 flat ones do): the readable text (no scripts, styles, navigation, forms), headings as
//!   sections, and the page's title, address and date.
//! - **DOCX** (`docx`): the zip's `word/document.xml` read with quick-xml (entry sizes checked and
//!   every read capped, so a zip bomb stops at the cap): paragraphs, headings by style, lists,
//!   tables, and `docProps/core.xml`'s title, author and dates.
//! - **Plain text** (`text`): UTF-8, UTF-16 by its byte-order mark, else Windows-1252, said so.
//!
//! Each becomes [`Converted`]: sections with anchors (`page-3`, a heading's slug) so a citation
//! points into the document, rendered by [`render`] as a doc record (`source.type: document`).

mod decode;
pub mod docx;
mod error;
pub mod html;
pub mod pdf;
mod render;
mod run;
mod sections;
mod text;

use std::path::Path;

pub use error::ConvertError;
pub use render::{FileFacts, RenderOptions, render};
pub use run::{Options, Sink, Summary, collections, convert_file, run};

/// The kinds of document doc2md reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Pdf,
    Html,
    Docx,
    Text,
}

impl Kind {
    /// The name in a record's `format:` and in messages.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Pdf => "pdf",
            Kind::Html => "html",
            Kind::Docx => "docx",
            Kind::Text => "text",
        }
    }

    /// The kind of the file named `path` whose first bytes are `head`: the content decides where
    /// it can (a PDF named `.txt` is a PDF), the name where it cannot (a zip is a DOCX only by
    /// name). `None`: not a document doc2md reads (markdown among them: it is a document already).
    pub fn of(path: &Path, head: &[u8]) -> Option<Kind> {
        if head.starts_with(b"%PDF-") {
            return Some(Kind::Pdf);
        }
        match brain_store::documents::format_of(&path.to_string_lossy())? {
            "pdf" => Some(Kind::Pdf),
            "html" => Some(Kind::Html),
            "docx" => Some(Kind::Docx),
            _ => Some(Kind::Text),
        }
    }
}

/// The bounds every reader holds, whatever the file.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// A larger file is refused unread.
    pub max_file_bytes: u64,
    /// Text past this many bytes is cut (and the document says so).
    pub max_text_bytes: usize,
    /// A PDF's parse ends after this many seconds (the child is killed).
    pub pdf_seconds: u64,
    /// A PDF's child may map at most this many bytes.
    pub pdf_memory_bytes: u64,
    /// A DOCX's parts may unpack to at most this many bytes together.
    pub max_unpacked_bytes: u64,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_file_bytes: 256 << 20,
            max_text_bytes: 16 << 20,
            pdf_seconds: 60,
            pdf_memory_bytes: 2 << 30,
            max_unpacked_bytes: 256 << 20,
        }
    }
}

/// A document read: what it says about itself and its text in sections.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Converted {
    /// The document's own title (`<title>`, the DOCX's or PDF's title field), if it has one.
    pub title: Option<String>,
    /// The date the document gives for itself (published, created), as written.
    pub date: Option<String>,
    /// A saved page's address (`saved from url`, the canonical link, `og:url`).
    pub url: Option<String>,
    /// The author the document names.
    pub author: Option<String>,
    /// How the bytes were decoded, when not UTF-8.
    pub encoding: Option<String>,
    /// Pages of a PDF (each a section).
    pub pages: Option<u32>,
    /// The text was longer than the limit and was cut.
    pub truncated: bool,
    pub sections: Vec<Section>,
}

/// A part of a document a citation can point at: a PDF page, a heading and what follows it.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Section {
    /// `page-3`, a heading's slug (or its `id`); empty for the text before the first heading.
    pub anchor: String,
    /// The heading as shown (`Page 3`, the heading's text); none for the text before the first.
    pub heading: Option<String>,
    /// 1–6 for headings (a page is 2).
    pub level: u8,
    pub text: String,
}

/// Read `bytes`, a document of `kind` named `path`. PDFs are parsed in this process here: callers
/// that must survive any file use [`pdf::isolated`] instead (doc2md does).
pub fn convert(kind: Kind, bytes: &[u8], limits: &Limits) -> Result<Converted, ConvertError> {
    let mut out = match kind {
        Kind::Pdf => pdf::read(bytes)?,
        Kind::Html => html::read(bytes),
        Kind::Docx => docx::read(bytes, limits)?,
        Kind::Text => text::read(bytes),
    };
    cut(&mut out, limits.max_text_bytes);
    Ok(out)
}

/// Cut the sections' text to `max` bytes in all (at a character boundary).
pub fn cut(doc: &mut Converted, max: usize) {
    let mut left = max;
    let mut keep = doc.sections.len();
    for (i, s) in doc.sections.iter_mut().enumerate() {
        if s.text.len() > left {
            let mut end = left;
            while !s.text.is_char_boundary(end) {
                end -= 1;
            }
            s.text.truncate(end);
            doc.truncated = true;
            keep = i + 1;
            break;
        }
        left -= s.text.len();
    }
    doc.sections.truncate(keep);
}

pub use brain_doc::markdown::slug;

/// Collapse runs of whitespace inside a line to one space, trimmed: how inline text reads.
pub(crate) fn squash(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The bytes of the file at `path`, refused unread when it is larger than `max` (a file that
/// grows while read stops at `max` + 1 and is refused too).
pub fn read_bounded(path: &Path, max: u64) -> Result<Vec<u8>, ConvertError> {
    use std::io::Read;
    let file = std::fs::File::open(path).map_err(ConvertError::Read)?;
    let meta = file.metadata().map_err(ConvertError::Read)?;
    if !meta.is_file() {
        return Err(ConvertError::Unreadable("not a regular file".into()));
    }
    let too_large = |n: u64| ConvertError::TooLarge(format!("{} (at most {})", size(n), size(max)));
    if meta.len() > max {
        return Err(too_large(meta.len()));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(max + 1)
        .read_to_end(&mut bytes)
        .map_err(ConvertError::Read)?;
    if bytes.len() as u64 > max {
        return Err(too_large(bytes.len() as u64));
    }
    Ok(bytes)
}

/// `1.5 GB`, `256 MiB`-style sizes for messages.
fn size(n: u64) -> String {
    match n {
        n if n >= 1 << 30 => format!("{:.1} GiB", n as f64 / (1u64 << 30) as f64),
        n if n >= 1 << 20 => format!("{:.1} MiB", n as f64 / (1u64 << 20) as f64),
        n if n >= 1 << 10 => format!("{:.1} KiB", n as f64 / 1024.0),
        n => format!("{n} bytes"),
    }
}
