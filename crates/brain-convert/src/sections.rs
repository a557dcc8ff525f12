//! Building a document's sections as its reader meets headings and blocks: one way for every
//! kind, so HTML, DOCX and PDF documents read alike.

use crate::Section;

#[derive(Default)]
pub(crate) struct Sections {
    done: Vec<Section>,
    current: Section,
}

impl Sections {
    /// A heading of `level` starts a section, anchored by `id` when the document gives one, else
    /// by the heading's slug. An empty heading starts nothing.
    pub(crate) fn heading(&mut self, level: u8, id: Option<String>, text: &str) {
        let text = crate::squash(text);
        if text.is_empty() {
            return;
        }
        self.end();
        self.current = Section {
            anchor: id.unwrap_or_else(|| crate::slug(&text)),
            heading: Some(text),
            level,
            text: String::new(),
        };
    }

    /// A paragraph (list items follow each other without a blank line).
    pub(crate) fn block(&mut self, block: &str) {
        if block.trim().is_empty() {
            return;
        }
        let text = &mut self.current.text;
        if !text.is_empty() {
            let list =
                block.starts_with("- ") && text.lines().last().is_some_and(|l| l.starts_with("- "));
            text.push_str(if list { "\n" } else { "\n\n" });
        }
        text.push_str(block);
    }

    fn end(&mut self) {
        let done = std::mem::take(&mut self.current);
        if done.heading.is_some() || !done.text.trim().is_empty() {
            self.done.push(done);
        }
    }

    pub(crate) fn finish(mut self) -> Vec<Section> {
        self.end();
        self.done
    }
}

/// Rows of cells as a markdown table (the first row its header), or `None` when no cell holds
/// text. Rows are padded to the widest; `|` in a cell is escaped.
pub(crate) fn table(rows: &[Vec<String>]) -> Option<String> {
    let rows: Vec<&Vec<String>> = rows
        .iter()
        .filter(|r| r.iter().any(|c| !c.trim().is_empty()))
        .collect();
    let width = rows.iter().map(|r| r.len()).max()?;
    let line = |r: &Vec<String>| {
        let cells: Vec<String> = (0..width)
            .map(|i| r.get(i).map_or(String::new(), |c| c.replace('|', "\\|")))
            .collect();
        format!("| {} |", cells.join(" | "))
    };
    let mut out = vec![line(rows[0]), format!("|{}", " --- |".repeat(width))];
    out.extend(rows[1..].iter().map(|r| line(r)));
    Some(out.join("\n"))
}
