//! The lexical index of `brain`: a tantivy index of markdown *passages* under `$BRAIN_HOME/index/lex/`.
//!
//! * [`schema`] — the fields and what they hold (the contract with the query side);
//! * [`tokenize`] — the code-aware analyzers (`brain_text`, `brain_ident`);
//! * [`passage`] — cutting markdown into passages with line numbers;
//! * [`LexIndex`] — open (missing → exit 65 with a fix), reader, writer.

mod index;
pub mod passage;
pub mod schema;
pub mod search;
pub mod tokenize;

pub use index::{LexError, LexIndex, WRITER_MEMORY};
