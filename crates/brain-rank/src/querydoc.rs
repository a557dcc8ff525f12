//! QMD-compatible structured query documents (QMD's docs/SYNTAX.md): one typed sub-query per line.
//!
//! ```text
//! lex: "rate limiter" token bucket -draft
//! vec: how does the API throttle clients that send too many requests
//! hyde: The gateway uses a token bucket per API key; a client over 100 requests a minute gets 429.
//! intent: I am debugging why a batch job gets 429 responses
//! ```
//!
//! * `lex:` — our query language (words, `"phrases"`, `-negation`, `field:value` filters; a filter
//!   on any lex line restricts the whole search);
//! * `vec:` — a natural-language question, embedded and searched by cosine;
//! * `hyde:` — a hypothetical answer passage, embedded the same way (the HyDE technique);
//! * `intent:` — at most one: what the searcher is trying to do; it steers the reranker and query
//!   expansion, it is not searched itself.
//!
//! Type names are case-insensitive; blank lines are ignored; the first sub-query is the original and
//! weighs double in fusion. A single line without a type is a plain query (the lex + vec pair of the
//! same text), so a query only becomes a document when its first line is typed; then every non-blank
//! line must be.

/// Which retriever a sub-query goes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SearchKind {
    /// BM25 over the lexical index.
    Lex,
    /// Cosine over the vector store, the text embedded as a question.
    Vec,
    /// Cosine over the vector store, the text a hypothetical answer.
    Hyde,
}

impl SearchKind {
    /// The name used in documents, signals and the MCP `searches` argument.
    pub fn name(self) -> &'static str {
        match self {
            SearchKind::Lex => "lex",
            SearchKind::Vec => "vec",
            SearchKind::Hyde => "hyde",
        }
    }

    /// Parse a type name (`lex`, `vec`, `hyde`; any case).
    pub fn parse(s: &str) -> Option<SearchKind> {
        match s.trim().to_ascii_lowercase().as_str() {
            "lex" => Some(SearchKind::Lex),
            "vec" => Some(SearchKind::Vec),
            "hyde" => Some(SearchKind::Hyde),
            _ => None,
        }
    }

    /// Does this sub-query need the vector store and an embedder?
    pub fn is_vector(self) -> bool {
        !matches!(self, SearchKind::Lex)
    }
}

/// One typed sub-query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SubQuery {
    pub kind: SearchKind,
    pub text: String,
}

impl SubQuery {
    pub fn new(kind: SearchKind, text: impl Into<String>) -> Self {
        SubQuery {
            kind,
            text: text.into(),
        }
    }
}

/// A parsed query document.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct QueryDoc {
    /// The sub-queries in document order (the first is the original).
    pub searches: Vec<SubQuery>,
    /// The `intent:` line, if any.
    pub intent: Option<String>,
}

/// Most typed sub-queries one document may hold (MCP's `searches` too): each is a search of its own,
/// and 3,854 `lex:` lines took 20.7 s and 564 MB before this bound (issue 58). Our choice: QMD's
/// expansion writes a handful; ten leave room for a hand-written document.
pub const MAX_SEARCHES: usize = 10;

/// Why a query document was rejected (exit 64); `line` is 1-based within the document.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum QueryDocError {
    #[error(
        "query document line {line}: `{text}` has no type; every line starts with lex:, vec:, hyde: or intent:"
    )]
    Untyped { line: usize, text: String },
    #[error("query document line {line}: unknown type `{kind}:`; use lex:, vec:, hyde: or intent:")]
    UnknownType { line: usize, kind: String },
    #[error("query document line {line}: `{kind}:` has no text")]
    EmptyLine { line: usize, kind: String },
    #[error("query document line {line}: a second intent: line (at most one per document)")]
    DuplicateIntent { line: usize },
    #[error(
        "query document line {line}: `expand:` needs a local LLM; pass --expand-cmd CMD to expand a plain query, or write the lex:/vec:/hyde: lines yourself"
    )]
    Expand { line: usize },
    #[error("the query document has no lex:, vec: or hyde: line")]
    NoSearches,
    #[error(
        "query document line {line}: a sub-query past the {MAX_SEARCHES} a document may hold; merge or drop lines"
    )]
    TooMany { line: usize },
}

impl QueryDocError {
    /// The 1-based line the error is about, if it is about one.
    pub fn line(&self) -> Option<usize> {
        match self {
            QueryDocError::Untyped { line, .. }
            | QueryDocError::UnknownType { line, .. }
            | QueryDocError::EmptyLine { line, .. }
            | QueryDocError::DuplicateIntent { line }
            | QueryDocError::Expand { line }
            | QueryDocError::TooMany { line } => Some(*line),
            QueryDocError::NoSearches => None,
        }
    }
}

/// The type names a document line may start with (`expand:` is QMD's local-LLM expansion; here
/// expansion is `--expand-cmd`, so the name is recognized only to explain that).
const TYPES: [&str; 5] = ["lex", "vec", "hyde", "intent", "expand"];

/// `Some((type, text))` when `line` starts with `<word>:` where word is alphabetic; the type is
/// lower-cased.
fn typed(line: &str) -> Option<(String, &str)> {
    let (head, rest) = line.split_once(':')?;
    let head = head.trim();
    (!head.is_empty() && head.len() <= 12 && head.chars().all(|c| c.is_ascii_alphabetic()))
        .then(|| (head.to_ascii_lowercase(), rest.trim()))
}

