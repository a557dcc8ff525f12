//! One subcommand, one file.

pub mod ask;
pub mod collection;
pub mod distill;
pub mod eval;
pub mod get;
pub mod mcp;
pub mod multi_get;
