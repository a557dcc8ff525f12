//! Chromium-family browser history (Chrome, Chromium, Brave, Edge, Vivaldi) → one markdown document
//! per local day (seed 000 §2, "Chrome ingestion").
//!
//! The stages of a run ([`run()`]):
//! 1. [`snapshot`] — copy `History` with its `-wal`/`-journal` files to a temp folder and open the copy
//!    read-only, so a running browser's lock never blocks and its newest visits are not lost;
//! 2. [`schema`] — find which tables and columns this schema version (20 … 70+) has;
//! 3. [`read`] — stream visits joined with URLs in time order, plus search terms, content annotations
//!    and cluster labels for the same visits;
//! 4. [`policy`] (with [`urls`] and [`nsfw`]) — drop internal, local, denied and NSFW pages, junk
//!    searches and tracking parameters, counting every cut ([`Stats`]);
//! 5. [`days`] and [`clock`] — cut days at local midnight, fold repeated visits, de-duplicate searches;
//! 6. [`render`] — a [`brain_doc::Doc`] per day: id `chrome__<profile-slug>__<YYYY-MM-DD>`, meta
//!    (day, browser, profile, visits, pages, domains, top_domains, searches, topics, history_version),
//!    body `## Searches`, `## Visits`, `## Topics`;
//! 7. [`state`] — remember the last visit id per History file so the next run re-emits only the days
//!    that changed.
//!
//! Documents carry no `source.sha256`: hashing a multi-hundred-megabyte History on every nightly run
//! would cost more than the rest of an incremental run.

pub mod clock;
pub mod days;
pub mod engines;
mod error;
pub mod nsfw;
pub mod policy;
pub mod profiles;
pub mod read;
pub mod render;
mod run;
pub mod schema;
mod select;
pub mod snapshot;
pub mod state;
mod stats;
pub mod urls;

pub use error::ChromeError;
pub use policy::Policy;
pub use profiles::{Browser, Profile};
pub use run::{Options, run};
pub use select::Selection;
pub use stats::Stats;
