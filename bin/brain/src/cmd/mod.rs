//! One subcommand, one file.

pub mod ask;
pub mod browse;
pub mod collection;
pub mod context;
pub mod distill;
pub mod doctor;
pub mod entity;
pub mod eval;
pub mod explain;
pub mod forget;
pub mod get;
pub mod hook;
pub mod inbox;
pub mod mcp;
pub mod memory;
pub mod model;
pub mod multi_get;
pub mod recent;
pub mod related;
pub mod schedule;
pub mod skills;
pub mod stats;
pub mod status;
pub mod strategy;
pub mod tune;
mod usage;
pub mod wm;
