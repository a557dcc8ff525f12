//! `brain browse`: a local web view of everything brain remembers (seed 001's browsable memory) —
//! the overview (`brain status`'s and `doctor`'s facts), a timeline by day, search with the query
//! language of `ask`, documents, sessions turn by turn, entities. One more surface over the same
//! index and files: nothing here writes to the home.
//!
//! **Safety.** The socket is bound to `127.0.0.1`. Every request must carry the run's random token —
//! as `?t=` (the URL the command prints; answered with a cookie and a redirect to the same URL
//! without it) or as that cookie (`HttpOnly`, `SameSite=Strict`) — so other local users and web
//! pages cannot read the memory; a `Host` or `Origin` that is not loopback is refused (DNS
//! rebinding). Only `GET` and `HEAD` are served. Pages are rendered by templates that escape every
//! value, documents by [`markdown`] (raw HTML shown as text, only web and mail links), and every
//! answer forbids scripts, frames and foreign loads by its Content-Security-Policy. Files are
//! served only through the collection walk's `servable` check (no `..`, no link out of a
//! collection, no file a collection does not hold).

pub mod app;
pub mod markdown;
pub(crate) mod pages;
pub mod running;
pub mod server;
mod templates;
pub mod url;

pub use app::{App, Reply};
pub use running::{Running, running};
pub use server::{BrowseError, DEFAULT_PORT, Listener, Request, bind, respond};
