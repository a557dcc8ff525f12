//! Turning what a person or an agent types into a document file: a filesystem path,
//! `brain://collection/path`, `collection/path`, a `#docid` from an earlier answer, or an agent's
//! session id (a hit's `session_id`).

use std::path::PathBuf;

use brain_lex::LexIndex;
use brain_lex::search::Searcher;
use brain_store::{Config, Home};

use crate::DocsError;

/// A resolved document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Doc {
    /// `<collection>/<path>` when known (always, unless a plain file path was given).
    pub id: Option<String>,
    /// The markdown file.
    pub file: PathBuf,
}

impl Doc {
    /// `brain://<id>`, or the file path when the document is not in a collection.
    pub fn name(&self) -> String {
        self.id.as_ref().map_or_else(
            || self.file.display().to_string(),
            |id| format!("brain://{id}"),
        )
    }

    /// The collection, when known.
    pub fn collection(&self) -> Option<&str> {
        self.id
            .as_deref()
            .and_then(|id| id.split_once('/'))
            .map(|(c, _)| c)
    }
}

/// Where document ids (`collection/path`, sorted) come from: the lexical index.
pub trait DocIds {
    /// Every document id in the index.
    fn doc_ids(&self) -> Result<Vec<String>, DocsError>;

    /// The ids of the documents of an agent's session id (none by default).
    fn session_docs(&self, _session: &str) -> Result<Vec<String>, DocsError> {
        Ok(Vec::new())
    }

    /// The ids of the records whose frontmatter `id:` is `name` (none by default).
    fn named_docs(&self, _name: &str) -> Result<Vec<String>, DocsError> {
        Ok(Vec::new())
    }
}

/// Opens the index of the home for each call (the CLI: one call per process).
impl DocIds for Home {
    fn doc_ids(&self) -> Result<Vec<String>, DocsError> {
        let lex = LexIndex::open(self)?;
        Ok(Searcher::new(&lex)?.document_ids()?)
    }

    fn session_docs(&self, session: &str) -> Result<Vec<String>, DocsError> {
        let lex = LexIndex::open(self)?;
        Ok(Searcher::new(&lex)?.session_documents(session)?)
    }

    fn named_docs(&self, name: &str) -> Result<Vec<String>, DocsError> {
        match brain_store::Registry::open_existing(self) {
            Ok(Some(reg)) => Ok(reg.docs_named(name)?),
            _ => Ok(Vec::new()),
        }
    }
}

/// An open searcher (a long-running server).
impl DocIds for Searcher {
    fn doc_ids(&self) -> Result<Vec<String>, DocsError> {
        Ok(self.document_ids()?)
    }

    fn session_docs(&self, session: &str) -> Result<Vec<String>, DocsError> {
        Ok(self.session_documents(session)?)
    }
}

/// An open searcher for ids and sessions, and its home's registry for record names (a long-running
/// server: `get` by a record's `id:` as the CLI does).
pub struct OpenIds<'a> {
    pub searcher: &'a Searcher,
    pub home: &'a Home,
}

impl DocIds for OpenIds<'_> {
    fn doc_ids(&self) -> Result<Vec<String>, DocsError> {
        self.searcher.doc_ids()
    }

    fn session_docs(&self, session: &str) -> Result<Vec<String>, DocsError> {
        self.searcher.session_docs(session)
    }

    fn named_docs(&self, name: &str) -> Result<Vec<String>, DocsError> {
        self.home.named_docs(name)
    }
}

/// A known list (tests, caches).
impl DocIds for Vec<String> {
    fn doc_ids(&self) -> Result<Vec<String>, DocsError> {
        Ok(self.clone())
    }
}

/// `ref:from:count` → (`ref`, from, count); only trailing all-digit parts count.
pub fn split_range(s: &str) -> (&str, Option<usize>, Option<usize>) {
    let mut base = s;
    let mut nums = Vec::new();
    while nums.len() < 2 {
        match base.rsplit_once(':') {
            Some((b, n)) if !n.is_empty() && n.bytes().all(|c| c.is_ascii_digit()) => {
                nums.push(n.parse().unwrap_or(usize::MAX));
                base = b;
            }
            _ => break,
        }
    }
    nums.reverse();
    (base, nums.first().copied(), nums.get(1).copied())
}

/// One item of [`Resolver::select`]: the id or reference, and the document or why it failed.
pub type Selected = (String, Result<Doc, DocsError>);

/// Resolves references against the collections of `brain.yaml` and the ids of the index.
pub struct Resolver<'a> {
    config: &'a Config,
    ids: &'a dyn DocIds,
    files: bool,
}