impl QueryDoc {
    /// Is `text` a structured document? True when its first non-blank line starts with one of the
    /// document types. `collection:brain lock` is a plain query with a filter, not a document.
    pub fn is_document(text: &str) -> bool {
        text.lines()
            .map(str::trim)
            .find(|l| !l.is_empty())
            .and_then(typed)
            .is_some_and(|(t, _)| TYPES.contains(&t.as_str()))
    }

    /// Parse a document (see the module docs).
    pub fn parse(text: &str) -> Result<QueryDoc, QueryDocError> {
        let mut doc = QueryDoc::default();
        for (i, raw) in text.lines().enumerate() {
            let line = i + 1;
            let l = raw.trim();
            if l.is_empty() {
                continue;
            }
            let Some((kind, body)) = typed(l).filter(|(t, _)| {
                TYPES.contains(&t.as_str()) || {
                    // `word:` that is not a type: unknown type when it looks like one (`lexx:`), else
                    // untyped text (`collection:brain lock` on a later line).
                    !crate::query::FILTER_FIELDS.contains(&t.as_str())
                }
            }) else {
                return Err(QueryDocError::Untyped {
                    line,
                    text: l.into(),
                });
            };
            if body.is_empty() {
                return Err(QueryDocError::EmptyLine { line, kind });
            }
            match kind.as_str() {
                "intent" if doc.intent.is_some() => {
                    return Err(QueryDocError::DuplicateIntent { line });
                }
                "intent" => doc.intent = Some(body.into()),
                "expand" => return Err(QueryDocError::Expand { line }),
                _ if doc.searches.len() == MAX_SEARCHES => {
                    return Err(QueryDocError::TooMany { line });
                }
                other => match SearchKind::parse(other) {
                    Some(k) => doc.searches.push(SubQuery::new(k, body)),
                    None => {
                        return Err(QueryDocError::UnknownType { line, kind });
                    }
                },
            }
        }
        if doc.searches.is_empty() {
            return Err(QueryDocError::NoSearches);
        }
        Ok(doc)
    }

    /// Render back to the line format (for caches and `--explain`).
    pub fn render(&self) -> String {
        let mut s = String::new();
        for q in &self.searches {
            s.push_str(q.kind.name());
            s.push_str(": ");
            s.push_str(&q.text.replace('\n', " "));
            s.push('\n');
        }
        if let Some(i) = &self.intent {
            s.push_str("intent: ");
            s.push_str(&i.replace('\n', " "));
            s.push('\n');
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_document_is_parsed_in_order_with_its_intent() {
        let d = QueryDoc::parse(
            "lex: \"rate limiter\" -draft\n\n  VEC: how is throttling done\nhyde: A token bucket per key.\nintent: fix 429s\n",
        )
        .expect("parse");
        assert_eq!(
            d.searches,
            vec![
                SubQuery::new(SearchKind::Lex, "\"rate limiter\" -draft"),
                SubQuery::new(SearchKind::Vec, "how is throttling done"),
                SubQuery::new(SearchKind::Hyde, "A token bucket per key."),
            ]
        );
        assert_eq!(d.intent.as_deref(), Some("fix 429s"));
        assert_eq!(QueryDoc::parse(&d.render()), Ok(d));
    }

    #[test]
    fn plain_queries_are_not_documents() {
        assert!(!QueryDoc::is_document("why did the build fail"));
        assert!(!QueryDoc::is_document("collection:brain lock contention"));
        assert!(!QueryDoc::is_document("std::fs::read error"));
        assert!(QueryDoc::is_document("\n  lex: lock"));
        assert!(QueryDoc::is_document("intent: x\nvec: y"));
    }

    #[test]
    fn bad_documents_name_the_line() {
        let e = QueryDoc::parse("lex: a\nplain words").expect_err("untyped");
        assert_eq!(e.line(), Some(2));
        assert!(matches!(e, QueryDocError::Untyped { .. }));
        let e = QueryDoc::parse("lex: a\nlexx: b").expect_err("unknown");
        assert!(
            matches!(e, QueryDocError::UnknownType { line: 2, .. }),
            "{e}"
        );
        let e = QueryDoc::parse("lex: a\ncollection:brain").expect_err("filter line");
        assert!(matches!(e, QueryDocError::Untyped { line: 2, .. }), "{e}");
        let e = QueryDoc::parse("vec:   ").expect_err("empty");
        assert!(matches!(e, QueryDocError::EmptyLine { line: 1, .. }));
        let e = QueryDoc::parse("intent: a\nlex: b\nintent: c").expect_err("two intents");
        assert_eq!(e, QueryDocError::DuplicateIntent { line: 3 });
        assert_eq!(QueryDoc::parse("intent: a"), Err(QueryDocError::NoSearches));
        let e = QueryDoc::parse("expand: a").expect_err("expand");
        assert_eq!(e, QueryDocError::Expand { line: 1 });
        // At most MAX_SEARCHES sub-queries; the intent and blank lines do not count.
        let ten: String = (0..MAX_SEARCHES)
            .map(|i| format!("lex: w{i}\n\n"))
            .collect();
        let doc = QueryDoc::parse(&format!("intent: x\n{ten}")).expect("ten");
        assert_eq!(doc.searches.len(), MAX_SEARCHES);
        let flood: String = (0..3854).map(|i| format!("lex: w{i}\n")).collect();
        let e = QueryDoc::parse(&flood).expect_err("a flood");
        assert_eq!(
            e,
            QueryDocError::TooMany {
                line: MAX_SEARCHES + 1
            }
        );
    }
}
