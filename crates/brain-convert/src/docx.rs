//! A Word document (DOCX: a zip of XML parts) → its paragraphs, headings, lists and tables.
//!
//! Only two parts are read: `word/document.xml` (the text) and `docProps/core.xml` (title,
//! author, dates). Each is read through a cap: the zip's declared sizes are checked first and the
//! read stops at the cap whatever they claim, so a zip bomb costs at most the cap.

use std::io::{Cursor, Read};

use quick_xml::Reader;
use quick_xml::events::{BytesStart, Event};

use crate::sections::Sections;
use crate::{ConvertError, Converted, Limits};

/// A DOCX with more entries than this is not a document a person wrote.
const MAX_ENTRIES: usize = 20_000;

/// What an OLE compound file starts with: a .doc (Word 97) or an encrypted DOCX.
const OLE_MAGIC: [u8; 8] = [0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1];

/// Read the DOCX in `bytes`.
pub fn read(bytes: &[u8], limits: &Limits) -> Result<Converted, ConvertError> {
    if bytes.starts_with(&OLE_MAGIC) {
        return Err(ConvertError::Unreadable(
            "an encrypted DOCX or an old .doc (Word 97) file: neither is read".into(),
        ));
    }
    let mut zip = zip::ZipArchive::new(Cursor::new(bytes))
        .map_err(|e| ConvertError::Unreadable(format!("not a DOCX (zip): {e}")))?;
    if zip.len() > MAX_ENTRIES {
        return Err(ConvertError::TooLarge(format!(
            "{} zip entries (at most {MAX_ENTRIES})",
            zip.len()
        )));
    }
    let mut budget = limits.max_unpacked_bytes;
    let body = part(&mut zip, "word/document.xml", &mut budget)?.ok_or_else(|| {
        ConvertError::Unreadable("no word/document.xml: not a Word document".into())
    })?;
    let mut out = Converted {
        sections: paragraphs(&body)?,
        ..Converted::default()
    };
    if let Ok(Some(core)) = part(&mut zip, "docProps/core.xml", &mut budget) {
        properties(&core, &mut out);
    }
    Ok(out)
}

/// The bytes of the part `name`, counted against `budget`; `None` when the zip has no such part.
fn part(
    zip: &mut zip::ZipArchive<Cursor<&[u8]>>,
    name: &str,
    budget: &mut u64,
) -> Result<Option<Vec<u8>>, ConvertError> {
    let file = match zip.by_name(name) {
        Ok(f) => f,
        Err(zip::result::ZipError::FileNotFound) => return Ok(None),
        Err(e) => return Err(ConvertError::Unreadable(format!("{name}: {e}"))),
    };
    let too_large = |size: u64| {
        ConvertError::TooLarge(format!(
            "{name} unpacks to more than {size} bytes (a zip bomb?)"
        ))
    };
    if file.size() > *budget {
        return Err(too_large(*budget));
    }
    let mut out = Vec::new();
    file.take(*budget + 1)
        .read_to_end(&mut out)
        .map_err(|e| ConvertError::Unreadable(format!("{name}: {e}")))?;
    if out.len() as u64 > *budget {
        return Err(too_large(*budget));
    }
    *budget -= out.len() as u64;
    Ok(Some(out))
}

/// The reader's place in `word/document.xml`.
#[derive(Default)]
struct Body {
    sections: Sections,
    /// The paragraph being read, its style and whether it is a list item.
    para: String,
    style: Option<String>,
    list: bool,
    in_text: bool,
    /// The rows of the table being read, and the cells of its row; a paragraph inside a cell
    /// goes to its cell.
    rows: Vec<Vec<String>>,
    row: Vec<String>,
    cell: Option<String>,
    /// Nesting of tables (a table in a cell is read as text of that cell).
    tables: u32,
}

/// The sections of a `word/document.xml` (what [`read`] reads from the zip).
pub fn paragraphs(xml: &[u8]) -> Result<Vec<crate::Section>, ConvertError> {
    let mut reader = Reader::from_reader(xml);
    let mut buf = Vec::new();
    let mut body = Body::default();
    let bad = |e: quick_xml::Error| ConvertError::Unreadable(format!("word/document.xml: {e}"));
    loop {
        match reader.read_event_into(&mut buf).map_err(bad)? {
            Event::Start(e) => body.start(&e),
            Event::Empty(e) => {
                body.start(&e);
                body.end(e.local_name().as_ref());
            }
            Event::End(e) => body.end(e.local_name().as_ref()),
            Event::Text(t) if body.in_text => {
                let text = t.xml_content().map_err(|e| bad(e.into()))?;
                body.para.push_str(&text);
            }
            Event::GeneralRef(r) if body.in_text => {
                if let Ok(Some(c)) = r.resolve_char_ref() {
                    body.para.push(c);
                } else if let Ok(name) = r.decode()
                    && let Some(s) = quick_xml::escape::resolve_predefined_entity(&name)
                {
                    body.para.push_str(s);
                }
            }
            Event::Eof => break,
            _ => {}
        }
        buf.clear();
    }
    Ok(body.sections.finish())
}

