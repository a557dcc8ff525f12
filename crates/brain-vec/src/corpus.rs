//! Reading the corpus for `vecindex --all`: every markdown file under `$BRAIN_HOME/corpus/<collection>/`.

use std::path::Path;

use brain_doc::Doc;

use crate::index::Input;

/// Every `*.md` under `root` as an [`Input`], sorted by path. A file that is not a valid document is
/// reported through `warn` and skipped. A file without an `id` gets `<collection>/<path>` from its place.
pub fn read(root: &Path, warn: &dyn Fn(String)) -> Vec<Input> {
    let mut out = Vec::new();
    let walker = walkdir::WalkDir::new(root)
        .sort_by_file_name()
        .follow_links(true);
    for entry in walker.into_iter().filter_map(Result::ok) {
        let p = entry.path();
        if !entry.file_type().is_file() || p.extension().is_none_or(|x| x != "md") {
            continue;
        }
        let Ok(rel) = p.strip_prefix(root) else {
            continue;
        };
        let rel = rel.to_string_lossy().replace('\\', "/");
        let text = match std::fs::read_to_string(p) {
            Ok(t) => t,
            Err(e) => {
                warn(format!("{}: {e}", p.display()));
                continue;
            }
        };
        let (collection, path) = rel.split_once('/').unwrap_or(("", rel.as_str()));
        let mut doc = match Doc::from_markdown(&text) {
            Ok(d) => d,
            Err(e) => {
                warn(format!("{}: {e}", p.display()));
                continue;
            }
        };
        if doc.collection.is_none() && !collection.is_empty() {
            doc.collection = Some(collection.to_string());
        }
        doc.id = format!("{collection}/{path}");
        doc.path = path.to_string();
        let body_line = brain_doc::markdown::body_start_line(&text, &doc.body);
        out.push(Input { doc, body_line });
    }
    out
}
