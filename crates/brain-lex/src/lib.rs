//! The lexical index of `brain`: a tantivy index of markdown *passages* under `$BRAIN_HOME/index/lex/`.
//!
//! * [`schema`] — the fields and what they hold (the contract with the query side);
//! * [`tokenize`] — the code-aware analyzers (`brain_text`, `brain_ident`);
//! * [`passage`] — cutting markdown into passages with line numbers;
//! * [`LexIndex`] — open (missing → exit 65 with a fix), reader, writer;
//! * [`Indexer`] — one locked, incremental indexing run over doc records or the collections on disk;
//! * [`dump`] — every passage the index holds;
//! * the files of a collection are listed by `brain_store::walk` (glob, hidden entries skipped), as every stage sees them.

mod document;
mod dump;
pub mod graph;
mod index;
pub mod lifecycle;
pub use brain_doc::passage;
pub mod queue;
mod read_only;
pub mod schema;
pub mod search;
mod sync;
pub mod tokenize;

pub use document::{Prepared, Shape, format_secs, meta_refs, parse_date, ref_query, ref_terms};
pub use dump::{PassageRecord, dump};
pub use index::{
    BULK_WRITER_MEMORY, LexError, LexIndex, NEW_INDEX_ONE_SEGMENT, SMALL_SEGMENT_PASSAGES,
    SMALL_SEGMENTS_BEFORE_MERGE, WRITER_MEMORY,
};
pub use sync::{Indexer, Summary, SyncError};