impl Body {
    fn start(&mut self, e: &BytesStart<'_>) {
        match e.local_name().as_ref() {
            b"t" => self.in_text = true,
            b"tab" => self.para.push('\t'),
            b"br" | b"cr" => self.para.push('\n'),
            b"pStyle" => self.style = attr(e, b"val"),
            b"numPr" => self.list = true,
            b"tbl" => self.tables += 1,
            b"tc" if self.tables == 1 => self.cell = Some(String::new()),
            _ => {}
        }
    }

    fn end(&mut self, name: &[u8]) {
        match name {
            b"t" => self.in_text = false,
            b"p" => self.paragraph(),
            b"tc" if self.tables == 1 => {
                if let Some(cell) = self.cell.take() {
                    self.row.push(crate::squash(&cell));
                }
            }
            b"tr" if self.tables == 1 => {
                let row = std::mem::take(&mut self.row);
                self.rows.push(row);
            }
            b"tbl" => {
                self.tables = self.tables.saturating_sub(1);
                if self.tables == 0
                    && let Some(t) = crate::sections::table(&std::mem::take(&mut self.rows))
                {
                    self.sections.block(&t);
                }
            }
            _ => {}
        }
    }

    fn paragraph(&mut self) {
        let text = std::mem::take(&mut self.para);
        let style = self.style.take();
        let list = std::mem::take(&mut self.list);
        if let Some(cell) = &mut self.cell {
            if !cell.is_empty() {
                cell.push(' ');
            }
            cell.push_str(&text);
            return;
        }
        if let Some(level) = style.as_deref().and_then(heading_level) {
            self.sections.heading(level, None, &text);
            return;
        }
        let lines: Vec<&str> = text.lines().map(str::trim_end).collect();
        let text = lines.join("\n");
        let text = text.trim();
        if list {
            self.sections.block(&format!("- {text}"));
        } else {
            self.sections.block(text);
        }
    }
}

/// `Heading1`…`Heading9` (and `heading 2`, as some writers name them) → 1–6; `Title` → 1.
fn heading_level(style: &str) -> Option<u8> {
    let s = style.to_ascii_lowercase().replace(' ', "");
    if s == "title" {
        return Some(1);
    }
    let n: u8 = s.strip_prefix("heading")?.parse().ok()?;
    (1..=9).contains(&n).then_some(n.min(6))
}

/// The value of the attribute whose local name is `name` (`w:val` → `val`).
fn attr(e: &BytesStart<'_>, name: &[u8]) -> Option<String> {
    e.attributes().flatten().find_map(|a| {
        (a.key.local_name().as_ref() == name)
            .then(|| a.unescape_value().ok().map(|v| v.into_owned()))
            .flatten()
    })
}

/// `docProps/core.xml`: dc:title, dc:creator, dcterms:created (else modified).
fn properties(xml: &[u8], out: &mut Converted) {
    let mut reader = Reader::from_reader(xml);
    let mut buf = Vec::new();
    let mut field: Option<Vec<u8>> = None;
    let (mut created, mut modified) = (None, None);
    loop {
        match reader.read_event_into(&mut buf) {
            Ok(Event::Start(e)) => field = Some(e.local_name().as_ref().to_vec()),
            Ok(Event::End(_)) => field = None,
            Ok(Event::Text(t)) => {
                let Ok(text) = t.xml_content() else { continue };
                let text = crate::squash(&text);
                if text.is_empty() {
                    continue;
                }
                match field.as_deref() {
                    Some(b"title") => out.title = Some(text),
                    Some(b"creator") => out.author = Some(text),
                    Some(b"created") => created = Some(text),
                    Some(b"modified") => modified = Some(text),
                    _ => {}
                }
            }
            Ok(Event::Eof) | Err(_) => break,
            _ => {}
        }
        buf.clear();
    }
    out.date = created.or(modified);
}

#[cfg(test)]
pub(crate) mod tests {
    use std::io::Write;

    use super::*;