impl<'a> Resolver<'a> {
    /// A resolver that also accepts plain filesystem paths (the CLI: a person's own files).
    pub fn new(config: &'a Config, ids: &'a dyn DocIds) -> Self {
        Resolver {
            config,
            ids,
            files: true,
        }
    }

    /// A resolver limited to documents inside collections (agents over MCP: no arbitrary file reads).
    pub fn collections_only(config: &'a Config, ids: &'a dyn DocIds) -> Self {
        Resolver {
            config,
            ids,
            files: false,
        }
    }

    /// The file of document `id` (`collection/path`) when it is one of its collection's documents
    /// ([`brain_store::walk::servable`]: the rule indexing walks by — nothing hidden, matching the
    /// collection's files, no `..`, no link out of the collection unless it opted in). Unknown
    /// collections and missing files are not found; the rest is refused.
    pub fn file_of_id(&self, id: &str) -> Result<PathBuf, DocsError> {
        use brain_store::walk::Refused;
        let not_found = || DocsError::NotFound(id.to_string());
        let (collection, path) = id.split_once('/').ok_or_else(not_found)?;
        let file =
            brain_store::walk::servable(self.config, collection, path).map_err(|e| match e {
                Refused::NoCollection(_) | Refused::Missing(_) => not_found(),
                other => DocsError::Refused(other),
            })?;
        brain_store::documents::markdown_file(self.config, collection, path, file)
            .map_err(DocsError::NotConverted)
    }

    /// Resolve `reference` (without a line range).
    pub fn resolve(&self, reference: &str) -> Result<Doc, DocsError> {
        let not_found = || DocsError::NotFound(reference.to_string());
        if let Some(hex) = reference.strip_prefix('#') {
            let want = format!("#{}", hex.to_ascii_lowercase());
            let ids: Vec<String> = self
                .ids
                .doc_ids()?
                .into_iter()
                .filter(|id| brain_doc::docid(id) == want)
                .collect();
            return match ids.as_slice() {
                [id] => self.file_of_id(id).map(|file| Doc {
                    id: Some(id.clone()),
                    file,
                }),
                [] => Err(not_found()),
                many => Err(DocsError::Ambiguous {
                    docid: want,
                    ids: many.join(", "),
                }),
            };
        }
        let id = reference.strip_prefix("brain://").unwrap_or(reference);
        let direct = PathBuf::from(reference);
        if self.files && !reference.starts_with("brain://") && direct.is_file() {
            return Ok(Doc {
                id: None,
                file: direct,
            });
        }
        match self.file_of_id(id) {
            Ok(file) => Ok(Doc {
                id: Some(id.to_string()),
                file,
            }),
            Err(DocsError::NotFound(_)) if !self.files && direct.is_absolute() => {
                Err(DocsError::NotInCollection(reference.into()))
            }
            // A record's own name (frontmatter `id:`), else an agent's session id (as hits carry
            // it in `session_id`).
            Err(DocsError::NotFound(_)) if !reference.contains('/') => {
                let mut ids = self.ids.named_docs(reference)?;
                if ids.is_empty() {
                    ids = self.session_docs(reference)?;
                }
                match ids.as_slice() {
                    [id] => self.file_of_id(id).map(|file| Doc {
                        id: Some(id.clone()),
                        file,
                    }),
                    [] => Err(not_found()),
                    many => Err(DocsError::Ambiguous {
                        docid: reference.to_string(),
                        ids: many.join(", "),
                    }),
                }
            }
            Err(DocsError::NotFound(_)) => Err(not_found()),
            Err(e) => Err(e),
        }
    }

    /// The documents of an agent's session id: its transcript (the documents of `sessions`
    /// collections) when there is one, else every document that carries the id (a distilled
    /// summary, a record). A session id names its session wherever a name is accepted, whatever
    /// was made from it since.
    fn session_docs(&self, session: &str) -> Result<Vec<String>, DocsError> {
        let all = self.ids.session_docs(session)?;
        let transcripts: Vec<String> = all
            .iter()
            .filter(|id| {
                id.split_once('/').is_some_and(|(c, _)| {
                    self.config
                        .collections
                        .iter()
                        .any(|k| k.name == c && k.role == brain_store::para::ROLE_SESSIONS)
                })
            })
            .cloned()
            .collect();
        Ok(if transcripts.is_empty() {
            all
        } else {
            transcripts
        })
    }

    /// The other documents made from the session `reference` names (its distilled summary), when
    /// it is an agent's session id: what `get` points to beside the transcript.
    pub fn made_from(&self, reference: &str) -> Vec<String> {
        if reference.contains('/') || reference.starts_with('#') {
            return Vec::new();
        }
        let all = self.ids.session_docs(reference).unwrap_or_default();
        let chosen = self.session_docs(reference).unwrap_or_default();
        all.into_iter().filter(|id| !chosen.contains(id)).collect()
    }

