//! Turning what a person types into a document file: a filesystem path, `brain://collection/path`,
//! `collection/path`, or a `#docid` from an earlier answer.

use std::path::PathBuf;

use brain_cli::Failure;
use brain_doc::ErrorCode;
use brain_lex::LexIndex;
use brain_lex::search::Searcher;
use brain_store::{Config, Home};

/// A resolved document.
pub struct Doc {
    /// `<collection>/<path>` when known.
    pub id: Option<String>,
    pub file: PathBuf,
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

/// Every document id in the index (for `#docid` and globs).
pub fn index_ids(home: &Home) -> Result<Vec<String>, Failure> {
    let lex = LexIndex::open(home)
        .map_err(|e| Failure::new(e.code(), e.to_string()).with_fix(e.fix()))?;
    let s = Searcher::new(&lex).map_err(|e| Failure::new(ErrorCode::Internal, e.to_string()))?;
    s.document_ids()
        .map_err(|e| Failure::new(ErrorCode::Internal, e.to_string()))
}

/// The file of document `id` (`collection/path`), through brain.yaml.
pub fn file_of_id(config: &Config, id: &str) -> Option<PathBuf> {
    let (collection, path) = id.split_once('/')?;
    config.collection_dir(collection).map(|d| d.join(path))
}

/// Resolve `reference` (without a range).
pub fn resolve(home: &Home, config: &Config, reference: &str) -> Result<Doc, Failure> {
    let not_found = || {
        Failure::new(ErrorCode::NoResults, format!("no document `{reference}`"))
            .with_fix("use a path, brain://collection/path or a #docid from `brain ask`")
    };
    if let Some(hex) = reference.strip_prefix('#') {
        let want = format!("#{}", hex.to_ascii_lowercase());
        let ids: Vec<String> = index_ids(home)?
            .into_iter()
            .filter(|id| brain_doc::docid(id) == want)
            .collect();
        return match ids.as_slice() {
            [id] => file_of_id(config, id)
                .map(|file| Doc {
                    id: Some(id.clone()),
                    file,
                })
                .ok_or_else(not_found),
            [] => Err(not_found()),
            many => Err(Failure::new(
                ErrorCode::BadQuery,
                format!("{want} is ambiguous: {}", many.join(", ")),
            )),
        };
    }
    let id = reference.strip_prefix("brain://").unwrap_or(reference);
    let direct = PathBuf::from(reference);
    if !reference.starts_with("brain://") && direct.is_file() {
        return Ok(Doc {
            id: None,
            file: direct,
        });
    }
    match file_of_id(config, id) {
        Some(file) if file.is_file() => Ok(Doc {
            id: Some(id.to_string()),
            file,
        }),
        _ => Err(not_found()),
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
}
