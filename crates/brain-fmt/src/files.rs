//! `--files`: each hit's file once, in rank order, one per line (for `xargs`). A hit without a file on
//! disk is listed by its URI.

use std::io::{self, Write};

use brain_doc::Hit;

pub(crate) fn render(hits: &[Hit], out: &mut dyn Write) -> io::Result<()> {
    let mut seen: Vec<&str> = Vec::new();
    for h in hits {
        let f = h.file.as_deref().unwrap_or(&h.uri);
        if !seen.contains(&f) {
            seen.push(f);
            writeln!(out, "{f}")?;
        }
    }
    Ok(())
}
