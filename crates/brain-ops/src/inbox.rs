//! A capture (`brain inbox`, MCP's `remember`) as every writer runs: a purge stopped half-way is
//! finished first ([`crate::purge::finish_pending_quietly`], as `lexindex` and `vecindex` do), so
//! text `brain forget --purge` was taking out is not indexed again beside the new entry.

use brain_inbox::{Capture, Captured, InboxError};
use brain_store::Home;

/// [`brain_inbox::capture`] after the stopped purges are finished; what they did is said through
/// `say`.
pub fn capture(home: &Home, req: &Capture, say: &dyn Fn(String)) -> Result<Captured, InboxError> {
    crate::purge::finish_pending_quietly(home, say);
    brain_inbox::capture(home, req)
}
