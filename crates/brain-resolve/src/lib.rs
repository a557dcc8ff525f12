//! Documents by reference, for `brain get`, `brain multi-get` and the MCP `get` / `multi_get` tools and
//! `brain://` resources — one implementation behind every surface.
//!
//! * [`split_range`] — `ref:from:count` → the reference and its optional line range;
//! * [`Resolver`] — a filesystem path, `brain://collection/path`, `collection/path` or a `#docid` (from
//!   an earlier answer) → the document's file; [`Resolver::select`] takes a glob over `collection/path`
//!   or a comma-separated list;
//! * [`read_lines`] / [`read_doc`] — a line range with optional line numbers under a byte cap, or a whole
//!   document unless it is larger than a cap (then a [`Skip`] says why).
//!
//! Document ids come from the lexical index through [`DocIds`]: the CLI opens the index of a [`Home`]
//! per call; a long-running server passes its open searcher.
//!
//! [`Home`]: brain_store::Home

mod error;
mod read;
mod resolve;

pub use error::DocsError;
pub use read::{Body, Lines, Skip, read_doc, read_lines};
pub use resolve::{Doc, DocIds, OpenIds, Resolver, Selected, split_range};
