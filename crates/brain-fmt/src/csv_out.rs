//! `--csv`: one row per hit with a header, quoted by the csv crate.

use std::io::{self, Write};

use brain_doc::Hit;

use crate::age_label;

/// Column names, in order.
pub(crate) const HEADER: [&str; 14] = [
    "rank",
    "score",
    "strength",
    "uri",
    "docid",
    "collection",
    "path",
    "file",
    "title",
    "date",
    "age_days",
    "age",
    "line",
    "snippet",
];

pub(crate) fn render(hits: &[Hit], out: &mut dyn Write) -> io::Result<()> {
    let mut w = csv::Writer::from_writer(out);
    w.write_record(HEADER)?;
    for h in hits {
        w.write_record([
            h.rank.to_string(),
            h.score.to_string(),
            h.strength.map(|s| s.to_string()).unwrap_or_default(),
            h.uri.clone(),
            h.docid.clone(),
            h.collection.clone(),
            h.path.clone(),
            h.file.clone().unwrap_or_default(),
            h.title.clone(),
            h.date.clone(),
            h.age_days.to_string(),
            age_label(h.age_days),
            h.line.to_string(),
            h.snippet.clone(),
        ])?;
    }
    w.flush()
}
