//! The brain home (`$BRAIN_HOME`, default `~/.brain`): where every file lives, and the locks that keep
//! one writer at a time.
//!
//! Layout (DESIGN.md): `brain.yaml`, `corpus/<collection>/…`, `index/`, `state.sqlite`, `state/`
//! (small per-stage state files), `logs/usage.jsonl`, `inbox/`, `models/`, `locks/`.

mod home;
mod lock;

pub use home::{Home, display_path, home_dir};
pub use lock::{Lock, LockError};