    /// A DOCX of `document` (the body's XML) and `core` (docProps/core.xml), zipped as Word does.
    pub(crate) fn docx(document: &str, core: Option<&str>) -> Vec<u8> {
        let mut out = Cursor::new(Vec::new());
        let mut zip = zip::ZipWriter::new(&mut out);
        let opts = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated);
        let w = r#"xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main""#;
        let parts = [
            ("[Content_Types].xml", "<Types/>".to_string()),
            (
                "word/document.xml",
                format!("<w:document {w}><w:body>{document}</w:body></w:document>"),
            ),
        ];
        for (name, text) in parts {
            zip.start_file(name, opts).expect("zip entry");
            zip.write_all(text.as_bytes()).expect("zip write");
        }
        if let Some(core) = core {
            zip.start_file("docProps/core.xml", opts)
                .expect("zip entry");
            zip.write_all(core.as_bytes()).expect("zip write");
        }
        zip.finish().expect("zip finish");
        out.into_inner()
    }

    fn p(style: Option<&str>, text: &str) -> String {
        let style = style
            .map(|s| format!(r#"<w:pPr><w:pStyle w:val="{s}"/></w:pPr>"#))
            .unwrap_or_default();
        format!("<w:p>{style}<w:r><w:t xml:space=\"preserve\">{text}</w:t></w:r></w:p>")
    }

    #[test]
    fn headings_paragraphs_lists_tables_and_properties() {
        let list = r#"<w:p><w:pPr><w:numPr><w:ilvl w:val="0"/></w:numPr></w:pPr><w:r><w:t>item &amp; more</w:t></w:r></w:p>"#;
        let table = r#"<w:tbl><w:tr><w:tc><w:p><w:r><w:t>a</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r><w:t>b</w:t></w:r></w:p></w:tc></w:tr></w:tbl>"#;
        let body = [
            p(None, "Intro"),
            p(Some("Heading1"), "Design"),
            p(None, "We chose <b>SQLite</b>".replace('<', "&lt;").as_str()),
            list.to_string(),
            list.to_string(),
            p(Some("Heading2"), "Tables"),
            table.to_string(),
            "<w:p><w:r><w:t>a</w:t><w:tab/><w:t>b</w:t><w:br/><w:t>c</w:t></w:r></w:p>".into(),
        ]
        .concat();
        let core = r#"<cp:coreProperties xmlns:cp="x" xmlns:dc="y" xmlns:dcterms="z"><dc:title>The plan</dc:title><dc:creator>Ada</dc:creator><dcterms:created>2024-03-01T09:00:00Z</dcterms:created></cp:coreProperties>"#;
        let c = read(&docx(&body, Some(core)), &Limits::default()).expect("reads");
        assert_eq!(c.title.as_deref(), Some("The plan"));
        assert_eq!(c.author.as_deref(), Some("Ada"));
        assert_eq!(c.date.as_deref(), Some("2024-03-01T09:00:00Z"));
        let got: Vec<(&str, &str)> = c
            .sections
            .iter()
            .map(|s| (s.anchor.as_str(), s.text.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                ("", "Intro"),
                (
                    "design",
                    "We chose <b>SQLite</b>\n\n- item & more\n- item & more"
                ),
                ("tables", "| a | b |\n| --- | --- |\n\na\tb\nc"),
            ]
        );
    }

    #[test]
    fn bombs_old_files_and_damage_are_refused_with_a_reason() {
        let limits = Limits {
            max_unpacked_bytes: 1 << 20,
            ..Limits::default()
        };
        let big = "<w:p><w:r><w:t>aaaaaaaaaaaaaaaaaaaaaaaa</w:t></w:r></w:p>".repeat(60_000);
        let bomb = docx(&big, None);
        assert!(bomb.len() < 100_000, "compresses well: {}", bomb.len());
        assert!(matches!(
            read(&bomb, &limits),
            Err(ConvertError::TooLarge(_))
        ));
        let mut ole = OLE_MAGIC.to_vec();
        ole.extend_from_slice(&[0; 512]);
        assert!(matches!(
            read(&ole, &limits),
            Err(ConvertError::Unreadable(_))
        ));
        let good = docx(&p(None, "x"), None);
        for cut in [0, 10, good.len() / 2, good.len() - 1] {
            assert!(read(&good[..cut], &limits).is_err(), "cut at {cut}");
        }
        // XML that never closes reads as far as it goes or is refused: never a panic.
        let _ = read(&docx("<w:p><w:r><w:t>open", None), &limits);
    }
}
