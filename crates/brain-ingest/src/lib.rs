//! Agent session transcripts → markdown documents: the library behind `jsonl2md`.
//!
//! * [`discover`] walks folders, groups each session with its subagent transcripts (both Claude Code
//!   layouts).
//! * [`claude`], [`codex`], [`gemini`] parse each agent's format into the neutral [`session::Session`];
//!   [`tools`] summarizes tool calls one line each; [`render`] writes seed 004's markdown
//!   (`## Conversation`, `## Tools Used`, `## Reasoning`, `## Subagents`) with frontmatter.
//! * redaction (secrets, `<private>` spans, base64 blobs, `brain:do-not-index`) is the `brain-redact`
//!   crate, shared with every other producer.
//! * [`state`] keeps `--new` incremental and appends to the distillation queue; [`run`] ties it together,
//!   converting sessions in parallel with rayon while writing documents in input order.

pub mod aider;
pub mod claude;
pub mod codex;
pub mod convert;
pub mod cursor;
pub mod discover;
pub mod gemini;
pub mod lines;
pub mod many;
pub mod opencode;
pub mod refs;
pub mod render;
pub mod run;
pub mod session;
pub mod state;
mod thread;
pub mod tools;

pub use run::{Options, Sink, Summary, run, run_bytes};
