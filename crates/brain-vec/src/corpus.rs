//! Reading the corpus for `vecindex --all`: every markdown file of every collection of brain.yaml —
//! the pipeline's own under `$BRAIN_HOME/corpus/` and user folders in place — listed exactly as
//! `lexindex --all` lists them (`brain_store::walk::collection_files`), each read as a document the
//! way the lexical index reads it (`brain_doc::file::FileFacts`: a file without frontmatter is a note
//! titled by its first heading and dated by its mtime).

use std::time::UNIX_EPOCH;

use brain_doc::Doc;
use brain_doc::Source;
use brain_doc::file::FileFacts;
use brain_store::Config;

use crate::index::Input;

/// Every document of the collections of `config`. An unreadable file is reported through `warn` and
/// skipped.
pub fn read(config: &Config, warn: &dyn Fn(String)) -> Vec<Input> {
    let mut out = Vec::new();
    for f in brain_store::walk::collection_files(config, warn) {
        let text = match std::fs::read_to_string(&f.path) {
            Ok(t) => t,
            Err(e) => {
                warn(format!("{}: {e}", f.path.display()));
                continue;
            }
        };
        let mtime = std::fs::metadata(&f.path)
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_secs() as i64);
        let facts = FileFacts::read(&f.rel, &text, mtime);
        let mut source = Source::new(facts.kind, f.path.display().to_string());
        source.agent = facts.agent;
        let id = format!("{}/{}", f.collection, f.rel);
        let mut doc = Doc::new(id, facts.title, &facts.date, source);
        doc.collection = Some(f.collection.clone());
        doc.path = f.rel.clone();
        doc.body = facts.body.to_string();
        // The frontmatter as the file has it (memory fields, tags, …: what a team engine's
        // records carry); the record's own fields are the facts read above.
        for (k, v) in facts.frontmatter {
            if !matches!(
                k.as_str(),
                "title" | "date" | "source" | "id" | "collection" | "path"
            ) {
                doc.meta.insert(k, v);
            }
        }
        if let Some(project) = facts.project {
            doc.meta.insert("project".into(), project.into());
        }
        out.push(Input {
            doc,
            body_line: facts.body_line,
        });
    }
    out
}
