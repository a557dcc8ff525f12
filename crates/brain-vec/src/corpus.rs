//! Reading the corpus for `vecindex --all`: every markdown file of every collection of brain.yaml —
//! the pipeline's own under `$BRAIN_HOME/corpus/` and user folders in place — listed exactly as
//! `lexindex --all` lists them (`brain_lex::walk::collection_files`), each made a document the way the
//! lexical index reads it (`brain_lex::Prepared::from_file`: a file without frontmatter is a note
//! titled by its first heading and dated by its mtime).

use std::time::UNIX_EPOCH;

use brain_doc::{Doc, Source, markdown};
use brain_lex::Prepared;
use brain_store::Config;

use crate::index::Input;

/// Every document of the collections of `config`. An unreadable file is reported through `warn` and
/// skipped.
pub fn read(config: &Config, warn: &dyn Fn(String)) -> Vec<Input> {
    let mut out = Vec::new();
    for f in brain_lex::walk::collection_files(config, warn) {
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
        let p = Prepared::from_file(&f.collection, &f.rel, &f.path, &text, mtime);
        let body = match markdown::split(&text) {
            Ok((_, body)) => body,
            Err(_) => text.as_str(),
        };
        let source = Source {
            kind: p.kind.clone(),
            agent: p.agent.clone(),
            file: p.file.clone(),
            lines: None,
            sha256: None,
            parts: vec![],
        };
        let mut doc = Doc::new(p.id.clone(), p.title.clone(), &p.date, source);
        doc.collection = Some(f.collection.clone());
        doc.path = f.rel.clone();
        doc.body = body.to_string();
        if let Some(project) = &p.project {
            doc.meta.insert("project".into(), project.clone().into());
        }
        let body_line = markdown::body_start_line(&text, body);
        out.push(Input { doc, body_line });
    }
    out
}
