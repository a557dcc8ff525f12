//! A model switch without a gap: the store in force (`index/vec/`) keeps answering, with the model
//! that made it, while the new model's vectors are built beside it in `index/vec.next/`; the new
//! store takes its place only when it holds every document. Runs cut short by `--limit`,
//! `--budget` or a kill resume in `vec.next/` (its rows are kept by the same fingerprint), and no
//! search ever reads two models' vectors: each store has one fingerprint, and a query is embedded
//! by the model of the store it searches ([`crate::embed::EmbedderSpec::for_store`]).
//!
//! The swap is two renames (`vec` → `vec.old`, `vec.next` → `vec`) and a removal. A kill between
//! them leaves `vec.old` and `vec.next` and no `vec`: searches answer lexically for that moment, and
//! the next writer finishes the swap ([`recover`]): `vec.next` is marked complete before the first
//! rename and only ever promoted so marked.

use std::path::Path;

use crate::VecError;
use crate::embed::{Embedder, Fingerprint};
use crate::index::{self, Input, Options, Report};
use crate::store::Store;

use crate::store::sibling;
pub use crate::store::{next_dir, stores};

/// Finish a swap a kill interrupted, and drop a leftover of one that finished.
pub fn recover(dir: &Path) -> Result<(), VecError> {
    let old = sibling(dir, "old");
    let next = next_dir(dir);
    if !old.exists() {
        return Ok(());
    }
    if !dir.exists() && next.join(COMPLETE).exists() {
        std::fs::rename(&next, dir).map_err(VecError::io(dir))?;
        let _ = std::fs::remove_file(dir.join(COMPLETE));
    } else if !dir.exists() {
        // No new store to promote: the old one comes back.
        std::fs::rename(&old, dir).map_err(VecError::io(dir))?;
        return Ok(());
    }
    std::fs::remove_dir_all(&old).map_err(VecError::io(&old))
}

/// What [`update`] did: the run's report, and whether it went into the next model's store.
#[derive(Debug, Clone)]
pub struct Switched {
    pub report: Report,
    /// The run embedded for a model other than the store in force's, into `vec.next/`.
    pub staged: bool,
    /// The next store was complete and is now in force.
    pub promoted: bool,
}

/// Bring the vectors up to date with `embedder`: in place when the store in force was made by it
/// (or there is none), else in `vec.next/`, promoted when a run over the whole corpus leaves
/// nothing pending.
pub fn update(
    dir: &Path,
    embedder: &dyn Embedder,
    inputs: &[Input],
    opts: &Options,
    progress: &dyn Fn(usize),
) -> Result<Switched, VecError> {
    recover(dir)?;
    let fp = Fingerprint::of(embedder, opts.chunking);
    let in_force = match Store::open(dir) {
        Ok(s) => Some(s.manifest.fingerprint.clone()),
        Err(VecError::IndexMissing { .. } | VecError::IndexCorrupt { .. }) => None,
        Err(e) => return Err(e),
    };
    let next = next_dir(dir);
    if in_force.as_ref().is_none_or(|f| *f == fp) {
        // A switch back to the model in force leaves nothing to build.
        if next.exists() {
            std::fs::remove_dir_all(&next).map_err(VecError::io(&next))?;
        }
        let report = index::update(dir, embedder, inputs, opts, progress)?;
        return Ok(Switched {
            report,
            staged: false,
            promoted: false,
        });
    }
    let report = index::update(&next, embedder, inputs, opts, progress)?;
    // Complete only over the whole corpus (`--all`, which prunes): a run over some documents on
    // stdin cannot tell whether the next store lacks others the store in force holds.
    let complete = opts.prune && report.pending == 0 && report.over_cap.is_none();
    if complete {
        promote(dir)?;
    }
    Ok(Switched {
        report,
        staged: true,
        promoted: complete,
    })
}

/// Marks a next store as complete, just before the swap (what [`recover`] may promote).
const COMPLETE: &str = "complete";

/// Put `vec.next/` in force.
fn promote(dir: &Path) -> Result<(), VecError> {
    let old = sibling(dir, "old");
    let next = next_dir(dir);
    brain_doc::atomic::write(&next.join(COMPLETE), b"").map_err(VecError::io(&next))?;
    if dir.exists() {
        std::fs::rename(dir, &old).map_err(VecError::io(dir))?;
    }
    std::fs::rename(&next, dir).map_err(VecError::io(dir))?;
    let _ = std::fs::remove_file(dir.join(COMPLETE));
    if old.exists() {
        std::fs::remove_dir_all(&old).map_err(VecError::io(&old))?;
    }
    Ok(())
}