    /// A glob over `collection/path` (indexed documents, in id order), or a comma-separated list of
    /// references, each resolved on its own (in the order given).
    pub fn select(&self, pattern: &str) -> Result<Vec<Selected>, DocsError> {
        if pattern.contains(['*', '?', '[']) {
            let glob = globset::Glob::new(pattern.strip_prefix("brain://").unwrap_or(pattern))
                .map_err(|e| DocsError::BadGlob {
                    pattern: pattern.into(),
                    reason: e.to_string(),
                })?
                .compile_matcher();
            return Ok(self
                .ids
                .doc_ids()?
                .into_iter()
                .filter(|id| glob.is_match(id))
                .map(|id| {
                    let doc = self.file_of_id(&id).map(|file| Doc {
                        id: Some(id.clone()),
                        file,
                    });
                    (id, doc)
                })
                .collect());
        }
        Ok(pattern
            .split(',')
            .map(str::trim)
            .filter(|r| !r.is_empty())
            .map(|r| (r.to_string(), self.resolve(r)))
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_are_trailing_numbers_only() {
        assert_eq!(split_range("#abc123:10:5"), ("#abc123", Some(10), Some(5)));
        assert_eq!(
            split_range("brain://c/p.md:7"),
            ("brain://c/p.md", Some(7), None)
        );
        assert_eq!(
            split_range("brain://c/p.md"),
            ("brain://c/p.md", None, None)
        );
        assert_eq!(split_range("c/a:b.md"), ("c/a:b.md", None, None));
    }

    fn home_with(files: &[&str]) -> (tempfile::TempDir, Config) {
        let dir = tempfile::tempdir().expect("tempdir");
        let home = Home::at(dir.path());
        for f in files {
            let p = dir.path().join("corpus").join(f);
            std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
            std::fs::write(&p, "x\n").expect("write");
        }
        std::fs::write(dir.path().join("secret.txt"), "s\n").expect("write");
        (dir, Config::defaults(&home))
    }

    #[test]
    fn references_of_every_form_resolve() {
        let (dir, config) = home_with(&["brain/2026/04/a.md", "brain/2026/04/b.md"]);
        let ids: Vec<String> = vec!["brain/2026/04/a.md".into(), "brain/2026/04/b.md".into()];
        let r = Resolver::new(&config, &ids);
        let a = dir.path().join("corpus/brain/2026/04/a.md");
        let want = Doc {
            id: Some("brain/2026/04/a.md".into()),
            file: a.clone(),
        };
        assert_eq!(r.resolve("brain://brain/2026/04/a.md").expect("uri"), want);
        assert_eq!(r.resolve("brain/2026/04/a.md").expect("id"), want);
        let docid = brain_doc::docid("brain/2026/04/a.md");
        assert_eq!(r.resolve(&docid.to_uppercase()).expect("docid"), want);
        assert_eq!(r.resolve(&a.display().to_string()).expect("file").id, None);
        assert!(matches!(r.resolve("#000000"), Err(DocsError::NotFound(_))));
    }

    #[test]
    fn agents_cannot_climb_out_of_collections_or_read_plain_files() {
        let (dir, config) = home_with(&["brain/a.md"]);
        let ids: Vec<String> = vec!["brain/a.md".into()];
        let r = Resolver::collections_only(&config, &ids);
        let secret = dir.path().join("secret.txt").display().to_string();
        assert!(matches!(
            r.resolve(&secret),
            Err(DocsError::NotInCollection(_))
        ));
        assert!(matches!(
            r.resolve("brain://brain/../../secret.txt"),
            Err(DocsError::Refused(_))
        ));
        assert!(r.resolve("brain://brain/a.md").is_ok());
    }

    #[test]
    fn select_globs_indexed_ids_and_keeps_list_errors_per_item() {
        let (_dir, config) = home_with(&["brain/a.md", "brain/b.md"]);
        let ids: Vec<String> = vec![
            "brain/a.md".into(),
            "brain/b.md".into(),
            "inbox/c.md".into(),
        ];
        let r = Resolver::new(&config, &ids);
        let got: Vec<String> = r
            .select("brain/*.md")
            .expect("glob")
            .into_iter()
            .map(|(n, _)| n)
            .collect();
        assert_eq!(got, vec!["brain/a.md", "brain/b.md"]);
        let list = r.select("brain/b.md, nope.md").expect("list");
        assert_eq!(list.len(), 2);
        assert!(list[0].1.is_ok() && list[1].1.is_err());
        assert!(matches!(
            r.select("brain/[.md"),
            Err(DocsError::BadGlob { .. })
        ));
    }
}
