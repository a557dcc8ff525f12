//! One subcommand, one file.

pub mod ask;
pub mod collection;
pub mod distill;
pub mod eval;
pub mod get;
pub mod inbox;
pub mod multi_get;
pub mod recent;
mod resolve;
pub mod stats;
mod usage;
