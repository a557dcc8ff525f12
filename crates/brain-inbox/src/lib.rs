//! Typed capture into the inbox (seed 000 §5, §8.3): `brain inbox "text"` and the MCP `remember` tool
//! append an entry to `$BRAIN_HOME/inbox/YYYY-MM-DD.md` and make it searchable at once.
//!
//! * [`capture`] — the one entry point: guard, sanitize, append under the `inbox` lock (bounded
//!   wait, contention → exit 70), index the day file, log an `inbox_write` / `inbox_refused` row;
//! * [`sanitize`] — nothing in text, tags or project can inject YAML, a `---` line or an entry header;
//! * [`guard`] — secrets are refused (exit 71), derivable noise gated unless forced;
//! * [`dayfile`] — the day file's format, and parsing it back.
//!
//! ```no_run
//! use brain_doc::Classified;
//! use brain_inbox::{Capture, EntryType, capture};
//! let home = brain_store::Home::from_env();
//! let mut req = Capture::new("Keep BM25 as the default path", jiff::Zoned::now());
//! req.kind = EntryType::Decision;
//! match capture(&home, &req) {
//!     Ok(c) => println!("{} {}", c.entry_id, c.uri),
//!     Err(e) => eprintln!("{e} (exit {}; fix: {})", e.code().exit_code(), e.fix()),
//! }
//! ```

mod capture;
pub mod dayfile;
pub mod guard;
mod record;
pub mod sanitize;

pub use capture::{
    COLLECTION, Capture, Captured, INDEX_WAIT, InboxError, LOCK_WAIT, MAX_BYTES, capture,
};
pub use dayfile::{Entry, EntryType};
pub use record::RecordFields;
