//! The handles the MCP server keeps open ([`brain_rank::handles::Handles`]), and the one thing
//! only this server asks of them: a source of document ids for `get`, `multi_get` and resources.

use brain_doc::ErrorRecord;
use brain_resolve::DocIds;
use brain_store::Config;

pub use brain_rank::handles::Handles;

/// The config and a source of document ids for `get` / `multi_get` / resources: the open
/// searcher, or (no index) the home, whose lookup then reports the missing index when a `#docid`
/// or glob needs it.
pub fn docs(h: &mut Handles) -> Result<(&Config, Box<dyn DocIds + '_>), ErrorRecord> {
    let (config, ranker, home) = h.parts()?;
    let ids: Box<dyn DocIds + '_> = match ranker {
        Some(r) => Box::new(brain_resolve::OpenIds {
            searcher: r.searcher(),
            home,
        }),
        None => Box::new(home.clone()),
    };
    Ok((config, ids))
}
