//! The wire formats of `brain` (schema 1) and the I/O every stage shares.
//!
//! Every stage of the pipeline speaks one of three homogeneous NDJSON record kinds:
//!
//! * [`Doc`] — a normalized document (a session, a browser day, a note, a distilled artifact). Its
//!   markdown file form is YAML frontmatter plus body and round-trips losslessly ([`Doc::to_markdown`],
//!   [`Doc::from_markdown`]).
//! * [`Hit`] — one ranked passage, as `rank` emits and `fmt` renders.
//! * [`ErrorRecord`] — a machine-readable failure, with an [`ErrorCode`] that maps one-to-one onto the
//!   process exit codes of DESIGN.md ([`ErrorCode::exit_code`]).
//!
//! [`ndjson`] reads record streams line by line, reporting a malformed line with its number and going on;
//! [`atomic`] writes files with temp-file-plus-rename so a reader never sees half a file.
//!
//! `docs/FORMATS.md` documents every field with examples; the tests in this crate and in `tests/` parse
//! every stage's output back into these types.

pub mod atomic;
mod doc;
mod error;
mod hash;
mod hit;
pub mod markdown;
pub mod ndjson;

pub use doc::{Doc, DocError, Source, SourcePart};
pub use error::{ErrorCode, ErrorRecord};
pub use hash::{docid, sha256_hex};
pub use hit::Hit;

/// The wire-format version every record carries in its `schema` field.
pub const SCHEMA: u32 = 1;
